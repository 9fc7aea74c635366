import { resolve } from 'node:path';
import type { ManifestSet } from '../manifest/validate.js';
import type { Plan, PruneOff } from '../plan/model.js';
import type { DiagnosticsReport } from '../render/diagnostics.js';
import { openReadonlyClients, progressEvents } from './clients.js';
import type { OpenClients } from './clients.js';
import type { AppContext, EnvironmentChoice } from './context.js';
import { prepareRead, serverIdentities } from './environment.js';
import type { EnvironmentSettings, ResolvedService } from '../config/model.js';

export interface PlanOptions extends EnvironmentChoice {
  /** Manifest files and folders (relative to `cwd`); default: the environment's. */
  readonly paths?: readonly string[];
  /** Limit the plan to these addresses (`Kind/name`). */
  readonly targets?: readonly string[];
  /**
   * `true` (`--prune`): prune as the environment says even when only part of the manifests is
   * given; `false` (`--no-prune`): prune nothing; absent: the environment's, off with partial
   * paths (`choosePrune`).
   */
  readonly prune?: boolean;
  /** Per-object reads in flight per server. */
  readonly parallelism?: number;
  /** Also save the plan file here (relative to `cwd`). */
  readonly out?: string;
}

/**
 * What planning an environment gave:
 * - `invalid`: a manifest or a name the servers do not know is wrong; the diagnostics say where.
 *   With a manifest error no request was even sent and there is no plan; with an error only the
 *   live state shows, `plan` is the `errored` plan (objects left out), never saved.
 * - `planned`: the plan, with the warnings found on the way, and the file it was saved to.
 */
export type PlanResult =
  | { readonly status: 'invalid'; readonly diagnostics: DiagnosticsReport; readonly plan?: Plan }
  | { readonly status: 'planned'; readonly plan: Plan; readonly diagnostics: DiagnosticsReport; readonly planFile?: string };

/**
 * Plan an environment: manifests first (any error stops here, before a single request), then the
 * live state through read-only clients, then the plan, saved with `out`.
 */
export async function planEnvironment(options: PlanOptions, ctx: AppContext): Promise<PlanResult> {
  const prelude = await prepareRead(options, ctx);
  if (prelude.status === 'invalid') return prelude;
  const { env, services, parallelism, prune } = prelude;
  const clients = await openReadonlyClients(services, ctx, { parallelism });
  let result: PlanOfManifests;
  try {
    result = await planManifests(
      prelude.manifests,
      { readers: clients.readers, env, services, parallelism, ...(prune.off ? { pruneOff: prune.off } : {}), ...(options.targets ? { targets: options.targets } : {}) },
      ctx,
    );
  } finally {
    await clients.close();
  }
  if (result.plan === undefined || result.plan.errored) return { status: 'invalid', diagnostics: result.diagnostics, ...(result.plan ? { plan: result.plan } : {}) };
  let planFile: string | undefined;
  if (options.out !== undefined) {
    const { writePlanFile } = await import('./plan-file.js');
    planFile = resolve(ctx.cwd, options.out);
    writePlanFile(planFile, result.plan, { configFile: prelude.config.file });
  }
  return { status: 'planned', plan: result.plan, diagnostics: result.diagnostics, ...(planFile !== undefined ? { planFile } : {}) };
}

/**
 * A plan of loaded manifests with the diagnostics found on the way. The plan is `errored` when
 * any of them is an error (objects were left out); undefined only when there was nothing to plan
 * from (manifests with errors).
 */
export interface PlanOfManifests {
  readonly plan?: Plan;
  readonly diagnostics: DiagnosticsReport;
}

export interface PlanManifestsInput {
  readonly readers: OpenClients['readers'];
  /** The environment, its `prune` the kinds this run prunes. */
  readonly env: EnvironmentSettings;
  /** Why the environment's `prune` is off for this run. */
  readonly pruneOff?: PruneOff;
  readonly services: readonly ResolvedService[];
  readonly parallelism: number;
  readonly targets?: readonly string[];
}

/** The plan of manifests already loaded without errors, through open read-only clients (apply plans this way too). */
export async function planManifests(manifests: ManifestSet, input: PlanManifestsInput, ctx: AppContext): Promise<PlanOfManifests> {
  const { buildPlan } = await import('./build-plan.js');
  const result = await buildPlan({
    manifests,
    clients: input.readers,
    environment: input.env,
    ...(input.pruneOff !== undefined ? { pruneOff: input.pruneOff } : {}),
    servers: serverIdentities(input.services),
    parallelism: input.parallelism,
    ...(input.targets && input.targets.length > 0 ? { targets: input.targets } : {}),
    progress: progressEvents(ctx),
    cwd: ctx.cwd,
    ...(ctx.now ? { now: ctx.now } : {}),
  });
  const diagnostics = reportOf(manifests, result.diagnostics);
  return result.plan === undefined ? { diagnostics } : { plan: result.plan, diagnostics };
}

export function reportOf(manifests: ManifestSet, diagnostics: DiagnosticsReport['diagnostics']): DiagnosticsReport {
  return { diagnostics, manifestCount: manifests.manifests.length };
}
