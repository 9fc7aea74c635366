import type { ChangeIds, StaleHow } from '../kinds/kind-io.js';
import type { Action, Change, NameKind, PolicyReport, ResourceKind } from '../plan/model.js';
import type { ApplyWindowReport } from '../schedule/model.js';

/**
 * What `mftops apply` did, as data: the executor and the orchestration produce it, the renderers
 * (`src/render/apply-summary.ts`) and the exit code read it. Like the plan, it never holds a
 * secret value: errors are the servers' one-line messages with every resolved secret redacted.
 */

export type { WriteAction } from '../plan/model.js';
export type { ChangeIds, StaleHow } from '../kinds/kind-io.js';
export { isWriteAction } from '../plan/model.js';

/** The phases of an apply, in order; each is announced as it starts. */
export type ApplyPhase = 'stale-check' | 'snapshot' | 'write' | 'verify';

/**
 * How one change ended.
 * - `ok`: every request of the change succeeded, or a re-read showed it had taken effect.
 * - `failed`: a request was refused or gave up after its retries; `error` says which in one
 *   line. Other changes still ran. (A secret without a value refuses the whole apply instead.)
 * - `skipped`: never sent: blocked in the plan, or interrupted (Ctrl-C) before it started.
 */
export type ChangeStatus = 'ok' | 'failed' | 'skipped';

export interface ChangeResult {
  readonly address: string;
  readonly kind: ResourceKind;
  readonly action: Action;
  readonly status: ChangeStatus;
  /** `failed`: the one-line error; `skipped`: why. */
  readonly error?: string;
  readonly ids?: ChangeIds;
  /** Requests that wrote (retries included); 0 for `skipped`. */
  readonly writes: number;
  /**
   * Writes whose outcome was unknown (5xx, reset, timeout after sending). Each was followed by a
   * re-read by identity before anything else was sent.
   */
  readonly unknownOutcomes: number;
  /** Of those, the ones the re-read showed had taken effect (no retry needed). */
  readonly confirmedByReread: number;
}

/** Words for `how`, for messages and renderers. */
export function describeStale(how: StaleHow): string {
  switch (how) {
    case 'changed':
      return 'changed since the plan';
    case 'appeared':
      return 'now exists';
    case 'gone':
      return 'no longer exists';
    default: {
      const never: never = how;
      throw new Error(`unknown stale kind ${String(never)}`);
    }
  }
}

export interface StaleObject {
  readonly address: string;
  readonly how: StaleHow;
  /** Extra words, e.g. which parent folder is gone. */
  readonly detail?: string;
}

/**
 * A name a plan resolved to a server object that resolves otherwise now (issue 23): another id,
 * or nothing. A write by the plan's id would reach another principal than the plan showed.
 */
export interface MovedName {
  readonly kind: NameKind;
  /** As the manifest writes it. */
  readonly name: string;
  /** The id at plan time; absent for a resource group (no id). */
  readonly was?: string;
  /** The id the name resolves to now; absent: no object has the name now. */
  readonly now?: string;
  /** What the plan-time id is named now; absent when no object has that id any more (or no id). */
  readonly wasNowNamed?: string;
  /** The changes that use the name, in plan order. */
  readonly addresses: readonly string[];
}

/**
 * One line: `user "bob" was id 12 at plan time and is now id 40 (id 12 is now named "dave")`.
 * Names are quoted as JSON strings, so a name with quotes or control characters stays one line.
 */
export function describeMovedName(m: MovedName): string {
  const what = `${describeNameKind(m.kind)} ${JSON.stringify(m.name)}`;
  if (m.was === undefined) return `${what} existed at plan time and no longer does`;
  const now = m.now !== undefined ? `is now id ${m.now}` : `now names nothing`;
  const was = m.wasNowNamed !== undefined ? `id ${m.was} is now named ${JSON.stringify(m.wasNowNamed)}` : `id ${m.was} no longer exists`;
  return `${what} was id ${m.was} at plan time and ${now} (${was})`;
}

export function describeNameKind(kind: NameKind): string {
  switch (kind) {
    case 'user':
      return 'user';
    case 'group':
      return 'group';
    case 'host':
      return 'host';
    case 'script':
      return 'script';
    case 'dateList':
      return 'date list';
    case 'resourceGroup':
      return 'resource group';
    default: {
      const never: never = kind;
      throw new Error(`unknown name kind ${String(never)}`);
    }
  }
}

/** A change the verification re-plan still wants to make. */
export interface Unconverged {
  readonly address: string;
  /** The action of the re-plan, or `missing` when the re-plan does not have the object at all. */
  readonly action: Action | 'missing';
  readonly reason?: string;
}

/**
 * How the writes were checked afterwards.
 * - `replan`: the manifests were planned again; every applied address must be `no-op` or `blocked`
 *   (a deleted object must be gone).
 * - `payloads`: the manifests no longer match the plan's digest (a saved plan applied after the
 *   files changed), so each applied change's requests were checked against re-read objects.
 * - `skipped`: nothing was applied, or verification could not run (`note` says why).
 */
export type VerifyMode = 'replan' | 'payloads' | 'skipped';

export interface VerifyResult {
  readonly mode: VerifyMode;
  readonly unconverged: readonly Unconverged[];
  /** Why verification took the other way or was skipped. */
  readonly note?: string;
  /** Verification could not run (its reads failed): the run cannot prove where it ended. */
  readonly error?: string;
}

/**
 * How the run ended.
 * - `nothing`: the plan has no change apply can make (blocked ones are listed).
 * - `refused`: a check before any request refused the plan (deletes not allowed, a secret
 *   without a value, …).
 * - `stale`: objects moved since the plan; nothing was written.
 * - `no-snapshot`: the snapshot could not be saved; nothing was written.
 * - `applied`: the executor ran (some changes may have failed; see `results`).
 * - `interrupted`: Ctrl-C; writes in flight finished, nothing new started.
 */
export type ApplyOutcome = 'nothing' | 'refused' | 'stale' | 'no-snapshot' | 'applied' | 'interrupted';

export interface ApplyCounts {
  readonly ok: number;
  readonly failed: number;
  readonly skipped: number;
}

export interface ApplyStats {
  /** Write requests sent, retries included. */
  readonly writes: number;
  readonly unknownOutcomes: number;
  readonly confirmedByReread: number;
  /** Unknown outcomes the re-read showed had not taken effect, so the write was sent again. */
  readonly retriedAfterReread: number;
  readonly wallMs: number;
}

export interface ApplyReport {
  readonly environment: string;
  readonly outcome: ApplyOutcome;
  /** `refused` and `no-snapshot`: why, one line each. */
  readonly problems: readonly string[];
  /** `stale`: what moved. */
  readonly stale: readonly StaleObject[];
  /** `stale`: names the plan resolved that resolve otherwise now (`Change.resolved`); absent when none. */
  readonly movedNames?: readonly MovedName[];
  /** One per change apply was asked to make or skip, in plan order (no-ops left out). */
  readonly results: readonly ChangeResult[];
  readonly snapshot?: { readonly id: string; readonly path: string };
  readonly ledger?: string;
  readonly verification?: VerifyResult;
  /**
   * The policy checks apply went by (issue 17): the plan's, made now, or for a saved plan the
   * policies of the manifests as they are now, evaluated again on its changes. A `deny`
   * violation refuses the apply (`refused`, one problem per violation) before any write. Absent
   * when no policy was loaded.
   */
  readonly policy?: PolicyReport;
  /** The change windows as apply found them (issue 28); absent when the environment sets none. */
  readonly changeWindow?: ApplyWindowReport;
  /** `--pause-scheduler`: what became of the scheduler; absent without it, or when no write was reached. */
  readonly scheduler?: SchedulerOutcome;
  readonly stats: ApplyStats;
}

/**
 * The scheduler after `apply --pause-scheduler` (issue 28 item 4).
 * - `restarted`: stopped for the writes, started again.
 * - `left-stopped`: it was stopped before apply; apply left it so.
 * - `not-restarted`: stopped for the writes, and starting it failed: the recovery note stays,
 *   `message` says how to start it, and apply exits 1.
 */
export interface SchedulerOutcome {
  readonly state: 'restarted' | 'left-stopped' | 'not-restarted';
  /** One line for the report. */
  readonly message: string;
}

/** Counts of a report's results per status. */
export function countResults(results: readonly ChangeResult[]): ApplyCounts {
  const counts = { ok: 0, failed: 0, skipped: 0 };
  for (const r of results) counts[r.status]++;
  return counts;
}

/**
 * 0 only when everything apply was asked to do was done and verified (or there was nothing to
 * do); blocked changes alone do not fail a run — the plan already said a person must act.
 */
export function applyExitCode(report: ApplyReport): 0 | 1 {
  switch (report.outcome) {
    case 'nothing':
      return 0;
    case 'refused':
    case 'stale':
    case 'no-snapshot':
    case 'interrupted':
      return 1;
    case 'applied': {
      const failed = report.results.some((r) => r.status === 'failed' || (r.status === 'skipped' && r.action !== 'blocked'));
      const unverified = (report.verification?.unconverged.length ?? 0) > 0 || report.verification?.error !== undefined;
      return failed || unverified || schedulerLeftStopped(report) ? 1 : 0;
    }
    default: {
      const never: never = report.outcome;
      throw new Error(`unknown apply outcome ${String(never)}`);
    }
  }
}

/** `--pause-scheduler` stopped the scheduler and could not start it again. */
function schedulerLeftStopped(report: ApplyReport): boolean {
  return report.scheduler?.state === 'not-restarted';
}

/** Why a change was skipped when a Ctrl-C came before it started (the report counts these rather than listing them). */
export const INTERRUPTED_BEFORE_START = 'interrupted before it started';

/** A skipped result for a change that is never sent. */
export function skippedResult(change: Change, reason: string): ChangeResult {
  return {
    address: change.address,
    kind: change.kind,
    action: change.action,
    status: 'skipped',
    error: reason,
    writes: 0,
    unknownOutcomes: 0,
    confirmedByReread: 0,
  };
}
