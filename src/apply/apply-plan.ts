import { join } from 'node:path';
import { isMftopsError } from '../errors.js';
import type { Change, Plan } from '../plan/model.js';
import { checkPlan } from '../plan/plan-check.js';
import { describeReason } from '../resources/reasons.js';
import { executeChanges } from './execute.js';
import type { StepRetryOptions } from './execute.js';
import { blockedChanges, checkPermissions, writeChanges } from './guard.js';
import type { ApplyPermissions } from './guard.js';
import { openLedger } from './ledger.js';
import type { LedgerWriter } from './ledger.js';
import { countResults, skippedResult } from './model.js';
import type { ApplyReport, ApplyStats, ChangeResult, VerifyResult } from './model.js';
import type { WriteClients } from './operations.js';
import { describeSecretProblems, resolveChangeSecrets } from './secrets.js';
import type { SecretContext } from './secrets.js';
import { readSnapshotBaseline } from './snapshot-baseline.js';
import type { ExportBaseline } from '../snapshot/model.js';
import { findStaleObjects, readTouchedObjects } from './stale-check.js';
import type { StaleCheckReaders, TouchedObjects } from './stale-check.js';
import { findMovedNames } from './moved-names.js';
import type { ChangeGate } from './running-tasks.js';
import { withDefined } from '../with-defined.js';

/** The ledger's file name inside the snapshot folder. */
export const LEDGER_FILE = 'ledger.jsonl';

/** An applied change with how it ended: what verification checks. */
export interface AppliedChange {
  readonly change: Change;
  readonly result: ChangeResult;
}

export type { ApplyPhase } from './model.js';
import type { ApplyPhase } from './model.js';

export interface ApplyPlanInput {
  /** The plan to apply exactly (its environment and servers already checked by the caller). */
  readonly plan: Plan;
  readonly permissions: ApplyPermissions;
  /** Full clients: only the executor's operations write with them. */
  readonly clients: WriteClients;
  /** Read-only views, for the stale-plan guard. */
  readonly readers: StaleCheckReaders;
  readonly parallelism: number;
  /** Where the `${env:}`/`${file:}` references of the writes are resolved, all of them before anything is read. */
  readonly secrets: SecretContext;
  /**
   * Save the snapshot of everything the plan may change (the automation export, these transfer
   * folders), holding at least `baseline` (what the server held a moment before). Throws a
   * `SnapshotError` when it cannot: then nothing is written.
   */
  readonly takeSnapshot: (
    folders: readonly string[],
    baseline: ExportBaseline | Promise<ExportBaseline>,
  ) => Promise<{ readonly id: string; readonly path: string }>;
  /**
   * True: `takeSnapshot` is called as the stale check starts, so that its reads (the export) go
   * beside the check's instead of after them; `baseline` is then a promise, which rejects when the
   * check does not pass (stale, a read failed, Ctrl-C): the snapshot must then keep nothing, and
   * apply waits for it to settle before it reports. False: called once the check passed.
   */
  readonly snapshotWithStaleCheck?: boolean;
  /** Check the applied changes afterwards (re-plan, or payloads; see `VerifyMode`). */
  readonly verify: (applied: readonly AppliedChange[]) => Promise<VerifyResult>;
  /** Ctrl-C. Before the first write: nothing is written; after: see `executeChanges`. */
  readonly signal?: AbortSignal;
  readonly retry?: StepRetryOptions;
  readonly drainTimeoutMs?: number;
  readonly onPhase?: (phase: ApplyPhase) => void;
  readonly onResult?: (result: ChangeResult) => void;
  /** Asked right before each change's first request (running tasks): a reason leaves it not applied. */
  readonly gate?: ChangeGate;
  /**
   * Called once before the first write, after every check (the scheduler pause); a string is a
   * problem that refuses the apply, nothing written.
   */
  readonly beforeWrites?: (snapshot: { readonly id: string; readonly path: string }) => Promise<string | undefined>;
  /** Default: a 0600 file in the snapshot folder. */
  readonly openLedger?: (path: string) => LedgerWriter;
  readonly now?: () => number;
}

/**
 * `mftops apply` after the plan is known (DESIGN.md §5): refuse what is not allowed or lacks a
 * secret (every one named), refuse a stale plan, take a verified snapshot, write in order with a
 * ledger, verify. Every refusal happens before the first write; each is a report, not an
 * exception (exceptions are I/O failures of the reads before the first write, and bugs).
 */
export async function applyPlan(input: ApplyPlanInput): Promise<ApplyReport> {
  const now = input.now ?? Date.now;
  const started = now();
  const plan = input.plan;
  const writes = writeChanges(plan);
  const blocked = blockedChanges(plan).map((c) =>
    skippedResult(c, `blocked: ${c.reason === undefined ? 'the API cannot make this change' : describeReason(c.reason)}`),
  );
  const base = { environment: plan.environment, problems: [] as string[], stale: [], results: blocked };
  const stats = (results: readonly ChangeResult[], retriedAfterReread = 0): ApplyStats => ({
    writes: sum(results, (r) => r.writes),
    unknownOutcomes: sum(results, (r) => r.unknownOutcomes),
    confirmedByReread: sum(results, (r) => r.confirmedByReread),
    retriedAfterReread,
    wallMs: now() - started,
  });

  const unfit = checkPlan(plan);
  if (unfit.length > 0) return { ...base, outcome: 'refused', problems: unfit, stats: stats([]) };
  if (!plan.applyable) return { ...base, outcome: 'nothing', stats: stats([]) };
  // Every secret before the first request: one that has no value refuses the whole plan, never half of it.
  const secrets = resolveChangeSecrets(writes, input.secrets);
  const problems = [...checkPermissions(plan, input.permissions), ...(secrets.ok ? [] : describeSecretProblems(secrets.problems))];
  if (problems.length > 0 || !secrets.ok) return { ...base, outcome: 'refused', problems, stats: stats([]) };
  const interrupted = (): ApplyReport => ({
    ...base,
    outcome: 'interrupted',
    problems: ['interrupted before the first write: nothing was changed'],
    stats: stats([]),
  });
  if (input.signal?.aborted) return interrupted();

  input.onPhase?.('stale-check');
  const folders = touchedFolders(writes);
  const touchedRead = readTouchedObjects(writes, input.readers, input.parallelism);
  const baselineRead = readSnapshotBaseline(writes, touchedRead, input.readers, folders);
  // Handled here; awaited below, in the order the outcomes were always judged: stale first.
  baselineRead.catch(() => undefined);
  const early = input.snapshotWithStaleCheck === true ? startSnapshot(input.takeSnapshot, folders) : undefined;
  let touched: TouchedObjects;
  try {
    touched = await touchedRead;
  } catch (err) {
    await early?.cancel();
    throw err;
  }
  const stale = findStaleObjects(writes, touched);
  // A name that resolves to another principal now would send the plan's grant to it: refused like a moved object.
  const movedNames = findMovedNames(writes, touched.names);
  if (stale.length > 0 || movedNames.length > 0) {
    await early?.cancel();
    return { ...base, outcome: 'stale', stale, ...(movedNames.length > 0 ? { movedNames } : {}), stats: stats([]) };
  }
  if (input.signal?.aborted) {
    await early?.cancel();
    return interrupted();
  }

  input.onPhase?.('snapshot');
  let snapshot: { readonly id: string; readonly path: string };
  try {
    let baseline: ExportBaseline;
    try {
      baseline = await baselineRead;
    } catch (err) {
      await early?.cancel();
      throw err;
    }
    snapshot = await (early ? early.save(baseline) : input.takeSnapshot(folders, baseline));
  } catch (err) {
    if (!isMftopsError(err)) throw err;
    return { ...base, outcome: 'no-snapshot', problems: [`${err.message}; nothing was applied`], stats: stats([]) };
  }
  const snapshotRef = { id: snapshot.id, path: snapshot.path };
  if (input.signal?.aborted) return { ...interrupted(), snapshot: snapshotRef };
  const unpaused = await input.beforeWrites?.(snapshotRef);
  if (unpaused !== undefined) return { ...base, outcome: 'refused', problems: [unpaused], snapshot: snapshotRef, stats: stats([]) };

  const ledger = (input.openLedger ?? openLedger)(join(snapshot.path, LEDGER_FILE));
  let executed;
  try {
    ledger.write({
      event: 'start',
      environment: plan.environment,
      planCreatedAt: plan.createdAt,
      manifestDigest: plan.manifestDigest,
      snapshot: snapshot.id,
      changes: writes.length,
    });
    for (const b of blocked)
      ledger.write({ event: 'change', address: b.address, action: b.action, status: 'skipped', ...(b.error !== undefined ? { error: b.error } : {}) });
    input.onPhase?.('write');
    executed = await executeChanges({
      changes: writes,
      clients: input.clients,
      ledger,
      parallelism: input.parallelism,
      secrets: secrets.resolved,
      ...(input.signal ? { signal: input.signal } : {}),
      ...(input.retry ? { retry: input.retry } : {}),
      ...(input.drainTimeoutMs !== undefined ? { drainTimeoutMs: input.drainTimeoutMs } : {}),
      ...(input.onResult ? { onResult: input.onResult } : {}),
      ...withDefined({ gate: input.gate }),
    });
    const counts = countResults(executed.results);
    ledger.write({ event: 'end', ok: counts.ok, failed: counts.failed, skipped: counts.skipped + blocked.length, interrupted: executed.interrupted });
  } finally {
    ledger.close();
  }

  const results = mergeInPlanOrder(plan, executed.results, blocked);
  const applied = writes.map((change, i) => ({ change, result: executed.results[i]! })).filter((a) => a.result.status === 'ok');
  let verification: VerifyResult;
  if (executed.interrupted) verification = { mode: 'skipped', unconverged: [], note: 'interrupted: run mftops plan to see where the servers are' };
  else if (applied.length === 0) verification = { mode: 'skipped', unconverged: [], note: 'no change was applied' };
  else {
    input.onPhase?.('verify');
    try {
      verification = await input.verify(applied);
    } catch (err) {
      if (!isMftopsError(err)) throw err;
      verification = { mode: 'skipped', unconverged: [], error: `verification failed: ${err.message}` };
    }
  }
  return {
    ...base,
    outcome: executed.interrupted ? 'interrupted' : 'applied',
    results,
    snapshot: snapshotRef,
    ledger: ledger.path,
    verification,
    stats: stats(executed.results, executed.retriedAfterReread),
  };
}

/** A snapshot begun before its baseline is known (`snapshotWithStaleCheck`). */
interface EarlySnapshot {
  /** Give the baseline; the snapshot as `takeSnapshot` ends. */
  save(baseline: ExportBaseline): Promise<{ readonly id: string; readonly path: string }>;
  /** The check did not pass: the baseline is refused, and the snapshot (which then keeps nothing) waited for. */
  cancel(): Promise<void>;
}

function startSnapshot(take: ApplyPlanInput['takeSnapshot'], folders: readonly string[]): EarlySnapshot {
  let give!: (baseline: ExportBaseline) => void;
  let refuse!: (err: Error) => void;
  const baseline = new Promise<ExportBaseline>((resolve, reject) => {
    give = resolve;
    refuse = reject;
  });
  // Awaited by the snapshot only after its reads: handled now, so an early refusal is not unhandled.
  baseline.catch(() => undefined);
  const taking = take(folders, baseline);
  taking.catch(() => undefined);
  return {
    save: (b) => {
      give(b);
      return taking;
    },
    cancel: async () => {
      refuse(new Error('the stale check did not pass: no snapshot'));
      await taking.catch(() => undefined);
    },
  };
}

/**
 * Transfer folders the writes touch: saved in the snapshot with their ACLs (a folder to create is
 * recorded as absent, a renamed one under its previous path, where it is before the apply).
 */
export function touchedFolders(changes: readonly Change[]): string[] {
  return changes.filter((c) => c.kind === 'FolderPermissions').map((c) => c.previousName ?? c.name);
}

function mergeInPlanOrder(plan: Plan, executed: readonly ChangeResult[], blocked: readonly ChangeResult[]): ChangeResult[] {
  const byAddress = new Map<string, ChangeResult>();
  for (const r of [...executed, ...blocked]) byAddress.set(r.address, r);
  return plan.changes.flatMap((c) => {
    const r = byAddress.get(c.address);
    return r ? [r] : [];
  });
}

function sum(results: readonly ChangeResult[], of: (r: ChangeResult) => number): number {
  return results.reduce((n, r) => n + of(r), 0);
}
