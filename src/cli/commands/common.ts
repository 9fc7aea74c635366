import { createLogger, type Logger } from '../../log.js';
import type { Diagnostic } from '../../diagnostics.js';
import { renderDiagnostics, renderErrorJson } from '../../render/diagnostics.js';
import type { CommandIo, GlobalOptions } from '../io.js';
import { ConfigError } from '../../errors.js';

/** What the command views share: colour, diagnostics, log lines. */

/** Colour only on a terminal, never with --no-color or a non-empty NO_COLOR (no-color.org). */
export function useColor(g: Pick<GlobalOptions, 'color'>, io: CommandIo): boolean {
  return g.color !== false && io.isTty && (io.env['NO_COLOR'] ?? '') === '';
}

/**
 * Problems go to stderr, beside a command's result on stdout; as GitHub annotations (--format
 * github) to stdout, where the runner reads them. `alone`: they are all the command prints (it
 * could not start, or stopped on them), so --format json puts them on stdout as the command's one
 * document, an `mftops.error`; otherwise (warnings beside a result) stdout holds only the result
 * and they go to stderr as text.
 */
export function writeDiagnostics(
  g: GlobalOptions,
  io: CommandIo,
  diagnostics: readonly Diagnostic[],
  manifestCount: number,
  options: { alone?: boolean } = {},
): void {
  const report = { diagnostics, manifestCount };
  switch (g.format) {
    case 'github':
      io.stdout(renderDiagnostics('github', report, { cwd: io.cwd }));
      return;
    case 'json':
      if (options.alone === true) io.stdout(renderErrorJson(diagnostics, { cwd: io.cwd }));
      else io.stderr(renderDiagnostics('text', report, { cwd: io.cwd, color: useColor(g, io) }));
      return;
    case 'text':
    case 'markdown':
      io.stderr(renderDiagnostics('text', report, { cwd: io.cwd, color: useColor(g, io) }));
      return;
  }
}

/**
 * A command that fails without a result and without diagnostics (a server that cannot be
 * reached, nothing to import): one line on stderr (`text`, default `mftops: error: MESSAGE`), or
 * with --format json the `mftops.error` document on stdout, where a script reads the command's
 * one document.
 */
export function writeError(g: Pick<GlobalOptions, 'format'>, io: CommandIo, message: string, text = `mftops: error: ${message}`): void {
  if (g.format === 'json') io.stdout(renderErrorJson([message], { cwd: io.cwd }));
  else io.stderr(`${text}\n`);
}

/** Log lines on stderr at the verbosity of -q / -v. */
export function loggerFor(g: Pick<GlobalOptions, 'quiet' | 'verbose'>, io: CommandIo): Logger {
  return createLogger(g.quiet ? 'quiet' : g.verbose ? 'verbose' : 'normal', io.stderr);
}

/** `30` or `30d`: whole days, 0 to 3650 (status's and drift's `--expiring-within`). */
export function parseExpiringWithin(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const m = /^(\d{1,4})d?$/.exec(text.trim());
  if (m === null || Number(m[1]) > 3650)
    throw new ConfigError(`--expiring-within takes whole days from 0 to 3650, like 30 or 30d, not ${JSON.stringify(text)}`);
  return Number(m[1]);
}
