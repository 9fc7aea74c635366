import { createLogger, type Logger } from '../../log.js';
import type { Diagnostic } from '../../diagnostics.js';
import { renderDiagnostics } from '../../render/diagnostics.js';
import type { CommandIo } from '../io.js';
import type { GlobalOptions } from '../main.js';

/** What the command views share: colour, diagnostics, log lines. */

/** Colour only on a terminal, never with --no-color or a non-empty NO_COLOR (no-color.org). */
export function useColor(g: Pick<GlobalOptions, 'color'>, io: CommandIo): boolean {
  return g.color !== false && io.isTty && (io.env['NO_COLOR'] ?? '') === '';
}

/** Problems go to stderr; as GitHub annotations (--format github) to stdout, where the runner reads them. */
export function writeDiagnostics(g: GlobalOptions, io: CommandIo, diagnostics: readonly Diagnostic[], manifestCount: number): void {
  const report = { diagnostics, manifestCount };
  switch (g.format) {
    case 'github':
      io.stdout(renderDiagnostics('github', report, { cwd: io.cwd }));
      return;
    case 'json':
      io.stderr(renderDiagnostics('json', report, { cwd: io.cwd }));
      return;
    case 'text':
    case 'markdown':
      io.stderr(renderDiagnostics('text', report, { cwd: io.cwd, color: useColor(g, io) }));
      return;
  }
}

/** Log lines on stderr at the verbosity of -q / -v. */
export function loggerFor(g: Pick<GlobalOptions, 'quiet' | 'verbose'>, io: CommandIo): Logger {
  return createLogger(g.quiet ? 'quiet' : g.verbose ? 'verbose' : 'normal', io.stderr);
}
