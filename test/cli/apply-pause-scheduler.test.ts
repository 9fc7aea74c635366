import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { findSchemasDir } from '../../src/manifest/schemas.js';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, expect, it, onTestFinished } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { SCHEDULER_NOTE_FILE } from '../../src/apply/scheduler-note.js';
import { startSeededEmulator } from '../integration/helpers.js';
import { deleteTaskByHand, readSchedulerEnabled, setSchedulerByHand } from '../helpers/emulator-test-api.js';
import { startHoldProxy } from '../helpers/hold-proxy.js';
import { runCli } from '../helpers/run-cli.js';
import { APPLY_ENV, applyWorkdir } from '../apply/helpers.js';

/**
 * apply --pause-scheduler (issue 28 item 4): the scheduler is stopped for the writes and started
 * again however apply ends; a SIGKILL leaves a recovery note that mftops status reads.
 */

const BIN = fileURLToPath(new URL('../../bin/mftops.js', import.meta.url));
const ARGS = ['apply', '--auto-approve', '--pause-scheduler', '--target', 'Task/Payroll to bank'];

let emulator: RunningEmulator;
beforeEach(async () => {
  emulator = await startSeededEmulator();
});
afterEach(() => emulator.close());

/** The scheduler and task writes of the run, in order. */
function schedulerAndTaskWrites(): string[] {
  return emulator
    .requestLog()
    .filter((r) => !r.isTokenCall && r.method !== 'GET' && (r.path.includes('/tasks/scheduler') || /\/tasks\/\d+$/.test(r.path)))
    .map((r) => `${r.method} ${r.path.replace(/^\/automation\/api\/v1/, '')}`);
}

const ajv = new Ajv2020({ strict: true, strictRequired: false, allowUnionTypes: true, allErrors: true });
addFormats.default(ajv);
for (const file of readdirSync(findSchemasDir()).filter((f) => f.startsWith('output-') || f === 'plan.schema.json' || f === 'kinds.schema.json')) {
  ajv.addSchema(JSON.parse(readFileSync(join(findSchemasDir(), file), 'utf8')) as object);
}

/** The JSON document of a run, accepted by its output schema. */
function documentOf(stdout: string, schema: string): Record<string, unknown> {
  const doc = JSON.parse(stdout) as Record<string, unknown>;
  const validate = ajv.getSchema(`https://mftops.dev/schemas/${schema}`)!;
  expect(validate(doc), JSON.stringify(validate.errors)).toBe(true);
  return doc;
}

const notePath = (dir: string): string => join(dir, '.mftops/snapshots/lab', SCHEDULER_NOTE_FILE);

it('stops the scheduler before the write and starts it again after a normal apply; the note is gone', async () => {
  const dir = applyWorkdir(emulator);
  emulator.resetRequestLog();
  const r = await runCli(ARGS, { cwd: dir, env: APPLY_ENV });
  expect(r.code, r.stderr).toBe(0);
  expect(schedulerAndTaskWrites()).toEqual(['PUT /tasks/scheduler/stop', 'PUT /tasks/401001', 'PUT /tasks/scheduler/start']);
  expect(readSchedulerEnabled(emulator)).toBe(true);
  expect(r.stdout).toContain('Scheduler: the scheduler was stopped for the writes and started again\n');
  expect(existsSync(notePath(dir))).toBe(false);
});

it('starts the scheduler again after a failed write (exit 1 for the write, not for the scheduler)', async () => {
  // The task write is held, the task deleted by hand meanwhile: the write is refused (404).
  const proxy = await startHoldProxy(emulator, (method, path) => method === 'PUT' && path === '/automation/api/v1/tasks/401001');
  onTestFinished(() => proxy.close());
  const dir = applyWorkdir(emulator, { automationUrl: `${proxy.url}/automation` });
  const running = runCli(ARGS, { cwd: dir, env: APPLY_ENV });
  const held = await proxy.nextHeld();
  expect(readSchedulerEnabled(emulator)).toBe(false);
  deleteTaskByHand(emulator, 'Payroll to bank');
  await held.release();
  const r = await running;
  expect(r.code).toBe(1);
  expect(r.stdout).toMatch(/0 applied, 1 failed/);
  expect(r.stdout).toContain('Scheduler: the scheduler was stopped for the writes and started again\n');
  expect(readSchedulerEnabled(emulator)).toBe(true);
  expect(existsSync(notePath(dir))).toBe(false);
});

it('Ctrl-C mid-apply: the write in flight finishes, then the scheduler is started again', async () => {
  const proxy = await startHoldProxy(emulator, (method, path) => method === 'PUT' && path === '/automation/api/v1/tasks/401001');
  onTestFinished(() => proxy.close());
  const dir = applyWorkdir(emulator, { automationUrl: `${proxy.url}/automation` });
  const child = spawn(process.execPath, [BIN, ...ARGS], {
    cwd: dir,
    env: { PATH: process.env['PATH'] ?? '', NO_COLOR: '1', ...APPLY_ENV },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
  const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
  const held = await proxy.nextHeld();
  child.kill('SIGINT');
  for (let waited = 0; !stderr.includes('Interrupted: no new write starts') && waited < 60_000; waited += 20) await new Promise((r) => setTimeout(r, 20));
  await held.release();
  expect(await closed).toBe(1);
  expect(stdout).toContain('Scheduler: the scheduler was stopped for the writes and started again\n');
  expect(readSchedulerEnabled(emulator)).toBe(true);
  expect(existsSync(notePath(dir))).toBe(false);
});

it('leaves a scheduler that was stopped before apply stopped, and says so', async () => {
  setSchedulerByHand(emulator, false);
  const dir = applyWorkdir(emulator);
  emulator.resetRequestLog();
  const r = await runCli([...ARGS, '--format', 'json'], { cwd: dir, env: APPLY_ENV });
  expect(r.code, r.stderr).toBe(0);
  expect(documentOf(r.stdout, 'output-apply.schema.json')['scheduler']).toEqual({
    state: 'left-stopped',
    message: 'the scheduler was already stopped before apply, and is left stopped',
  });
  expect(schedulerAndTaskWrites()).toEqual(['PUT /tasks/401001']);
  expect(readSchedulerEnabled(emulator)).toBe(false);
});

it('killed with SIGKILL mid-apply: the next status says the scheduler is stopped, which apply stopped it and how to start it', async () => {
  const proxy = await startHoldProxy(emulator, (method, path) => method === 'PUT' && path === '/automation/api/v1/tasks/401001');
  onTestFinished(() => proxy.close());
  const dir = applyWorkdir(emulator, { automationUrl: `${proxy.url}/automation` });
  const child = spawn(process.execPath, [BIN, ...ARGS], { cwd: dir, env: { PATH: process.env['PATH'] ?? '', NO_COLOR: '1', ...APPLY_ENV }, stdio: 'ignore' });
  const closed = new Promise<number | null>((resolve) => child.on('close', (_code, signal) => resolve(signal === 'SIGKILL' ? -9 : 0)));
  await proxy.nextHeld();
  child.kill('SIGKILL');
  expect(await closed).toBe(-9);
  expect(readSchedulerEnabled(emulator)).toBe(false);

  const status = await runCli(['status'], { cwd: dir, env: APPLY_ENV });
  expect(status.code).toBe(0);
  expect(status.stdout).toContain('  scheduler  STOPPED\n');
  expect(status.stdout).toMatch(
    /^warning: mftops apply \S+ stopped the automation scheduler at \d{4}-\d\d-\d\dT[\d:.]+Z \(pid \d+ on .+\) and did not start it again$/m,
  );
  expect(status.stdout).toContain(
    `  start it with: mftops scheduler start --env lab (or PUT ${proxy.url}/automation/api/v1/tasks/scheduler/start as an administrator)\n`,
  );
  const json = documentOf((await runCli(['status', '--format', 'json'], { cwd: dir, env: APPLY_ENV })).stdout, 'output-status.schema.json');
  expect(json['scheduler']).toMatchObject({ running: false, stoppedBy: { apply: expect.any(String) as unknown } });

  // The command it names starts it and removes the note; status is quiet again.
  const started = await runCli(['scheduler', 'start'], { cwd: dir, env: APPLY_ENV });
  expect(started.code, started.stderr).toBe(0);
  expect(started.stdout).toMatch(/^Started the automation scheduler of environment "lab" \(stopped by mftops apply \S+ at .+; its note is removed\)\.\n$/);
  expect(readSchedulerEnabled(emulator)).toBe(true);
  expect(existsSync(notePath(dir))).toBe(false);
  const after = await runCli(['status'], { cwd: dir, env: APPLY_ENV });
  expect(after.stdout).not.toMatch(/scheduler|warning/);
});

it('status warns about a scheduler stopped by hand, with no note', async () => {
  setSchedulerByHand(emulator, false);
  const dir = applyWorkdir(emulator);
  const status = await runCli(['status'], { cwd: dir, env: APPLY_ENV });
  expect(status.stdout).toContain(
    '  scheduler  STOPPED\nwarning: the automation scheduler is stopped: no task runs on its schedule\n  start it with: mftops scheduler start --env lab',
  );
  const started = await runCli(['scheduler', 'start', '--format', 'json'], { cwd: dir, env: APPLY_ENV });
  expect(documentOf(started.stdout, 'output-scheduler-start.schema.json')).toEqual({
    formatVersion: 1,
    kind: 'mftops.scheduler.start',
    environment: 'lab',
    wasRunning: false,
  });
  expect(readSchedulerEnabled(emulator)).toBe(true);
});

it('after a SIGKILLed paused apply, the next apply warns (with and without --pause-scheduler) that mftops left the scheduler stopped', async () => {
  const proxy = await startHoldProxy(emulator, (method, path) => method === 'PUT' && path === '/automation/api/v1/tasks/401001');
  onTestFinished(() => proxy.close());
  const dir = applyWorkdir(emulator, { automationUrl: `${proxy.url}/automation` });
  const child = spawn(process.execPath, [BIN, ...ARGS], { cwd: dir, env: { PATH: process.env['PATH'] ?? '', NO_COLOR: '1', ...APPLY_ENV }, stdio: 'ignore' });
  const closed = new Promise<void>((resolve) => child.on('close', () => resolve()));
  await proxy.nextHeld();
  child.kill('SIGKILL');
  await closed;
  expect(readSchedulerEnabled(emulator)).toBe(false);
  // The next runs go to the emulator itself (the proxy would hold their write too).
  const config = join(dir, 'mftops.yaml');
  writeFileSync(config, readFileSync(config, 'utf8').replace(`${proxy.url}/automation`, emulator.automationUrl));
  const warning =
    /warning: mftops apply \S+ stopped the automation scheduler at \S+ \(pid \d+ on .+\) and did not start it again: start it with mftops scheduler start --env lab/;

  const paused = await runCli(ARGS, { cwd: dir, env: APPLY_ENV });
  expect(paused.code, paused.stderr).toBe(0);
  expect(paused.stdout + paused.stderr).toMatch(warning);
  expect(paused.stdout).toMatch(
    /Scheduler: the scheduler was already stopped before apply \(by mftops apply \S+, which did not start it again: its note is kept\), and is left stopped/,
  );
  expect(readSchedulerEnabled(emulator)).toBe(false);
  expect(existsSync(notePath(dir))).toBe(true);

  const plain = await runCli(
    ARGS.filter((a) => a !== '--pause-scheduler'),
    { cwd: dir, env: APPLY_ENV },
  );
  expect(plain.code, plain.stderr).toBe(0);
  expect(plain.stdout + plain.stderr).toMatch(warning);
});

it('during a paused apply still running, status says an apply in progress stopped it (no start advice) and scheduler start refuses unless --force', async () => {
  const proxy = await startHoldProxy(emulator, (method, path) => method === 'PUT' && path === '/automation/api/v1/tasks/401001');
  onTestFinished(() => proxy.close());
  const dir = applyWorkdir(emulator, { automationUrl: `${proxy.url}/automation` });
  const running = runCli(ARGS, { cwd: dir, env: APPLY_ENV });
  const held = await proxy.nextHeld();
  expect(readSchedulerEnabled(emulator)).toBe(false);

  const status = await runCli(['status'], { cwd: dir, env: APPLY_ENV });
  expect(status.code, status.stderr).toBe(0);
  expect(status.stdout).toContain('  scheduler  STOPPED\n');
  expect(status.stdout).toMatch(/^note: an apply in progress \(pid \d+\) stopped it for its writes; it starts it again when they finish$/m);
  expect(status.stdout).not.toMatch(/did not start it again|start it with/);

  const start = await runCli(['scheduler', 'start'], { cwd: dir, env: APPLY_ENV });
  expect(start.code).not.toBe(0);
  expect(start.stderr).toMatch(
    /^mftops: error: an apply in progress \(pid \d+ on .+\) stopped the scheduler for its writes and starts it again when they finish: wait for it, or use --force to start it now$/m,
  );
  expect(readSchedulerEnabled(emulator)).toBe(false);
  expect(existsSync(notePath(dir))).toBe(true);

  await held.release();
  const r = await running;
  expect(r.code, r.stderr).toBe(0);
  expect(readSchedulerEnabled(emulator)).toBe(true);
});

it('starts the scheduler again as soon as the writes finish, before the verification re-read', async () => {
  const dir = applyWorkdir(emulator);
  emulator.resetRequestLog();
  const r = await runCli(ARGS, { cwd: dir, env: APPLY_ENV });
  expect(r.code, r.stderr).toBe(0);
  const log = emulator
    .requestLog()
    .filter((q) => !q.isTokenCall && q.service === 'automation')
    .map((q) => `${q.method} ${q.path.replace(/^\/automation\/api\/v1/, '')}`);
  const start = log.indexOf('PUT /tasks/scheduler/start');
  expect(start).toBeGreaterThan(log.indexOf('PUT /tasks/401001'));
  // The verification re-reads the tasks after the start, not while the scheduler is stopped.
  expect(log.slice(start + 1).some((l) => l.startsWith('GET /tasks'))).toBe(true);
});

it('SIGHUP (a dropped ssh session) mid-apply is handled like Ctrl-C: the write in flight finishes, then the scheduler is started again', async () => {
  const proxy = await startHoldProxy(emulator, (method, path) => method === 'PUT' && path === '/automation/api/v1/tasks/401001');
  onTestFinished(() => proxy.close());
  const dir = applyWorkdir(emulator, { automationUrl: `${proxy.url}/automation` });
  const child = spawn(process.execPath, [BIN, ...ARGS], {
    cwd: dir,
    env: { PATH: process.env['PATH'] ?? '', NO_COLOR: '1', ...APPLY_ENV },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
  child.stdout.resume();
  const closed = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal })),
  );
  const held = await proxy.nextHeld();
  child.kill('SIGHUP');
  for (
    let waited = 0;
    !stderr.includes('Interrupted: no new write starts') && child.exitCode === null && child.signalCode === null && waited < 60_000;
    waited += 20
  )
    await new Promise((r) => setTimeout(r, 20));
  await held.release();
  expect(await closed).toEqual({ code: 1, signal: null });
  expect(readSchedulerEnabled(emulator)).toBe(true);
  expect(existsSync(notePath(dir))).toBe(false);
});

it('lists, before the writes, the runs of every task that fall in the due margin and may be missed while the scheduler is stopped', async () => {
  // Friday 01:55 UTC: Payroll to bank runs weekdays at 02:00 (the emulator's zone is UTC).
  const dir = applyWorkdir(emulator);
  const env = { ...APPLY_ENV, MFTOPS_NOW: '2026-11-27T01:55:00Z' };
  const paused = await runCli(ARGS, { cwd: dir, env });
  expect(paused.code, paused.stderr).toBe(0);
  expect(paused.stdout).toMatch(
    /--pause-scheduler: \d+ runs? falls? in the next 15 min \(the due margin, taken as the apply's time\) and may be missed while the scheduler is stopped/,
  );
  expect(paused.stdout).toContain('  Task/Payroll to bank: Fri 02:00 (in 5 min)\n');
  // Without --pause-scheduler nothing is paused, and the list is not shown.
  const plain = await runCli(['plan', '--no-color'], { cwd: dir, env });
  expect(plain.stdout).not.toContain('--pause-scheduler:');
});
