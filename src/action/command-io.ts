import type { CommandIo } from '../cli/io.js';

/**
 * A CommandIo for running the CLI's commands inside the Action: stdout (the command's result)
 * is kept for the Action to pick apart, stderr (progress, warnings) goes straight to the log.
 */
export interface CapturedIo extends CommandIo {
  /** Everything the command wrote to stdout so far. */
  out(): string;
}

export function captureCommandIo(env: NodeJS.ProcessEnv, cwd: string, log: (text: string) => void): CapturedIo {
  let out = '';
  return {
    stdout: (t) => void (out += t),
    stderr: (t) => log(t),
    env,
    cwd,
    isTty: false,
    stderrIsTty: false,
    out: () => out,
  };
}

/** An annotation line a command printed (`--format github`), read back. */
export interface ParsedAnnotation {
  readonly level: 'error' | 'warning' | 'notice';
  readonly file?: string;
  readonly line?: number;
  readonly message: string;
}

/** Workflow-command lines of a command's output, as written, and parsed. */
export function splitAnnotations(stdout: string): { lines: string[]; parsed: ParsedAnnotation[] } {
  const lines = stdout.split('\n').filter((l) => /^::(error|warning|notice)( |::)/.test(l));
  return { lines, parsed: lines.map(parseAnnotation).filter((a): a is ParsedAnnotation => a !== undefined) };
}

export function parseAnnotation(line: string): ParsedAnnotation | undefined {
  const m = /^::(error|warning|notice)(?: ([^:]*))?::(.*)$/.exec(line);
  if (m === null) return undefined;
  const level = m[1] as ParsedAnnotation['level'];
  const props = new Map<string, string>();
  for (const part of (m[2] ?? '').split(',')) {
    const eq = part.indexOf('=');
    if (eq > 0) props.set(part.slice(0, eq), unescape(part.slice(eq + 1)));
  }
  const file = props.get('file');
  const lineNo = Number(props.get('line'));
  return { level, ...(file !== undefined ? { file } : {}), ...(Number.isInteger(lineNo) && lineNo > 0 ? { line: lineNo } : {}), message: unescape(m[3] ?? '') };
}

/** `FILE:LINE: message` (first line of the message), for comments and summaries. */
export function describeAnnotation(a: ParsedAnnotation): string {
  const where = a.file === undefined ? '' : `${a.file}${a.line === undefined ? '' : `:${a.line}`}: `;
  return `${where}${a.message.split('\n')[0] ?? ''}`;
}

function unescape(text: string): string {
  return text.replace(/%(25|0D|0A|3A|2C)/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}
