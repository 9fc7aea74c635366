import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PrunableKind } from '../../src/config/model.js';
import type { Change } from '../../src/plan/model.js';
import { planPaths, startHarness } from '../plan/helpers.js';
import type { Harness } from '../plan/helpers.js';
import { readAcls, readFolder, readTasks, readTransferUser } from '../helpers/emulator-test-api.js';

/**
 * The engine plans `delete` only for unmanaged objects in scope of a pruned kind, and never for
 * an entry the server marks non-editable. Checked against the emulator's seed, where every kind
 * has objects inside and outside a narrow scope and /Home/alice has a non-editable owner entry.
 */

const EVERY_KIND: PrunableKind[] = ['Task', 'ResourceGroupAcl', 'FolderPermissions'];

let h: Harness;
let dir: string;
beforeAll(async () => {
  h = await startHarness();
  dir = mkdtempSync(join(tmpdir(), 'mftops-prune-'));
  // A manifest that names nothing in scope, so that everything in scope is unmanaged.
  writeFileSync(
    join(dir, 'one.yaml'),
    'apiVersion: mftops/v1\nkind: ResourceGroupAcl\nmetadata: { name: partners }\nspec: { resourceGroup: Partners, userGroup: Partner Managers, permissions: [TaskRun, TaskEditExisting, TaskAddEditDelete] }\n',
  );
});
afterAll(async () => {
  await h.close();
  rmSync(dir, { recursive: true, force: true });
});

const deletes = (changes: readonly Change[]) => changes.filter((c) => c.action === 'delete');

describe('prune never reaches outside scope', () => {
  it('deletes only tasks and ACLs of the task groups in scope (matched without regard to case)', async () => {
    const { plan } = await planPaths(h, [dir], { env: { prune: EVERY_KIND, scope: { taskGroups: ['finance'], folders: [] } }, cwd: dir });
    const tasks = readTasks(h.emulator);
    const financeTasks = tasks.filter((t) => (t['Group'] as string[]).includes('Finance')).map((t) => `Task/${String(t['Name'])}`);
    const financeAcls = readAcls(h.emulator)
      .filter((a) => a.ResourceGroupName === 'Finance')
      .map((a) => `ResourceGroupAcl/${a.ResourceGroupName}/${a.UserGroupName}`);
    expect(financeTasks.length).toBeGreaterThan(0);
    expect(tasks.length).toBeGreaterThan(financeTasks.length);
    expect(
      deletes(plan!.changes)
        .map((c) => c.address)
        .sort(),
    ).toEqual([...financeTasks, ...financeAcls].sort());
  });

  it('deletes nothing of a kind that is not pruned, and nothing at all with an empty scope', async () => {
    const notPruned = await planPaths(h, [dir], {
      env: { prune: ['FolderPermissions'], scope: { taskGroups: ['Finance', 'Partners', 'Operations'], folders: [] } },
      cwd: dir,
    });
    expect(deletes(notPruned.plan!.changes)).toEqual([]);
    const noScope = await planPaths(h, [dir], { env: { prune: EVERY_KIND, scope: { taskGroups: [], folders: [] } }, cwd: dir });
    expect(deletes(noScope.plan!.changes)).toEqual([]);
  });

  it('deletes folder entries only below scope.folders', async () => {
    const { plan } = await planPaths(h, [dir], { env: { prune: EVERY_KIND, scope: { taskGroups: [], folders: ['/Finance'] } }, cwd: dir });
    const folders = deletes(plan!.changes).map((c) => c.name);
    expect(folders.length).toBeGreaterThan(0);
    expect(folders.every((p) => p === '/Finance' || p.startsWith('/Finance/'))).toBe(true);
  });
});

describe('prune never removes a non-editable entry', () => {
  it('leaves a home folder whose only entry is its owner out of the deletes entirely', async () => {
    const home = readFolder(h.emulator, '/Home/alice')!;
    expect(home.acl.some((e) => e.isEditable === false)).toBe(true);
    const { plan } = await planPaths(h, [dir], { env: { prune: EVERY_KIND, scope: { taskGroups: [], folders: ['/Home'] } }, cwd: dir });
    expect(deletes(plan!.changes).map((c) => c.address)).toEqual([]);
  });

  it('removes only the editable entries of a folder that also has a non-editable one', async () => {
    const home = readFolder(h.emulator, '/Home/alice')!;
    const bob = readTransferUser(h.emulator, 'bob')!;
    await h.transfer.setFolderAcl(home.id, { type: 'User', id: String(bob.id), permissions: { listFiles: true } });
    try {
      const { plan } = await planPaths(h, [dir], { env: { prune: EVERY_KIND, scope: { taskGroups: [], folders: ['/Home'] } }, cwd: dir });
      const [change] = deletes(plan!.changes);
      expect(change?.address).toBe('FolderPermissions/Home/alice');
      expect(change?.payload?.kind === 'FolderPermissions' ? change.payload.remove.map((r) => r.name) : []).toEqual(['bob']);
      expect(change?.entries?.map((e) => e.principal.name)).toEqual(['bob']);
    } finally {
      await h.transfer.deleteFolderAcl(home.id, { type: 'User', id: String(bob.id) });
    }
  });

  it('never removes the owner entry of a managed folder in exact mode', async () => {
    writeFileSync(
      join(dir, 'home.yaml'),
      'apiVersion: mftops/v1\nkind: FolderPermissions\nmetadata: { name: /Home/alice }\nspec: { mode: exact, entries: [] }\n',
    );
    try {
      const { plan } = await planPaths(h, [dir], { env: { prune: EVERY_KIND, scope: { taskGroups: [], folders: ['/Home'] } }, cwd: dir });
      const home = plan!.changes.find((c) => c.address === 'FolderPermissions/Home/alice')!;
      expect(home.action).toBe('no-op');
      expect(home.entries?.filter((e) => e.action === 'delete')).toEqual([]);
    } finally {
      rmSync(join(dir, 'home.yaml'));
    }
  });
});
