import { resolve } from 'node:path';
import { writeFileAtomicSync } from '../../atomic-file.js';
import type { DriftReport } from '../../drift/model.js';
import { MftopsError } from '../../errors.js';
import { hasErrors } from '../../manifest/diagnostics.js';
import type { CommandIo } from '../io.js';
import type { GlobalOptions } from '../main.js';
import { createProgress } from '../progress.js';
import { openReadonlyClients } from './clients.js';
import { loadManifestsOrReport, manifestPathsOf, openEnvironment, resolveServices, serverIdentities, useColor, wholeNumberOption, writeDiagnostics } from './common.js';

export interface DriftCommandOptions {
  readonly paths: readonly string[];
  /** Also write the JSON report to this file. */
  readonly report?: string;
  /** Concurrent reads per server, as typed; default 10. */
  readonly parallelism?: string;
}

/** What tests replace: the clock acknowledgements expire by. */
export interface DriftDependencies {
  readonly now?: () => Date;
}

/**
 * `mftops drift`: a plan of every manifest plus the unmanaged objects in scope, through read-only
 * clients; the report on stdout (text, markdown or json) and, with --report, as JSON in a file.
 * Exit 0 in sync, 2 drift, 1 error.
 */
export async function runDrift(g: GlobalOptions, opts: DriftCommandOptions, io: CommandIo, deps: DriftDependencies = {}): Promise<number> {
  const parallelism = wholeNumberOption('--parallelism', opts.parallelism ?? '10', 1, 64);
  const { config, env } = openEnvironment(g, io);
  const color = useColor(g, io);
  const manifests = await loadManifestsOrReport(manifestPathsOf(opts.paths, config, env, io), g, io);
  if (manifests === undefined) return 1;
  const services = resolveServices(config, env, io);

  const { detectDrift } = await import('../../drift/detect-drift.js');
  const progress = createProgress(io, g.quiet);
  const clients = await openReadonlyClients(services, g, io, { parallelism });
  let result: Awaited<ReturnType<typeof detectDrift>>;
  try {
    result = await detectDrift({
      manifests,
      clients: clients.readers,
      environment: env,
      servers: serverIdentities(services),
      parallelism,
      progress: progress.report,
      cwd: io.cwd,
      ...(deps.now ? { now: deps.now } : {}),
    });
  } finally {
    progress.finish();
    await clients.close();
  }
  const report = result.report;
  if (report === undefined || hasErrors(result.diagnostics)) {
    writeDiagnostics(g, io, result.diagnostics, manifests.manifests.length);
    return 1;
  }
  if (result.diagnostics.length > 0) writeDiagnostics(g, io, result.diagnostics, manifests.manifests.length);
  io.stdout(await renderReport(report, g, color));
  if (opts.report !== undefined) {
    const { renderDriftJson } = await import('../../render/drift-json.js');
    writeReportFile(resolve(io.cwd, opts.report), renderDriftJson(report));
    if (!g.quiet) io.stderr(`Wrote the drift report to ${opts.report}\n`);
  }
  const { driftExitCode } = await import('../../drift/model.js');
  return driftExitCode(report);
}

async function renderReport(report: DriftReport, g: GlobalOptions, color: boolean): Promise<string> {
  switch (g.format) {
    case 'text': {
      const { renderDriftText } = await import('../../render/drift-text.js');
      return renderDriftText(report, { color });
    }
    case 'markdown':
    case 'github': {
      const { renderDriftMarkdown } = await import('../../render/drift-markdown.js');
      return renderDriftMarkdown(report);
    }
    case 'json': {
      const { renderDriftJson } = await import('../../render/drift-json.js');
      return renderDriftJson(report);
    }
  }
}

/** Written beside the target and renamed into place: a reader never sees half a report. */
function writeReportFile(path: string, text: string): void {
  try {
    writeFileAtomicSync(path, text, { mode: 0o666 });
  } catch (err) {
    throw new MftopsError(`cannot write the drift report to ${path} (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
}

