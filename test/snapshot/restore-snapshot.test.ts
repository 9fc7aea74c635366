import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { listSnapshots, loadSnapshot, restoreSnapshot, SnapshotError, verifySnapshot, type RestoreSnapshotOptions } from '../../src/snapshot/index.js';
import { applyRestore, prepareRestore } from '../../src/snapshot/restore-snapshot.js';
import { testdir } from '../helpers/testdir.js';
import { writesOf } from '../apply/helpers.js';
import { startSeededEmulator } from '../integration/helpers.js';
import { clientsFor, FOLDERS, KEY_HEX, saveFrom, snapshotFolder, type Clients } from './helpers.js';

let emulator: RunningEmulator;
let clients: Clients;
beforeEach(async () => {
  emulator = await startSeededEmulator();
  clients = clientsFor(emulator);
});
afterEach(async () => {
  await clients.close();
  await emulator.close();
});

/** Everything the API says about what a snapshot holds: tasks, hosts, ACLs, folder entries. */
async function readState(c: Clients) {
  const folders: Record<string, unknown> = {};
  for (const path of FOLDERS) {
    const f = await c.transfer.findFolderByPath(path);
    folders[path] = f ? await c.transfer.listFolderAcls(f.id) : null;
  }
  return {
    tasks: await c.automation.listTasks(),
    hosts: await c.automation.listHosts(),
    acls: await c.automation.listResourceGroupAcls(),
    folders,
  };
}

/** Change something of every kind a snapshot holds, through the clients. */
async function changeEverything(c: Clients): Promise<void> {
  // Hosts have no REST write: change one through a config import.
  const scratch = join(testdir({}), 'now.xml');
  await c.automation.exportConfig(scratch);
  const xml = readFileSync(scratch, 'utf8');
  const changedXml = xml
    .replace('Desc="Acme Corp partner SFTP"', 'Desc="Acme SFTP (moved)"')
    .replace('Port="2222"', 'Port="22"')
    .replace('acme-SEEDSECRET-4', 'acme-NEWSECRET-4');
  expect(changedXml).not.toBe(xml);
  await c.automation.importConfig(changedXml);

  const tasks = await c.automation.listTasks();
  const payroll = tasks.find((t) => t.Name === 'Payroll to bank')!;
  await c.automation.updateTask(payroll.ID!, { ...payroll, Active: 0, Info: { Description: 'paused by a test' } });
  await c.automation.deleteTask(tasks.find((t) => t.Name === 'Nightly cleanup')!.ID!);
  const fs = (await c.automation.listHosts()).find((h) => h.Name === 'local-fs')!;
  await c.automation.createTask({
    Name: 'Added after the snapshot',
    Group: ['Operations'],
    Active: 1,
    steps: [{ Source: { HostID: fs.ID, Type: fs.type, Path: 'D:\\x', FileMask: '*' } }],
  });

  const acls = await c.automation.listResourceGroupAcls();
  await c.automation.updateResourceGroupAcl(acls.find((a) => a.ResourceGroupName === 'Finance')!.ACLID, {
    Permissions: { TaskRun: 1, TaskEditExisting: 1, TaskAddEditDelete: 1 },
  });
  await c.automation.deleteResourceGroupAcl(acls.find((a) => a.ResourceGroupName === 'Operations')!.ACLID);
  await c.automation.createResourceGroupAcl({ ResourceGroupName: 'Operations', UserGroupName: 'Partner Managers', Permissions: { TaskRun: 1 } });

  const bob = (await c.transfer.findUser('bob'))!;
  const alice = (await c.transfer.findUser('alice'))!;
  const acme = (await c.transfer.findGroup('Acme Partners'))!;
  const outbound = (await c.transfer.findFolderByPath('/Distribution/Acme/Outbound'))!;
  await c.transfer.setFolderAcl(outbound.id, { type: 'User', id: alice.id, permissions: { listFiles: true } });
  await c.transfer.deleteFolderAcl(outbound.id, { type: 'Group', id: acme.id });
  const inbound = (await c.transfer.findFolderByPath('/Distribution/Acme/Inbound'))!;
  await c.transfer.setFolderAcl(inbound.id, { type: 'User', id: bob.id, permissions: { listFiles: true, readFiles: true } });
  const home = (await c.transfer.findFolderByPath('/Home/alice'))!;
  await c.transfer.setFolderAcl(home.id, { type: 'User', id: bob.id, permissions: { readFiles: true } });
}

function restoreOptions(dir: string, id: string, extra: Partial<RestoreSnapshotOptions> = {}): RestoreSnapshotOptions {
  return {
    dir,
    env: 'lab',
    id,
    automation: clients.automation,
    automationUrl: emulator.automationUrl,
    transfer: clients.transfer,
    transferUrl: emulator.transferUrl,
    keep: 30,
    processEnv: {},
    ...extra,
  };
}

describe('restoreSnapshot', () => {
  it('puts tasks, hosts, ACLs and folder entries back exactly, after saving the state it replaces', async () => {
    const dir = testdir({});
    const before = await readState(clients);
    const saved = await saveFrom(emulator, clients, dir, { now: new Date('2026-05-01T08:00:00.000Z') });
    await changeEverything(clients);
    const changed = await readState(clients);
    expect(changed).not.toEqual(before);

    const result = await restoreSnapshot(restoreOptions(dir, saved.id));
    expect(await readState(clients)).toEqual(before);
    expect(result.complete).toBe(true);
    expect(result.restored.id).toBe(saved.id);

    // Host passwords are write-only in REST: the re-export shows them back too (only NextID may move).
    const after = join(testdir({}), 'after.xml');
    await clients.automation.exportConfig(after);
    const noNextId = (s: string) => s.replace(/ NextID="\d+"/, '');
    expect(noNextId(readFileSync(after, 'utf8'))).toBe(noNextId(readFileSync(join(snapshotFolder(dir, saved.id), 'automation-config.xml'), 'utf8')));

    // The home folder's owner entry (not editable) was left as it was; bob's entry there is gone.
    const home = result.folders.find((f) => f.path === '/Home/alice')!;
    expect(home).toMatchObject({ outcome: 'restored', deleted: 1, put: 0 });
    expect(result.folders.find((f) => f.path === '/Distribution/Not/There')).toMatchObject({ outcome: 'absent' });

    // The fresh snapshot holds the changed state and verifies.
    expect(result.preRestore.id).not.toBe(saved.id);
    expect(result.preRestore.note).toBe(`before restoring ${saved.id}`);
    expect(listSnapshots(dir, 'lab').snapshots.map((s) => s.id)).toEqual([saved.id, result.preRestore.id]);
    expect((await verifySnapshot(dir, result.preRestore.id)).files).toHaveLength(3);
    const pre = loadSnapshot(dir, { env: 'lab', id: result.preRestore.id });
    expect(pre.automationXml!.toString('utf8')).toContain('Added after the snapshot');
    expect(pre.folders.find((f) => f.path === '/Home/alice')?.entries).toEqual((changed.folders as Record<string, unknown>)['/Home/alice']);

    // Restoring the fresh one goes forward again.
    await restoreSnapshot(restoreOptions(dir, result.preRestore.id));
    expect(await readState(clients)).toEqual(changed);
  });

  it('restores an encrypted snapshot, and keeps the one it restores even with keep: 1', async () => {
    const dir = testdir({});
    const processEnv = { MFTOPS_SNAPSHOT_KEY: KEY_HEX };
    const before = await readState(clients);
    const saved = await saveFrom(emulator, clients, dir, { processEnv, now: new Date('2026-05-01T08:00:00.000Z') });
    await changeEverything(clients);
    const result = await restoreSnapshot(restoreOptions(dir, 'latest', { processEnv, keep: 1 }));
    expect(result.restored.id).toBe(saved.id);
    expect(result.preRestore.encrypted).toBe(true);
    expect(await readState(clients)).toEqual(before);
    expect(listSnapshots(dir, 'lab').snapshots.map((s) => s.id)).toEqual([saved.id, result.preRestore.id]);
  });

  it('writes nothing when the snapshot fails its check or the transfer client is missing', async () => {
    const dir = testdir({});
    const saved = await saveFrom(emulator, clients, dir);
    const xml = join(snapshotFolder(dir, saved.id), 'automation-config.xml');
    const good = readFileSync(xml);
    writeFileSync(xml, Buffer.concat([good, Buffer.from('\n')]));
    emulator.resetRequestLog();
    await expect(restoreSnapshot(restoreOptions(dir, saved.id))).rejects.toThrow(/automation-config\.xml has \d+ bytes, snapshot\.json says \d+/);
    writeFileSync(xml, good);
    const err = await restoreSnapshot({ ...restoreOptions(dir, saved.id), transfer: undefined }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SnapshotError);
    expect((err as Error).message).toMatch(/holds 4 transfer folder\(s\), but the environment has no transfer service/);
    expect(emulator.requestLog()).toEqual([]);
    expect(listSnapshots(dir, 'lab').snapshots).toHaveLength(1);
  });

  it('restores a transfer-only snapshot without an automation client, saving the same service first', async () => {
    const dir = testdir({});
    const before = await readState(clients);
    const saved = await saveFrom(emulator, clients, dir, { automation: undefined, automationUrl: undefined });
    await changeEverything(clients);
    const changed = await readState(clients);

    const result = await restoreSnapshot(restoreOptions(dir, saved.id, { automation: undefined, automationUrl: undefined }));
    expect(result).toMatchObject({ services: ['transfer'], complete: true });
    expect(result.preRestore.services).toEqual(['transfer']);
    const now = await readState(clients);
    expect(now.folders).toEqual(before.folders);
    expect(now.tasks).toEqual(changed.tasks);
    expect(loadSnapshot(dir, { env: 'lab', id: result.preRestore.id }).folders.find((f) => f.path === '/Home/alice')?.entries).toEqual(
      (changed.folders as Record<string, unknown>)['/Home/alice'],
    );
  });

  it('restores only the parts named in services, and refuses a part the snapshot does not hold', async () => {
    const dir = testdir({});
    const before = await readState(clients);
    const saved = await saveFrom(emulator, clients, dir);
    await changeEverything(clients);
    const changed = await readState(clients);

    const result = await restoreSnapshot(restoreOptions(dir, saved.id, { services: ['automation'] }));
    expect(result).toMatchObject({ services: ['automation'], folders: [] });
    expect(result.preRestore.services).toEqual(['automation']);
    const now = await readState(clients);
    expect(now.tasks).toEqual(before.tasks);
    expect(now.folders).toEqual(changed.folders);

    const foldersOnly = await saveFrom(emulator, clients, dir, { automation: undefined, automationUrl: undefined });
    emulator.resetRequestLog();
    const err = await restoreSnapshot(restoreOptions(dir, foldersOnly.id, { services: ['automation'] })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SnapshotError);
    expect((err as Error).message).toBe(`snapshot lab/${foldersOnly.id} holds no automation export`);
    expect(emulator.requestLog()).toEqual([]);
  });
});

describe('restore: the diff first, the verification last', () => {
  it('compares the live servers with the snapshot before any write: objects added, removed and changed', async () => {
    const dir = testdir({});
    const saved = await saveFrom(emulator, clients, dir);
    await changeEverything(clients);
    emulator.resetRequestLog();
    const prepared = await prepareRestore(restoreOptions(dir, saved.id));
    expect(writesOf(emulator)).toEqual([]);
    // Live (A) → snapshot (B): + the restore puts back, - it removes.
    const kinds = Object.fromEntries(
      (prepared.diff.kinds ?? []).map((k) => [k.kind, { added: k.added, removed: k.removed, changed: k.changed.map((c) => c.name) }]),
    );
    expect(kinds).toEqual({
      task: { added: ['Nightly cleanup'], removed: ['Added after the snapshot'], changed: ['Payroll to bank'] },
      host: { added: [], removed: [], changed: ['acme-sftp'] },
      resourceGroupAcl: { added: ['Operations / Auditors'], removed: ['Operations / Partner Managers'], changed: ['Finance / Finance Operators'] },
    });
    const payroll = prepared.diff.kinds!.find((k) => k.kind === 'task')!.changed[0]!;
    expect(payroll.fields).toContainEqual(expect.objectContaining({ path: expect.stringMatching(/Active$/), before: '0', after: '1' }));
    const outbound = prepared.diff.folders.changed.find((f) => f.path === '/Distribution/Acme/Outbound')!;
    expect(outbound.added.map((e) => e.name)).toEqual(['Acme Partners']);
    expect(outbound.changed.map((e) => [e.name, e.before.permissions, e.after.permissions])).toEqual([
      ['alice', ['listFiles'], ['readFiles', 'writeFiles', 'deleteFiles', 'listFiles']],
    ]);
    // Host secrets changed too, and are never shown.
    expect(JSON.stringify(prepared.diff)).not.toMatch(/SEEDSECRET|NEWSECRET/);
    // No copy of the live export is left behind.
    expect(readdirSync(join(dir, 'lab'))).toEqual([saved.id]);

    const result = await applyRestore(prepared, restoreOptions(dir, saved.id));
    expect(result).toMatchObject({ complete: true, verified: true, mismatches: [] });
    expect(result.diff).toEqual(prepared.diff);
  });

  it('says what did not read back as the snapshot: a server that accepts writes and keeps nothing is not verified', async () => {
    const dir = testdir({});
    const saved = await saveFrom(emulator, clients, dir);
    await changeEverything(clients);
    const deaf = restoreOptions(dir, saved.id, {
      automation: { exportConfig: (dest) => clients.automation.exportConfig(dest), importConfig: async () => undefined },
      transfer: {
        findFolderByPath: (path) => clients.transfer.findFolderByPath(path),
        listFolderAcls: (id) => clients.transfer.listFolderAcls(id),
        setFolderAcl: async () => [],
        deleteFolderAcl: async () => undefined,
        listUsers: (o) => clients.transfer.listUsers(o),
        listGroups: (o) => clients.transfer.listGroups(o),
        listGroupMembers: (ids) => clients.transfer.listGroupMembers(ids),
      },
    });
    const result = await restoreSnapshot(deaf);
    expect(result.complete).toBe(true);
    expect(result.verified).toBe(false);
    expect(result.mismatches).toContain('task Nightly cleanup is in the snapshot but not on the server');
    expect(result.mismatches).toContain('task Added after the snapshot is on the server but not in the snapshot');
    expect(result.mismatches).toContain('folder /Distribution/Acme/Outbound: Group Acme Partners does not have the permissions of the snapshot');
    expect(result.mismatches).toContain('folder /Home/alice: User bob has an entry the snapshot does not');
    expect(result.mismatches.join('\n')).not.toMatch(/SEEDSECRET|NEWSECRET/);
  });
});
