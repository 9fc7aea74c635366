import { isAbsolute, relative, sep } from 'node:path';
import { countDiagnostics, placeOf } from '../diagnostics.js';
import type { Diagnostic } from '../diagnostics.js';
import { renderJsonOutput } from './json-output.js';

/** What a validation run produced, as the renderers need it. */
export interface DiagnosticsReport {
  /** Sorted (src/diagnostics.ts). Diagnostics of every stage (manifests, plan, configuration) render the same way. */
  readonly diagnostics: readonly Diagnostic[];
  /** Manifests that loaded (for the "N manifests valid" line). */
  readonly manifestCount: number;
}

export interface DiagnosticsRenderOptions {
  /** File paths are shown relative to this folder when they are inside it. */
  readonly cwd: string;
  /** ANSI colour (text only); the caller decides (TTY, NO_COLOR, --no-color). */
  readonly color?: boolean;
}

export type DiagnosticsFormat = 'text' | 'json' | 'github';

export function renderDiagnostics(format: DiagnosticsFormat, report: DiagnosticsReport, options: DiagnosticsRenderOptions): string {
  switch (format) {
    case 'text':
      return renderDiagnosticsText(report, options);
    case 'json':
      return renderDiagnosticsJson(report, options);
    case 'github':
      return renderDiagnosticsGithub(report, options);
    default: {
      const never: never = format;
      throw new Error(`unknown format ${String(never)}`);
    }
  }
}

/** A path for display: relative to `cwd` when inside it, with `/` separators. */
export function displayPath(file: string, cwd: string): string {
  const rel = relative(cwd, file);
  const shown = rel === '' ? '.' : rel.startsWith('..') || isAbsolute(rel) ? file : rel;
  return sep === '/' ? shown : shown.split(sep).join('/');
}

/**
 * Compiler style: `FILE:LINE:COL: error CODE: summary` (`FILE: …` for a problem with the whole
 * file, `ADDRESS: …` for one without a file), indented detail, hint and related place when
 * present, then one summary line (`2 errors in 1 file`, `12 manifests valid`).
 */
export function renderDiagnosticsText(report: DiagnosticsReport, options: DiagnosticsRenderOptions): string {
  const paint = painter(options.color === true);
  const lines: string[] = [];
  for (const d of report.diagnostics) {
    const where = placeOf(d, (file) => displayPath(file, options.cwd));
    const severity = d.severity === 'error' ? paint.red(`error ${d.code}`) : paint.yellow(`warning ${d.code}`);
    lines.push(`${where ? `${paint.bold(where)}: ` : ''}${severity}: ${d.summary}`);
    for (const line of followingLines(d, options.cwd)) lines.push(paint.dim(`  ${line}`));
  }
  lines.push(summaryLine(report));
  return `${lines.join('\n')}\n`;
}

/** The last line of the text output; problems without a file (a `--target`) count in no file. */
export function summaryLine(report: DiagnosticsReport): string {
  const { errors, warnings } = countDiagnostics(report.diagnostics);
  const w = warnings > 0 ? `${warnings} ${plural(warnings, 'warning')}` : '';
  if (errors > 0) {
    const files = new Set(report.diagnostics.flatMap((d) => (d.severity === 'error' && d.file !== undefined ? [d.file] : []))).size;
    return `${errors} ${plural(errors, 'error')}${w ? ` and ${w}` : ''}${files > 0 ? ` in ${files} ${plural(files, 'file')}` : ''}`;
  }
  return `${report.manifestCount} ${plural(report.manifestCount, 'manifest')} valid${w ? `, ${w}` : ''}`;
}

/**
 * The `mftops.validate` document: `valid`, the manifests that loaded, and every diagnostic (paths
 * relative like the text output; a part without a value is left out).
 */
export function renderDiagnosticsJson(report: DiagnosticsReport, options: DiagnosticsRenderOptions): string {
  return renderJsonOutput('mftops.validate', {
    valid: countDiagnostics(report.diagnostics).errors === 0,
    manifestCount: report.manifestCount,
    diagnostics: report.diagnostics.map((d) => diagnosticJson(d, options.cwd)),
  });
}

/**
 * The `mftops.error` document of a command that failed without a result of its own: its
 * diagnostics (warnings among them keep their severity), or one line (`message` only) for a
 * failure that is no diagnostic, such as a server that cannot be reached.
 */
export function renderErrorJson(problems: readonly (Diagnostic | string)[], options: DiagnosticsRenderOptions): string {
  return renderJsonOutput('mftops.error', {
    errors: problems.map((p) => (typeof p === 'string' ? { severity: 'error', message: p } : diagnosticJson(p, options.cwd))),
  });
}

export function diagnosticJson(d: Diagnostic, cwd: string): Record<string, unknown> {
  return {
    severity: d.severity,
    code: d.code,
    message: d.summary,
    ...(d.detail !== undefined ? { detail: d.detail } : {}),
    ...(d.file !== undefined ? { file: displayPath(d.file, cwd) } : {}),
    ...(d.line !== undefined ? { line: d.line } : {}),
    ...(d.col !== undefined ? { col: d.col } : {}),
    ...(d.endLine !== undefined ? { endLine: d.endLine } : {}),
    ...(d.endCol !== undefined ? { endCol: d.endCol } : {}),
    ...(d.address !== undefined ? { address: d.address } : {}),
    ...(d.hint !== undefined ? { hint: d.hint } : {}),
    ...(d.related !== undefined ? { related: { ...d.related, file: displayPath(d.related.file, cwd) } } : {}),
  };
}

/**
 * GitHub workflow commands (`::error file=F,line=L,col=C,title=CODE::message`) that the runner
 * turns into annotations on the pull request, then the summary line as plain log text.
 */
export function renderDiagnosticsGithub(report: DiagnosticsReport, options: DiagnosticsRenderOptions): string {
  return `${[...githubAnnotations(report, options), summaryLine(report)].join('\n')}\n`;
}

/**
 * One workflow command per diagnostic, without the summary line (for a runner's log). A problem
 * with a whole file has `file=` and no line; one without a file has no place and starts its
 * message with the address.
 */
export function githubAnnotations(report: DiagnosticsReport, options: DiagnosticsRenderOptions): string[] {
  return report.diagnostics.map((d) => {
    const place: AnnotationPlace = {
      ...(d.file !== undefined ? { file: displayPath(d.file, options.cwd) } : {}),
      ...(d.line !== undefined ? { line: d.line } : {}),
      ...(d.col !== undefined ? { col: d.col } : {}),
      ...(d.endLine !== undefined ? { endLine: d.endLine } : {}),
      ...(d.endCol !== undefined && d.endLine === d.line ? { endColumn: d.endCol } : {}),
      title: d.code,
    };
    const summary = d.file === undefined && d.address ? `${d.address}: ${d.summary}` : d.summary;
    return workflowCommand(d.severity, place, [summary, ...followingLines(d, options.cwd)].join('\n'));
  });
}

/** Where an annotation points (`file` relative to the repository root) and its title. */
export interface AnnotationPlace {
  readonly file?: string;
  readonly line?: number;
  readonly col?: number;
  readonly endLine?: number;
  readonly endColumn?: number;
  readonly title?: string;
}

/** `::LEVEL file=F,line=L,…,title=T::message`, escaped so that any text stays one command (no newline at the end). */
export function workflowCommand(level: 'error' | 'warning' | 'notice', place: AnnotationPlace, message: string): string {
  const props = [
    ...(place.file !== undefined ? [`file=${escapeProperty(place.file)}`] : []),
    ...(place.line !== undefined ? [`line=${place.line}`] : []),
    ...(place.col !== undefined ? [`col=${place.col}`] : []),
    ...(place.endLine !== undefined ? [`endLine=${place.endLine}`] : []),
    ...(place.endColumn !== undefined ? [`endColumn=${place.endColumn}`] : []),
    ...(place.title !== undefined ? [`title=${escapeProperty(place.title)}`] : []),
  ];
  return `::${level}${props.length > 0 ? ` ${props.join(',')}` : ''}::${escapeData(message)}`;
}

/** `PLACE: summary` of each error (`FILE:LINE`, `FILE`, the address), one line each, for a comment or a job summary. */
export function errorLines(report: DiagnosticsReport, cwd: string): string[] {
  return report.diagnostics
    .filter((d) => d.severity === 'error')
    .map((d) => {
      const where = d.file !== undefined ? `${displayPath(d.file, cwd)}${d.line !== undefined ? `:${d.line}` : ''}` : d.address;
      return where ? `${where}: ${d.summary}` : d.summary;
    });
}

/** The lines under a diagnostic's first: its detail, hint and related place. */
function followingLines(d: Diagnostic, cwd: string): string[] {
  return [
    ...(d.detail !== undefined ? d.detail.split('\n') : []),
    ...(d.hint !== undefined ? [`hint: ${d.hint}`] : []),
    ...(d.related !== undefined ? [`${d.related.message} at ${displayPath(d.related.file, cwd)}:${d.related.line}:${d.related.col}`] : []),
  ];
}

/** Workflow-command message escaping (as @actions/core does). */
export function escapeData(text: string): string {
  return text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

/** Workflow-command property escaping: also `:` and `,`, which delimit properties. */
export function escapeProperty(text: string): string {
  return escapeData(text).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

function plural(n: number, word: string): string {
  return n === 1 ? word : `${word}s`;
}

function painter(on: boolean) {
  const wrap = (code: string) => (text: string) => (on ? `\u001b[${code}m${text}\u001b[0m` : text);
  return { red: wrap('31;1'), yellow: wrap('33;1'), bold: wrap('1'), dim: wrap('2') };
}
