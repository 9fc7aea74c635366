import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, expect, it, onTestFinished } from 'vitest';
import { generateTaskManifest } from '../../bench/generate-manifests.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { startHoldProxy, type HoldProxy } from '../helpers/hold-proxy.js';
import { startSeededEmulator } from '../integration/helpers.js';
import { readTasks } from '../helpers/emulator-test-api.js';
import { APPLY_ENV, applyWorkdir, readLedger } from '../apply/helpers.js';

const BIN = fileURLToPath(new URL('../../bin/mftops.js', import.meta.url));
const INTERRUPTED = 'Interrupted: no new write starts; waiting for the writes in flight';
const GEN_ENV = Object.fromEntries([...[0, 1, 2, 3, 4].map((i) => [`GEN_TOKEN_${i}`, `t${i}`]), ...[0, 1, 2].map((i) => [`GEN_PASSWORD_${i}`, `p${i}`])]);

let emulator: RunningEmulator;
beforeEach(async () => {
  emulator = await startSeededEmulator();
});
afterEach(() => emulator.close());

/**
 * Run apply and press Ctrl-C while its second task create is in flight (held by the proxy): once
 * apply says it stopped starting writes, the held create goes on to the server. What it printed.
 */
async function applyAndInterrupt(cwd: string, proxy: HoldProxy): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [BIN, 'apply', '--auto-approve', '--parallelism', '1'], {
    cwd,
    env: { PATH: process.env['PATH'] ?? '', NO_COLOR: '1', ...APPLY_ENV, ...GEN_ENV },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  let onStderr = (): void => undefined;
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString('utf8');
    onStderr();
  });
  const closed = new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', resolve);
  });
  const held = await proxy.nextHeld();
  child.kill('SIGINT');
  await new Promise<void>((resolve) => {
    onStderr = () => {
      if (stderr.includes(INTERRUPTED)) resolve();
    };
    onStderr();
  });
  await held.release();
  return { code: await closed, stdout, stderr };
}

it('Ctrl-C: the write in flight finishes, nothing new starts, the ledger is finished and the tokens revoked; exit 1', async () => {
  const files: Record<string, string> = {};
  for (let i = 0; i < 20; i++) files[`manifests/task-${i}.yaml`] = generateTaskManifest(i);
  const proxy = await startHoldProxy(emulator, (method, path, nth) => method === 'POST' && path === '/automation/api/v1/tasks' && nth === 2);
  onTestFinished(() => proxy.close());
  const dir = applyWorkdir(emulator, { manifests: files, prune: [], automationUrl: `${proxy.url}/automation` });
  const r = await applyAndInterrupt(dir, proxy);
  expect(r.code).toBe(1);
  expect(r.stderr).toContain(INTERRUPTED);
  expect(r.stdout).toMatch(/^Apply interrupted for environment "lab": 2 applied, 0 failed, 18 skipped\.$/m);
  expect(r.stdout).toContain('Not verified: interrupted: run mftops plan to see where the servers are');
  // The 18 changes that never started are said once, on stdout, as a count: no line each on either stream.
  expect(r.stdout).toContain(
    'Not started (18): interrupted before they began, not applied; mftops plan shows what remains (--format json and the ledger name each one).\n',
  );
  expect(`${r.stdout}\n${r.stderr}`).not.toMatch(/interrupted before it started|^\s+(skipped|-) Task\//m);

  const base = join(dir, '.mftops/snapshots/lab');
  const ledger = readLedger(join(base, readdirSync(base)[0]!, 'ledger.jsonl'));
  const end = ledger.at(-1);
  expect(end).toMatchObject({ event: 'end', failed: 0, interrupted: true });
  const statuses = ledger.flatMap((l) => (l.event === 'change' ? [l.status] : []));
  expect(statuses.filter((s) => s === 'pending')).toHaveLength(statuses.filter((s) => s === 'ok').length);
  expect(statuses.filter((s) => s === 'ok').length + statuses.filter((s) => s === 'skipped').length).toBe(20);
  // What the ledger says was written is what the server has.
  const created = readTasks(emulator, (t) => String(t['Name']).startsWith('Generated task'));
  expect(created).toHaveLength(statuses.filter((s) => s === 'ok').length);
  // Both sessions were revoked on the way out.
  const revokes = emulator.requestLog().filter((x) => x.path.endsWith('/token/revoke'));
  expect(revokes.length).toBeGreaterThanOrEqual(2);
});
