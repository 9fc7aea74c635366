import { resolve } from 'node:path';
import { hasErrors } from '../../manifest/diagnostics.js';
import { hasChanges, type Plan } from '../../plan/model.js';
import type { CommandIo } from '../io.js';
import type { GlobalOptions } from '../main.js';
import { createProgress } from '../progress.js';
import { openReadonlyClients } from './clients.js';
import {
  loadManifestsOrReport,
  manifestPathsOf,
  openEnvironment,
  resolveServices,
  serverIdentities,
  useColor,
  wholeNumberOption,
  writeDiagnostics,
} from './common.js';

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
  const parallelism = wholeNumberOption('--parallelism', opts.parallelism, 1, 64);
  const { config, env } = openEnvironment(g, io);
  const manifests = await loadManifestsOrReport(manifestPathsOf(opts.paths, config, env, io), g, io);
  if (manifests === undefined) return 1;
  const services = resolveServices(config, env, io);

  const { buildPlan } = await import('../../plan/build-plan.js');
  const progress = createProgress(io, g.quiet);
  const clients = await openReadonlyClients(services, g, io, { parallelism });
  let result: Awaited<ReturnType<typeof buildPlan>>;
  try {
    result = await buildPlan({
      manifests,
      clients: clients.readers,
      environment: env,
      servers: serverIdentities(services),
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
  if (result.diagnostics.length > 0) writeDiagnostics(g, io, result.diagnostics, manifests.manifests.length);
  if (hasErrors(result.diagnostics) || plan === undefined) return 1;
  io.stdout(await renderPlan(plan, g, useColor(g, io)));
  if (opts.out !== undefined) {
    const { writePlanFile } = await import('../../plan/plan-file.js');
    writePlanFile(resolve(io.cwd, opts.out), plan);
    if (!g.quiet) io.stderr(`Saved the plan to ${opts.out}; apply it exactly with: mftops apply ${opts.out}\n`);
  }
  return opts.detailedExitcode && hasChanges(plan) ? 2 : 0;
}

/** The plan in the chosen format (renderers load lazily: each costs start-up time). */
export async function renderPlan(plan: Plan, g: GlobalOptions, color: boolean): Promise<string> {
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
