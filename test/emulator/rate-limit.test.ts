import { afterEach, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import type { RunningEmulator } from '../../src/emulator/index.js';

let emulator: RunningEmulator | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

it('answers 429 with Retry-After once a service has used its requests per second, each service apart', async () => {
  // 0.1 per second: one request, then none for 10 s, however slow the machine is.
  emulator = await startEmulator({ rateLimit: 0.1 });
  const first = await fetch(`${emulator.automationUrl}/api/v1/info`);
  expect(first.status).not.toBe(429);
  const second = await fetch(`${emulator.automationUrl}/api/v1/info`);
  expect(second.status).toBe(429);
  expect(Number(second.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  expect(await second.json()).toMatchObject({ status: 429, detail: 'rate limit: 0.1 requests per second per service' });
  const transfer = await fetch(`${emulator.transferUrl}/api/v1/info`);
  expect(transfer.status).not.toBe(429);
  expect(emulator.requestLog().map((r) => r.status === 429)).toEqual([false, true, false]);
  // Control calls are never limited.
  expect((await fetch(`${emulator.url}/_emulator/health`)).status).toBe(200);
  emulator.configure({ rateLimit: 0 });
  expect((await fetch(`${emulator.automationUrl}/api/v1/info`)).status).not.toBe(429);
});

it('refuses a negative rate', async () => {
  await expect(startEmulator({ rateLimit: -1 })).rejects.toThrow('emulator: rate limit must be 0 or more requests per second, not -1');
});
