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
 * so a slow expression costs one budget, not one per object. Where the worker script does not
 * exist and is not bundled (the sources under a test runner) it evaluates in this thread, with
 * no budget.
 */
export function createPolicyRunner(budgetMs: number = EVALUATION_BUDGET_MS): RunPolicyChecks {
  if (BUNDLED_WORKER === undefined && !existsSync(fileURLToPath(WORKER))) return runChecksInThread;
  const overran = new Set<string>();
  return async (checks) => {
    const outcomes: Outcome[] = [];
    while (outcomes.length < checks.length) {
      const from = outcomes.length;
      const rest = checks.slice(from);
      const skipped = rest.findIndex((c) => overran.has(c.expression));
      if (skipped === 0) {
        outcomes.push({ ok: false, reason: `the expression ran over its time budget (${budgetMs} ms) on an earlier object` });
        continue;
      }
      const batch = skipped === -1 ? rest : rest.slice(0, skipped);
      const got = await runInWorker(batch, budgetMs);
      outcomes.push(...got.outcomes);
      if (got.outcomes.length < batch.length) {
        overran.add(batch[got.outcomes.length]!.expression);
        outcomes.push({ ok: false, reason: got.failure ?? `the evaluation ran over its time budget of ${budgetMs} ms and was stopped` });
      }
    }
    return outcomes;
  };
}

/**
 * The outcomes of `checks` in one worker, in order, up to the first that runs over `budgetMs` or
 * stops the worker (not included; `failure` says why when it was not the budget, e.g. out of
 * memory). The budget starts when the worker is ready, so its start-up is not counted.
 */
function runInWorker(checks: readonly PolicyCheck[], budgetMs: number): Promise<{ outcomes: Outcome[]; failure?: string }> {
  return new Promise((resolve) => {
    const outcomes: Outcome[] = [];
    const worker = BUNDLED_WORKER === undefined ? new Worker(WORKER) : new Worker(BUNDLED_WORKER, { eval: true });
    let timer: NodeJS.Timeout | undefined;
    let done = false;
    const finish = (failure?: string): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      void worker.terminate();
      resolve(failure === undefined ? { outcomes } : { outcomes, failure });
    };
    // Re-armed on each outcome: the budget is per check, not per batch.
    const arm = (): void => {
      if (timer === undefined) timer = setTimeout(() => finish(), budgetMs);
      else timer.refresh();
    };
    worker.on('message', (message: 'ready' | { index: number; outcome: Outcome }) => {
      if (message === 'ready') {
        arm();
        worker.postMessage(checks);
        return;
      }
      outcomes.push(message.outcome);
      if (outcomes.length === checks.length) finish();
      else arm();
    });
    worker.on('error', (err) => finish(`the evaluation stopped: ${err.message.split('\n')[0]}`));
    worker.on('exit', (code) => finish(`the evaluation stopped (exit code ${code})`));
  });
}
