import { randomBytes } from 'node:crypto';
import { appendFileSync, statSync } from 'node:fs';
import { escapeData, escapeProperty } from '../render/diagnostics.js';

/**
 * The runner's side of a step, written the way `@actions/core` writes it but without the
 * dependency: workflow commands on stdout (annotations, groups, masks), outputs in the
 * `GITHUB_OUTPUT` file, markdown in the `GITHUB_STEP_SUMMARY` file.
 */

/** Annotation levels GitHub shows on the run and, with a file, on the pull request's diff. */
export type AnnotationLevel = 'error' | 'warning' | 'notice';

/** Where an annotation points; `file` relative to the repository root. */
export interface AnnotationPlace {
  readonly file?: string;
  readonly line?: number;
  readonly col?: number;
  readonly title?: string;
}

/** GitHub keeps at most this much summary per step (1 MiB); more and the whole summary is dropped. */
export const STEP_SUMMARY_LIMIT_BYTES = 1024 * 1024;

/** `::error file=F,line=L,col=C,title=T::message`, escaped so any text stays one command. */
export function formatAnnotation(level: AnnotationLevel, message: string, place: AnnotationPlace = {}): string {
  const props: string[] = [];
  if (place.file !== undefined) props.push(`file=${escapeProperty(place.file)}`);
  if (place.line !== undefined) props.push(`line=${place.line}`);
  if (place.col !== undefined) props.push(`col=${place.col}`);
  if (place.title !== undefined) props.push(`title=${escapeProperty(place.title)}`);
  return `::${level}${props.length > 0 ? ` ${props.join(',')}` : ''}::${escapeData(message)}\n`;
}

/**
 * One output in `GITHUB_OUTPUT` syntax: `name<<DELIMITER`, the value, `DELIMITER`. The delimiter
 * is random, so no value (a plan summary, a path) can end the block early and forge another
 * output.
 */
export function formatOutput(name: string, value: string, delimiter: string = `ghadelimiter_${randomBytes(16).toString('hex')}`): string {
  if (name.includes(delimiter) || value.includes(delimiter)) throw new Error(`bug: output ${name} contains its own delimiter`);
  return `${name}<<${delimiter}\n${value}\n${delimiter}\n`;
}

/** What a step writes to the runner; tests capture it, the entry point sends it to the real files. */
export interface Runner {
  /** A plain log line (or lines). */
  log(text: string): void;
  annotate(level: AnnotationLevel, message: string, place?: AnnotationPlace): void;
  setOutput(name: string, value: string): void;
  /**
   * Append markdown to the job summary. Returns false (and writes nothing) when it would take the
   * step's summary over 1 MiB; `summaryRoom()` says how much is left, in bytes.
   */
  appendSummary(markdown: string): boolean;
  summaryRoom(): number;
  /** Collapse the log lines `body` writes under a title. */
  group<T>(title: string, body: () => Promise<T>): Promise<T>;
}

/**
 * The runner of a real job: commands to `stdout`, outputs and summary appended to the files the
 * runner names. Without `GITHUB_OUTPUT`/`GITHUB_STEP_SUMMARY` (a local run) outputs fall back to
 * the deprecated-but-readable `::set-output` text in the log and the summary is skipped with a
 * note, so nothing is lost silently.
 */
export function createFileRunner(env: NodeJS.ProcessEnv, stdout: (text: string) => void): Runner {
  const outputFile = nonEmpty(env['GITHUB_OUTPUT']);
  const summaryFile = nonEmpty(env['GITHUB_STEP_SUMMARY']);
  let summaryBytes = summaryFile === undefined ? 0 : sizeOf(summaryFile);
  const runner: Runner = {
    log: (text) => stdout(text.endsWith('\n') ? text : `${text}\n`),
    annotate: (level, message, place) => stdout(formatAnnotation(level, message, place)),
    setOutput: (name, value) => {
      if (outputFile === undefined) stdout(`output ${name}=${value.split('\n')[0] ?? ''}\n`);
      else appendFileSync(outputFile, formatOutput(name, value));
    },
    appendSummary: (markdown) => {
      const bytes = Buffer.byteLength(markdown, 'utf8');
      if (summaryFile === undefined) return false;
      if (summaryBytes + bytes > STEP_SUMMARY_LIMIT_BYTES) return false;
      appendFileSync(summaryFile, markdown);
      summaryBytes += bytes;
      return true;
    },
    summaryRoom: () => (summaryFile === undefined ? 0 : Math.max(0, STEP_SUMMARY_LIMIT_BYTES - summaryBytes)),
    group: async (title, body) => {
      stdout(`::group::${escapeData(title)}\n`);
      try {
        return await body();
      } finally {
        stdout('::endgroup::\n');
      }
    },
  };
  return runner;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}

function sizeOf(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}
