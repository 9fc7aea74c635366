import { hasErrors } from '../../manifest/diagnostics.js';
import { loadManifests } from '../../manifest/load.js';
import { renderDiagnostics } from '../../render/diagnostics.js';
import type { DiagnosticsFormat } from '../../render/diagnostics.js';
import type { CommandIo } from '../io.js';
import { useColor } from './common.js';

export interface ValidateOptions {
  /** Files and folders; relative ones are resolved against `io.cwd`. */
  readonly paths: readonly string[];
  readonly format: DiagnosticsFormat;
  /** ANSI colour for text; default: a TTY without NO_COLOR. */
  readonly color?: boolean;
}

/**
 * `mftops validate`: load and check manifests, print every problem, no network. Returns the exit
 * code: 0 valid (warnings allowed), 1 invalid or unreadable.
 */
export async function runValidate(opts: ValidateOptions, io: CommandIo): Promise<number> {
  if (opts.paths.length === 0) {
    io.stderr('validate: no manifest paths given\n');
    return 1;
  }
  const set = await loadManifests(opts.paths, { cwd: io.cwd });
  const color = opts.color ?? useColor({ color: true }, io);
  io.stdout(renderDiagnostics(opts.format, { diagnostics: set.diagnostics, manifestCount: set.manifests.length }, { cwd: io.cwd, color }));
  return hasErrors(set.diagnostics) ? 1 : 0;
}
