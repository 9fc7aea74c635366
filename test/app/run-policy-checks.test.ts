import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { createPolicyRunner } from '../../src/app/run-policy-checks.js';
import type { PolicyCheck } from '../../src/policy/run-check.js';

/**
 * A stand-in for the policy worker, with its protocol ('ready', 'received', then one outcome per
 * check in order): the expression `slow` never ends, `late` marks `context.started` (shared memory)
 * and answers after blocking its thread for `context.ms`, any other is true.
 */
const FAKE_WORKER = `
const { parentPort } = require('node:worker_threads');
parentPort.on('message', (checks) => {
  parentPort.postMessage('received');
  checks.forEach((check, index) => {
    if (check.expression === 'slow') for (;;) {}
    if (check.expression === 'late') {
      const started = new Int32Array(check.context.started);
      Atomics.store(started, 0, 1);
      Atomics.wait(started, 0, 1, check.context.ms);
    }
    parentPort.postMessage({ index, outcome: { ok: true, value: true } });
  });
});
parentPort.postMessage('ready');
`;

function countingWorkers(): { start: () => Worker; started: () => number } {
  let started = 0;
  return {
    start: () => {
      started++;
      return new Worker(FAKE_WORKER, { eval: true });
    },
    started: () => started,
  };
}

const check = (expression: string, context: Record<string, unknown> = {}): PolicyCheck => ({ expression, context });

describe('the policy runner', () => {
  it('after an expression runs over its budget, the other checks go on in one fresh worker, not one per object', async () => {
    // Two policies on 300 objects, checks interleaved object by object as evaluatePolicies makes them.
    const checks = Array.from({ length: 300 }, () => [check('slow'), check('fast')]).flat();
    const workers = countingWorkers();
    const outcomes = await createPolicyRunner(200, workers.start)(checks);
    expect(outcomes).toHaveLength(600);
    expect(outcomes[0]).toEqual({ ok: false, reason: 'the evaluation ran over its time budget of 200 ms and was stopped' });
    expect(outcomes[2]).toEqual({ ok: false, reason: 'the expression ran over its time budget (200 ms) on an earlier object' });
    expect(outcomes.filter((_, i) => i % 2 === 1).every((o) => o.ok && o.value)).toBe(true);
    expect(outcomes.filter((_, i) => i % 2 === 0).every((o) => !o.ok)).toBe(true);
    // The old runner cut the rest at the next check of `slow`: a worker for each of the 300 objects.
    expect(workers.started()).toBe(2);
  }, 60_000);

  it('a worker that never starts ends the checks at its start-up deadline, each an error saying so, with no second worker', async () => {
    let started = 0;
    const silent = () => {
      started++;
      // Never says 'ready': a start-up that hangs (here, a thread that waits forever).
      return new Worker('setInterval(() => {}, 1000);', { eval: true });
    };
    const outcomes = await createPolicyRunner(100, silent, 300)([check('fast'), check('other'), check('fast')]);
    expect(outcomes).toEqual(Array.from({ length: 3 }, () => ({ ok: false, reason: 'the policy evaluator did not start within 0.3 s' })));
    expect(started).toBe(1);
  }, 20_000);

  it('an outcome the worker sent while this thread was blocked past the budget is read, not judged over the budget', async () => {
    const workers = countingWorkers();
    const started = new SharedArrayBuffer(4);
    const run = createPolicyRunner(100, workers.start)([check('late', { ms: 20, started }), check('fast')]);
    // Once the worker evaluates (its budget armed), block this thread well past the budget while the
    // worker answers: the timer then fires before the answers are read.
    while (Atomics.load(new Int32Array(started), 0) === 0) await new Promise((r) => setTimeout(r, 1));
    await new Promise((r) => setTimeout(r, 10));
    const until = Date.now() + 600;
    while (Date.now() < until) {
      // busy: the main thread of a loaded machine, or one still parsing
    }
    expect(await run).toEqual([
      { ok: true, value: true },
      { ok: true, value: true },
    ]);
    expect(workers.started()).toBe(1);
  }, 60_000);
});
