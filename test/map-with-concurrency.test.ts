import { describe, expect, it } from 'vitest';
import { mapWithConcurrency } from '../src/map-with-concurrency.js';

/** Let every promise that can settle settle: one turn of the event loop, no timer. */
const settle = () => new Promise((r) => setImmediate(r));

describe('mapWithConcurrency', () => {
  it('never has more than the limit in flight, starts the next one as one finishes, and keeps input order in the results', async () => {
    // Each call stays in flight until the test finishes it: which calls overlap is the test's choice.
    const finish = new Map<number, () => void>();
    const started: number[] = [];
    const run = mapWithConcurrency([0, 1, 2, 3, 4, 5, 6], 3, (n) => {
      started.push(n);
      return new Promise<number>((resolve) => finish.set(n, () => resolve(n * 10)));
    });
    await settle();
    expect(started).toEqual([0, 1, 2]);
    finish.get(1)!();
    await settle();
    expect(started).toEqual([0, 1, 2, 3]);
    finish.get(3)!();
    finish.get(2)!();
    await settle();
    expect(started).toEqual([0, 1, 2, 3, 4, 5]);
    finish.get(5)!();
    await settle();
    expect(started).toEqual([0, 1, 2, 3, 4, 5, 6]);
    for (const n of [6, 4, 0]) finish.get(n)!();
    expect(await run).toEqual([0, 10, 20, 30, 40, 50, 60]);
  });

  it('rejects with the first error and starts nothing after it', async () => {
    const started: number[] = [];
    const run = mapWithConcurrency([1, 2, 3, 4, 5], 1, async (n) => {
      started.push(n);
      if (n === 2) throw new Error('boom');
      return n;
    });
    await expect(run).rejects.toThrow('boom');
    expect(started).toEqual([1, 2]);
  });

  it('handles an empty list and refuses a limit below 1', async () => {
    expect(await mapWithConcurrency([], 4, async () => 1)).toEqual([]);
    await expect(mapWithConcurrency([1], 0, async () => 1)).rejects.toThrow(RangeError);
  });
});
