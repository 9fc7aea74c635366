import { resolve } from 'node:path';
import { validateManifests } from '../../app/validate.js';
import { hasErrors } from '../../manifest/diagnostics.js';
import { renderDiagnostics, type DiagnosticsReport } from '../../render/diagnostics.js';
import type { DiagnosticsFormat } from '../../render/diagnostics.js';
import { cliContext, environmentChoice } from '../app-context.js';
import type { CommandIo, GlobalOptions, OutputFormat } from '../io.js';
import { useColor } from './common.js';

export interface ValidateOptions {
  /** Files and folders; relative ones are resolved against `io.cwd`. */
  readonly paths: readonly string[];
  readonly format: DiagnosticsFormat;
  /** ANSI colour for text; default: a TTY without NO_COLOR. */
  readonly color?: boolean;
}

/**
 * `mftops validate [PATH…]`: the view of `validateManifests`. Every problem on stdout, no
 * network. Exit 0 valid (warnings allowed), 1 invalid or unreadable.
 */
export async function runValidateCommand(g: GlobalOptions, paths: readonly string[], io: CommandIo): Promise<number> {
  // Resolved here, as plan and drift resolve theirs: problems name the absolute path.
  const report = await validateManifests({ ...environmentChoice(g), paths: paths.map((p) => resolve(io.cwd, p)) }, cliContext(g, io));
  return showResult(report, validateFormat(g.format), useColor(g, io), io);
}

/** Validate the paths given (none is an error, not a guess), as `mftops validate PATH…` does. */
export async function runValidate(opts: ValidateOptions, io: CommandIo): Promise<number> {
  if (opts.paths.length === 0) {
    io.stderr('validate: no manifest paths given\n');
    return 1;
  }
  const color = opts.color ?? useColor({ color: true }, io);
  const report = await validateManifests({ paths: opts.paths }, cliContext({ format: opts.format, color, quiet: false, verbose: false }, io));
  return showResult(report, opts.format, color, io);
}

function showResult(report: DiagnosticsReport, format: DiagnosticsFormat, color: boolean, io: CommandIo): number {
  io.stdout(renderDiagnostics(format, report, { cwd: io.cwd, color }));
  return hasErrors(report.diagnostics) ? 1 : 0;
}

function validateFormat(format: OutputFormat): DiagnosticsFormat {
  switch (format) {
    case 'text':
      return 'text';
    case 'json':
      return 'json';
    case 'github':
      return 'github';
    case 'markdown':
      // Refused before validate starts (src/cli/formats.ts).
      throw new Error('bug: validate does not print markdown');
    default: {
      const never: never = format;
      throw new Error(`unknown format ${String(never)}`);
    }
  }
}
