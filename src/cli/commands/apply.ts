import { resolve } from 'node:path';
import type { AppliedChange, ApplyPhase } from '../../apply/apply-plan.js';
import type { ApplyReport, ChangeResult, VerifyResult } from '../../apply/model.js';
import type { EnvironmentSettings, MftopsConfig, ResolvedService } from '../../config/model.js';
import { ConfigError, MftopsError } from '../../errors.js';
import type { Logger } from '../../log.js';
import { hasErrors } from '../../manifest/diagnostics.js';
import type { ManifestSet } from '../../manifest/validate.js';
import type { Plan } from '../../plan/model.js';
import type { CommandIo } from '../io.js';
import type { GlobalOptions } from '../main.js';
import { createProgress } from '../progress.js';
import { loggerFor, openEnvironment, resolveServices, serverIdentities, useColor, wholeNumberOption, writeDiagnostics } from './common.js';
import { openClients, type OpenClients } from './clients.js';
import { renderPlan } from './plan.js';

export interface ApplyCommandOptions {
  /** One saved plan file (`*.json`), or manifest files and folders (none: the environment's). */
  readonly args: readonly string[];
  readonly autoApprove: boolean;
  readonly allowDelete: boolean;
  readonly allowReplace: boolean;
  readonly maxDeletes: string;
  readonly parallelism: string;
}

/** What apply needs of the process beyond `CommandIo`: the terminal prompt and the signals. */
export interface ApplyCommandDeps {
  /** stdin is a terminal a person can answer on. */
  readonly canAsk: boolean;
  readonly ask: (question: string) => Promise<string>;
  readonly signals: Pick<NodeJS.EventEmitter, 'on' | 'off'>;
  /** The second Ctrl-C: revoke the tokens and leave at once. */
  readonly exitNow: (code: number) => void;
}

export const APPROVAL_QUESTION = "Apply these changes? Only 'yes' is accepted: ";

/**
 * `mftops apply [PLANFILE | PATH…]`: a saved plan is applied exactly (it was reviewed: no
 * question); without one the manifests are planned, the plan printed, and a person asked on a
 * terminal unless --auto-approve. Every refusal comes before the first write. Exit 0 only when
 * everything was applied and verified (or there was nothing to do), else 1.
 */
export async function runApply(g: GlobalOptions, opts: ApplyCommandOptions, io: CommandIo, deps: ApplyCommandDeps = processDeps()): Promise<number> {
  const parallelism = wholeNumberOption('--parallelism', opts.parallelism, 1, 64);
  const maxDeletes = wholeNumberOption('--max-deletes', opts.maxDeletes, 0, 1_000_000);
  const planFile = planFileArgument(opts.args);
  if (planFile === undefined && !opts.autoApprove && !deps.canAsk) {
    throw new ConfigError('apply without a plan file asks for approval on a terminal, and there is none: pass --auto-approve (or apply a reviewed plan file)');
  }
  const { config, env } = openEnvironment(g, io);
  const color = useColor(g, io);
  const permissions = { allowDelete: opts.allowDelete, allowReplace: opts.allowReplace, maxDeletes };
  const { checkPermissions, checkPlanTarget } = await import('../../apply/guard.js');

  let saved: Plan | undefined;
  if (planFile !== undefined) {
    const { readPlanFile } = await import('../../plan/plan-file.js');
    saved = readPlanFile(resolve(io.cwd, planFile));
    const problems = [...checkPlanTarget(saved, env), ...checkPermissions(saved, permissions)];
    if (problems.length > 0) return refuse(g, io, env.name, problems);
  }
  const manifestPaths = planFile === undefined && opts.args.length > 0 ? opts.args.map((p) => resolve(io.cwd, p)) : [...env.manifests];
  if (manifestPaths.length === 0 && planFile === undefined) {
    throw new ConfigError(`environment "${env.name}" lists no manifests in ${config.file}; pass paths or add manifests: [...]`);
  }
  const services = resolveServices(config, env, io);
  const logger = loggerFor(g, io);

  // Manifests before any request: an invalid one stops here.
  let manifests: ManifestSet | undefined;
  if (saved === undefined) {
    const { loadManifests } = await import('../../manifest/load.js');
    manifests = await loadManifests(manifestPaths, { cwd: io.cwd });
    if (hasErrors(manifests.diagnostics)) {
      writeDiagnostics(g, io, manifests.diagnostics, manifests.manifests.length);
      return 1;
    }
  }

  // One apply per environment at a time (issue 9): taken before the first request, released in
  // the finally below, on the second Ctrl-C, and (as a last resort) on process exit.
  const { acquireApplyLock, describeTakeover } = await import('../../apply/apply-lock.js');
  const lock = acquireApplyLock({ dir: resolve(config.snapshots.dir, env.name), environment: env.name });
  const takeover = describeTakeover(lock);
  if (takeover !== undefined) io.stderr(`mftops: warning: ${takeover}\n`);

  const controller = new AbortController();
  let clients: OpenClients;
  try {
    // Apply handles Ctrl-C itself: the writes in flight finish first.
    clients = await openClients(services, g, io, { shutdownHandlers: false, parallelism });
  } catch (err) {
    lock.release();
    throw err;
  }
  const onSignal = (): void => {
    if (!controller.signal.aborted) {
      io.stderr('Interrupted: no new write starts; waiting for the writes in flight (Ctrl-C again to leave now)\n');
      controller.abort();
      return;
    }
    lock.release();
    void clients.close().finally(() => deps.exitNow(1));
  };
  deps.signals.on('SIGINT', onSignal);
  deps.signals.on('SIGTERM', onSignal);
  try {
    let plan = saved;
    if (plan === undefined) {
      const built = await buildFromManifests(manifests!, clients.readers, env, services, parallelism, g, io, color);
      if (built === undefined) return 1;
      plan = built;
      const problems = checkPermissions(plan, permissions);
      const { writeChanges } = await import('../../apply/guard.js');
      if (writeChanges(plan).length > 0 && problems.length === 0 && !opts.autoApprove) {
        const answer = await deps.ask(APPROVAL_QUESTION);
        if (answer.trim() !== 'yes') {
          io.stderr('Apply cancelled; nothing was written.\n');
          return 1;
        }
      }
    }
    const report = await runApplyPlan(plan, {
      config,
      env,
      services,
      clients,
      permissions,
      parallelism,
      manifestPaths,
      manifests,
      signal: controller.signal,
      logger,
      g,
      io,
    });
    io.stdout(await renderReport(report, g));
    const { applyExitCode } = await import('../../apply/model.js');
    return applyExitCode(report);
  } finally {
    deps.signals.off('SIGINT', onSignal);
    deps.signals.off('SIGTERM', onSignal);
    try {
      await clients.close();
    } finally {
      lock.release();
    }
  }
}

interface RunContext {
  readonly config: MftopsConfig;
  readonly env: EnvironmentSettings;
  readonly services: readonly ResolvedService[];
  readonly clients: OpenClients;
  readonly permissions: { readonly allowDelete: boolean; readonly allowReplace: boolean; readonly maxDeletes: number };
  readonly parallelism: number;
  readonly manifestPaths: readonly string[];
  /** The manifests the plan was just made from (none for a saved plan): reused when their bytes did not change. */
  readonly manifests: ManifestSet | undefined;
  readonly signal: AbortSignal;
  readonly logger: Logger;
  readonly g: GlobalOptions;
  readonly io: CommandIo;
}

async function runApplyPlan(plan: Plan, r: RunContext): Promise<ApplyReport> {
  const { applyPlan } = await import('../../apply/apply-plan.js');
  const say = (line: string): void => {
    if (!r.g.quiet) r.io.stderr(`${line}\n`);
  };
  const automationService = r.services.find((s) => s.name === 'automation');
  const transferService = r.services.find((s) => s.name === 'transfer');
  return applyPlan({
    plan,
    permissions: r.permissions,
    clients: r.clients.full,
    readers: r.clients.readers,
    parallelism: r.parallelism,
    secrets: { env: r.io.env, cwd: r.io.cwd },
    signal: r.signal,
    // Every service of the environment: the automation export, the ACLs of the folders the plan touches.
    takeSnapshot: async (folders) => {
      const { saveSnapshot } = await import('../../snapshot/save-snapshot.js');
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
        processEnv: r.io.env,
        logger: r.logger,
      });
      return { id: info.id, path: info.path };
    },
    verify: (applied) => verifyApplied(plan, applied, r),
    onPhase: (phase: ApplyPhase) => say(phaseLine(phase, plan, r.parallelism)),
    onResult: (result: ChangeResult) => say(resultLine(result)),
  });
}

/**
 * Re-plan from the manifests when they are the ones the plan was made from (same digest); else
 * (a saved plan applied after the files changed, or manifests that no longer load) check the
 * written payloads against the servers, and say why.
 */
async function verifyApplied(plan: Plan, applied: readonly AppliedChange[], r: RunContext): Promise<VerifyResult> {
  const [{ loadManifests }, { buildPlan, manifestDigest }, { findUnconverged, verifyPayloads }] = await Promise.all([
    import('../../manifest/load.js'),
    import('../../plan/build-plan.js'),
    import('../../apply/verify.js'),
  ]);
  const payloads = async (note: string): Promise<VerifyResult> => ({ mode: 'payloads', note, unconverged: await verifyPayloads(applied, r.clients.full, r.parallelism) });
  // Manifests loaded by this apply are the ones its plan was made from; a saved plan's are re-read.
  const unchanged = r.manifests !== undefined && manifestDigest(r.manifests, r.io.cwd) === plan.manifestDigest;
  const manifests = unchanged ? r.manifests! : await loadManifests(r.manifestPaths, { cwd: r.io.cwd });
  if (hasErrors(manifests.diagnostics)) return payloads('the manifests no longer load without errors, so the written payloads were checked instead of a re-plan');
  if (!unchanged && manifestDigest(manifests, r.io.cwd) !== plan.manifestDigest) {
    return payloads('the manifests on disk are not the ones the plan was made from (changed since, or planned from other paths), so the written payloads were checked instead of a re-plan');
  }
  const result = await buildPlan({
    manifests,
    clients: r.clients.readers,
    environment: r.env,
    servers: Object.fromEntries(r.services.map((s) => [s.name, { url: s.url, username: s.username }])),
    parallelism: r.parallelism,
    cwd: r.io.cwd,
  });
  if (!result.plan) throw new MftopsError('the re-plan found errors in the manifests');
  return { mode: 'replan', unconverged: findUnconverged(applied.map((a) => a.change), result.plan) };
}

async function buildFromManifests(
  manifests: ManifestSet,
  readers: OpenClients['readers'],
  env: EnvironmentSettings,
  services: readonly ResolvedService[],
  parallelism: number,
  g: GlobalOptions,
  io: CommandIo,
  color: boolean,
): Promise<Plan | undefined> {
  const { buildPlan } = await import('../../plan/build-plan.js');
  const progress = createProgress(io, g.quiet);
  let result: Awaited<ReturnType<typeof buildPlan>>;
  try {
    result = await buildPlan({
      manifests,
      clients: readers,
      environment: env,
      servers: serverIdentities(services),
      parallelism,
      progress: progress.report,
      cwd: io.cwd,
    });
  } finally {
    progress.finish();
  }
  if (hasErrors(result.diagnostics) || result.plan === undefined) {
    writeDiagnostics(g, io, result.diagnostics, manifests.manifests.length);
    return undefined;
  }
  if (result.diagnostics.length > 0) writeDiagnostics(g, io, result.diagnostics, manifests.manifests.length);
  // The plan as `mftops plan` shows it; JSON output carries only the final report.
  if (g.format !== 'json') io.stdout(await renderPlan(result.plan, g, color));
  return result.plan;
}


// ------------------------------------------------------------------------------------- output

function refuse(g: GlobalOptions, io: CommandIo, environment: string, problems: readonly string[]): Promise<number> {
  const report: ApplyReport = { environment, outcome: 'refused', problems, stale: [], results: [], stats: { writes: 0, unknownOutcomes: 0, confirmedByReread: 0, retriedAfterReread: 0, wallMs: 0 } };
  return renderReport(report, g).then((text) => {
    io.stdout(text);
    return 1;
  });
}

async function renderReport(report: ApplyReport, g: GlobalOptions): Promise<string> {
  const { renderApplySummaryJson, renderApplySummaryText } = await import('../../render/apply-summary.js');
  switch (g.format) {
    case 'json':
      return renderApplySummaryJson(report);
    case 'text':
    case 'markdown':
    case 'github':
      return renderApplySummaryText(report);
  }
}


function phaseLine(phase: ApplyPhase, plan: Plan, parallelism: number): string {
  switch (phase) {
    case 'stale-check':
      return 'Checking that nothing the plan touches changed since it was made...';
    case 'snapshot':
      return 'Saving a snapshot before the first write...';
    case 'write': {
      const n = plan.changes.filter((c) => c.action === 'create' || c.action === 'update' || c.action === 'replace' || c.action === 'delete').length;
      return `Applying ${n} change${n === 1 ? '' : 's'} (${parallelism} at a time)...`;
    }
    case 'verify':
      return 'Verifying...';
  }
}

function resultLine(r: ChangeResult): string {
  switch (r.status) {
    case 'ok':
      return `  ok      ${r.address} (${r.action})${r.unknownOutcomes > 0 ? ` after ${r.unknownOutcomes} unknown outcome(s), re-read` : ''}`;
    case 'failed':
      return `  failed  ${r.address} (${r.action}): ${r.error ?? ''}`;
    case 'skipped':
      return `  skipped ${r.address} (${r.action}): ${r.error ?? ''}`;
  }
}


// ------------------------------------------------------------------------------------ options

/** A single `*.json` argument is a saved plan; anything else names manifests. */
export function planFileArgument(args: readonly string[]): string | undefined {
  const json = args.filter((a) => a.toLowerCase().endsWith('.json'));
  if (json.length === 0) return undefined;
  if (args.length > 1) throw new ConfigError('give one plan file (*.json), or manifest paths, not both');
  return json[0];
}


function processDeps(): ApplyCommandDeps {
  return {
    canAsk: Boolean(process.stdin.isTTY),
    ask: async (question) => {
      const { createInterface } = await import('node:readline/promises');
      const rl = createInterface({ input: process.stdin, output: process.stderr });
      // Ctrl-C at the question is a "no" (readline would otherwise only pause the input).
      const asking = new AbortController();
      rl.on('SIGINT', () => asking.abort());
      try {
        return await rl.question(question, { signal: asking.signal });
      } catch {
        return '';
      } finally {
        rl.close();
      }
    },
    signals: process,
    exitNow: (code) => process.exit(code),
  };
}
