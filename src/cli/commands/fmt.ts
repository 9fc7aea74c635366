import { formatManifests } from '../../app/fmt.js';
import { renderFmtGithub, renderFmtJson, renderFmtText } from '../../render/fmt.js';
import { cliContext, environmentChoice } from '../app-context.js';
import type { CommandIo, GlobalOptions } from '../io.js';
import { writeDiagnostics } from './common.js';

export interface FmtCommandOptions {
  readonly paths: readonly string[];
  readonly check: boolean;
}

/**
 * `mftops fmt [PATH…] [--check]`: the view of `formatManifests`. The files rewritten (with
 * `--check`: the files not in canonical form) on stdout, the errors of the files left alone on
 * stderr. Exit 0 all formatted, 1 a file with errors, or one `--check` found unformatted.
 */
export async function runFmt(g: GlobalOptions, opts: FmtCommandOptions, io: CommandIo): Promise<number> {
  const ctx = cliContext(g, io);
  let report: Awaited<ReturnType<typeof formatManifests>>;
  try {
    report = await formatManifests({ ...environmentChoice(g), paths: opts.paths, check: opts.check }, ctx);
  } finally {
    ctx.finish();
  }
  switch (g.format) {
    case 'json':
      io.stdout(renderFmtJson(report, io.cwd));
      break;
    case 'github':
      io.stdout(renderFmtGithub(report, io.cwd));
      break;
    case 'text':
    case 'markdown':
      io.stdout(renderFmtText(report, io.cwd));
      break;
  }
  // JSON carries them in its one document.
  if (report.diagnostics.length > 0 && g.format !== 'json') writeDiagnostics(g, io, report.diagnostics, 0);
  return report.status === 'ok' ? 0 : 1;
}
