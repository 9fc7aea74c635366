import { describe, expect, it } from 'vitest';
import { AdaptiveLimit } from '../../src/services/adaptive-limit.js';

describe('AdaptiveLimit (AIMD)', () => {
  it('halves on a throttle answer, once per round, and grows back by one per round of successes', async () => {
    const changes: string[] = [];
    const limit = new AdaptiveLimit(8, (n, why) => changes.push(`${why}: ${n}`));
    const permits = await Promise.all(Array.from({ length: 8 }, () => limit.acquire()));
    // Eight answers of one round say 429: one cut, not three (8 → 4, not 8 → 1).
    for (const p of permits) {
      limit.observe(p, 'throttled', '429');
      limit.release();
    }
    expect(limit.limit).toBe(4);
    const again = await limit.acquire();
    limit.observe(again, 'throttled', '429');
    limit.release();
    expect(limit.limit).toBe(2);
    // Two successes (a round at 2) → 3; three more → 4.
    for (let i = 0; i < 5; i++) {
      const p = await limit.acquire();
      limit.observe(p, 'success');
      limit.release();
    }
    expect(limit.limit).toBe(4);
    expect(changes).toEqual(['throttled (429): 4', 'throttled (429): 2', 'answers again: 3', 'answers again: 4']);
  });

  it('never goes below one nor above its ceiling', async () => {
    const limit = new AdaptiveLimit(2);
    for (let i = 0; i < 5; i++) {
      const p = await limit.acquire();
      limit.observe(p, 'throttled');
      limit.release();
    }
    expect(limit.limit).toBe(1);
    for (let i = 0; i < 20; i++) {
      const p = await limit.acquire();
      limit.observe(p, 'success');
      limit.release();
    }
    expect(limit.limit).toBe(2);
  });

  it('keeps the surplus waiting, in arrival order, until a place is free', async () => {
    const limit = new AdaptiveLimit(2);
    const first = await limit.acquire();
    await limit.acquire();
    limit.observe(first, 'throttled'); // 2 → 1 with two in flight
    const order: number[] = [];
    const waiting = [1, 2].map((n) => limit.acquire().then(() => order.push(n)));
    limit.release(); // one in flight, limit 1: nobody may start yet
    await Promise.resolve();
    expect(order).toEqual([]);
    expect(limit.inFlight).toBe(1);
    limit.release();
    await waiting[0];
    expect(order).toEqual([1]);
    expect(limit.inFlight).toBe(1);
    limit.release();
    await waiting[1];
    expect(order).toEqual([1, 2]);
  });
});
