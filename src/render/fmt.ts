import type { Diagnostic } from '../diagnostics.js';
import { diagnosticJson, displayPath, escapeData, escapeProperty } from './diagnostics.js';
import { renderJsonOutput } from './json-output.js';

/**
 * What `mftops fmt` did with one manifest file:
 * - `formatted`: already in canonical form, untouched;
 * - `rewritten`: was not, and now is (never with `--check`);
 * - `unformatted`: is not, and was left as it is (`--check`);
 * - `invalid`: has errors (see the report's diagnostics), left as it is.
 */
export type FmtFileState = 'formatted' | 'rewritten' | 'unformatted' | 'invalid';

export interface FmtFile {
  /** Absolute; renderers show it relative to the working folder. */
  readonly file: string;
  readonly state: FmtFileState;
}

/**
 * The outcome of `mftops fmt`: `ok` when every file is (now) in canonical form; `unformatted`
 * when `--check` found one that is not; `invalid` when a file had errors (whatever the others).
 */
export interface FmtReport {
  readonly status: 'ok' | 'unformatted' | 'invalid';
  /** `--check`: nothing was written. */
  readonly check: boolean;
  /** Every manifest file found, sorted. */
  readonly files: readonly FmtFile[];
  /** The errors of the files left alone, and of paths that could not be read. */
  readonly diagnostics: readonly Diagnostic[];
}

/** The files fmt rewrote (or, with `--check`, would rewrite), one path a line, as `gofmt -l` lists them. */
export function renderFmtText(report: FmtReport, cwd: string): string {
  return listed(report)
    .map((f) => `${displayPath(f.file, cwd)}\n`)
    .join('');
}

/** One `::error` annotation per file `--check` found unformatted; a rewritten file as a plain log line. */
export function renderFmtGithub(report: FmtReport, cwd: string): string {
  return listed(report)
    .map((f) => {
      const path = displayPath(f.file, cwd);
      return f.state === 'unformatted'
        ? `::error file=${escapeProperty(path)},title=mftops fmt::${escapeData(`${path} is not in canonical form: run mftops fmt`)}\n`
        : `${path}\n`;
    })
    .join('');
}

export function renderFmtJson(report: FmtReport, cwd: string): string {
  const files = report.files.map((f) => ({ file: displayPath(f.file, cwd), state: f.state }));
  return renderJsonOutput('mftops.fmt', {
    status: report.status,
    check: report.check,
    files,
    diagnostics: report.diagnostics.map((d) => diagnosticJson(d, cwd)),
  });
}

function listed(report: FmtReport): FmtFile[] {
  return report.files.filter((f) => f.state === 'rewritten' || f.state === 'unformatted');
}
