import { resolve } from 'node:path';
import type { AppliedChange } from '../apply/apply-plan.js';
import type { ApplyPermissions } from '../apply/guard.js';
import type { ApplyReport, VerifyResult } from '../apply/model.js';
import type { EnvironmentSettings, MftopsConfig, ResolvedService } from '../config/model.js';
import { ConfigError, MftopsError } from '../errors.js';
import { hasErrors } from '../manifest/diagnostics.js';
import type { ManifestSet } from '../manifest/validate.js';
import type { Plan } from '../plan/model.js';
import type { DiagnosticsReport } from '../render/diagnostics.js';
import { openClients } from './clients.js';
import type { OpenClients } from './clients.js';
import type { AppContext, EnvironmentChoice } from './context.js';
import { DEFAULTS } from './defaults.js';
import { loadEnvironmentManifests, openEnvironment, resolveServices, serverIdentities } from './environment.js';
import { planManifests, reportOf } from './plan.js';

export interface ApplyOptions extends EnvironmentChoice {
  /** A plan saved by `plan --out` (relative to `cwd`), applied exactly; else the manifests are planned first. */
  readonly planFile?: string;
  /** Manifest files and folders to plan (relative to `cwd`); default: the environment's. Ignored with `planFile`. */
  readonly paths?: readonly string[];
  readonly permissions?: Partial<ApplyPermissions>;
  /** Changes written at the same time. */
  readonly parallelism?: number;
  /**
   * Asked before a plan made now (not a saved one) is applied, when it writes and nothing refuses
   * it; false cancels. Absent: approved (a saved plan was reviewed; `--auto-approve`).
   */
  readonly approve?: (plan: Plan) => Promise<boolean>;
  /** Once aborted (a first Ctrl-C): no new write starts; the writes in flight finish. */
  readonly signal?: AbortSignal;
  /** Once aborted (a second Ctrl-C): the lock is released, the tokens revoked, then `abandoned` is emitted. */
  readonly abandon?: AbortSignal;
}

/**
 * - `invalid`: the manifests (or names the servers do not know) have errors; nothing was written.
 * - `cancelled`: `approve` said no; nothing was written.
 * - `finished`: the apply report, whatever its outcome (refused, stale, applied with or without
 *   failures, interrupted), and the plan it was for.
 */
export type ApplyResult =
  | { readonly status: 'invalid'; readonly diagnostics: DiagnosticsReport }
  | { readonly status: 'cancelled'; readonly plan: Plan }
  | { readonly status: 'finished'; readonly report: ApplyReport; readonly plan?: Plan };

/**
 * Apply to an environment: a saved plan exactly, or the plan of the manifests after approval.
 * Every refusal comes before the first write: a plan for another environment or server, deletes
 * or replaces not allowed, a secret reference without a value (every one named; a saved plan's
 * before a request is sent), a stale plan. One apply per environment at a time (a lock file); a
 * snapshot of every service before the first write; verification after.
 */
export async function applyEnvironment(options: ApplyOptions, ctx: AppContext): Promise<ApplyResult> {
  const { config, env } = openEnvironment(options, ctx);
  const permissions: ApplyPermissions = {
    allowDelete: options.permissions?.allowDelete ?? false,
    allowReplace: options.permissions?.allowReplace ?? false,
    maxDeletes: options.permissions?.maxDeletes ?? DEFAULTS.maxDeletes,
  };
  const parallelism = options.parallelism ?? DEFAULTS.applyParallelism;
  const { checkPermissions, checkPlanTarget } = await import('../apply/guard.js');

  let saved: Plan | undefined;
  if (options.planFile !== undefined) {
    const { readPlanFile } = await import('./plan-file.js');
    saved = readPlanFile(resolve(ctx.cwd, options.planFile));
    const problems = [...checkPlanTarget(saved, env), ...checkPermissions(saved, permissions), ...(await secretProblems(saved, ctx))];
    if (problems.length > 0) return { status: 'finished', report: refusal(env.name, problems), plan: saved };
  }
  const manifestPaths = options.planFile === undefined && options.paths !== undefined && options.paths.length > 0 ? options.paths.map((p) => resolve(ctx.cwd, p)) : [...env.manifests];
  if (manifestPaths.length === 0 && saved === undefined) {
    throw new ConfigError(`environment "${env.name}" lists no manifests in ${config.file}; pass paths or add manifests: [...]`);
  }
  const services = resolveServices(config, env, ctx);

  // Manifests before any request: an invalid one stops here.
  let manifests: ManifestSet | undefined;
  if (saved === undefined) {
    const loaded = await loadEnvironmentManifests(manifestPaths, ctx);
    if (!loaded.ok) return { status: 'invalid', diagnostics: reportOf(loaded.manifests, loaded.manifests.diagnostics) };
    manifests = loaded.manifests;
  }

  // One apply per environment at a time: taken before the first request, released when done or
  // abandoned (and, as a last resort, on process exit).
  const { acquireApplyLock, describeTakeover } = await import('../apply/apply-lock.js');
  const lock = acquireApplyLock({ dir: resolve(config.snapshots.dir, env.name), environment: env.name });
  const takeover = describeTakeover(lock);
  if (takeover !== undefined) ctx.emit({ kind: 'warning', message: takeover });

  let clients: OpenClients;
  try {
    // Apply handles Ctrl-C itself (`signal`, `abandon`): the writes in flight finish first.
    clients = await openClients(services, ctx, { shutdownHandlers: false, parallelism });
  } catch (err) {
    lock.release();
    throw err;
  }
  const onAbandon = (): void => {
    lock.release();
    void clients.close().finally(() => ctx.emit({ kind: 'abandoned' }));
  };
  options.abandon?.addEventListener('abort', onAbandon, { once: true });
  try {
    let plan = saved;
    if (plan === undefined) {
      const made = await planManifests(manifests!, { readers: clients.readers, env, services, parallelism }, ctx);
      if (made.plan === undefined || made.plan.errored) return { status: 'invalid', diagnostics: made.diagnostics };
      plan = made.plan;
      ctx.emit({ kind: 'planned', plan, diagnostics: made.diagnostics });
      const { writeChanges } = await import('../apply/guard.js');
      // Nobody is asked about a plan apply would refuse anyway.
      const refused = async (p: Plan): Promise<boolean> => checkPermissions(p, permissions).length > 0 || (await secretProblems(p, ctx)).length > 0;
      if (options.approve !== undefined && writeChanges(plan).length > 0 && !(await refused(plan)) && !(await options.approve(plan))) {
        return { status: 'cancelled', plan };
      }
    }
    const report = await applyThePlan(plan, { config, env, services, clients, permissions, parallelism, manifestPaths, manifests, signal: options.signal }, ctx);
    return { status: 'finished', report, plan };
  } finally {
    options.abandon?.removeEventListener('abort', onAbandon);
    try {
      await clients.close();
    } finally {
      lock.release();
    }
  }
}

interface ApplyRun {
  readonly config: MftopsConfig;
  readonly env: EnvironmentSettings;
  readonly services: readonly ResolvedService[];
  readonly clients: OpenClients;
  readonly permissions: ApplyPermissions;
  readonly parallelism: number;
  readonly manifestPaths: readonly string[];
  /** The manifests the plan was just made from (none for a saved plan): reused when their bytes did not change. */
  readonly manifests: ManifestSet | undefined;
  readonly signal: AbortSignal | undefined;
}

async function applyThePlan(plan: Plan, r: ApplyRun, ctx: AppContext): Promise<ApplyReport> {
  const [{ applyPlan }, { writeChanges }] = await Promise.all([import('../apply/apply-plan.js'), import('../apply/guard.js')]);
  const writes = writeChanges(plan).length;
  const automationService = r.services.find((s) => s.name === 'automation');
  const transferService = r.services.find((s) => s.name === 'transfer');
  return applyPlan({
    plan,
    permissions: r.permissions,
    clients: r.clients.full,
    readers: r.clients.readers,
    parallelism: r.parallelism,
    secrets: { env: ctx.env, cwd: ctx.cwd },
    ...(r.signal ? { signal: r.signal } : {}),
    // Every service of the environment: the automation export, the ACLs of the folders the plan touches.
    takeSnapshot: async (folders) => {
      const { saveSnapshot } = await import('../snapshot/save-snapshot.js');
      const automation = r.clients.full.automation;
      const version = plan.servers.automation?.version;
      const info = await saveSnapshot({
        ...(automation && automationService ? { automation, automationUrl: automationService.url } : {}),
        ...(version !== undefined ? { serverVersion: version } : {}),
        ...(r.clients.full.transfer ? { transfer: r.clients.full.transfer } : {}),
        ...(transferService ? { transferUrl: transferService.url } : {}),
        folders,
        env: r.env.name,
        dir: r.config.snapshots.dir,
        keep: r.config.snapshots.keep,
        note: 'before apply',
        processEnv: ctx.env,
        logger: ctx.logger,
      });
      return { id: info.id, path: info.path };
    },
    verify: (applied) => verifyApplied(plan, applied, r, ctx),
    onPhase: (phase) => ctx.emit({ kind: 'apply-phase', phase, writes, parallelism: r.parallelism }),
    onResult: (result) => ctx.emit({ kind: 'change-result', result }),
  });
}

/**
 * Re-plan from the manifests when they are the ones the plan was made from (same digest); else
 * (a saved plan applied after the files changed, or manifests that no longer load) check the
 * written payloads against the servers, and say why.
 */
async function verifyApplied(plan: Plan, applied: readonly AppliedChange[], r: ApplyRun, ctx: AppContext): Promise<VerifyResult> {
  const [{ loadManifests }, { buildPlan }, { manifestDigest }, { findUnconverged, verifyPayloads }] = await Promise.all([
    import('../manifest/load.js'),
    import('./build-plan.js'),
    import('../plan/manifest-digest.js'),
    import('../apply/verify.js'),
  ]);
  const payloads = async (note: string): Promise<VerifyResult> => ({ mode: 'payloads', note, unconverged: await verifyPayloads(applied, r.clients.full, r.parallelism) });
  // Manifests loaded by this apply are the ones its plan was made from; a saved plan's are re-read.
  const unchanged = r.manifests !== undefined && manifestDigest(r.manifests, ctx.cwd) === plan.manifestDigest;
  const manifests = unchanged ? r.manifests! : await loadManifests(r.manifestPaths, { cwd: ctx.cwd });
  if (hasErrors(manifests.diagnostics)) return payloads('the manifests no longer load without errors, so the written payloads were checked instead of a re-plan');
  if (!unchanged && manifestDigest(manifests, ctx.cwd) !== plan.manifestDigest) {
    return payloads('the manifests on disk are not the ones the plan was made from (changed since, or planned from other paths), so the written payloads were checked instead of a re-plan');
  }
  const result = await buildPlan({
    manifests,
    clients: r.clients.readers,
    environment: r.env,
    servers: serverIdentities(r.services),
    parallelism: r.parallelism,
    cwd: ctx.cwd,
  });
  if (!result.plan) throw new MftopsError('the re-plan found errors in the manifests');
  return { mode: 'replan', unconverged: findUnconverged(applied.map((a) => a.change), result.plan) };
}

/** Every `${env:}`/`${file:}` reference the plan's writes need that has no value now, one line per variable or file. */
async function secretProblems(plan: Plan, ctx: AppContext): Promise<string[]> {
  const [{ writeChanges }, { describeSecretProblems, findSecretProblems }] = await Promise.all([import('../apply/guard.js'), import('../apply/secrets.js')]);
  return describeSecretProblems(findSecretProblems(writeChanges(plan), { env: ctx.env, cwd: ctx.cwd }));
}

/** The report of an apply refused before anything was read. */
function refusal(environment: string, problems: readonly string[]): ApplyReport {
  return { environment, outcome: 'refused', problems, stale: [], results: [], stats: { writes: 0, unknownOutcomes: 0, confirmedByReread: 0, retriedAfterReread: 0, wallMs: 0 } };
}
