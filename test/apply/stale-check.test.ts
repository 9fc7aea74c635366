import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { writeChanges } from '../../src/apply/guard.js';
import { findStaleObjects, readTouchedObjects } from '../../src/apply/stale-check.js';
import type { Plan } from '../../src/plan/model.js';
import { toReadonlyAutomationClient, toReadonlyTransferClient } from '../../src/services/index.js';
import { testdir } from '../helpers/testdir.js';
import { deleteFolderByHand } from '../helpers/emulator-test-api.js';
import { planPaths, startHarness } from '../plan/helpers.js';
import type { Harness } from '../plan/helpers.js';
import { APPLY_MANIFESTS, renameManifests } from './helpers.js';

let h: Harness;
let plan: Plan;
beforeEach(async () => {
  h = await startHarness();
  const dir = testdir(APPLY_MANIFESTS);
  const result = await planPaths(h, [join(dir, 'manifests')], {
    cwd: dir,
    env: { scope: { taskGroups: ['Operations'], folders: ['/Distribution/Initech'] }, prune: ['Task', 'ResourceGroupAcl', 'FolderPermissions'] },
  });
  plan = result.plan!;
});
afterEach(() => h.close());

const readers = () => ({ automation: toReadonlyAutomationClient(h.automation), transfer: toReadonlyTransferClient(h.transfer) });

async function staleNow() {
  return findStaleObjects(writeChanges(plan), await readTouchedObjects(writeChanges(plan), readers(), 4));
}

it('finds nothing when nothing moved, with one task list, one ACL list, each touched folder by path and ACL, and one list per kind of name resolved', async () => {
  h.emulator.resetRequestLog();
  expect(await staleNow()).toEqual([]);
  const reads = h.emulator.requestLog().filter((r) => !r.isTokenCall);
  expect(reads.every((r) => r.method === 'GET')).toBe(true);
  const paths = reads.map((r) => r.path.replace(/\/\d+\//, '/{id}/'));
  expect(paths.filter((p) => p.endsWith('/tasks'))).toHaveLength(1);
  expect(paths.filter((p) => p.endsWith('/resourcegroups/acls'))).toHaveLength(1);
  // Five touched folders (one to create) and the new folder's parent: six lookups, four ACL lists.
  expect(paths.filter((p) => p.endsWith('/folders'))).toHaveLength(6);
  expect(paths.filter((p) => p.endsWith('/acls') && p.includes('/folders/'))).toHaveLength(4);
  // The names the writes resolved: one list per kind, never one read per name.
  expect(paths.filter((p) => /\/(users|groups|hosts|resourcegroups|customscripts|standardscripts|datelists)$/.test(p)).sort()).toEqual([
    '/automation/api/v1/hosts',
    '/automation/api/v1/resourcegroups',
    '/transfer/api/v1/groups',
    '/transfer/api/v1/users',
  ]);
  expect(reads).toHaveLength(16);
});

it('names each object that changed, appeared or went away since the plan', async () => {
  const payroll = (await h.automation.listTasks({ name: 'Payroll to bank' }))[0]!;
  await h.automation.updateTask(String(payroll.ID), { ...payroll, Active: 0 });
  await h.automation.createResourceGroupAcl({ ResourceGroupName: 'Finance', UserGroupName: 'Auditors', Permissions: { TaskRun: 1 } });
  const operators = (await h.automation.listResourceGroupAcls({ resourceGroupName: 'Finance', userGroupName: 'Finance Operators' }))[0]!;
  await h.automation.deleteResourceGroupAcl(String(operators.ACLID));
  const initech = (await h.transfer.findFolderByPath('/Distribution/Initech/Inbound'))!;
  const bob = (await h.transfer.listUsers()).find((u) => u.username === 'bob')!;
  await h.transfer.setFolderAcl(initech.id, { type: 'User', id: bob.id, permissions: { listFiles: true } });
  const finance = (await h.transfer.findFolderByPath('/Finance'))!;
  await h.transfer.createSubfolder(finance.id, { name: 'Reports', inheritPermissions: 'None' });

  const stale = await staleNow();
  expect(stale.map((s) => `${s.address} ${s.how}`).sort()).toEqual(
    [
      'Task/Payroll to bank changed',
      'ResourceGroupAcl/finance-auditors appeared',
      'ResourceGroupAcl/finance-operators gone',
      'FolderPermissions/Distribution/Initech/Inbound changed',
      'FolderPermissions/Finance/Reports appeared',
    ].sort(),
  );
  expect(stale.find((s) => s.address === 'ResourceGroupAcl/finance-auditors')?.detail).toMatch(/^an ACL for Finance \/ Auditors now exists \(ACLID \d+\)$/);
});

it('a folder to create whose parent went away is stale too', async () => {
  deleteFolderByHand(h.emulator, '/Finance');
  const stale = await staleNow();
  expect(stale).toContainEqual({ address: 'FolderPermissions/Finance/Reports', how: 'gone', detail: 'its parent folder /Finance no longer exists' });
  expect(stale).toContainEqual({ address: 'FolderPermissions/Finance/Payroll', how: 'gone', detail: expect.stringMatching(/^folder id \d+$/) as unknown });
});

it('reads a renamed folder at its previous path: stale when it changed or went from there, or when a folder now has the new path', async () => {
  const dir = testdir(renameManifests());
  const renamePlan = (await planPaths(h, [join(dir, 'manifests')], { cwd: dir })).plan!;
  expect(renamePlan.changes.map((c) => [c.action, c.address, c.previousName])).toEqual([
    ['update', 'FolderPermissions/Distribution/Acme/Incoming', '/Distribution/Acme/Inbound'],
  ]);
  const check = async () => findStaleObjects(writeChanges(renamePlan), await readTouchedObjects(writeChanges(renamePlan), readers(), 4));
  expect(await check()).toEqual([]);

  const acme = (await h.transfer.findFolderByPath('/Distribution/Acme'))!;
  const incoming = await h.transfer.createSubfolder(acme.id, { name: 'Incoming', inheritPermissions: 'None' });
  expect(await check()).toEqual([
    {
      address: 'FolderPermissions/Distribution/Acme/Incoming',
      how: 'appeared',
      detail: `folder /Distribution/Acme/Incoming now exists (id ${incoming.id}): the rename would collide with it`,
    },
  ]);
  deleteFolderByHand(h.emulator, '/Distribution/Acme/Incoming');

  const inbound = (await h.transfer.findFolderByPath('/Distribution/Acme/Inbound'))!;
  const bob = (await h.transfer.listUsers()).find((u) => u.username === 'bob')!;
  await h.transfer.setFolderAcl(inbound.id, { type: 'User', id: bob.id, permissions: { listFiles: true } });
  expect((await check()).map((s) => s.how)).toEqual(['changed']);

  await h.transfer.renameFolder(inbound.id, 'Elsewhere');
  expect(await check()).toEqual([
    { address: 'FolderPermissions/Distribution/Acme/Incoming', how: 'gone', detail: `folder id ${inbound.id} at /Distribution/Acme/Inbound` },
  ]);
});
