import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { startSeededEmulator } from '../integration/helpers.js';
import { finishRunsByHand, readRunningTaskNames, readTask, startRunByHand } from '../helpers/emulator-test-api.js';
import { runCli } from '../helpers/run-cli.js';
import { APPLY_ENV, applyWorkdir, writesOf } from '../apply/helpers.js';

/**
 * apply --running-tasks (issue 28 item 2) against the emulator: a task the plan updates is
 * running (started by the scheduler); apply waits for it, skips it, or writes anyway. The poll
 * interval is shortened (MFTOPS_RUNNING_POLL_MS) so no test waits for real minutes.
 */

const TASK = 'Task/Payroll to bank';
const ACL = 'ResourceGroupAcl/finance-operators';
const ENV = { ...APPLY_ENV, MFTOPS_RUNNING_POLL_MS: '100' };

let emulator: RunningEmulator;
beforeEach(async () => {
  emulator = await startSeededEmulator();
});
afterEach(() => emulator.close());

/** Resolves once `seen` holds (checked every 20 ms, at most 60 s). */
async function until(seen: () => boolean): Promise<void> {
  for (let waited = 0; !seen(); waited += 20) {
    if (waited > 60_000) throw new Error('timed out waiting for apply to look at the running tasks');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function taskId(): string {
  return String(readTask(emulator, { name: 'Payroll to bank' })!['ID']);
}

/** The requests of the apply, in order, as `METHOD /path` under the automation API. */
function requests(): string[] {
  return emulator
    .requestLog()
    .filter((r) => !r.isTokenCall && r.service === 'automation')
    .map((r) => `${r.method} ${r.path.replace(/^\/automation\/api\/v1/, '')}`);
}

async function apply(dir: string, ...flags: string[]) {
  emulator.resetRequestLog();
  return runCli(['apply', '--auto-approve', '--target', TASK, '--target', ACL, ...flags], { cwd: dir, env: ENV });
}

it('wait: the run ends within the deadline, and the task is written after it', async () => {
  const dir = applyWorkdir(emulator);
  startRunByHand(emulator, { name: 'Payroll to bank' }, { scheduled: true });
  // The run ends once apply has seen it running (not after a guessed time: the machine may be slow).
  const running = apply(dir, '--running-wait', '60s');
  await until(() => requests().includes('GET /tasks/running'));
  finishRunsByHand(emulator, { name: 'Payroll to bank' });
  const r = await running;
  expect(r.code, r.stderr).toBe(0);
  expect(r.stdout).toMatch(/Apply complete for environment "lab": 2 applied, 0 failed, 0 skipped/);
  const log = requests();
  const put = log.indexOf(`PUT /tasks/${taskId()}`);
  expect(put).toBeGreaterThan(0);
  // Asked more than once before the write (it waited), and the write came after the last look.
  const looks = log.slice(0, put).filter((l) => l === 'GET /tasks/running');
  expect(looks.length).toBeGreaterThan(1);
  expect(readRunningTaskNames(emulator)).toEqual([]);
  expect(readTask(emulator, { name: 'Payroll to bank' })!['Description']).not.toBe('');
});

it('wait past the deadline: the change is not applied, named with the deadline and the run; the rest applies; exit 1', async () => {
  const dir = applyWorkdir(emulator);
  startRunByHand(emulator, { name: 'Payroll to bank' }, { scheduled: true });
  const r = await apply(dir, '--running-wait', '1s');
  expect(r.code).toBe(1);
  expect(r.stdout).toMatch(/1 applied, 0 failed, 1 skipped/);
  expect(r.stdout).toMatch(
    /Task\/Payroll to bank \(update\): not applied: task "Payroll to bank" was still running after waiting 1s \(started \d{4}-\d\d-\d\d \d\d:\d\d UTC by the scheduler\)/,
  );
  expect(writesOf(emulator).filter((w) => w.includes(`/tasks/${taskId()}`))).toEqual([]);
  expect(writesOf(emulator).some((w) => w.includes('/resourcegroups/acls'))).toBe(true);
});

it('skip: not applied and reported, exit 1, no write to that task; the other change applies', async () => {
  const dir = applyWorkdir(emulator);
  startRunByHand(emulator, { name: 'Payroll to bank' }, { scheduled: true });
  const r = await apply(dir, '--running-tasks', 'skip', '--format', 'json');
  expect(r.code).toBe(1);
  const report = JSON.parse(r.stdout) as { exitCode: number; results: { address: string; status: string; error?: string; writes: number }[] };
  expect(report.exitCode).toBe(1);
  const task = report.results.find((x) => x.address === TASK)!;
  expect(task).toMatchObject({ status: 'skipped', writes: 0 });
  expect(task.error).toMatch(/^not applied: task "Payroll to bank" is running \(started .* UTC by the scheduler\); --running-tasks skip$/);
  expect(report.results.find((x) => x.address === ACL)).toMatchObject({ status: 'ok' });
  expect(writesOf(emulator).filter((w) => w.includes(`/tasks/${taskId()}`))).toEqual([]);
  // Looked once, right before the write: no waiting.
  expect(requests().filter((l) => l === 'GET /tasks/running')).toHaveLength(1);
});

it('ignore: written while it runs, without asking', async () => {
  const dir = applyWorkdir(emulator);
  startRunByHand(emulator, { name: 'Payroll to bank' }, { scheduled: true });
  const r = await apply(dir, '--running-tasks', 'ignore');
  expect(r.code, r.stderr).toBe(0);
  expect(requests()).toContain(`PUT /tasks/${taskId()}`);
  expect(requests()).not.toContain('GET /tasks/running');
  expect(readRunningTaskNames(emulator)).toEqual(['Payroll to bank']);
});

it('refuses a --running-wait it cannot read, in one line, before anything is read', async () => {
  const dir = applyWorkdir(emulator);
  emulator.resetRequestLog();
  const r = await runCli(['apply', '--auto-approve', '--running-wait', 'soon'], { cwd: dir, env: ENV });
  expect(r.code).toBe(1);
  expect(r.stderr).toBe('mftops: error: --running-wait must be a duration such as 90s, 10m or 1h (at most 24h), not "soon"\n');
  expect(emulator.requestLog()).toEqual([]);
});

it('skip: a held task change holds back the deletes of later waves (they may be what it still refers to); exit 1', async () => {
  const dir = applyWorkdir(emulator);
  const nightly = String(readTask(emulator, { name: 'Nightly cleanup' })!['ID']);
  startRunByHand(emulator, { name: 'Payroll to bank' }, { scheduled: true });
  emulator.resetRequestLog();
  const r = await runCli(['apply', '--auto-approve', '--allow-delete', '--allow-replace', '--running-tasks', 'skip'], { cwd: dir, env: ENV });
  expect(r.code).toBe(1);
  expect(r.stdout).toMatch(/7 applied, 0 failed, 5 skipped/);
  for (const address of ['Task/Nightly cleanup', 'ResourceGroupAcl/Operations/Auditors', 'FolderPermissions/Distribution/Initech/Inbound'])
    expect(r.stdout).toContain(`${address} (delete): not applied: held: task "Payroll to bank" was not written (it may still refer to what this deletes)`);
  expect(writesOf(emulator).filter((w) => w.startsWith('DELETE') && (w.includes(`/tasks/${nightly}`) || w.includes('/resourcegroups/')))).toEqual([]);
  expect(readTask(emulator, { name: 'Nightly cleanup' })).toBeDefined();
});

it('wait ends when the change window closes: the task is not written after it, however long --running-wait is', async () => {
  const dir = applyWorkdir(emulator);
  const config = join(dir, 'mftops.yaml');
  // Every night 22:00–04:00 (the emulator's zone is UTC), judged 4 seconds before the close.
  const windows = '    changeWindows:\n      allow: [{ from: "22:00", to: "04:00" }]\n';
  writeFileSync(config, readFileSync(config, 'utf8').replace(/^snapshots:/m, `${windows}snapshots:`));
  startRunByHand(emulator, { name: 'Payroll to bank' }, { scheduled: true });
  emulator.resetRequestLog();
  const r = await runCli(['apply', '--auto-approve', '--target', TASK, '--target', ACL, '--running-wait', '30s'], {
    cwd: dir,
    env: { ...ENV, MFTOPS_NOW: '2026-12-02T03:59:56Z' },
  });
  expect(r.code).toBe(1);
  expect(r.stdout).toMatch(/1 applied, 0 failed, 1 skipped/);
  expect(r.stdout).toMatch(
    /Task\/Payroll to bank \(update\): not applied: task "Payroll to bank" was still running when the change window closed at Wed 2026-12-02 04:00 UTC \(started \d{4}-\d\d-\d\d \d\d:\d\d UTC by the scheduler\); apply again in the next window/,
  );
  expect(writesOf(emulator).filter((w) => w.includes(`/tasks/${taskId()}`))).toEqual([]);
  expect(writesOf(emulator).some((w) => w.includes('/resourcegroups/acls'))).toBe(true);
});
