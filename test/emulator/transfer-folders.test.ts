import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import type { Api } from './helpers.js';
import { XFER_ADMIN, login, transferBase, withEmulator } from './helpers.js';

let emu: RunningEmulator;
let api: Api;
const ALICE = { username: 'alice', password: 'alice-SEEDSECRET-11' };
const CAROL = { username: 'carol', password: 'carol-SEEDSECRET-13' };
beforeEach(async () => {
  emu = await withEmulator();
  api = await login(transferBase(emu), XFER_ADMIN);
});
afterEach(() => emu.close());

async function folderId(path: string, who: Api = api): Promise<number> {
  const r = await who.get(`/folders?path=${encodeURIComponent(path)}`);
  expect(r.body.items, path).toHaveLength(1);
  return r.body.items[0].id as number;
}
async function groupId(name: string): Promise<number> {
  return (await api.get('/groups')).body.items.find((g: { name: string }) => g.name === name).id;
}
async function userId(name: string): Promise<string> {
  return (await api.get(`/users?username=${name}&isExactMatch=true`)).body.items[0].id;
}
const entries = (r: { body: { items: { type: string; name: string }[] } }): string[] => r.body.items.map((e) => `${e.type}:${e.name}`);

describe('transfer folders and folder ACLs', () => {
  it('rule 82: GET /folders?path= matches one path exactly (case-insensitive); name takes * masks', async () => {
    const r = await api.get('/folders?path=/distribution/acme');
    expect(r.body.items.map((f: { path: string }) => f.path)).toEqual(['/Distribution/Acme']);
    expect((await api.get('/folders?path=/Nowhere')).body.items).toEqual([]);
    const masked = await api.get('/folders?name=*bound&sortField=path');
    expect(masked.body.items.map((f: { path: string }) => f.path)).toEqual([
      '/Distribution/Acme/Inbound',
      '/Distribution/Acme/Outbound',
      '/Distribution/Globex/Inbound',
      '/Distribution/Globex/Outbound',
      '/Distribution/Initech/Inbound',
      '/Distribution/Initech/Outbound',
    ]);
  });

  it('rule 83: GET /folders/{id} answers the FolderDetailsModel; /subfolders lists the children', async () => {
    const id = await folderId('/Distribution/Acme');
    const r = await api.get(`/folders/${id}`);
    expect(r.body).toMatchObject({
      id,
      name: 'Acme',
      path: '/Distribution/Acme',
      parentId: await folderId('/Distribution'),
      folderType: 'Normal',
      description: 'Acme Corp',
      isShared: false,
      permission: expect.objectContaining({ listFiles: true }),
    });
    const kids = await api.get(`/folders/${id}/subfolders`);
    expect(kids.body.items.map((f: { name: string }) => f.name)).toEqual(['Inbound', 'Outbound']);
  });

  it('rule 84: POST /folders/{parentId}/subfolders answers 201 with folder details; CopyOnly and Always copy the parent entries, None does not', async () => {
    const parent = await folderId('/Distribution/Acme/Outbound');
    const none = await api.call('POST', `/folders/${parent}/subfolders`, { name: 'Plain', inheritPermissions: 'None' });
    expect(none.status).toBe(201);
    expect(none.body).toMatchObject({ name: 'Plain', path: '/Distribution/Acme/Outbound/Plain', parentId: parent });
    expect((await api.get(`/folders/${none.body.id}/acls`)).body.items).toEqual([]);
    const parentEntries = entries(await api.get(`/folders/${parent}/acls`));
    for (const mode of ['CopyOnly', 'Always']) {
      const r = await api.call('POST', `/folders/${parent}/subfolders`, { name: mode, inheritPermissions: mode });
      expect(r.status).toBe(201);
      expect(r.body.parentInheritRights).toBe(mode === 'Always' ? 1 : 0);
      expect(entries(await api.get(`/folders/${r.body.id}/acls`))).toEqual(parentEntries);
    }
  });

  it('rule 85: creating a subfolder whose name exists answers 409; a bad inheritPermissions or name answers 422', async () => {
    const parent = await folderId('/Distribution/Acme');
    expect((await api.call('POST', `/folders/${parent}/subfolders`, { name: 'inbound', inheritPermissions: 'None' })).status).toBe(409);
    const bad = await api.call('POST', `/folders/${parent}/subfolders`, { name: 'New', inheritPermissions: 'Sometimes' });
    expect(bad.status).toBe(422);
    expect(bad.body.errors[0]).toMatchObject({ field: 'inheritPermissions', rejected: 'Sometimes' });
    expect((await api.call('POST', `/folders/${parent}/subfolders`, { name: 'a/b' })).status).toBe(422);
  });

  it('rule 86: GET /folders/{id}/acls pages entries {type, id, name, permissions{…, sharePermissions}, isEditable, isDeletable}', async () => {
    const id = await folderId('/Distribution/Acme/Outbound');
    const r = await api.get(`/folders/${id}/acls`);
    // automation-svc: the example xfer host's account (examples/seed), with the rights its steps need.
    expect(entries(r)).toEqual(['Group:Acme Partners', 'User:alice', 'User:automation-svc']);
    expect(r.body.items[1]).toEqual({
      type: 'User',
      id: await userId('alice'),
      name: 'alice',
      permissions: {
        readFiles: true,
        writeFiles: true,
        deleteFiles: true,
        listFiles: true,
        notify: false,
        addDeleteSubfolders: false,
        share: false,
        admin: false,
        listUsers: false,
        sharePermissions: { readFiles: true, writeFiles: false, deleteFiles: false, listFiles: false, notify: false, listUsers: false },
      },
      isEditable: true,
      isDeletable: true,
    });
    expect(r.body.paging.totalItems).toBe(3);
  });

  it('rule 87: POST /folders/{id}/acls sets one entry (missing permissions are false) and answers the whole list', async () => {
    const id = await folderId('/Distribution/Globex/Outbound');
    const bob = await userId('bob');
    const r = await api.call('POST', `/folders/${id}/acls`, { type: 'User', id: bob, permissions: { listFiles: true, readFiles: true } });
    expect(r.status).toBe(200);
    expect(entries(r)).toEqual(['User:automation-svc', 'User:bob', 'Group:Globex Partners']);
    const entry = r.body.items.find((e: { name: string }) => e.name === 'bob');
    expect(entry.permissions).toMatchObject({ listFiles: true, readFiles: true, writeFiles: false, admin: false, sharePermissions: { readFiles: false } });
    expect((await api.call('POST', `/folders/${id}/acls`, { type: 'User', id: bob, permissions: { listFiles: true, colour: true } })).status).toBe(422);
  });

  it('rule 88: PUT /folders/{id}/acls creates or updates one entry and answers the whole list', async () => {
    const id = await folderId('/Finance');
    const team = await groupId('Finance Team');
    const upd = await api.call('PUT', `/folders/${id}/acls`, { type: 'Group', id: team, permissions: { listFiles: true } });
    expect(upd.status).toBe(200);
    expect(upd.body.items).toEqual([
      expect.objectContaining({
        type: 'Group',
        id: String(team),
        permissions: expect.objectContaining({ listFiles: true, readFiles: false, writeFiles: false }),
      }),
    ]);
    const created = await api.call('PUT', `/folders/${id}/acls`, {
      type: 'Group',
      id: String(await groupId('Acme Partners')),
      permissions: { listFiles: true },
    });
    expect(entries(created)).toEqual(['Group:Acme Partners', 'Group:Finance Team']);
  });

  it('rule 89: DELETE /folders/{id}/acls with a JSON body {type, id} removes the entry (204)', async () => {
    const id = await folderId('/Distribution/Acme/Inbound');
    const alice = await userId('alice');
    const r = await api.call('DELETE', `/folders/${id}/acls`, { type: 'User', id: alice });
    expect(r.status).toBe(204);
    expect(entries(await api.get(`/folders/${id}/acls`))).toEqual(['Group:Acme Partners', 'User:automation-svc']);
    expect((await api.call('DELETE', `/folders/${id}/acls`, { type: 'User', id: alice })).status).toBe(404);
  });

  it('rule 90: an unknown user or group id in an ACL body answers 422', async () => {
    const id = await folderId('/Finance');
    for (const body of [
      { type: 'User', id: 'nobody', permissions: {} },
      { type: 'Group', id: 99999, permissions: {} },
      { type: 'Robot', id: 'x' },
    ]) {
      const r = await api.call('PUT', `/folders/${id}/acls`, body);
      expect(r.status, JSON.stringify(body)).toBe(422);
      expect(r.body.errors[0].field).toMatch(/^(id|type)$/);
    }
    expect((await api.call('DELETE', `/folders/${id}/acls`, { type: 'User', id: 'nobody' })).status).toBe(422);
  });

  it('rule 91: the home-folder owner entry (isEditable false) cannot be changed or removed (403)', async () => {
    const id = await folderId('/Home/alice');
    const acl = await api.get(`/folders/${id}/acls`);
    const owner = acl.body.items[0];
    expect(owner).toMatchObject({ type: 'User', name: 'alice', isEditable: false, isDeletable: false });
    expect((await api.call('PUT', `/folders/${id}/acls`, { type: 'User', id: owner.id, permissions: { listFiles: true } })).status).toBe(403);
    expect((await api.call('POST', `/folders/${id}/acls`, { type: 'User', id: owner.id, permissions: {} })).status).toBe(403);
    expect((await api.call('DELETE', `/folders/${id}/acls`, { type: 'User', id: owner.id })).status).toBe(403);
    expect((await api.get(`/folders/${id}/acls`)).body.items).toEqual(acl.body.items);
  });

  it('rule 92: a missing folder, or one the caller may not see, answers 403; non-admins see only folders where they have listFiles', async () => {
    expect((await api.get('/folders/424242')).status).toBe(403);
    expect((await api.get('/folders/424242/acls')).status).toBe(403);
    expect((await api.call('POST', '/folders/424242/subfolders', { name: 'x' })).status).toBe(403);
    const carol = await login(transferBase(emu), CAROL);
    const visible = await carol.get('/folders?perPage=100');
    expect(visible.body.items.map((f: { path: string }) => f.path)).toEqual(['/Finance', '/Finance/Payroll']);
    const acme = await folderId('/Distribution/Acme/Outbound');
    const denied = await carol.get(`/folders/${acme}`);
    expect(denied.status).toBe(403);
    expect(denied.body).toMatchObject({ title: 'Forbidden', errorCode: 403 });
  });

  it('rule 93: only folder admins (FileAdmin, Admin, SysAdmin) or users with admin on the folder change its ACL; subfolders need addDeleteSubfolders', async () => {
    const carol = await login(transferBase(emu), CAROL);
    const alice = await login(transferBase(emu), ALICE);
    const payroll = await folderId('/Finance/Payroll', carol);
    const finance = await folderId('/Finance', carol);
    const bob = await userId('bob');
    expect((await carol.call('PUT', `/folders/${payroll}/acls`, { type: 'User', id: bob, permissions: { listFiles: true } })).status).toBe(200);
    expect((await carol.call('PUT', `/folders/${finance}/acls`, { type: 'User', id: bob, permissions: { listFiles: true } })).status).toBe(403);
    expect((await alice.call('POST', `/folders/${finance}/subfolders`, { name: 'Reports', inheritPermissions: 'CopyOnly' })).status).toBe(201);
    expect((await alice.call('POST', `/folders/${await folderId('/Distribution/Acme/Outbound', alice)}/subfolders`, { name: 'X' })).status).toBe(403);
  });
  it('rule 103: PATCH /folders/{id} {name} renames in place (descendants follow); 409 for a sibling name, 422 for a bad body, 403 without admin or for the root', async () => {
    const id = await folderId('/Distribution/Acme/Inbound');
    const acl = (await api.get(`/folders/${id}/acls`)).body.items;
    const r = await api.call('PATCH', `/folders/${id}`, { name: 'Incoming' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      id,
      name: 'Incoming',
      path: '/Distribution/Acme/Incoming',
      parentId: await folderId('/Distribution/Acme'),
      permission: expect.objectContaining({ admin: true }),
    });
    expect((await api.get('/folders?path=/Distribution/Acme/Inbound')).body.items).toEqual([]);
    expect(await folderId('/Distribution/Acme/Incoming')).toBe(id);
    expect((await api.get(`/folders/${id}/acls`)).body.items).toEqual(acl);
    // A folder below follows, with its id.
    const child = await api.call('POST', `/folders/${id}/subfolders`, { name: 'Archive' });
    expect((await api.call('PATCH', `/folders/${id}`, { name: 'In' })).status).toBe(200);
    expect((await api.get(`/folders/${child.body.id}`)).body.path).toBe('/Distribution/Acme/In/Archive');
    // Case-only rename of the folder itself: allowed; onto a sibling (any case): 409.
    expect((await api.call('PATCH', `/folders/${id}`, { name: 'IN' })).body.path).toBe('/Distribution/Acme/IN');
    expect((await api.call('PATCH', `/folders/${id}`, { name: 'outbound' })).status).toBe(409);
    for (const bad of [{ name: '' }, { name: 'a/b' }, { name: 'a\\b' }, { name: 'X', description: 'd' }, {}, ['X']]) {
      const refused = await api.call('PATCH', `/folders/${id}`, bad);
      expect(refused.status, JSON.stringify(bad)).toBe(422);
      expect(refused.body.errors.length).toBeGreaterThan(0);
    }
    expect((await api.get(`/folders/${id}`)).body.path).toBe('/Distribution/Acme/IN');
    // 403: a missing folder, one the caller cannot see, no admin on it, the root.
    expect((await api.call('PATCH', '/folders/424242', { name: 'X' })).status).toBe(403);
    const carol = await login(transferBase(emu), CAROL);
    const alice = await login(transferBase(emu), ALICE);
    expect((await carol.call('PATCH', `/folders/${id}`, { name: 'X' })).status).toBe(403);
    const payroll = await folderId('/Finance/Payroll', carol);
    expect((await carol.call('PATCH', `/folders/${payroll}`, { name: 'Salaries' })).body.path).toBe('/Finance/Salaries');
    expect((await alice.call('PATCH', `/folders/${await folderId('/Finance', alice)}`, { name: 'Money' })).status).toBe(403);
    const root = await folderId('/');
    expect((await api.call('PATCH', `/folders/${root}`, { name: 'Top' })).status).toBe(403);
    expect(await folderId('/')).toBe(root);
  });

  it('rule 82: a folder list read after a create or a rename in place answers the new order, in each sort and direction', async () => {
    // The emulator reuses its last sort of a list while nothing changed: each write must show.
    const byPages = async (query: string, who: Api = api): Promise<string[]> => {
      const out: string[] = [];
      for (let page = 1; ; page++) {
        const r = await who.get(`/folders?${query}&page=${page}&perPage=4`);
        if (r.status === 404 || r.body.items.length === 0) return out;
        out.push(...r.body.items.map((f: { path: string }) => f.path));
      }
    };
    const folderPaths = (): string[] => emu.state.transfer.folders.map((f) => f.path);
    const byPath = (a: string, b: string): number =>
      a.toLowerCase() < b.toLowerCase() ? -1 : a.toLowerCase() > b.toLowerCase() ? 1 : a < b ? -1 : a > b ? 1 : 0;
    const queries = ['sortField=path', 'sortField=path&sortDirection=desc', 'sortField=name'];
    const before = await Promise.all(queries.map((q) => byPages(q)));
    expect(before[0]).toEqual([...folderPaths()].sort(byPath));
    expect(before[1]).toEqual([...folderPaths()].sort(byPath).reverse());
    const acme = await folderId('/Distribution/Acme');
    const created = await api.call('POST', `/folders/${acme}/subfolders`, { name: 'Aardvark' });
    expect(created.status).toBe(201);
    expect(await byPages('sortField=path')).toEqual([...folderPaths()].sort(byPath));
    const byName = (): string[] => [...emu.state.transfer.folders].sort((a, b) => byPath(a.name, b.name)).map((f) => f.path);
    expect(await byPages('sortField=name')).toEqual(byName());
    expect((await byPages('sortField=name')).indexOf('/Distribution/Acme/Aardvark')).toBeLessThan(3);
    // PATCH renames the same folder object in place: its new name and path sort (read in the same sort just before).
    expect(await byPages('sortField=path')).toEqual([...folderPaths()].sort(byPath));
    expect((await api.call('PATCH', `/folders/${created.body.id}`, { name: 'Zebra' })).status).toBe(200);
    expect(await byPages('sortField=path')).toEqual([...folderPaths()].sort(byPath));
    expect(await byPages('sortField=path&sortDirection=desc')).toEqual([...folderPaths()].sort(byPath).reverse());
    expect(await byPages('sortField=name')).toEqual(byName());
    expect((await byPages('sortField=name')).at(-1)).toBe('/Distribution/Acme/Zebra');
    // A non-admin's pages keep the administrator's order of the folders they see.
    const carol = await login(transferBase(emu), CAROL);
    const seen = new Set(await byPages('sortField=path', carol));
    expect(seen.size).toBeGreaterThan(0);
    expect(seen.size).toBeLessThan(folderPaths().length);
    expect(await byPages('sortField=path', carol)).toEqual((await byPages('sortField=path')).filter((p) => seen.has(p)));
  });
});
