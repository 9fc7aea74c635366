import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { EVALUATION_BUDGET_MS, runChecksInThread, type Outcome, type PolicyCheck, type RunPolicyChecks } from '../policy/evaluate.js';

/** The worker script, next to this module once built (dist/app/); absent when run from src/. */
const WORKER = new URL('./policy-worker.js', import.meta.url);

/** The worker's code in the Action's one-file bundle (defined by scripts/build-action.mjs); undefined elsewhere. */
declare const MFTOPS_POLICY_WORKER: string | undefined;
const BUNDLED_WORKER = typeof MFTOPS_POLICY_WORKER === 'string' ? MFTOPS_POLICY_WORKER : undefined;

/**
 * Runs policy checks in a worker thread, each within `budgetMs` (EVALUATION_BUDGET_MS): when one
 * runs over, the worker is stopped, that check is an error, and the rest go on in a fresh worker.
 * An expression that ran over is not evaluated again in this run (an error on every later object),
 * so a slow expression costs one budget, not one per object; and the checks of the other
 * expressions go on together in that one fresh worker, so a run starts at most one worker more
 * than it has expressions that ran over (cutting the rest at the next check of the expression that
 * ran over started a worker per object, minutes for 13,000 objects and two policies). Where the
 * worker script does not exist and is not bundled (the sources under a test runner) it evaluates
 * in this thread, with no budget. A worker that does not hold its checks within `startDeadlineMs`
 * ends the run's checks: each left is an error saying so (no wait without a deadline).
 */
export function createPolicyRunner(
  budgetMs: number = EVALUATION_BUDGET_MS,
  startWorker?: () => Worker,
  startDeadlineMs: number = WORKER_START_DEADLINE_MS,
): RunPolicyChecks {
  if (startWorker === undefined && BUNDLED_WORKER === undefined && !existsSync(fileURLToPath(WORKER))) return runChecksInThread;
  const start = startWorker ?? startPolicyWorker;
  const overran = new Set<string>();
  return async (checks) => {
    const outcomes: Outcome[] = new Array<Outcome>(checks.length);
    /** The indices of `checks` still to evaluate, in order. */
    let pending = checks.map((_, i) => i);
    while (pending.length > 0) {
      const batch: number[] = [];
      for (const i of pending) {
        if (overran.has(checks[i]!.expression)) {
          outcomes[i] = { ok: false, reason: `the expression ran over its time budget (${budgetMs} ms) on an earlier object` };
        } else {
          batch.push(i);
        }
      }
      if (batch.length === 0) break;
      const got = await runInWorker(
        batch.map((i) => checks[i]!),
        budgetMs,
        start,
        startDeadlineMs,
      );
      got.outcomes.forEach((outcome, k) => {
        outcomes[batch[k]!] = outcome;
      });
      const stopped = batch[got.outcomes.length];
      if (stopped === undefined) break;
      if (got.notStarted !== undefined) {
        // A worker that did not start says nothing of the expressions: none is judged, none waits for another.
        for (const i of batch) outcomes[i] = { ok: false, reason: got.notStarted };
        break;
      }
      overran.add(checks[stopped]!.expression);
      outcomes[stopped] = { ok: false, reason: got.failure ?? `the evaluation ran over its time budget of ${budgetMs} ms and was stopped` };
      pending = batch.slice(got.outcomes.length + 1);
    }
    return outcomes;
  };
}

/**
 * How long a policy worker may take from its start until it holds the checks: far past a start-up
 * on a loaded machine (tens of milliseconds, seconds at worst), so that only a worker that will
 * never answer reaches it.
 */
export const WORKER_START_DEADLINE_MS = 30_000;

/** A policy worker: the built script beside this module, or the bundled code in the Action. */
function startPolicyWorker(): Worker {
  return BUNDLED_WORKER === undefined ? new Worker(WORKER) : new Worker(BUNDLED_WORKER, { eval: true });
}

/**
 * The outcomes of `checks` in one worker, in order, up to the first that runs over `budgetMs` or
 * stops the worker (not included; `failure` says why when it was not the budget, e.g. out of
 * memory). The budget starts when the worker has received the checks, so neither its start-up
 * nor copying a large batch to it is counted. A budget that ran out while this thread was busy
 * elsewhere is judged one turn later, once the outcomes the worker already sent are read: a
 * blocked or descheduled main thread fires its timers before it reads its messages.
 */
function runInWorker(
  checks: readonly PolicyCheck[],
  budgetMs: number,
  startWorker: () => Worker,
  startDeadlineMs: number,
): Promise<{ outcomes: Outcome[]; failure?: string; notStarted?: string }> {
  return new Promise((resolve) => {
    const outcomes: Outcome[] = [];
    const worker = startWorker();
    let timer: NodeJS.Timeout | undefined;
    let done = false;
    /** Whether an outcome came since the timer last fired. */
    let progressed = false;
    const finish = (failure?: string): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      clearTimeout(starting);
      void worker.terminate();
      resolve(failure === undefined ? { outcomes } : { outcomes, failure });
    };
    // Until it holds the checks, the worker's own deadline: a start-up that hangs ends the run's checks, not the run.
    const starting = setTimeout(() => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      void worker.terminate();
      resolve({ outcomes, notStarted: `the policy evaluator did not start within ${startDeadlineMs / 1000} s` });
    }, startDeadlineMs);
    const expire = (): void => {
      progressed = false;
      setImmediate(() => {
        if (!progressed) finish();
      });
    };
    // Re-armed on each outcome: the budget is per check, not per batch.
    const arm = (): void => {
      progressed = true;
      if (timer === undefined) timer = setTimeout(expire, budgetMs);
      else timer.refresh();
    };
    worker.on('message', (message: 'ready' | 'received' | { index: number; outcome: Outcome }) => {
      if (message === 'ready') {
        worker.postMessage(checks);
        return;
      }
      if (message === 'received') {
        clearTimeout(starting);
        return arm();
      }
      outcomes.push(message.outcome);
      if (outcomes.length === checks.length) finish();
      else arm();
    });
    worker.on('error', (err) => finish(`the evaluation stopped: ${err.message.split('\n')[0]}`));
    worker.on('exit', (code) => finish(`the evaluation stopped (exit code ${code})`));
  });
}
