import { describe, expect, it } from 'vitest';
import { mapWithConcurrency } from '../../src/live/map-with-concurrency.js';

const tick = () => new Promise((r) => setTimeout(r, 1));

describe('mapWithConcurrency', () => {
  it('never has more than the limit in flight, and keeps input order in the results', async () => {
    let inFlight = 0;
    let most = 0;
    const out = await mapWithConcurrency([5, 1, 4, 2, 3, 0, 6], 3, async (n) => {
      inFlight++;
      most = Math.max(most, inFlight);
      for (let i = 0; i < n; i++) await tick();
      inFlight--;
      return n * 10;
    });
    expect(out).toEqual([50, 10, 40, 20, 30, 0, 60]);
    expect(most).toBe(3);
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
