import { resolve } from 'node:path';
import { DEFAULT_CONFIG_FILE, loadConfig, resolveService, selectEnvironment } from '../../config/load-config.js';
import type { ResolvedService } from '../../config/model.js';
import { ConfigError } from '../../errors.js';
import { hasErrors } from '../../manifest/diagnostics.js';
import { loadManifests } from '../../manifest/load.js';
import { hasChanges, type Plan } from '../../plan/model.js';
import { renderDiagnostics, type RenderableDiagnostic } from '../../render/diagnostics.js';
import type { CommandIo } from '../io.js';
import type { GlobalOptions } from '../main.js';
import { createProgress } from '../progress.js';
import { openReadonlyClients } from './clients.js';

export interface PlanCommandOptions {
  readonly paths: readonly string[];
  readonly out?: string;
  readonly detailedExitcode: boolean;
  readonly target: readonly string[];
  readonly parallelism: string;
}

/**
 * `mftops plan`: manifests first (any error stops here, before a single request), then the live
 * state through read-only clients, then the plan on stdout and, with --out, in a file.
 * Exit 0 no changes (or any plan without --detailed-exitcode), 2 changes with it, 1 error.
 */
export async function runPlan(g: GlobalOptions, opts: PlanCommandOptions, io: CommandIo): Promise<number> {
  const parallelism = Number(opts.parallelism);
  if (!Number.isInteger(parallelism) || parallelism < 1 || parallelism > 64) {
    throw new ConfigError(`--parallelism must be a whole number from 1 to 64, not "${opts.parallelism}"`);
  }
  const config = loadConfig(g.config ?? DEFAULT_CONFIG_FILE, io.cwd);
  const env = selectEnvironment(config, g.env);
  const paths = opts.paths.length > 0 ? opts.paths.map((p) => resolve(io.cwd, p)) : [...env.manifests];
  if (paths.length === 0) throw new ConfigError(`environment "${env.name}" lists no manifests in ${config.file}; pass paths or add manifests: [...]`);
  const color = g.color !== false && io.isTty && io.env['NO_COLOR'] === undefined;

  const manifests = await loadManifests(paths, { cwd: io.cwd });
  if (hasErrors(manifests.diagnostics)) {
    writeDiagnostics(g, io, manifests.diagnostics, manifests.manifests.length, color);
    return 1;
  }
  const services = (['automation', 'transfer'] as const)
    .map((name) => resolveService(config, env, name, io.env))
    .filter((s): s is ResolvedService => s !== undefined);

  const { buildPlan } = await import('../../plan/build-plan.js');
  const progress = createProgress(io, g.quiet);
  const clients = await openReadonlyClients(services, g, io);
  let result: Awaited<ReturnType<typeof buildPlan>>;
  try {
    result = await buildPlan({
      manifests,
      clients: clients.readers,
      environment: env,
      servers: Object.fromEntries(services.map((s) => [s.name, { url: s.url, username: s.username }])),
      parallelism,
      ...(opts.target.length > 0 ? { targets: opts.target } : {}),
      progress: progress.report,
      cwd: io.cwd,
    });
  } finally {
    progress.finish();
    await clients.close();
  }
  const plan = result.plan;
  if (hasErrors(result.diagnostics) || plan === undefined) {
    writeDiagnostics(g, io, result.diagnostics, manifests.manifests.length, color);
    return 1;
  }
  if (result.diagnostics.length > 0) writeDiagnostics(g, io, result.diagnostics, manifests.manifests.length, color);
  io.stdout(await renderPlan(plan, g, color));
  if (opts.out !== undefined) {
    const { writePlanFile } = await import('../../plan/plan-file.js');
    const out = resolve(io.cwd, opts.out);
    writePlanFile(out, plan);
    if (!g.quiet) io.stderr(`Saved the plan to ${opts.out}; apply it exactly with: mftops apply ${opts.out}\n`);
  }
  return opts.detailedExitcode && hasChanges(plan) ? 2 : 0;
}

async function renderPlan(plan: Plan, g: GlobalOptions, color: boolean): Promise<string> {
  switch (g.format) {
    case 'text': {
      const { renderPlanText } = await import('../../render/plan-text.js');
      return renderPlanText(plan, { color });
    }
    case 'markdown':
    case 'github': {
      const { renderPlanMarkdown } = await import('../../render/plan-markdown.js');
      return renderPlanMarkdown(plan);
    }
    case 'json': {
      const { renderPlanJson } = await import('../../render/plan-json.js');
      return renderPlanJson(plan);
    }
  }
}

/** Problems go to stderr; as GitHub annotations (--format github) to stdout, where the runner reads them. */
function writeDiagnostics(g: GlobalOptions, io: CommandIo, diagnostics: readonly RenderableDiagnostic[], manifestCount: number, color: boolean): void {
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
      io.stderr(renderDiagnostics('text', report, { cwd: io.cwd, color }));
      return;
  }
}
