import { ConfigError } from '../errors.js';
import type { OutputFormat } from './io.js';

/**
 * The `--format`s each command prints, the one place that decides it: a format a command does
 * not print is refused before the command starts, never turned silently into another.
 * - `text`: for a terminal (every command);
 * - `json`: one document on stdout, whatever happens (src/render/json-output.ts);
 * - `markdown`: a pull-request comment (plan, drift, diff-env);
 * - `github`: workflow-command annotations, then the markdown (plan, drift), or the diagnostics
 *   as annotations (validate), or the policy violations as annotations, then the text (apply).
 * Keys are the command's words as typed (`snapshot save`).
 */
export const COMMAND_FORMATS = {
  validate: ['text', 'json', 'github'],
  status: ['text', 'json'],
  plan: ['text', 'markdown', 'json', 'github'],
  apply: ['text', 'json', 'github'],
  drift: ['text', 'markdown', 'json', 'github'],
  'diff-env': ['text', 'markdown', 'json'],
  import: ['text', 'json'],
  'snapshot save': ['text', 'json'],
  'snapshot list': ['text', 'json'],
  'snapshot verify': ['text', 'json'],
  'snapshot diff': ['text', 'json'],
  'snapshot restore': ['text', 'json'],
  show: ['text', 'markdown', 'json', 'github'],
  fmt: ['text', 'json', 'github'],
  init: ['text', 'json'],
  explain: ['text', 'markdown', 'json'],
  completion: ['text'],
  __environments: ['text'],
  emulator: ['text'],
  'scheduler start': ['text', 'json'],
} as const satisfies Record<string, readonly OutputFormat[]>;

type CommandPath = keyof typeof COMMAND_FORMATS;

/** Refuse a format the command does not print: `apply prints text or json, not markdown`. */
export function checkFormat(command: string, format: OutputFormat): void {
  const formats = formatsOf(command);
  if (formats.includes(format)) return;
  throw new ConfigError(`${command} prints ${orList(formats)}, not ${format}`);
}

/** The formats of a command; a command without a row is a bug (every command has one). */
function formatsOf(command: string): readonly OutputFormat[] {
  if (!Object.hasOwn(COMMAND_FORMATS, command)) throw new Error(`bug: no --format row for the command "${command}" in src/cli/formats.ts`);
  return COMMAND_FORMATS[command as CommandPath];
}

function orList(items: readonly string[]): string {
  return items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} or ${items[items.length - 1]}`;
}
