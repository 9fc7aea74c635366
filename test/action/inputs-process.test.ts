import { appendFileSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { extendSeed, writeEstateManifests } from '../../bench/estate.js';
import { emulatorConfigYaml } from '../../src/emulator/config-for.js';
import { countRequests, loadSeedFile, startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { startHoldProxy, type HeldRequest, type HoldProxy } from '../helpers/hold-proxy.js';
import { testdir } from '../helpers/testdir.js';
import { deleteTaskByHand, readTasks } from '../helpers/emulator-test-api.js';
import { SEED_PATH, startSeededEmulator } from '../integration/helpers.js';
import { checkout, CREDENTIALS, runActionProcess, type ActionRun } from './harness.js';

/**
 * The inputs `max-deletes` and `parallelism`, and apply's failures annotated on the manifest line,
 * as a runner runs them: the bundle in a child process, the emulator as the servers (behind a
 * proxy that holds chosen requests where the test must see what is in flight).
 */

async function freshEmulator(): Promise<RunningEmulator> {
  const emulator = await startSeededEmulator();
  onTestFinished(() => emulator.close());
  return emulator;
}

async function holdProxy(emulator: RunningEmulator, hold: (method: string, path: string) => boolean): Promise<HoldProxy> {
  const proxy = await startHoldProxy(emulator, hold);
  onTestFinished(() => proxy.close());
  return proxy;
}

function apply(ws: string, inputs: Readonly<Record<string, string>> = {}): Promise<ActionRun> {
  return runActionProcess({
    inputs: { command: 'apply', 'working-directory': 'mft', ...inputs },
    workspace: ws,
    eventName: 'workflow_dispatch',
    env: CREDENTIALS,
  });
}

/** Whether `count` held requests were all in flight at once before the run ended (a run that holds fewer never ends by itself: the harness kills it). */
async function allInFlight(proxy: HoldProxy, count: number, run: Promise<ActionRun>): Promise<HeldRequest[] | 'the run ended first'> {
  const held = Promise.all(Array.from({ length: count }, () => proxy.nextHeld()));
  return Promise.race([held, run.then(() => 'the run ended first' as const)]);
}

const TASKS = /^\/automation\/api\/v1\/tasks(\/\d+)?$/;

describe('input: max-deletes', () => {
  /** Partner tasks in scope and pruned, their manifests gone: the plan deletes the 4 live ones. */
  function pruningCheckout(emulator: RunningEmulator): string {
    const ws = checkout(emulator);
    appendFileSync(join(ws, 'mft/mftops.yaml'), '    scope: { taskGroups: [Partners] }\n    prune: [Task]\n');
    rmSync(join(ws, 'mft/manifests/tasks/partners.yaml'));
    return ws;
  }
  const partnerTasks = (emulator: RunningEmulator) => readTasks(emulator, (t) => (t['Group'] as string[] | undefined)?.includes('Partners') ?? false);

  it('refuses, writing nothing, a plan that deletes more objects than max-deletes; applies it when max-deletes allows as many', async () => {
    const emulator = await freshEmulator();
    const ws = pruningCheckout(emulator);
    expect(partnerTasks(emulator)).toHaveLength(4);

    const refused = await apply(ws, { 'allow-delete': 'true', 'max-deletes': '3' });
    expect(refused.code).toBe(1);
    expect(refused.outputs['exitcode']).toBe('1');
    expect(refused.stdout).toMatch(/^::error::mftops apply: Apply refused; nothing was written:%0A  - the plan deletes 4 objects, more than --max-deletes 3/m);
    expect(JSON.parse(readFileSync(refused.outputs['report-file']!, 'utf8'))).toMatchObject({ outcome: 'refused' });
    expect(countRequests(emulator.requestLog()).writes).toBe(0);
    expect(partnerTasks(emulator)).toHaveLength(4);

    const applied = await apply(ws, { 'allow-delete': 'true', 'max-deletes': '4' });
    expect(applied.code).toBe(0);
    expect(applied.outputs['summary']).toMatch(/^Apply complete/);
    expect(partnerTasks(emulator)).toEqual([]);
  });

  it('fails the step on a value that is not a whole number, naming the input, before any request', async () => {
    const emulator = await freshEmulator();
    const ws = pruningCheckout(emulator);
    const run = await apply(ws, { 'allow-delete': 'true', 'max-deletes': 'ten' });
    expect(run.code).toBe(1);
    expect(run.outputs['exitcode']).toBe('1');
    expect(run.stdout).toContain('::error::input "max-deletes" must be a whole number from 0 to 1000000, not "ten"\n');
    expect(emulator.requestLog()).toEqual([]);
  });
});

describe('input: parallelism', () => {
  it('apply writes that many changes at once (more than its default 4)', async () => {
    const emulator = await freshEmulator();
    // Task writes are held: six changes in flight at once means six held writes.
    let held = 0;
    const proxy = await holdProxy(emulator, (method, path) => {
      if (method === 'GET' || !TASKS.test(path) || held === 6) return false;
      held++;
      return true;
    });
    const ws = checkout({ ...emulator, automationUrl: `${proxy.url}/automation` });
    const run = apply(ws, { parallelism: '6' });
    const inFlight = await allInFlight(proxy, 6, run);
    expect(inFlight, 'six task writes were never in flight at once').not.toBe('the run ended first');
    await Promise.all((inFlight as HeldRequest[]).map((r) => r.release()));
    const r = await run;
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Applying \d+ changes \(6 at a time\)\.\.\.$/m);
  });

  it('plan reads that many objects at once (more than its default 10)', async () => {
    const size = { tasks: 0, folders: 40, acls: 0 };
    const big = await startEmulator({ seed: extendSeed(loadSeedFile(SEED_PATH), size) });
    onTestFinished(() => big.close());
    let held = 0;
    const proxy = await holdProxy(big, (method, path) => {
      if (method !== 'GET' || !/\/folders\/[^/]+\/acls$/.test(path.split('?')[0]!) || held === 20) return false;
      held++;
      return true;
    });
    const ws = testdir({
      'mft/mftops.yaml': emulatorConfigYaml({
        environment: 'lab',
        automationUrl: `${proxy.url}/automation`,
        transferUrl: `${proxy.url}/transfer`,
        manifests: ['manifests'],
      }),
    });
    writeEstateManifests(join(ws, 'mft', 'manifests'), size, false);
    const run = runActionProcess({
      inputs: { command: 'plan', 'working-directory': 'mft', parallelism: '20', comment: 'false' },
      workspace: ws,
      eventName: 'push',
      env: CREDENTIALS,
    });
    const inFlight = await allInFlight(proxy, 20, run);
    expect(inFlight, 'twenty folder reads were never in flight at once').not.toBe('the run ended first');
    await Promise.all((inFlight as HeldRequest[]).map((r) => r.release()));
    const r = await run;
    expect(r.code).toBe(0);
    expect(r.outputs['has-changes']).toBe('false');
    expect(big.requestLog().filter((x) => /\/acls$/.test(x.path))).toHaveLength(40);
  });

  it('fails the step on a value out of range, naming the input, before any request', async () => {
    const emulator = await freshEmulator();
    const run = await runActionProcess({
      inputs: { command: 'plan', 'working-directory': 'mft', parallelism: '0', comment: 'false' },
      workspace: checkout(emulator),
      eventName: 'push',
      env: CREDENTIALS,
    });
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('::error::input "parallelism" must be a whole number from 1 to 64, not "0"\n');
    expect(emulator.requestLog()).toEqual([]);
  });
});

describe('apply failures', () => {
  it('puts one error annotation per failed change on the line of its manifest, besides the summary annotation', async () => {
    const emulator = await freshEmulator();
    const ids = Object.fromEntries(readTasks(emulator).map((t) => [String(t['Name']), String(t['ID'])]));
    const doomed = new Map([
      [`/automation/api/v1/tasks/${ids['Nightly cleanup']}`, 'Nightly cleanup'],
      [`/automation/api/v1/tasks/${ids['Globex outbound']}`, 'Globex outbound'],
    ]);
    // The two task updates are held; while they wait, someone deletes the tasks in the admin UI.
    const proxy = await holdProxy(emulator, (method, path) => method === 'PUT' && doomed.has(path));
    const ws = checkout({ ...emulator, automationUrl: `${proxy.url}/automation` });
    const run = apply(ws);
    for (let i = 0; i < doomed.size; i++) {
      const held = await proxy.nextHeld();
      const name = doomed.get(held.path)!;
      deleteTaskByHand(emulator, name);
      await held.release();
    }
    const r = await run;
    expect(r.code).toBe(1);
    expect(r.outputs['exitcode']).toBe('1');
    const errors = r.stdout.split('\n').filter((l) => l.startsWith('::error'));
    const annotated = errors.filter((l) => l.startsWith('::error file='));
    expect(annotated).toHaveLength(2);
    expect(annotated).toContainEqual(
      expect.stringMatching(
        /^::error file=mft\/manifests\/tasks\/operations\.yaml,line=3,col=1,title=mftops apply::Task\/Nightly cleanup \(update\) failed: .*404/,
      ),
    );
    expect(annotated).toContainEqual(
      expect.stringMatching(
        /^::error file=mft\/manifests\/tasks\/partners\.yaml,line=39,col=1,title=mftops apply::Task\/Globex outbound \(update\) failed: .*404/,
      ),
    );
    // The run's summary is still one annotation of its own.
    expect(errors.filter((l) => l.startsWith('::error::mftops apply: Apply finished with errors'))).toHaveLength(1);
  });
});
