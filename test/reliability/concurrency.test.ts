import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { APPLY_ENV, applyWorkdir, readLedger, tasksNamed } from '../apply/helpers.js';
import { startHoldProxy } from '../helpers/hold-proxy.js';
import { hasStackTrace, runCli } from '../helpers/run-cli.js';
import { startSeededEmulator } from '../integration/helpers.js';
import { readTasks } from '../helpers/emulator-test-api.js';

const BIN = fileURLToPath(new URL('../../bin/mftops.js', import.meta.url));
const APPLY = ['apply', '--auto-approve', '--allow-delete', '--allow-replace', '--parallelism', '1', '-q'];
const TASK_CREATE = '/automation/api/v1/tasks';

let emulator: RunningEmulator;
beforeAll(async () => {
  emulator = await startSeededEmulator();
});
afterAll(() => emulator.close());

function ledgers(dir: string): string[] {
  const root = join(dir, '.mftops', 'snapshots', 'lab');
  if (!existsSync(root)) return [];
  return readdirSync(root)
    .map((id) => join(root, id, 'ledger.jsonl'))
    .filter((p) => existsSync(p));
}

function seedTaskNames(): string[] {
  return readTasks(emulator).map((t) => String(t['Name']));
}

describe('two applies on one environment', () => {
  it('started at once: one applies, the other is refused by the lock with the owner named', async () => {
    // The lock holder's first task create is held until the other apply has exited: the two overlap
    // on any machine, instead of when the first happens to be slow enough.
    const proxy = await startHoldProxy(emulator, (method, path, nth) => method === 'POST' && path === TASK_CREATE && nth === 1);
    onTestFinished(() => proxy.close());
    const dir = applyWorkdir(emulator, { automationUrl: `${proxy.url}/automation` });
    const runs = [runCli(APPLY, { cwd: dir, env: APPLY_ENV }), runCli(APPLY, { cwd: dir, env: APPLY_ENV })] as const;
    const held = await proxy.nextHeld();
    const firstDone = await Promise.race(runs);
    expect(firstDone.code).toBe(1);
    await held.release();
    const [a, b] = await Promise.all(runs);
    const codes = [a.code, b.code].sort();
    expect(codes).toEqual([0, 1]);
    const refused = a.code === 1 ? a : b;
    expect(refused.stderr).toMatch(
      /^mftops: error: another apply to environment "lab" is running \(pid \d+ on .+, since .+\): wait for it, or delete .*apply\.lock/m,
    );
    expect(hasStackTrace(refused.stderr)).toBe(false);
    // Never interleaved: one ledger, one task of each name, and the lock is gone afterwards.
    expect(ledgers(dir)).toHaveLength(1);
    expect(tasksNamed(emulator, 'Apply test upload')).toHaveLength(1);
    expect(existsSync(join(dir, '.mftops', 'snapshots', 'lab', 'apply.lock'))).toBe(false);
    const again = await runCli(['plan', '--detailed-exitcode', '-q'], { cwd: dir, env: APPLY_ENV });
    expect(again.code).toBe(0);
  });

  it('after a SIGKILL mid-apply: the ledger shows what was done, the next apply takes over the lock and converges with no duplicate', async () => {
    // Undo the first test's work on the names this test creates, so there is something to write.
    const before = new Set(seedTaskNames());
    const proxy = await startHoldProxy(emulator, (method, path, nth) => method === 'POST' && path === TASK_CREATE && nth === 3);
    onTestFinished(() => proxy.close());
    const dir = applyWorkdir(emulator, {
      automationUrl: `${proxy.url}/automation`,
      prune: [],
      manifests: Object.fromEntries(
        Array.from({ length: 12 }, (_, i) => [
          `manifests/killed-${i}.yaml`,
          `apiVersion: mftops/v1\nkind: Task\nmetadata: { name: Killed apply ${i} }\nspec:\n  Group: [Operations]\n  Info: { Description: created by the SIGKILL test }\n  steps:\n    - Source: { Host: local-fs, Path: /k${i}, FileMask: "*" }\n    - Destination: { Host: acme-sftp, Path: /in }\n`,
        ]),
      ),
    });
    const child = spawn(process.execPath, [BIN, ...APPLY], {
      cwd: dir,
      env: { PATH: process.env['PATH'] ?? '', NO_COLOR: '1', ...APPLY_ENV },
      stdio: 'ignore',
    });
    const closed = new Promise<void>((r) => child.on('close', () => r()));
    // Kill it while its third create is in flight: two changes are done and in the ledger.
    const held = await proxy.nextHeld();
    child.kill('SIGKILL');
    await closed;
    // The write in flight reaches the server after its client died: no ledger says it was done.
    await held.release();
    expect(existsSync(join(dir, '.mftops', 'snapshots', 'lab', 'apply.lock'))).toBe(true);

    const [ledgerPath] = ledgers(dir);
    const lines = readLedger(ledgerPath!);
    expect(lines[0]?.event).toBe('start');
    expect(lines.some((e) => e.event === 'end')).toBe(false);
    const okNames = lines.flatMap((e) => (e.event === 'change' && e.status === 'ok' ? [e.address.replace(/^Task\//, '')] : []));
    expect(okNames).toHaveLength(2);
    // What the ledger says was done is on the server, and so is the create it did not see answered.
    for (const n of okNames) expect(tasksNamed(emulator, n)).toHaveLength(1);
    expect(seedTaskNames().filter((n) => !before.has(n))).toHaveLength(3);

    const next = await runCli(APPLY, { cwd: dir, env: APPLY_ENV });
    expect(next.code).toBe(0);
    expect(next.stderr).toMatch(/mftops: warning: took over a stale apply lock \(pid \d+/);
    const plan = await runCli(['plan', '--detailed-exitcode', '-q'], { cwd: dir, env: APPLY_ENV });
    expect(plan.code).toBe(0);
    for (let i = 0; i < 12; i++) expect(tasksNamed(emulator, `Killed apply ${i}`)).toHaveLength(1);
    expect(seedTaskNames().filter((n) => !before.has(n))).toHaveLength(12);
  });
});
