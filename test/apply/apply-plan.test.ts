import { statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { applyPlan } from '../../src/apply/apply-plan.js';
import type { AppliedChange, ApplyPlanInput } from '../../src/apply/apply-plan.js';
import { applyExitCode } from '../../src/apply/model.js';
import { MftopsError } from '../../src/errors.js';
import type { Plan } from '../../src/plan/model.js';
import { toReadonlyAutomationClient, toReadonlyTransferClient } from '../../src/services/index.js';
import { saveSnapshot } from '../../src/snapshot/index.js';
import { listWrites } from '../helpers/emulator-test-api.js';
import { startHarness } from '../plan/helpers.js';
import type { Harness } from '../plan/helpers.js';
import { APPLY_ENV, EXPECTED_ACTIONS, change, planOf, readLedger, planApplyManifests } from './helpers.js';

let h: Harness;
let dir: string;
let plan: Plan;
beforeEach(async () => {
  h = await startHarness();
  ({ dir, plan } = await planApplyManifests(h));
});
afterEach(() => h.close());

function writes(): string[] {
  return listWrites(h.emulator);
}

function input(overrides: Partial<ApplyPlanInput> = {}): ApplyPlanInput & { verified: AppliedChange[][]; snapshots: string[][] } {
  const verified: AppliedChange[][] = [];
  const snapshots: string[][] = [];
  return {
    plan,
    permissions: { allowDelete: true, allowReplace: true, maxDeletes: 10 },
    clients: { automation: h.automation, transfer: h.transfer },
    readers: { automation: toReadonlyAutomationClient(h.automation), transfer: toReadonlyTransferClient(h.transfer) },
    parallelism: 4,
    secrets: { env: APPLY_ENV, cwd: dir, confinement: { fileRoots: [dir], credentialVariables: ['MFT_AUTOMATION_PASSWORD', 'MFT_TRANSFER_PASSWORD'] } },
    retry: { sleep: async () => {} },
    takeSnapshot: async (folders) => {
      snapshots.push([...folders]);
      const info = await saveSnapshot({
        automation: h.automation,
        automationUrl: h.emulator.automationUrl,
        transfer: h.transfer,
        folders,
        env: 'lab',
        dir: join(dir, 'snapshots'),
        keep: 5,
        note: 'before apply',
      });
      return { id: info.id, path: info.path };
    },
    verify: async (applied) => {
      verified.push([...applied]);
      return { mode: 'replan', unconverged: [] };
    },
    verified,
    snapshots,
    ...overrides,
  };
}

it('takes the snapshot first, writes a 0600 ledger beside it, and verifies the applied changes', async () => {
  const blocked = change({ kind: 'Task', name: 'Advanced', action: 'blocked', reason: { code: 'advanced-task', operation: 'update' } });
  const i = input({ plan: { ...plan, changes: [...plan.changes, blocked] } });
  const report = await applyPlan(i);
  expect(report.outcome).toBe('applied');
  expect(applyExitCode(report)).toBe(0);
  expect(
    report.results
      .filter((r) => r.status === 'ok')
      .map((r) => r.address)
      .sort(),
  ).toEqual(Object.keys(EXPECTED_ACTIONS).sort());
  expect(report.results.find((r) => r.address === 'Task/Advanced')).toMatchObject({
    status: 'skipped',
    error: 'blocked: advanced (TT=COS) tasks cannot be changed through the API',
  });
  expect(i.snapshots).toEqual([
    ['/Finance/Payroll', '/Finance/Reports', '/Distribution/Acme/Inbound', '/Distribution/Initech/Inbound', '/Distribution/Initech/Outbound'],
  ]);
  expect(report.ledger).toBe(join(report.snapshot!.path, 'ledger.jsonl'));
  expect(statSync(report.ledger!).mode & 0o777).toBe(0o600);
  const ledger = readLedger(report.ledger!);
  expect(ledger.filter((l) => l.event === 'change' && l.address === 'Task/Advanced').map((l) => (l.event === 'change' ? l.status : ''))).toEqual(['skipped']);
  expect(i.verified).toHaveLength(1);
  expect(i.verified[0]!.map((a) => a.change.address).sort()).toEqual(Object.keys(EXPECTED_ACTIONS).sort());
  expect(report.stats.writes).toBeGreaterThanOrEqual(Object.keys(EXPECTED_ACTIONS).length);
});

it('writes nothing and takes no snapshot when the plan is stale', async () => {
  const payroll = (await h.automation.listTasks({ name: 'Payroll to bank' }))[0]!;
  await h.automation.updateTask(String(payroll.ID), { ...payroll, Active: 0 });
  h.emulator.resetRequestLog();
  const i = input();
  const report = await applyPlan(i);
  expect(report).toMatchObject({ outcome: 'stale', stale: [{ address: 'Task/Payroll to bank', how: 'changed' }] });
  expect(i.snapshots).toEqual([]);
  expect(writes()).toEqual([]);
  expect(applyExitCode(report)).toBe(1);
});

it('writes nothing when the snapshot cannot be saved', async () => {
  h.emulator.resetRequestLog();
  const report = await applyPlan(input({ takeSnapshot: async () => Promise.reject(new MftopsError('snapshot not saved: disk full')) }));
  expect(report).toMatchObject({ outcome: 'no-snapshot', problems: ['snapshot not saved: disk full; nothing was applied'] });
  expect(report.ledger).toBeUndefined();
  expect(writes()).toEqual([]);
});

it('refuses deletes it is not allowed before reading anything', async () => {
  h.emulator.resetRequestLog();
  const report = await applyPlan(input({ permissions: { allowDelete: false, allowReplace: true, maxDeletes: 10 } }));
  expect(report.outcome).toBe('refused');
  expect(report.problems[0]).toMatch(/^the plan deletes 4 objects/);
  expect(h.emulator.requestLog()).toEqual([]);
});

it('refuses the whole plan before reading anything when secrets have no value, naming each with the permission problems', async () => {
  h.emulator.resetRequestLog();
  const { PAYROLL_API_KEY: _key, APPLY_TEST_TOKEN: _token, ...env } = APPLY_ENV;
  const i = input({
    secrets: { env, cwd: dir, confinement: { fileRoots: [dir], credentialVariables: [] } },
    permissions: { allowDelete: false, allowReplace: true, maxDeletes: 10 },
  });
  const report = await applyPlan(i);
  expect(report.outcome).toBe('refused');
  expect(report.problems).toEqual([
    expect.stringMatching(/^the plan deletes 4 objects/),
    'environment variable PAYROLL_API_KEY is not set: needed by Task/Payroll to bank (manifests/tasks.yaml:1)',
    'environment variable APPLY_TEST_TOKEN is not set: needed by Task/Apply test upload (manifests/tasks.yaml:18)',
  ]);
  expect(applyExitCode(report)).toBe(1);
  expect(i.snapshots).toEqual([]);
  expect(h.emulator.requestLog()).toEqual([]);
});

it('stops before the first write when interrupted while checking the plan', async () => {
  const controller = new AbortController();
  const readers = {
    automation: {
      ...toReadonlyAutomationClient(h.automation),
      listTasks: async () => {
        controller.abort();
        return h.automation.listTasks();
      },
    },
    transfer: toReadonlyTransferClient(h.transfer),
  };
  h.emulator.resetRequestLog();
  const i = input({ readers, signal: controller.signal });
  const report = await applyPlan(i);
  expect(report).toMatchObject({ outcome: 'interrupted', problems: ['interrupted before the first write: nothing was changed'] });
  expect(i.snapshots).toEqual([]);
  expect(writes()).toEqual([]);
});

it('has nothing to do for a plan of no-ops and blocked changes', async () => {
  const report = await applyPlan(
    input({
      plan: planOf([
        change({ kind: 'Task', name: 'Same', action: 'no-op' }),
        change({ kind: 'Task', name: 'Advanced', action: 'blocked', reason: { code: 'advanced-task', operation: 'create' } }),
      ]),
    }),
  );
  expect(report.outcome).toBe('nothing');
  expect(report.results.map((r) => `${r.address} ${r.status}`)).toEqual(['Task/Advanced skipped']);
  expect(applyExitCode(report)).toBe(0);
});

it('refuses an errored plan before reading anything: it is shown, never applied', async () => {
  h.emulator.resetRequestLog();
  const i = input({ plan: planOf(plan.changes, { errored: true }) });
  const report = await applyPlan(i);
  expect(report).toMatchObject({
    outcome: 'refused',
    problems: ['the plan was made with errors that left objects out of it: it can be shown, never saved or applied; fix the errors and plan again'],
  });
  expect(applyExitCode(report)).toBe(1);
  expect(i.snapshots).toEqual([]);
  expect(h.emulator.requestLog()).toEqual([]);
});

it('refuses a plan whose applyable flag contradicts its changes', async () => {
  h.emulator.resetRequestLog();
  const report = await applyPlan(input({ plan: { ...plan, applyable: false } }));
  expect(report).toMatchObject({ outcome: 'refused', problems: ['the plan is marked not applyable, but changes write: make the plan again'] });
  expect(h.emulator.requestLog()).toEqual([]);
});

it('refuses a plan whose order runs a child folder before the create of its parent, before reading anything', async () => {
  const create = (path: string, parentPath: string, name: string) =>
    change({
      kind: 'FolderPermissions',
      name: path,
      action: 'create',
      payload: { kind: 'FolderPermissions', path, create: { parentPath, name, inheritPermissions: 'None' }, set: [], remove: [] },
    });
  const made = planOf([create('/Finance/New', '/Finance', 'New'), create('/Finance/New/Sub', '/Finance/New', 'Sub')]);
  const broken = { ...made, changes: [made.changes[1]!, made.changes[0]!] };
  h.emulator.resetRequestLog();
  const i = input({ plan: broken });
  const report = await applyPlan(i);
  expect(report).toMatchObject({
    outcome: 'refused',
    problems: [
      "the plan's execution order is broken (FolderPermissions/Finance/New/Sub is listed before FolderPermissions/Finance/New, which makes the folder above it): make the plan again",
    ],
  });
  expect(i.snapshots).toEqual([]);
  expect(h.emulator.requestLog()).toEqual([]);
});

it('a verification that cannot run fails the run', async () => {
  const report = await applyPlan(input({ verify: async () => Promise.reject(new MftopsError('automation: GET /tasks: 503')) }));
  expect(report.verification).toEqual({ mode: 'skipped', unconverged: [], error: 'verification failed: automation: GET /tasks: 503' });
  expect(applyExitCode(report)).toBe(1);
});
