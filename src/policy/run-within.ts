import { Script, createContext } from 'node:vm';

/** What one step of `runEachWithin` gave: its value, or `overran` when it was stopped. */
export type Bounded<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly overran: true };

/** A script that calls the host's `run`: V8 can stop it (and what it calls) at a deadline. */
const CALL = new Script('run()');

/**
 * Runs `steps` one after another, stopping any that runs longer than `budgetMs` (it is stopped
 * after between budgetMs and twice that); the others still run. Synchronous, on this thread: a
 * watchdog (node:vm's `timeout`) per batch of steps rather than per step, which costs a thread
 * each, so that thousands of quick evaluations cost a few watchdogs. A step starts in a batch only
 * while the batch is younger than `budgetMs`, and the batch is stopped at twice that, so a step
 * the watchdog stops has had at least `budgetMs` to itself. `onOverrun` hears of a stopped step
 * before the next one starts.
 */
export function runEachWithin<T>(steps: readonly (() => T)[], budgetMs: number, onOverrun?: (index: number) => void): Bounded<T>[] {
  const out: Bounded<T>[] = [];
  let next = 0;
  const box = {
    run: () => {
      const started = performance.now();
      do {
        out.push({ ok: true, value: steps[next]!() });
        next++;
      } while (next < steps.length && performance.now() - started < budgetMs);
    },
  };
  const context = createContext(box);
  while (next < steps.length) {
    try {
      CALL.runInContext(context, { timeout: 2 * budgetMs });
    } catch (err) {
      if (!isTimeout(err)) throw err;
      out.push({ ok: false, overran: true });
      onOverrun?.(next);
      next++;
    }
  }
  return out;
}

/** By its code alone: under a test runner the error may come from another realm's `Error`. */
function isTimeout(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === 'ERR_SCRIPT_EXECUTION_TIMEOUT';
}
