import { existsSync, realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import { applyPlan, type AppliedChange } from '../apply/apply-plan.js';
import { checkPermissions, checkPlanTarget, writeChanges, type ApplyPermissions } from '../apply/guard.js';
import type { ApplyReport, VerifyResult } from '../apply/model.js';
import type { EnvironmentSettings, MftopsConfig, ResolvedService } from '../config/model.js';
import type { SecretConfinement } from '../secret.js';
import { ConfigError, MftopsError } from '../errors.js';
import { hasErrors } from '../manifest/diagnostics.js';
import type { ManifestSet } from '../manifest/validate.js';
import { formatAddress } from '../plan/model.js';
import type { Plan, PolicyReport } from '../plan/model.js';
import { sourceRef } from '../plan/compute-plan.js';
import { deniesPlan, evaluatePolicies } from '../policy/evaluate.js';
import { policyDenyLines } from '../render/policy.js';
import type { DiagnosticsReport } from '../render/diagnostics.js';
import { openClients } from './clients.js';
import { prefetchReads } from './prefetch-reads.js';
import type { OpenClients } from './clients.js';
import type { AppContext, EnvironmentChoice } from './context.js';
import { DEFAULTS } from './defaults.js';
import {
  choosePrune,
  loadEnvironmentManifests,
  manifestEnvironmentOf,
  openEnvironment,
  resolveServices,
  secretConfinementOf,
  serverIdentities,
} from './environment.js';
import type { PruneChoice } from './environment.js';
import type { ManifestEnvironment } from '../manifest/variables.js';
import { holdsPlanFile, readSavedPlan } from './plan-file.js';
import type { SavedPlan } from './plan-file.js';
import { planManifests, reportOf } from './plan.js';
import { acquireApplyLock, describeTakeover } from '../apply/apply-lock.js';
import { saveSnapshot } from '../snapshot/save-snapshot.js';
import { createPolicyRunner } from './run-policy-checks.js';
import { loadManifests } from '../manifest/load.js';
import { readAndPlan } from './read-and-plan.js';
import { manifestDigest } from '../plan/manifest-digest.js';
import { findUnconverged, verifyPayloads } from '../apply/verify.js';
import { describeSecretProblems, findSecretProblems } from '../apply/secrets.js';
import { checkApplyWindow, checkOverrideReason } from './server-calendar.js';
import type { WindowClose } from './server-calendar.js';
import { readClock } from './clock.js';
import { openLedgerNoting } from './window-ledger.js';
import type { ApplyWindowReport } from '../schedule/model.js';
import type { RunningTasksMode } from '../apply/running-tasks.js';
import { withDefined } from '../with-defined.js';
import { clockOptions, SCHEDULER_RESUME_TIMEOUT_MS } from './apply-clock.js';
import type { ApplyClockOptions } from './apply-clock.js';
import { leftStoppedWarning, resumeHeldSchedulers, startSchedulerCommand } from './scheduler-pause.js';
import { readSchedulerNote } from '../apply/scheduler-note.js';

export interface ApplyOptions extends EnvironmentChoice {
  /** A plan saved by `plan --out` (relative to `cwd`), applied exactly; else the manifests are planned first. */
  readonly planFile?: string;
  /**
   * With `planFile`, which configuration applies it:
   * - `recorded` (default, the CLI): the configuration file the plan file records and the plan's
   *   environment, so none need be given; a `configFile` that names another file is refused, an
   *   `environment` that names another is refused as a plan for another environment;
   * - `given` (the Action, whose reviewed plan was made on another runner, maybe in another
   *   folder): `configFile` (default `mftops.yaml`), and `environment` or else the plan's.
   */
  readonly planConfig?: 'recorded' | 'given';
  /** Manifest files and folders to plan (relative to `cwd`); default: the environment's. Ignored with `planFile`. */
  readonly paths?: readonly string[];
  /** Plan only these addresses (`Kind/name`), as `plan --target`. Refused with `planFile`: a saved plan is applied as it was made. */
  readonly targets?: readonly string[];
  /** As for plan (`choosePrune`). Refused with `planFile`: what a saved plan prunes was decided when it was made. */
  readonly prune?: boolean;
  /** As for plan (`--rotate-passwords`). Refused with `planFile`: a saved plan rotates what it was made to. */
  readonly rotatePasswords?: boolean;
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
  /** `--override-window "reason"`: apply outside the environment's change windows, recording why (issue 28). */
  readonly overrideWindow?: string;
  /** Before writing a task that is running (`RunningTasksMode`); default `wait`. */
  readonly runningTasks?: RunningTasksMode;
  /** `wait`'s deadline per change (ms); default `DEFAULT_RUNNING_WAIT_MS`. */
  readonly runningWaitMs?: number;
  /** Stop the automation scheduler for the writes and start it again after (`SchedulerPause`). */
  readonly pauseScheduler?: boolean;
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

/** What `apply`'s arguments name: one saved plan, or manifest files and folders (none: the environment's). */
export type ApplyArguments = { readonly planFile: string } | { readonly paths: readonly string[] };

/**
 * Sort `apply`'s arguments. A plan file is found by its content, whatever its name
 * (`holdsPlanFile`); a name ending in `.json` is always taken for one, as before, so that a
 * missing or damaged plan is refused as a plan file and not read as a manifest. Anything else
 * (a YAML file, a folder) is a manifest path. A plan file goes alone; a single argument that
 * does not exist is refused here, before it is taken for either.
 */
export function sortApplyArguments(args: readonly string[], ctx: Pick<AppContext, 'cwd'>): ApplyArguments {
  const plans = args.filter((a) => a.toLowerCase().endsWith('.json') || holdsPlanFile(resolve(ctx.cwd, a)));
  if (plans.length === 0) {
    if (args.length === 1 && !existsSync(resolve(ctx.cwd, args[0]!))) {
      throw new ConfigError(`${args[0]} does not exist: give a plan file saved by mftops plan --out, or manifest files or folders`);
    }
    return { paths: args };
  }
  if (args.length > 1) throw new ConfigError(`give one plan file (${plans[0]}), or manifest paths, not both`);
  return { planFile: plans[0]! };
}

/**
 * Apply to an environment: a saved plan exactly, or the plan of the manifests after approval.
 * Every refusal comes before the first write: a plan for another environment, configuration or
 * server, deletes or replaces not allowed, a secret reference without a value (every one named; a
 * saved plan's before a request is sent), a `deny` policy (the plan's made now, before anyone is
 * asked; a saved plan's against the policies of the manifests as they are now), a stale plan. One
 * apply per environment at a time (a lock file); a snapshot of every service before the first
 * write; verification after.
 */
export async function applyEnvironment(options: ApplyOptions, ctx: AppContext): Promise<ApplyResult> {
  checkOverrideReason(options.overrideWindow);
  let saved: SavedPlan | undefined;
  let choice: EnvironmentChoice = options;
  if (options.planFile !== undefined) {
    if (options.targets !== undefined && options.targets.length > 0) {
      throw new ConfigError(
        '--target cannot be used with a saved plan, which is applied exactly as it was made: plan again with --target and --out, or apply the manifests with --target',
      );
    }
    if (options.rotatePasswords === true)
      throw new ConfigError('--rotate-passwords cannot be used with a saved plan: make the plan with it (mftops plan --rotate-passwords --out FILE)');
    if (options.prune !== undefined)
      throw new ConfigError(`--${options.prune ? '' : 'no-'}prune cannot be used with a saved plan: what it prunes was decided when it was made`);
    saved = readSavedPlan(resolve(ctx.cwd, options.planFile));
    const chosen = savedPlanConfiguration(saved, options, ctx);
    if (typeof chosen === 'string') return { status: 'finished', report: refusal(saved.plan.environment, [chosen]), plan: saved.plan };
    choice = chosen;
  }
  const { config, env: configured } = openEnvironment(choice, ctx);
  const permissions: ApplyPermissions = {
    allowDelete: options.permissions?.allowDelete ?? false,
    allowReplace: options.permissions?.allowReplace ?? false,
    maxDeletes: options.permissions?.maxDeletes ?? DEFAULTS.maxDeletes,
  };
  const parallelism = options.parallelism ?? DEFAULTS.applyParallelism;

  const manifestPaths =
    saved === undefined && options.paths !== undefined && options.paths.length > 0 ? options.paths.map((p) => resolve(ctx.cwd, p)) : [...configured.manifests];
  if (manifestPaths.length === 0 && saved === undefined) {
    throw new ConfigError(`environment "${configured.name}" lists no manifests in ${config.file}; pass paths or add manifests: [...]`);
  }
  // A saved plan is checked against the policies as they are now: one may have come since it was made.
  let policy: PolicyReport | undefined;
  let manifests: ManifestSet | undefined;
  if (saved !== undefined) {
    const problems = [
      ...checkPlanTarget(saved.plan, configured),
      ...checkPermissions(saved.plan, permissions),
      ...(await secretProblems(saved.plan, config, ctx)),
    ];
    if (problems.length > 0) return { status: 'finished', report: refusal(configured.name, problems), plan: saved.plan };
    const rechecked = await recheckPolicies(saved.plan, manifestPaths, manifestEnvironmentOf(config, configured), secretConfinementOf(config), ctx);
    if (rechecked.status === 'invalid') return rechecked;
    policy = rechecked.policy;
    manifests = rechecked.manifests;
    if (policy !== undefined && deniesPlan(policy)) return { status: 'finished', report: policyRefusal(configured.name, policy), plan: saved.plan };
  }
  const services = resolveServices(config, configured, ctx);

  // One apply per environment at a time: taken before the first request (with manifests to plan,
  // before they load: their reads start while they load), released when done or abandoned (and,
  // as a last resort, on process exit).
  const lock = acquireApplyLock({ dir: resolve(config.snapshots.dir, configured.name), environment: configured.name });
  const takeover = describeTakeover(lock);
  if (takeover !== undefined) ctx.emit({ kind: 'warning', message: takeover });
  // An earlier `apply --pause-scheduler` killed before it started the scheduler again (its note outlives its lock).
  const leftStopped = readSchedulerNote(resolve(config.snapshots.dir, configured.name));
  const automationUrl = services.find((s) => s.name === 'automation')?.url;
  if (leftStopped !== undefined)
    ctx.emit({ kind: 'warning', message: leftStoppedWarning(leftStopped, startSchedulerCommand(configured.name, automationUrl ?? leftStopped.automationUrl)) });

  let clients: OpenClients;
  try {
    // Apply handles Ctrl-C itself (`signal`, `abandon`): the writes in flight finish first.
    clients = await openClients(services, ctx, { shutdownHandlers: false, parallelism });
  } catch (err) {
    lock.release();
    throw err;
  }
  const onAbandon = (): void => {
    // A paused scheduler is started again (bounded) before the lock is released and the tokens go.
    void resumeHeldSchedulers(SCHEDULER_RESUME_TIMEOUT_MS)
      .then(() => lock.release())
      .finally(() => clients.close())
      .finally(() => ctx.emit({ kind: 'abandoned' }));
  };
  options.abandon?.addEventListener('abort', onAbandon, { once: true });
  try {
    // The manifests to plan, the plan's reads started while they load (as plan's, issue 29): an
    // invalid one stops here, nothing written, the reads' outcomes unseen, the tokens revoked.
    let prune: PruneChoice | undefined;
    let planReaders = clients.readers;
    if (saved === undefined) {
      const prefetch = prefetchReads(clients, configured, parallelism);
      let loaded: Awaited<ReturnType<typeof loadEnvironmentManifests>>;
      try {
        loaded = await loadEnvironmentManifests(manifestPaths, ctx, manifestEnvironmentOf(config, configured), secretConfinementOf(config), prefetch.onFile);
      } finally {
        prefetch.stop();
      }
      if (!loaded.ok) return { status: 'invalid', diagnostics: reportOf(loaded.manifests, loaded.manifests.diagnostics) };
      manifests = loaded.manifests;
      prune = choosePrune(configured, options.paths, options.prune, ctx);
      // Only the plan takes the reads started ahead: the checks after it read the servers anew.
      planReaders = prefetch.readers;
    }
    // What this run prunes: the plan made now, and its verification, prune the same.
    const env: EnvironmentSettings = prune === undefined ? configured : { ...configured, prune: prune.kinds };
    let plan = saved?.plan;
    let window: ApplyWindowReport | undefined;
    let windowCloses: WindowClose | undefined;
    if (plan === undefined) {
      const made = await planManifests(
        manifests!,
        {
          readers: planReaders,
          env,
          services,
          parallelism,
          confinement: secretConfinementOf(config),
          ...(prune?.off ? { pruneOff: prune.off } : {}),
          ...(options.targets !== undefined && options.targets.length > 0 ? { targets: options.targets } : {}),
          ...(options.rotatePasswords === true ? { rotatePasswords: true } : {}),
          ...withDefined({ pauseScheduler: options.pauseScheduler }),
        },
        ctx,
      );
      if (made.plan === undefined || made.plan.errored) return { status: 'invalid', diagnostics: made.diagnostics };
      plan = made.plan;
      policy = plan.policy;
      ctx.emit({ kind: 'planned', plan, diagnostics: made.diagnostics });
      // A deny refuses before anyone is asked and before the snapshot: --auto-approve changes nothing.
      if (policy !== undefined && deniesPlan(policy)) return { status: 'finished', report: policyRefusal(env.name, policy), plan };
      // Nobody is asked about a plan apply would refuse anyway.
      const refused = async (p: Plan): Promise<boolean> => checkPermissions(p, permissions).length > 0 || (await secretProblems(p, config, ctx)).length > 0;
      const closed = await windowRefusal(plan, env, clients, options, ctx);
      if (closed.refused !== undefined) return { status: 'finished', report: closed.refused, plan };
      ({ window, closes: windowCloses } = closed);
      if (options.approve !== undefined && writeChanges(plan).length > 0 && !(await refused(plan))) {
        if (!(await options.approve(plan))) return { status: 'cancelled', plan };
        // The answer may come long after the question: the window is judged again before any write or snapshot.
        const again = await windowRefusal(plan, env, clients, options, ctx, closed.window);
        if (again.refused !== undefined) return { status: 'finished', report: again.refused, plan };
        ({ window, closes: windowCloses } = again);
      }
    } else {
      const closed = await windowRefusal(plan, env, clients, options, ctx);
      if (closed.refused !== undefined) return { status: 'finished', report: closed.refused, plan };
      ({ window, closes: windowCloses } = closed);
    }
    const report = await applyThePlan(
      plan,
      {
        config,
        env,
        services,
        clients,
        permissions,
        parallelism,
        manifestPaths,
        manifests,
        plannedNow: saved === undefined,
        signal: options.signal,
        window,
        clock: clockOptions({ ...options, ...withDefined({ windowCloses }) }, services, env, config, clients, ctx),
      },
      ctx,
    );
    const withPolicy = policy !== undefined ? { ...report, policy } : report;
    return { status: 'finished', report: window !== undefined ? { ...withPolicy, changeWindow: window } : withPolicy, plan };
  } finally {
    options.abandon?.removeEventListener('abort', onAbandon);
    try {
      await clients.close();
    } finally {
      lock.release();
    }
  }
}

/**
 * The configuration and environment that apply a saved plan (`ApplyOptions.planConfig`), or why
 * the ones given cannot.
 */
function savedPlanConfiguration(saved: SavedPlan, options: ApplyOptions, ctx: Pick<AppContext, 'cwd'>): EnvironmentChoice | string {
  const environment = options.environment ?? saved.plan.environment;
  const recorded = saved.configFile;
  if (options.planConfig === 'given' || recorded === undefined)
    return { ...(options.configFile !== undefined ? { configFile: options.configFile } : {}), environment };
  if (options.configFile !== undefined) {
    const given = resolve(ctx.cwd, options.configFile);
    if (!sameFile(given, recorded))
      return `the plan was made with the configuration ${recorded}, not ${given} (${options.configFileFrom ?? '--config'}): apply it without ${options.configFileFrom ?? '--config'}, or plan again with this configuration`;
  }
  if (!existsSync(recorded)) throw new ConfigError(`the plan was made with the configuration ${recorded}, which no longer exists: plan again`);
  return { configFile: recorded, environment };
}

/** The same file, symbolic links and `..` aside. */
function sameFile(a: string, b: string): boolean {
  const real = (p: string): string => {
    try {
      return realpathSync(p);
    } catch {
      return resolve(p);
    }
  };
  return real(a) === real(b);
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
  /** The plan was made by this run from `manifests` (not saved): their digest is the plan's by construction. */
  readonly plannedNow: boolean;
  readonly signal: AbortSignal | undefined;
  /** The change windows as apply found them; an override is noted in the ledger. */
  readonly window?: ApplyWindowReport | undefined;
  /** Running tasks and the scheduler pause (issue 28): see `clockOptions`. */
  readonly clock: ApplyClockOptions;
}

/**
 * The change-window gate (issue 28), for a plan that writes: before anyone is asked, again once
 * the plan is approved (`before`: the first verdict), before the snapshot and any write.
 * `refused` is the report of an apply outside the windows without `--override-window`. `closes`:
 * when the open window ends, on the real clock (`Date.now`) even when `MFTOPS_NOW` pinned the judgement.
 */
async function windowRefusal(
  plan: Plan,
  env: EnvironmentSettings,
  clients: OpenClients,
  options: ApplyOptions,
  ctx: AppContext,
  before?: ApplyWindowReport,
): Promise<{ readonly refused?: ApplyReport; readonly window?: ApplyWindowReport; readonly closes?: WindowClose }> {
  if (writeChanges(plan).length === 0) return {};
  const now = (ctx.now ?? readClock(ctx.env))();
  const found = await checkApplyWindow(env, clients.readers.automation, now, options.overrideWindow);
  if (found === undefined) return {};
  const pinned = ctx.env['MFTOPS_NOW'] !== undefined && ctx.env['MFTOPS_NOW'] !== '' ? now.toISOString() : undefined;
  const checked = { ...found, report: { ...found.report, ...withDefined({ pinnedClock: pinned }) } };
  if (pinned !== undefined && before === undefined)
    ctx.emit({ kind: 'warning', message: `the change windows are judged at MFTOPS_NOW=${ctx.env['MFTOPS_NOW'] ?? ''}, not the real time` });
  if (checked.refusal !== undefined) return { refused: { ...refusal(env.name, [checked.refusal]), changeWindow: checked.report } };
  if (checked.zoneNote !== undefined && before === undefined) ctx.emit({ kind: 'warning', message: `the change windows are open now; ${checked.zoneNote}` });
  // A second judgement (after approval) warns of an override only when the first did not.
  if (checked.report.overrideReason !== undefined && before?.overrideReason === undefined)
    ctx.emit({ kind: 'warning', message: `applying outside the change windows: ${checked.report.text ?? ''}; reason: ${checked.report.overrideReason}` });
  const closes = found.closes === undefined ? undefined : { ...found.closes, atMs: Date.now() + (found.closes.atMs - now.getTime()) };
  return { window: checked.report, ...withDefined({ closes }) };
}

async function applyThePlan(plan: Plan, r: ApplyRun, ctx: AppContext): Promise<ApplyReport> {
  const pause = r.clock.pause;
  try {
    const report = await applyThePlanNow(plan, r, ctx);
    const scheduler = await pause?.resume();
    return scheduler === undefined ? report : { ...report, scheduler };
  } finally {
    await pause?.resume();
  }
}

async function applyThePlanNow(plan: Plan, r: ApplyRun, ctx: AppContext): Promise<ApplyReport> {
  const writes = writeChanges(plan).length;
  const automationService = r.services.find((s) => s.name === 'automation');
  const transferService = r.services.find((s) => s.name === 'transfer');
  return applyPlan({
    plan,
    permissions: r.permissions,
    clients: r.clients.full,
    readers: r.clients.readers,
    parallelism: r.parallelism,
    secrets: { env: ctx.env, cwd: ctx.cwd, confinement: secretConfinementOf(r.config) },
    ...(r.signal ? { signal: r.signal } : {}),
    ...(r.window?.overrideReason !== undefined || r.window?.pinnedClock !== undefined ? { openLedger: openLedgerNoting(r.window) } : {}),
    // Every service of the environment: the automation export, the ACLs of the folders the plan
    // touches. Begun with the stale check (its export needs none of the check's answers); kept only
    // when the check passes and the export holds what the check read.
    snapshotWithStaleCheck: true,
    takeSnapshot: async (folders, baseline) => {
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
        baseline,
        processEnv: ctx.env,
        logger: ctx.logger,
      });
      return { id: info.id, path: info.path };
    },
    // The writes are done: the scheduler starts again before the verification re-read (its outcome is kept for the report).
    verify: async (applied) => {
      await r.clock.pause?.resume();
      return verifyApplied(plan, applied, r, ctx);
    },
    onPhase: (phase) => ctx.emit({ kind: 'apply-phase', phase, writes, parallelism: r.parallelism }),
    onResult: (result) => ctx.emit({ kind: 'change-result', result }),
    ...withDefined({ gate: r.clock.gate }),
    ...(r.clock.pause !== undefined ? { beforeWrites: (snapshot: { readonly id: string }) => r.clock.pause!.pause(snapshot.id) } : {}),
  });
}

/**
 * Re-plan from the manifests when they are the ones the plan was made from (same digest); else
 * (a saved plan applied after the files changed, or manifests that no longer load) check the
 * written payloads against the servers, and say why.
 */
async function verifyApplied(plan: Plan, applied: readonly AppliedChange[], r: ApplyRun, ctx: AppContext): Promise<VerifyResult> {
  const payloads = async (note: string): Promise<VerifyResult> => ({
    mode: 'payloads',
    note,
    unconverged: await verifyPayloads(applied, r.clients.full, r.parallelism),
  });
  // Manifests loaded by this apply are the ones its plan was made from; a saved plan's are re-read.
  const unchanged = r.manifests !== undefined && (r.plannedNow || manifestDigest(r.manifests, ctx.cwd) === plan.manifestDigest);
  const manifests = unchanged ? r.manifests! : await loadManifests(r.manifestPaths, { cwd: ctx.cwd, environment: manifestEnvironmentOf(r.config, r.env) });
  if (hasErrors(manifests.diagnostics))
    return payloads('the manifests no longer load without errors, so the written payloads were checked instead of a re-plan');
  if (!unchanged && manifestDigest(manifests, ctx.cwd) !== plan.manifestDigest) {
    return payloads(
      'the manifests on disk are not the ones the plan was made from (changed since, or planned from other paths), so the written payloads were checked instead of a re-plan',
    );
  }
  const result = await readAndPlan({
    manifests,
    clients: r.clients.readers,
    environment: r.env,
    servers: serverIdentities(r.services),
    parallelism: r.parallelism,
    cwd: ctx.cwd,
    // Only manifests whose digest is the plan's get here (made from them now, or checked above).
    manifestDigest: plan.manifestDigest,
  });
  if (!result.plan) throw new MftopsError('the re-plan found errors in the manifests');
  return {
    mode: 'replan',
    unconverged: findUnconverged(
      applied.map((a) => a.change),
      result.plan,
    ),
  };
}

/**
 * The policies of the environment's manifests as they are now, evaluated on a saved plan's
 * changes (no server is asked). Each change's `object` is the manifest that declares its address
 * now, found by address and not by the plan's line numbers, which an edit above it moves; a
 * change no manifest declares any more sees `object: null` (an expression that reads it cannot
 * evaluate, which a `deny` counts as a violation). Manifests that no longer load are refused:
 * their policies cannot be known. Undefined `policy` when no manifest is a policy.
 */
async function recheckPolicies(
  plan: Plan,
  paths: readonly string[],
  environment: ManifestEnvironment,
  confinement: SecretConfinement,
  ctx: AppContext,
): Promise<{ status: 'checked'; manifests?: ManifestSet; policy?: PolicyReport } | { status: 'invalid'; diagnostics: DiagnosticsReport }> {
  if (paths.length === 0) return { status: 'checked' };
  const loaded = await loadEnvironmentManifests(paths, ctx, environment, confinement);
  if (!loaded.ok) return { status: 'invalid', diagnostics: reportOf(loaded.manifests, loaded.manifests.diagnostics) };
  const { manifests, policies } = loaded.manifests;
  if (policies.length === 0) return { status: 'checked', manifests: loaded.manifests };
  const declared = new Map(manifests.map((m) => [formatAddress(m.kind, m.name), m]));
  const changes = plan.changes.map(({ source: _planned, ...change }) => {
    const m = change.action === 'delete' ? undefined : declared.get(change.address);
    return m === undefined ? change : { ...change, source: sourceRef(m.source, ctx.cwd) };
  });
  return {
    status: 'checked',
    manifests: loaded.manifests,
    policy: await evaluatePolicies({ changes }, policies, manifests, ctx.cwd, undefined, createPolicyRunner()),
  };
}

/** Every `${env:}`/`${file:}` reference the plan's writes need that has no value now, one line per variable or file. */
async function secretProblems(plan: Plan, config: MftopsConfig, ctx: AppContext): Promise<string[]> {
  return describeSecretProblems(findSecretProblems(writeChanges(plan), { env: ctx.env, cwd: ctx.cwd, confinement: secretConfinementOf(config) }));
}

/** The report of an apply a `deny` policy refuses: one problem per deny violation, and the checks. */
function policyRefusal(environment: string, policy: PolicyReport): ApplyReport {
  return { ...refusal(environment, policyDenyLines(policy)), policy };
}

/** The report of an apply refused before anything was read. */
function refusal(environment: string, problems: readonly string[]): ApplyReport {
  return {
    environment,
    outcome: 'refused',
    problems,
    stale: [],
    results: [],
    stats: { writes: 0, unknownOutcomes: 0, confirmedByReread: 0, retriedAfterReread: 0, wallMs: 0 },
  };
}
