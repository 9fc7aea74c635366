import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { applyPlan } from '../../src/apply/apply-plan.js';
import type { ApplyPlanInput } from '../../src/apply/apply-plan.js';
import { MftopsError } from '../../src/errors.js';
import type { Plan } from '../../src/plan/model.js';
import { toReadonlyAutomationClient, toReadonlyTransferClient } from '../../src/services/index.js';
import type { ExportBaseline } from '../../src/snapshot/model.js';
import { saveSnapshot } from '../../src/snapshot/index.js';
import { listWrites } from '../helpers/emulator-test-api.js';
import { startHarness } from '../plan/helpers.js';
import type { Harness } from '../plan/helpers.js';
import { APPLY_ENV, change, planOf, planApplyManifests } from './helpers.js';

/**
 * Issue 29: apply begins its snapshot (the export) beside the stale check instead of after it.
 * "No verified snapshot, no write" still holds: the snapshot is kept only once the check passed
 * and the export holds what the check read; a check that does not pass leaves no snapshot (nor a
 * half-written one) and sends no write.
 */

let h: Harness;
let dir: string;
let plan: Plan;
beforeEach(async () => {
  h = await startHarness();
  ({ dir, plan } = await planApplyManifests(h));
});
afterEach(() => h.close());

/** What the snapshot saw: `begun` when called, `baseline` once given one (with the writes sent by then). */
interface Seen {
  readonly events: string[];
  writesAtBaseline?: number;
  baseline?: ExportBaseline;
}

function input(overrides: Partial<ApplyPlanInput> = {}): ApplyPlanInput & { seen: Seen } {
  const seen: Seen = { events: [] };
  return {
    plan,
    permissions: { allowDelete: true, allowReplace: true, maxDeletes: 10 },
    clients: { automation: h.automation, transfer: h.transfer },
    readers: { automation: toReadonlyAutomationClient(h.automation), transfer: toReadonlyTransferClient(h.transfer) },
    parallelism: 4,
    secrets: { env: APPLY_ENV, cwd: dir, confinement: { fileRoots: [dir], credentialVariables: ['MFT_AUTOMATION_PASSWORD', 'MFT_TRANSFER_PASSWORD'] } },
    retry: { sleep: async () => {} },
    snapshotWithStaleCheck: true,
    takeSnapshot: async (folders, baseline) => {
      seen.events.push('begun');
      const watched = Promise.resolve(baseline).then((b) => {
        seen.events.push('baseline');
        seen.writesAtBaseline = listWrites(h.emulator).length;
        seen.baseline = b;
        return b;
      });
      const info = await saveSnapshot({
        automation: h.automation,
        automationUrl: h.emulator.automationUrl,
        transfer: h.transfer,
        folders,
        env: 'lab',
        dir: join(dir, 'snapshots'),
        keep: 5,
        note: 'before apply',
        baseline: watched,
      });
      return { id: info.id, path: info.path };
    },
    verify: async () => ({ mode: 'replan', unconverged: [] }),
    seen,
    ...overrides,
  };
}

/** Everything in the environment's snapshot folder: saved snapshots and any temporary folder. */
function snapshotFolder(): string[] {
  const envDir = join(dir, 'snapshots', 'lab');
  return existsSync(envDir) ? readdirSync(envDir) : [];
}

/** Automation reads the stale check makes, wrapped: `checked` once the task list has answered. */
function watchedReaders(onTasks: () => Promise<void> = async () => {}): { readers: ApplyPlanInput['readers']; state: { checked: boolean } } {
  const state = { checked: false };
  const automation = toReadonlyAutomationClient(h.automation);
  return {
    state,
    readers: {
      automation: {
        ...automation,
        listTasks: async (...args: Parameters<typeof automation.listTasks>) => {
          await onTasks();
          const tasks = await automation.listTasks(...args);
          state.checked = true;
          return tasks;
        },
      },
      transfer: toReadonlyTransferClient(h.transfer),
    },
  };
}

it('begins the snapshot before the stale check has answered, and gives it its baseline before the first write', async () => {
  const { readers, state } = watchedReaders();
  let begunBeforeCheck: boolean | undefined;
  const i = input({ readers });
  const take = i.takeSnapshot;
  const report = await applyPlan({
    ...i,
    takeSnapshot: (folders, baseline) => {
      begunBeforeCheck ??= !state.checked;
      return take(folders, baseline);
    },
  });
  expect(report.outcome).toBe('applied');
  expect(begunBeforeCheck).toBe(true);
  expect(i.seen.events).toEqual(['begun', 'baseline']);
  expect(i.seen.writesAtBaseline).toBe(0);
  // The baseline is what the check read: every task the server lists, the ones the plan changes named.
  expect(i.seen.baseline?.tasks?.live.map((t) => t.name)).toContain('Payroll to bank');
  expect(i.seen.baseline?.tasks?.touched.length).toBeGreaterThan(0);
  expect(snapshotFolder()).toEqual([report.snapshot!.id]);
  expect(listWrites(h.emulator).length).toBeGreaterThan(0);
});

it('a stale plan: the snapshot begun beside the check never gets a baseline, keeps nothing, and nothing is written', async () => {
  const payroll = (await h.automation.listTasks({ name: 'Payroll to bank' }))[0]!;
  await h.automation.updateTask(String(payroll.ID), { ...payroll, Active: 0 });
  h.emulator.resetRequestLog();
  const i = input();
  const report = await applyPlan(i);
  expect(report).toMatchObject({ outcome: 'stale', stale: [{ address: 'Task/Payroll to bank', how: 'changed' }] });
  expect(report.snapshot).toBeUndefined();
  expect(i.seen.events).toEqual(['begun']);
  expect(snapshotFolder()).toEqual([]);
  expect(listWrites(h.emulator)).toEqual([]);
});

it('a read of the stale check that fails: apply fails after the begun snapshot has settled, leaving nothing', async () => {
  const { readers } = watchedReaders(async () => Promise.reject(new MftopsError('automation: GET /tasks: 503')));
  h.emulator.resetRequestLog();
  const i = input({ readers });
  await expect(applyPlan(i)).rejects.toThrow('automation: GET /tasks: 503');
  expect(i.seen.events).toEqual(['begun']);
  expect(snapshotFolder()).toEqual([]);
  expect(listWrites(h.emulator)).toEqual([]);
});

it('Ctrl-C during the stale check: interrupted, the begun snapshot keeps nothing, nothing is written', async () => {
  const controller = new AbortController();
  const { readers } = watchedReaders(async () => controller.abort());
  h.emulator.resetRequestLog();
  const i = input({ readers, signal: controller.signal });
  const report = await applyPlan(i);
  expect(report).toMatchObject({ outcome: 'interrupted', problems: ['interrupted before the first write: nothing was changed'] });
  expect(i.seen.events).toEqual(['begun']);
  expect(snapshotFolder()).toEqual([]);
  expect(listWrites(h.emulator)).toEqual([]);
});

it("the baseline's own read fails (no change of the kind, so not the check's): no snapshot, nothing written, the same words", async () => {
  const tasksOnly = planOf(plan.changes.filter((c) => c.kind === 'Task'));
  const automation = toReadonlyAutomationClient(h.automation);
  const readers = {
    automation: { ...automation, listResourceGroupAcls: async () => Promise.reject(new MftopsError('automation: GET /resourcegroups/acls: 503')) },
    transfer: toReadonlyTransferClient(h.transfer),
  };
  h.emulator.resetRequestLog();
  const i = input({ plan: { ...tasksOnly, manifestDigest: plan.manifestDigest }, readers });
  const report = await applyPlan(i);
  expect(report).toMatchObject({ outcome: 'no-snapshot', problems: ['automation: GET /resourcegroups/acls: 503; nothing was applied'] });
  expect(i.seen.events).toEqual(['begun']);
  expect(snapshotFolder()).toEqual([]);
  expect(listWrites(h.emulator)).toEqual([]);
});

it('an export that lacks what the check read: no snapshot, nothing written', async () => {
  h.emulator.resetRequestLog();
  const i = input();
  const take = i.takeSnapshot;
  // A task the check reads but the baseline claims the server lists under another id: the export cannot hold it.
  const report = await applyPlan({
    ...i,
    takeSnapshot: (folders, baseline) =>
      take(
        folders,
        Promise.resolve(baseline).then((b) => ({ ...b, tasks: { live: [...(b.tasks?.live ?? []), { id: '999999', name: 'Phantom' }], touched: [] } })),
      ),
  });
  expect(report.outcome).toBe('no-snapshot');
  expect(report.problems[0]).toMatch(/^snapshot not saved: .*Phantom.*not a backup of this server; nothing was applied$/);
  expect(snapshotFolder()).toEqual([]);
  expect(listWrites(h.emulator)).toEqual([]);
});

it('a plan with nothing to write begins no snapshot and asks for no export', async () => {
  h.emulator.resetRequestLog();
  const i = input({ plan: planOf([change({ kind: 'Task', name: 'Same', action: 'no-op' })]) });
  const report = await applyPlan(i);
  expect(report.outcome).toBe('nothing');
  expect(i.seen.events).toEqual([]);
  expect(h.emulator.requestLog().filter((r) => r.path.endsWith('/config'))).toEqual([]);
  expect(snapshotFolder()).toEqual([]);
});

it('a plan made with errors is refused before any request: no snapshot begun, no export', async () => {
  h.emulator.resetRequestLog();
  const i = input({ plan: planOf(plan.changes, { errored: true }) });
  const report = await applyPlan(i);
  expect(report.outcome).toBe('refused');
  expect(i.seen.events).toEqual([]);
  expect(h.emulator.requestLog()).toEqual([]);
  expect(snapshotFolder()).toEqual([]);
});
