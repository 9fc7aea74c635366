import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { ApiError, type TransferClient } from '../../src/services/index.js';
import { startSeededEmulator, transferClientFor } from './helpers.js';

/** The transfer client against the emulator over real loopback HTTP, endpoint by endpoint. */
let emulator: RunningEmulator;
let client: TransferClient;

beforeAll(async () => {
  emulator = await startSeededEmulator();
  client = transferClientFor(emulator);
});
afterAll(async () => {
  await client.close();
  await emulator.close();
});

describe('transfer client ↔ emulator', () => {
  it('answers the unauthenticated running check', async () => {
    expect(typeof (await client.tokenCheck())).toBe('object');
  });

  it('reads the signed-in user, users and groups', async () => {
    const me = await client.currentUser();
    expect(me.username).toBe('admin');
    const users = await client.listUsers();
    expect(users.map((u) => u.username).sort()).toEqual(['acme-svc', 'admin', 'alice', 'automation-svc', 'bob', 'carol', 'globex-svc', 'initech-svc']);
    expect(typeof users[0]!.id).toBe('string');
    expect((await client.findUser('alice'))?.username).toBe('alice');
    expect(await client.findUser('nobody')).toBeNull();
    const groups = await client.listGroups();
    expect(groups.map((g) => g.name).sort()).toEqual(['Acme Partners', 'Finance Team', 'Globex Partners', 'Initech Partners']);
    expect((await client.findGroup('Acme Partners'))?.name).toBe('Acme Partners');
    expect(await client.findGroup('Nobody')).toBeNull();
  });

  it('finds folders by exact path, reads them and their subfolders', async () => {
    const acme = await client.findFolderByPath('/Distribution/Acme');
    expect(acme?.path).toBe('/Distribution/Acme');
    expect(typeof acme!.id).toBe('string');
    expect(await client.findFolderByPath('/Distribution/Nowhere')).toBeNull();
    expect((await client.getFolder(acme!.id)).name).toBe('Acme');
    const subs = await client.listSubfolders(acme!.id);
    expect(subs.map((f) => f.name).sort()).toEqual(['Inbound', 'Outbound']);
  });

  it('answers a missing folder as not found or not permitted (403), naming it', async () => {
    const err = await client.getFolder('999999').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(403);
    expect((err as Error).message).toMatch(/^transfer: GET \/transfer\/api\/v1\/folders\/999999: 403/);
  });

  it('creates a subfolder, then sets, adds, changes and deletes ACL entries', async () => {
    const acme = (await client.findFolderByPath('/Distribution/Acme'))!;
    const created = await client.createSubfolder(acme.id, { name: 'Archive', inheritPermissions: 'None' });
    expect(created.path).toBe('/Distribution/Acme/Archive');
    expect(await client.listFolderAcls(created.id)).toEqual([]);

    const group = (await client.findGroup('Acme Partners'))!;
    const bob = (await client.findUser('bob'))!;
    const afterPut = await client.setFolderAcl(created.id, {
      type: 'Group',
      id: String(group.id),
      permissions: { listFiles: true, readFiles: true, sharePermissions: { readFiles: true } },
    });
    expect(afterPut).toHaveLength(1);
    expect(afterPut[0]).toMatchObject({ type: 'Group', name: 'Acme Partners', permissions: { listFiles: true, readFiles: true, writeFiles: false } });
    expect(afterPut[0]!.permissions.sharePermissions).toMatchObject({ readFiles: true, writeFiles: false });

    const afterPost = await client.addFolderAcl(created.id, { type: 'User', id: bob.id, permissions: { listFiles: true } });
    expect(afterPost.map((e) => e.name).sort()).toEqual(['Acme Partners', 'bob']);

    // PUT on an existing entry changes it; missing permissions count as false.
    const changed = await client.setFolderAcl(created.id, { type: 'User', id: bob.id, permissions: { writeFiles: true } });
    expect(changed.find((e) => e.name === 'bob')?.permissions).toMatchObject({ writeFiles: true, listFiles: false });

    await client.deleteFolderAcl(created.id, { type: 'User', id: bob.id });
    expect((await client.listFolderAcls(created.id)).map((e) => e.name)).toEqual(['Acme Partners']);
  });

  it('copies the parent entries when a subfolder inherits them', async () => {
    const acme = (await client.findFolderByPath('/Distribution/Acme/Inbound'))!;
    const parentEntries = await client.listFolderAcls(acme.id);
    const child = await client.createSubfolder(acme.id, { name: 'Copied', inheritPermissions: 'CopyOnly' });
    const entries = await client.listFolderAcls(child.id);
    expect(entries.map((e) => `${e.type}:${e.name}`).sort()).toEqual(parentEntries.map((e) => `${e.type}:${e.name}`).sort());
  });

  it('refuses to change the home-folder owner entry, with a clear 403', async () => {
    const home = (await client.findFolderByPath('/Home/alice'))!;
    const entries = await client.listFolderAcls(home.id);
    const owner = entries.find((e) => e.isEditable === false)!;
    expect(owner.name).toBe('alice');
    const err = await client.setFolderAcl(home.id, { type: 'User', id: owner.id, permissions: { listFiles: true } }).catch((e: unknown) => e);
    expect((err as ApiError).status).toBe(403);
    const del = await client.deleteFolderAcl(home.id, { type: 'User', id: owner.id }).catch((e: unknown) => e);
    expect((del as ApiError).status).toBe(403);
    expect(await client.listFolderAcls(home.id)).toEqual(entries);
  });

  it('rejects an entry for an unknown user id with 422', async () => {
    const acme = (await client.findFolderByPath('/Distribution/Acme'))!;
    const err = await client.setFolderAcl(acme.id, { type: 'User', id: 'no-such-user', permissions: { listFiles: true } }).catch((e: unknown) => e);
    expect((err as ApiError).status).toBe(422);
  });
});
