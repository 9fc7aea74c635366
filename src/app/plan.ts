import { resolve } from 'node:path';
import { findSecretProblems, type SecretProblem } from '../apply/secrets.js';
import { createDiagnostic, sortDiagnostics, type Diagnostic } from '../diagnostics.js';
import { isRecord } from '../is-record.js';
import type { JsonPath, Manifest } from '../manifest/types.js';
import type { ManifestSet } from '../manifest/validate.js';
import { isWriteAction, type Plan, type PruneOff } from '../plan/model.js';
import { deniesPlan } from '../policy/evaluate.js';
import { describeSecretFailure, formatSecretRef, parseSecretRef, type SecretConfinement, type SecretRef } from '../secret.js';
import type { DiagnosticsReport } from '../render/diagnostics.js';
import { openReadonlyClients, progressEvents } from './clients.js';
import { readWhileLoading } from './read-while-loading.js';
import type { OpenClients } from './clients.js';
import type { AppContext, EnvironmentChoice } from './context.js';
import { countValidDocuments, secretConfinementOf, serverIdentities } from './environment.js';
import type { EnvironmentSettings, ResolvedService } from '../config/model.js';
import { writePlanFile } from './plan-file.js';
import { withDefined } from '../with-defined.js';
import { addPlanCalendar } from './server-calendar.js';
import { readClock } from './clock.js';

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
  /** `--rotate-passwords`: existing users whose manifest has a `password` are sent it again (a sensitive update). */
  readonly rotatePasswords?: boolean;
  /** Also save the plan file here (relative to `cwd`). */
  readonly out?: string;
}

/**
 * What planning an environment gave:
 * - `invalid`: a manifest or a name the servers do not know is wrong; the diagnostics say where.
 *   With a manifest error no request was even sent and there is no plan; with an error only the
 *   live state shows, `plan` is the `errored` plan (objects left out), never saved.
 * - `denied`: a `deny` policy is violated (or could not be evaluated) on some change: the plan,
 *   its `policy` saying where, is shown and never saved.
 * - `planned`: the plan, with the warnings found on the way, and the file it was saved to.
 */
export type PlanResult =
  | { readonly status: 'invalid'; readonly diagnostics: DiagnosticsReport; readonly plan?: Plan }
  | { readonly status: 'denied'; readonly plan: Plan; readonly diagnostics: DiagnosticsReport }
  | { readonly status: 'planned'; readonly plan: Plan; readonly diagnostics: DiagnosticsReport; readonly planFile?: string };

/**
 * Plan an environment: the manifests, with the live state's reads started while they load
 * (`readWhileLoading`; any manifest error stops here, the reads' outcomes unseen), then the rest
 * of the live state through the same read-only clients, then the plan, saved with `out`.
 */
export async function planEnvironment(options: PlanOptions, ctx: AppContext): Promise<PlanResult> {
  const ahead = await readWhileLoading(options, ctx);
  const prelude = ahead.prelude;
  if (prelude.status === 'invalid') return prelude;
  const { env, services, parallelism, prune } = prelude;
  const clients = ahead.clients ?? (await openReadonlyClients(services, ctx, { parallelism }));
  let result: PlanOfManifests;
  try {
    result = await planManifests(
      prelude.manifests,
      {
        readers: clients.readers,
        env,
        services,
        parallelism,
        confinement: secretConfinementOf(prelude.config),
        ...(prune.off ? { pruneOff: prune.off } : {}),
        ...(options.targets ? { targets: options.targets } : {}),
        ...withDefined({ rotatePasswords: options.rotatePasswords }),
      },
      ctx,
    );
  } finally {
    await clients.close();
  }
  if (result.plan === undefined || result.plan.errored)
    return { status: 'invalid', diagnostics: result.diagnostics, ...(result.plan ? { plan: result.plan } : {}) };
  if (deniesPlan(result.plan.policy)) return { status: 'denied', plan: result.plan, diagnostics: result.diagnostics };
  let planFile: string | undefined;
  if (options.out !== undefined) {
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
  /** `--rotate-passwords` (see `PlanOptions`). */
  readonly rotatePasswords?: boolean;
  /** Where the manifests' secret references may point (`secretConfinementOf`). */
  readonly confinement: SecretConfinement;
  /** `apply --pause-scheduler`: the calendar lists the runs a stopped scheduler may miss. */
  readonly pauseScheduler?: boolean;
}

/**
 * The plan of manifests already loaded without errors, through open read-only clients (apply plans
 * this way too), with a warning (MF414) for each secret reference its writes need that has no
 * value here: apply would refuse the plan.
 */
export async function planManifests(manifests: ManifestSet, input: PlanManifestsInput, ctx: AppContext): Promise<PlanOfManifests> {
  // Lazy (measured): drift and diff-env --offline import this module and never plan; a static
  // import made them load the planner's 19 modules more.
  const { readAndPlan } = await import('./read-and-plan.js');
  const result = await readAndPlan({
    manifests,
    clients: input.readers,
    environment: input.env,
    ...(input.pruneOff !== undefined ? { pruneOff: input.pruneOff } : {}),
    servers: serverIdentities(input.services),
    parallelism: input.parallelism,
    ...(input.targets && input.targets.length > 0 ? { targets: input.targets } : {}),
    ...withDefined({ rotatePasswords: input.rotatePasswords }),
    progress: progressEvents(ctx),
    cwd: ctx.cwd,
    ...(ctx.now ? { now: ctx.now } : {}),
  });
  if (result.plan === undefined) return { diagnostics: reportOf(manifests, result.diagnostics) };
  const unresolved = await secretWarnings(result.plan, manifests, input.confinement, ctx);
  return {
    plan: await addPlanCalendar(result.plan, result.live, {
      reader: input.readers.automation,
      env: input.env,
      now: (ctx.now ?? readClock(ctx.env))(),
      ...withDefined({ pauseScheduler: input.pauseScheduler }),
    }),
    diagnostics: reportOf(manifests, unresolved.length > 0 ? sortDiagnostics([...result.diagnostics, ...unresolved]) : result.diagnostics),
  };
}

/** MF414 for each reference the plan's writes send that has no value now, at the field that holds it. */
async function secretWarnings(plan: Plan, manifests: ManifestSet, confinement: SecretConfinement, ctx: AppContext): Promise<Diagnostic[]> {
  const problems = findSecretProblems(
    plan.changes.filter((c) => isWriteAction(c.action)),
    { env: ctx.env, cwd: ctx.cwd, confinement },
  );
  return problems.map((p) =>
    createDiagnostic('warning', 'MF414', placeOfSecret(p, manifests, ctx.cwd), `${describeSecretFailure(p.failure)}: apply will refuse this plan`, {
      address: p.address,
      hint:
        p.ref.kind === 'env'
          ? `set ${p.ref.name} where mftops apply runs`
          : `write the secret to that file where mftops apply runs (\`${formatSecretRef(p.ref)}\` is relative to the manifest's folder)`,
    }),
  );
}

/** Where the reference is written in its manifest; the object's place when it cannot be found; none for an object no manifest declares. */
function placeOfSecret(p: SecretProblem, manifests: ManifestSet, cwd: string): { file: string; line: number; col: number } | undefined {
  const source = p.source;
  if (source === undefined) return undefined;
  const file = resolve(cwd, source.file);
  const manifest = manifests.manifests.find((m) => m.source.file === file && m.source.line === source.line && m.source.col === source.col);
  const path = manifest ? pathOfRef(manifest, p.ref) : undefined;
  return manifest && path ? manifest.sourceMap.locate(path) : { file, line: source.line, col: source.col };
}

/** The first place in the manifest's `spec` that holds the reference. */
function pathOfRef(manifest: Manifest, ref: SecretRef): JsonPath | undefined {
  const wanted = formatSecretRef(ref);
  const search = (value: unknown, path: JsonPath): JsonPath | undefined => {
    if (typeof value === 'string') {
      const found = parseSecretRef(value);
      return found !== undefined && formatSecretRef(found) === wanted ? path : undefined;
    }
    const entries: [string | number, unknown][] = Array.isArray(value) ? value.map((v, i) => [i, v]) : isRecord(value) ? Object.entries(value) : [];
    for (const [key, item] of entries) {
      const hit = search(item, [...path, key]);
      if (hit) return hit;
    }
    return undefined;
  };
  return search(manifest.spec, ['spec']);
}

export function reportOf(manifests: ManifestSet, diagnostics: DiagnosticsReport['diagnostics']): DiagnosticsReport {
  return { diagnostics, manifestCount: countValidDocuments(manifests) };
}
