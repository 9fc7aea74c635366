import { isMftopsError, userMessageOf } from '../errors.js';
import { CreatedIds } from '../kinds/created-ids.js';
import { KIND_IO } from '../kinds/io-registry.js';
import type { KindIo, StepContext, StepOf, WriteClients } from '../kinds/kind-io.js';
import type { Change, ResourceKind } from '../plan/model.js';
import { ApiError, NetworkError } from '../services/errors.js';
import { backoffDelay } from '../services/retry.js';
import { withDefined } from '../with-defined.js';
import type { LedgerWriter } from './ledger.js';
import { INTERRUPTED_BEFORE_START, skippedResult } from './model.js';
import type { ChangeIds, ChangeResult } from './model.js';
import { redactSecrets } from './secrets.js';
import type { ResolvedSecrets } from './secrets.js';
import type { ChangeGate } from './running-tasks.js';

/** How a write that did not go through is tried again. Every field has a default. */
export interface StepRetryOptions {
  /** Sends of one step in total, the first included. Default 5. */
  readonly maxAttempts?: number;
  /** Backoff before a re-read and before a resend: full jitter under `baseDelayMs * 2^(n-1)`. Default 200 ms. */
  readonly baseDelayMs?: number;
  /** Default 3000 ms. */
  readonly maxDelayMs?: number;
  readonly sleep?: (ms: number) => Promise<void>;
  /** Uniform in [0, 1). */
  readonly random?: () => number;
}

export interface ExecuteInput {
  /**
   * Changes to send (create, update, replace, delete), in plan order, each with its `wave` and
   * `needs` as the plan gives them (checked beforehand: `checkPlan`).
   */
  readonly changes: readonly Change[];
  readonly clients: WriteClients;
  readonly ledger: LedgerWriter;
  /** Changes in flight at once. */
  readonly parallelism: number;
  /** The changes' payloads with their secrets, every one resolved before the first write (`resolveChangeSecrets`). */
  readonly secrets: ResolvedSecrets;
  /** Aborted on Ctrl-C: no new change or resend starts; changes in flight finish. */
  readonly signal?: AbortSignal;
  /** After an abort, how long changes in flight may take before they are given up on. Default 30 s. */
  readonly drainTimeoutMs?: number;
  readonly retry?: StepRetryOptions;
  /** Each change as it ends (for progress lines). */
  readonly onResult?: (result: ChangeResult) => void;
  /** Asked right before each change's first request: a reason leaves it not applied (skipped). */
  readonly gate?: ChangeGate;
}

export interface ExecuteResult {
  /** One per input change, in input order. */
  readonly results: readonly ChangeResult[];
  readonly interrupted: boolean;
  /** Unknown outcomes a re-read showed had not taken effect (so the write was sent again). */
  readonly retriedAfterReread: number;
}

/**
 * Sends the changes: in the plan's order, at most `parallelism` at a time.
 *
 * Order, as the plan gives it (src/plan/execution-order.ts): wave after wave; in a wave, changes
 * start in plan order, and a change that `needs` another (today a folder under a folder this plan
 * creates or renames) waits for it and fails unstarted when it failed. A failed change never
 * stops the others.
 *
 * Each change is a list of steps (one request each); each step is a small state machine:
 * `send` → done, or on an unknown outcome (5xx, reset, timeout after sending) → `confirm`: read
 * the object by identity; if the write took effect → done, else back to `send` after a backoff,
 * at most `maxAttempts` sends. A refused request (4xx) fails the change at once; one that was
 * never sent is sent again. So a write is only ever repeated after a read showed it missing.
 */
export async function executeChanges(input: ExecuteInput): Promise<ExecuteResult> {
  const policy = retryPolicy(input.retry);
  const ctx: StepContext = { clients: input.clients, created: new CreatedIds() };
  const results: (ChangeResult | undefined)[] = input.changes.map(() => undefined);
  const secrets = input.secrets.values;
  const counters = { retriedAfterReread: 0 };
  const signal = input.signal;
  const aborted = () => signal?.aborted === true;

  const finish = (i: number, result: ChangeResult): void => {
    if (results[i] !== undefined) return;
    results[i] = result;
    const { address, action, status, error, ids, writes, unknownOutcomes, confirmedByReread } = result;
    input.ledger.write({
      event: 'change',
      address,
      action,
      status,
      ...(ids && Object.keys(ids).length > 0 ? { ids } : {}),
      ...(error !== undefined ? { error } : {}),
      ...(status !== 'skipped' ? { writes, unknownOutcomes, confirmedByReread } : {}),
    });
    input.onResult?.(result);
  };

  // A task change the gate held (a running task) may still refer to what a later wave deletes (a
  // host it moves away from, ...): every delete of a later wave is held with it (the blunt, safe rule).
  const heldTasks: { readonly name: string; readonly wave: number }[] = [];
  const runOne = async (i: number): Promise<void> => {
    const change = input.changes[i]!;
    try {
      const holder = change.action === 'delete' ? heldTasks.find((t) => t.wave < (change.wave ?? 0)) : undefined;
      if (holder !== undefined) {
        finish(i, skippedResult(change, `not applied: held: task "${holder.name}" was not written (it may still refer to what this deletes)`));
        return;
      }
      const held = await input.gate?.(change);
      if (held !== undefined) {
        if (change.kind === 'Task') heldTasks.push({ name: change.name, wave: change.wave ?? 0 });
        finish(i, skippedResult(change, held));
        return;
      }
      finish(i, await runChange(change, { ctx, ledger: input.ledger, payloads: input.secrets.payloads, secrets, policy, aborted, counters }));
    } catch (err) {
      // The machine's (a full disk under the ledger) or a bug: the change fails, the others go on.
      const message = userMessageOf(err) ?? `internal error: ${err instanceof Error ? err.message : String(err)}`;
      finish(i, failedResult(change, redactSecrets(message, secrets), emptyCounters()));
    }
  };

  const finishSkipped = (i: number, reason: string, asFailure: boolean): void => {
    const change = input.changes[i]!;
    finish(i, asFailure ? failedResult(change, reason, emptyCounters()) : skippedResult(change, reason));
  };

  const order = orderOf(input.changes);
  const waves = [...new Set(order.map((o) => o.wave))].sort((a, b) => a - b);
  let interrupted = false;
  for (const wave of waves) {
    const members = order.flatMap((o, i) => (o.wave === wave ? [i] : []));
    const complete = await runWave(members, {
      order,
      results,
      changes: input.changes,
      limit: input.parallelism,
      runOne,
      finishSkipped,
      signal,
      drainMs: input.drainTimeoutMs ?? 30_000,
    });
    if (!complete) interrupted = true;
  }
  return {
    results: results.map((r, i) => r ?? skippedResult(input.changes[i]!, INTERRUPTED_BEFORE_START)),
    interrupted,
    retriedAfterReread: counters.retriedAfterReread,
  };
}

// ------------------------------------------------------------------------------------- order

/** Where a change runs: the plan's wave, and the index of the change it needs (must succeed first). */
interface ChangeOrder {
  readonly wave: number;
  readonly needs?: number;
}

/** The plan's order by index into `changes`; a change whose `needs` is not among them waits for nothing and fails unstarted. */
function orderOf(changes: readonly Change[]): ChangeOrder[] {
  const index = new Map(changes.map((c, i) => [c.address, i]));
  return changes.map((c) => {
    if (c.wave === undefined) throw new Error(`bug: ${c.address} has no wave: the plan's order must be checked (checkPlan) before it is executed`);
    if (c.needs === undefined) return { wave: c.wave };
    return { wave: c.wave, needs: index.get(c.needs) ?? MISSING };
  });
}

/** `needs` of a change whose needed change is not in this run. */
const MISSING = -1;

/**
 * Run one wave with at most `limit` changes in flight. Returns false when interrupted (the
 * waiting ones are then skipped, and in-flight ones that outlast `drainMs` are failed).
 */
interface Wave {
  readonly order: readonly ChangeOrder[];
  readonly results: readonly (ChangeResult | undefined)[];
  readonly changes: readonly Change[];
  readonly limit: number;
  readonly runOne: (i: number) => Promise<void>;
  /** End a change that is not (or no longer) run: skipped, or failed when its request may have been sent. */
  readonly finishSkipped: (i: number, reason: string, asFailure: boolean) => void;
  readonly signal: AbortSignal | undefined;
  readonly drainMs: number;
}

async function runWave(members: readonly number[], w: Wave): Promise<boolean> {
  const { order, results, changes, limit, runOne, finishSkipped, signal, drainMs } = w;
  const waiting = [...members];
  const running = new Map<number, Promise<void>>();
  const abortedPromise = new Promise<void>((resolve) => {
    if (!signal) return;
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
  while (waiting.length > 0 || running.size > 0) {
    if (signal?.aborted) {
      for (const i of waiting) finishSkipped(i, INTERRUPTED_BEFORE_START, false);
      waiting.length = 0;
      if (running.size > 0) {
        let timer: NodeJS.Timeout | undefined;
        const drained = await Promise.race([
          Promise.all(running.values()).then(() => true),
          new Promise<boolean>((resolve) => {
            timer = setTimeout(() => resolve(false), drainMs);
          }),
        ]);
        clearTimeout(timer);
        if (!drained) {
          for (const i of running.keys())
            finishSkipped(i, 'interrupted while its request was in flight: its outcome is unknown (run mftops plan to see)', true);
        }
      }
      return false;
    }
    for (let k = 0; k < waiting.length && running.size < limit; ) {
      const i = waiting[k]!;
      const needs = order[i]!.needs;
      if (needs === MISSING) {
        waiting.splice(k, 1);
        finishSkipped(i, `not started: the change it needs (${changes[i]!.needs ?? ''}) is not in this apply`, true);
        continue;
      }
      if (needs !== undefined && results[needs] === undefined) {
        k++;
        continue;
      }
      waiting.splice(k, 1);
      if (needs !== undefined && results[needs]!.status !== 'ok') {
        const needed = changes[needs]!;
        finishSkipped(i, `not started: ${KIND_IO[needed.kind].describeNeeded(needed)} failed`, true);
        continue;
      }
      running.set(
        i,
        runOne(i).finally(() => running.delete(i)),
      );
    }
    if (running.size === 0) {
      // Only changes whose needed change is in no wave could be left: the plan's order is broken.
      for (const i of waiting) finishSkipped(i, `not started: the change it needs (${changes[i]!.needs ?? ''}) never ran`, true);
      waiting.length = 0;
      break;
    }
    await Promise.race([...running.values(), abortedPromise]);
  }
  return true;
}

// ------------------------------------------------------------------------------------ change

interface ChangeCounters {
  writes: number;
  unknownOutcomes: number;
  confirmedByReread: number;
}

interface RunContext {
  readonly ctx: StepContext;
  readonly ledger: LedgerWriter;
  readonly payloads: ResolvedSecrets['payloads'];
  /** Every secret resolved (all changes): redacted from every message. */
  readonly secrets: readonly string[];
  readonly policy: Required<StepRetryOptions>;
  readonly aborted: () => boolean;
  readonly counters: { retriedAfterReread: number };
}

async function runChange(change: Change, run: RunContext): Promise<ChangeResult> {
  return runKindChange(KIND_IO[change.kind], change, run);
}

async function runKindChange<K extends ResourceKind>(io: KindIo<K>, change: Change, run: RunContext): Promise<ChangeResult> {
  const counters = emptyCounters();
  run.ledger.write({
    event: 'change',
    address: change.address,
    action: change.action,
    status: 'pending',
    ...withDefined({ previousName: change.previousName }),
  });
  const payload = run.payloads.get(change.address);
  // Never the reference text in place of a secret.
  if (change.payload !== undefined && payload === undefined) throw new Error(`${change.address}: its secrets were not resolved before the apply`);
  const steps = io.planSteps(change, payload);
  if (change.liveId !== undefined) run.ctx.created.record(change.address, change.liveId);

  let ids: ChangeIds = change.liveId !== undefined ? io.idsOf(change.liveId) : {};
  for (let s = 0; s < steps.length; s++) {
    if (s > 0 && run.aborted()) return failedResult(change, `interrupted after ${s} of ${steps.length} requests`, counters, ids);
    const outcome = await runStep(io, steps[s]!, run, counters);
    if (outcome.kind === 'failed') {
      const leftUndone = io.describeLeftUndone(change);
      const tail = s > 0 ? ` (after ${s} of ${steps.length} requests of this change had succeeded${leftUndone !== undefined ? `: ${leftUndone}` : ''})` : '';
      return failedResult(change, `${redactSecrets(outcome.message, run.secrets)}${tail}`, counters, ids);
    }
    ids = { ...ids, ...outcome.ids };
    // A create's id, once its write returned it or its re-find found it: the later steps of this change, and the changes that need it, write with it.
    const id = io.idIn(ids);
    if (id !== undefined) run.ctx.created.record(change.address, id);
  }
  return { address: change.address, kind: change.kind, action: change.action, status: 'ok', ids, ...counters };
}

type StepOutcome = { readonly kind: 'ok'; readonly ids: ChangeIds } | { readonly kind: 'failed'; readonly message: string };

/** The per-step state machine: send → (unknown outcome) → confirm → done | send again. */
async function runStep<K extends ResourceKind>(io: KindIo<K>, first: StepOf<K>, run: RunContext, counters: ChangeCounters): Promise<StepOutcome> {
  let step = first;
  let state: 'send' | 'confirm' = 'send';
  let sends = 0;
  let lastError = '';
  for (;;) {
    switch (state) {
      case 'send': {
        if (sends >= run.policy.maxAttempts) return { kind: 'failed', message: `${lastError} (gave up after ${sends} attempts)` };
        if (sends > 0) {
          if (run.aborted()) return { kind: 'failed', message: `${lastError} (interrupted before trying again)` };
          await run.policy.sleep(backoffDelay(sends, run.policy));
        }
        sends++;
        counters.writes++;
        try {
          return { kind: 'ok', ids: await io.sendStep(step, run.ctx) };
        } catch (err) {
          const outcome = outcomeOf(err);
          lastError = messageOf(err);
          switch (outcome) {
            case 'rejected':
              return { kind: 'failed', message: lastError };
            case 'not-sent':
              continue;
            case 'unknown':
              counters.unknownOutcomes++;
              state = 'confirm';
              continue;
            default: {
              const never: never = outcome;
              throw new Error(`unknown outcome ${String(never)}`);
            }
          }
        }
      }
      case 'confirm': {
        // Give a server that is still processing the write a moment before looking.
        await run.policy.sleep(backoffDelay(sends, run.policy));
        let found;
        try {
          found = await io.confirmStep(step, run.ctx);
        } catch (err) {
          return { kind: 'failed', message: `${lastError}; the write may have taken effect, and re-reading it failed: ${messageOf(err)}` };
        }
        switch (found.kind) {
          case 'done':
            counters.confirmedByReread++;
            return { kind: 'ok', ids: found.ids };
          case 'resend':
            run.counters.retriedAfterReread++;
            step = found.step;
            state = 'send';
            continue;
          case 'fail':
            return { kind: 'failed', message: `${lastError}; then ${found.message}` };
          default: {
            const never: never = found;
            throw new Error(`unknown confirmation ${String(never)}`);
          }
        }
      }
    }
  }
}

/**
 * What a failed request means for a retry. A 429 was retried by the transport (it was not
 * processed) until the retry budget was spent: the server still throttles, so it fails the change
 * rather than start another budget. Errors that are not HTTP answers (a missing parent folder)
 * are refusals.
 */
function outcomeOf(err: unknown): 'rejected' | 'not-sent' | 'unknown' {
  if (err instanceof ApiError) return err.outcome;
  if (err instanceof NetworkError) return err.outcome;
  if (isMftopsError(err)) return 'rejected';
  throw err;
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function retryPolicy(opts: StepRetryOptions | undefined): Required<StepRetryOptions> {
  return {
    maxAttempts: Math.max(1, opts?.maxAttempts ?? 5),
    baseDelayMs: opts?.baseDelayMs ?? 200,
    maxDelayMs: opts?.maxDelayMs ?? 3000,
    sleep: opts?.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms))),
    random: opts?.random ?? Math.random,
  };
}

function emptyCounters(): ChangeCounters {
  return { writes: 0, unknownOutcomes: 0, confirmedByReread: 0 };
}

function failedResult(change: Change, error: string, counters: ChangeCounters, ids?: ChangeIds): ChangeResult {
  return {
    address: change.address,
    kind: change.kind,
    action: change.action,
    status: 'failed',
    error,
    ...(ids && Object.keys(ids).length > 0 ? { ids } : {}),
    ...counters,
  };
}
