import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { executeChanges } from '../../src/apply/execute.js';
import { openLedger } from '../../src/apply/ledger.js';
import { scheduleChanges } from '../../src/plan/execution-order.js';
import { startHarness } from '../plan/helpers.js';
import type { Harness } from '../plan/helpers.js';
import { testdir } from '../helpers/testdir.js';
import { taskCreate, tasksNamed } from './helpers.js';

/** A disk that fills up under the ledger while an apply runs: every write of a byte fails. */
const disk = vi.hoisted(() => ({ full: false }));
vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>();
  return {
    ...fs,
    writeSync: ((...args: Parameters<typeof fs.writeSync>) => {
      if (disk.full) throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC', errno: -28, syscall: 'write' });
      return fs.writeSync(...args);
    }) as typeof fs.writeSync,
  };
});

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(async () => {
  disk.full = false;
  await h.close();
});

describe('the ledger on a full disk', () => {
  it('stops the apply before the request it would announce, saying which file and why; not "internal error"', async () => {
    const path = join(testdir({}), 'ledger.jsonl');
    const ledger = openLedger(path);
    disk.full = true;
    const run = executeChanges({
      changes: scheduleChanges([taskCreate('Never sent')]),
      clients: { automation: h.automation, transfer: h.transfer },
      ledger,
      parallelism: 1,
      secrets: { payloads: new Map(), values: [] },
      retry: { sleep: async () => {}, random: () => 0 },
    });
    const outcome = await run.then(
      (r) => r.results.map((x) => x.error ?? x.status).join('\n'),
      (err: unknown) => (err instanceof Error ? err.message : String(err)),
    );
    expect(outcome).toBe(`cannot write the ledger ${path}: no space left on the device (ENOSPC): free some space, or choose a path on another disk`);
    expect(tasksNamed(h.emulator, 'Never sent')).toEqual([]);
  });
});
