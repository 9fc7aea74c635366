import { afterEach, describe, expect, it, vi } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import type { RetryOptions } from '../../src/services/retry.js';
import { SEED_LOGINS, automationClientFor, startSeededEmulator, transferClientFor } from './helpers.js';
import { advanceClock, readClockOffset, readServerTime } from '../helpers/emulator-test-api.js';

let emulator: RunningEmulator | undefined;
let clients: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  vi.useRealTimers();
  await Promise.all(clients.map((c) => c.close()));
  await emulator?.close();
  emulator = undefined;
  clients = [];
});

/**
 * The emulator's clock for the clients, and retry waits that move it instead of sleeping. `Date`
 * stands still, so only `advance` moves the clock: a token valid for 0.6 s more when the client
 * sends it is still valid when the server checks it, however long a loaded machine takes between
 * the two (real time leaking in gave 401s at load 20).
 */
function emulatorTime(e: RunningEmulator): { now: () => number; retry: RetryOptions; advance: (ms: number) => void } {
  vi.useFakeTimers({ toFake: ['Date'] });
  const advance = (ms: number): void => {
    advanceClock(e, ms);
  };
  // Eight attempts: at a 30 % fault rate, a request that fails every one of them is unlikely over a run.
  return { now: () => readServerTime(e), retry: { maxAttempts: 8, sleep: async (ms) => advance(ms), random: () => 0.5 }, advance };
}

describe('short access tokens with faults', () => {
  it('reads through a hundred 2 s tokens with 30 % faults without an auth error', async () => {
    emulator = await startSeededEmulator({ accessTtlSeconds: 2, faultRate: 0.3, faultSeed: 7 });
    const time = emulatorTime(emulator);
    const a = automationClientFor(emulator, SEED_LOGINS.automationAdmin, { now: time.now, retry: time.retry });
    const t = transferClientFor(emulator, { now: time.now, retry: time.retry });
    clients.push(a, t);
    for (let i = 0; i < 200; i++) {
      expect((await a.listTasks({ fields: ['ID'] })).length).toBeGreaterThan(0);
      expect((await t.currentUser()).username).toBe(SEED_LOGINS.transferAdmin.username);
      time.advance(700);
    }
    const log = emulator.requestLog();
    // The run outlived many tokens, and met many faults and retries on the way.
    expect(readClockOffset(emulator)).toBeGreaterThan(100 * 2000);
    expect(log.filter((r) => r.fault !== undefined).length).toBeGreaterThan(150);
    expect(a.tokenRequestCount).toBeGreaterThan(100);
    // Every attempt, retries included, carried a token that was valid when it was sent.
    expect(log.filter((r) => r.status === 401)).toEqual([]);
  });
});
