import { describe, expect, it } from 'vitest';
import { TRANSFER_READ_METHODS } from '../../src/services/transfer/client.js';
import type { TransferClient } from '../../src/services/transfer/client.js';
import { toReadonly } from '../../src/services/index.js';
import { JSON_HEADERS, TRANSFER, createMock, replyDirectory, replyToken, transferClient } from './helpers.js';

const page = (items: unknown[]) => ({ items, paging: { page: 1, perPage: 1000, totalItems: items.length, totalPages: 1 } });

describe('folders', () => {
  it('exposes numeric and string folder ids as strings', async () => {
    const { agent, pool } = createMock();
    const t = pool(TRANSFER);
    replyToken(t, { access: 'tok' });
    t.intercept({ path: '/api/v1/folders/101' }).reply(200, { id: 101, parentId: 0, name: 'Acme', path: '/Distribution/Acme' }, { headers: JSON_HEADERS });
    t.intercept({ path: '/api/v1/folders/101/subfolders', query: { page: 1, perPage: 1000 } }).reply(
      200,
      page([{ id: '205', parentId: '101', name: 'Outbound', path: '/Distribution/Acme/Outbound' }]),
      { headers: JSON_HEADERS },
    );
    const client = transferClient(agent);
    await expect(client.getFolder(101)).resolves.toMatchObject({ id: '101', parentId: '0' });
    await expect(client.listSubfolders('101')).resolves.toMatchObject([{ id: '205', parentId: '101' }]);
  });

  it('finds a folder whatever the case and trailing slash the server answers with, and a server that ignores the filter (T-6, T-7)', async () => {
    const { agent, pool } = createMock();
    const t = pool(TRANSFER);
    replyToken(t, { access: 'tok' });
    t.intercept({ path: '/api/v1/folders', query: { path: '/Distribution/Acme/Inbound', page: 1, perPage: 1000 } }).reply(
      200,
      page([
        { id: 7, name: 'Acme', path: '/distribution/acme/' },
        { id: 9, name: 'INBOUND', path: '/distribution/acme/INBOUND/' },
      ]),
      { headers: JSON_HEADERS },
    );
    await expect(transferClient(agent).findFolderByPath('/Distribution/Acme/Inbound')).resolves.toMatchObject({ id: '9', path: '/distribution/acme/INBOUND' });
  });

  it('finds a created subfolder under its parent when the create answers without it (T-8)', async () => {
    const { agent, pool } = createMock();
    const t = pool(TRANSFER);
    replyToken(t, { access: 'tok' });
    t.intercept({ path: '/api/v1/folders/101/subfolders', method: 'POST' }).reply(201, '');
    t.intercept({ path: '/api/v1/folders/101/subfolders', query: { page: 1, perPage: 1000 } }).reply(
      200,
      page([{ id: 300, parentId: 101, name: 'Inbound', path: '/Distribution/Acme/Inbound' }]),
      {
        headers: JSON_HEADERS,
      },
    );
    await expect(transferClient(agent).createSubfolder(101, { name: 'Inbound', inheritPermissions: 'None' })).resolves.toMatchObject({ id: '300' });
  });

  it('finds a folder by exact path among what the path query returns', async () => {
    const { agent, pool, calls } = createMock();
    const t = pool(TRANSFER);
    replyToken(t, { access: 'tok' });
    t.intercept({ path: '/api/v1/folders', query: { path: '/Distribution/Acme', page: 1, perPage: 1000 } }).reply(
      200,
      page([
        { id: 7, name: 'Acme Archive', path: '/Distribution/Acme Archive' },
        { id: 8, name: 'Acme', path: '/Distribution/Acme' },
      ]),
      { headers: JSON_HEADERS },
    );
    await expect(transferClient(agent).findFolderByPath('/Distribution/Acme')).resolves.toMatchObject({ id: '8' });
    expect(calls().at(-1)?.query).toEqual({ path: '/Distribution/Acme', page: '1', perPage: '1000' });
  });

  it('answers null for a folder that is absent or forbidden', async () => {
    const { agent, pool } = createMock();
    const t = pool(TRANSFER);
    replyToken(t, { access: 'tok' });
    t.intercept({ path: '/api/v1/folders', query: { path: '/Nope', page: 1, perPage: 1000 } }).reply(
      200,
      page([{ id: 1, name: 'Nopeish', path: '/Nopeish' }]),
      {
        headers: JSON_HEADERS,
      },
    );
    t.intercept({ path: '/api/v1/folders', query: { path: '/Secret', page: 1, perPage: 1000 } }).reply(
      403,
      { title: 'Forbidden', detail: 'no' },
      { headers: JSON_HEADERS },
    );
    const client = transferClient(agent);
    await expect(client.findFolderByPath('/Nope')).resolves.toBeNull();
    await expect(client.findFolderByPath('/Secret')).resolves.toBeNull();
  });

  it('creates a subfolder with its inheritance mode', async () => {
    const { agent, pool, calls } = createMock();
    const t = pool(TRANSFER);
    replyToken(t, { access: 'tok' });
    t.intercept({ path: '/api/v1/folders/101/subfolders', method: 'POST' }).reply(
      201,
      { id: 300, parentId: 101, name: 'Inbound', path: '/Distribution/Acme/Inbound' },
      { headers: JSON_HEADERS },
    );
    await expect(transferClient(agent).createSubfolder(101, { name: 'Inbound', inheritPermissions: 'None' })).resolves.toMatchObject({ id: '300' });
    expect(JSON.parse(calls().at(-1)?.body ?? '')).toEqual({ name: 'Inbound', inheritPermissions: 'None' });
  });
  it('renames a folder with PATCH {name} and answers the folder; an answer without a body is read back', async () => {
    const { agent, pool, calls } = createMock();
    const t = pool(TRANSFER);
    replyToken(t, { access: 'tok' });
    t.intercept({ path: '/api/v1/folders/300', method: 'PATCH' }).reply(
      200,
      { id: 300, parentId: 101, name: 'Incoming', path: '/Distribution/Acme/Incoming' },
      { headers: JSON_HEADERS },
    );
    t.intercept({ path: '/api/v1/folders/301', method: 'PATCH' }).reply(204, '');
    t.intercept({ path: '/api/v1/folders/301' }).reply(
      200,
      { id: 301, parentId: 101, name: 'Sent', path: '/Distribution/Acme/Sent' },
      { headers: JSON_HEADERS },
    );
    const client = transferClient(agent);
    await expect(client.renameFolder(300, 'Incoming')).resolves.toMatchObject({ id: '300', parentId: '101', path: '/Distribution/Acme/Incoming' });
    const patch = calls().find((c) => c.method === 'PATCH');
    expect(patch?.headers['content-type']).toBe('application/json');
    expect(JSON.parse(patch?.body ?? '')).toEqual({ name: 'Incoming' });
    await expect(client.renameFolder('301', 'Sent')).resolves.toMatchObject({ id: '301', path: '/Distribution/Acme/Sent' });
    expect(
      calls()
        .slice(-2)
        .map((c) => `${c.method} ${c.path}`),
    ).toEqual(['PATCH /api/v1/folders/301', 'GET /api/v1/folders/301']);
  });
});

describe('folder ACLs', () => {
  const entry = {
    type: 'Group',
    id: 12,
    name: 'Acme Partners',
    permissions: { readFiles: true, listFiles: true, writeFiles: false, sharePermissions: { readFiles: true, listFiles: false } },
  };

  const NO_PERMISSIONS = {
    readFiles: false,
    writeFiles: false,
    deleteFiles: false,
    listFiles: false,
    notify: false,
    addDeleteSubfolders: false,
    share: false,
    admin: false,
    listUsers: false,
    sharePermissions: { readFiles: false, writeFiles: false, deleteFiles: false, listFiles: false, notify: false, listUsers: false },
  };

  it('sets an entry with PUT and returns the whole list, ids as strings, every permission a boolean, names by id', async () => {
    const { agent, pool, calls } = createMock();
    const t = pool(TRANSFER);
    replyToken(t, { access: 'tok' });
    t.intercept({ path: '/api/v1/folders/205/acls', method: 'PUT' }).reply(
      200,
      page([entry, { type: 'User', id: '9', name: 'alice', permissions: { readFiles: 1 }, isEditable: false }]),
      {
        headers: JSON_HEADERS,
      },
    );
    replyDirectory(t, [{ id: '9', username: 'alice', fullName: 'Alice Archer' }], [{ id: 12, name: 'Acme Partners' }]);
    const list = await transferClient(agent).setFolderAcl(205, { type: 'Group', id: '12', permissions: { readFiles: true, listFiles: true } });
    expect(list).toEqual([
      {
        type: 'Group',
        id: '12',
        name: 'Acme Partners',
        serverName: 'Acme Partners',
        permissions: { ...NO_PERMISSIONS, readFiles: true, listFiles: true, sharePermissions: { ...NO_PERMISSIONS.sharePermissions, readFiles: true } },
        isEditable: true,
        isDeletable: true,
      },
      { type: 'User', id: '9', name: 'alice', serverName: 'alice', permissions: { ...NO_PERMISSIONS, readFiles: true }, isEditable: false, isDeletable: true },
    ]);
    expect(JSON.parse(calls().find((c) => c.method === 'PUT')?.body ?? '')).toEqual({
      type: 'Group',
      id: '12',
      permissions: { readFiles: true, listFiles: true },
    });
  });

  it('adds an entry with POST, accepting a bare array in answer', async () => {
    const { agent, pool } = createMock();
    const t = pool(TRANSFER);
    replyToken(t, { access: 'tok' });
    t.intercept({ path: '/api/v1/folders/205/acls', method: 'POST' }).reply(200, [entry], { headers: JSON_HEADERS });
    replyDirectory(t, [], [{ id: 12, name: 'Acme Partners' }]);
    await expect(transferClient(agent).addFolderAcl('205', { type: 'Group', id: '12', permissions: {} })).resolves.toMatchObject([
      { id: '12', name: 'Acme Partners' },
    ]);
  });

  it('reads the list back when a write answers with the one entry or nothing (T-9)', async () => {
    const { agent, pool } = createMock();
    const t = pool(TRANSFER);
    replyToken(t, { access: 'tok' });
    t.intercept({ path: '/api/v1/folders/205/acls', method: 'PUT' }).reply(200, entry, { headers: JSON_HEADERS });
    t.intercept({ path: '/api/v1/folders/205/acls', method: 'POST' }).reply(200, '');
    t.intercept({ path: '/api/v1/folders/205/acls', query: { page: 1, perPage: 1000 } })
      .reply(200, page([entry]), { headers: JSON_HEADERS })
      .times(2);
    replyDirectory(t, [], [{ id: 12, name: 'Acme Partners' }]);
    const client = transferClient(agent);
    await expect(client.setFolderAcl(205, { type: 'Group', id: '12', permissions: {} })).resolves.toMatchObject([{ id: '12', name: 'Acme Partners' }]);
    await expect(client.addFolderAcl(205, { type: 'Group', id: '12', permissions: {} })).resolves.toMatchObject([{ id: '12' }]);
  });

  it("names a user entry by username through the user list, never by the server's name (a full name here: T-2)", async () => {
    const { agent, pool, calls } = createMock();
    const t = pool(TRANSFER);
    replyToken(t, { access: 'tok' });
    const entries = [
      { type: 'user', id: 9, name: 'Acme Upload Service', permissions: { readFiles: 1, listFiles: '1', writeFiles: 0 } },
      { type: 'group', id: '12', permissions: { listFiles: true } },
      { type: 'Email', id: 'x@example.com', name: 'x@example.com', permissions: {} },
    ];
    t.intercept({ path: '/api/v1/folders/205/acls', query: { page: 1, perPage: 1000 } })
      .reply(200, page(entries), { headers: JSON_HEADERS })
      .times(2);
    replyDirectory(t, [{ id: '9', username: 'acme_upload', realname: 'Acme Upload Service' }], [{ id: 12, name: 'Acme Partners' }]);
    const client = transferClient(agent);
    const acl = await client.listFolderAcls(205);
    expect(acl.map((e) => [e.type, e.id, e.name])).toEqual([
      ['User', '9', 'acme_upload'],
      ['Group', '12', 'Acme Partners'],
      ['Email', 'x@example.com', undefined],
    ]);
    expect(acl[0]).toMatchObject({
      serverName: 'Acme Upload Service',
      permissions: { readFiles: true, listFiles: true, writeFiles: false, admin: false },
      isEditable: true,
      isDeletable: true,
    });
    // The lists are read once per client, however many folders are read.
    await client.listFolderAcls(205);
    expect(calls().filter((c) => c.path === '/api/v1/users' || c.path === '/api/v1/groups')).toHaveLength(2);
  });

  it('names an entry by a user listed again after a change, not by the names of the list read before', async () => {
    const { agent, pool } = createMock();
    const t = pool(TRANSFER);
    replyToken(t, { access: 'tok' });
    t.intercept({ path: '/api/v1/folders/205/acls', query: { page: 1, perPage: 1000 } })
      .reply(200, page([{ type: 'User', id: '9', permissions: {} }]), { headers: JSON_HEADERS })
      .times(2);
    replyDirectory(t, [], []);
    const client = transferClient(agent);
    const [before] = await client.listFolderAcls(205);
    expect(before?.name).toBeUndefined();
    replyDirectory(t, [{ id: '9', username: 'acme_upload' }], []);
    await client.listUsers({ fresh: true });
    const [after] = await client.listFolderAcls(205);
    expect(after?.name).toBe('acme_upload');
  });

  it('leaves an entry unnamed when the account may not read the user list (403)', async () => {
    const { agent, pool } = createMock();
    const t = pool(TRANSFER);
    replyToken(t, { access: 'tok' });
    t.intercept({ path: '/api/v1/folders/205/acls', query: { page: 1, perPage: 1000 } }).reply(
      200,
      page([{ type: 'User', id: '9', name: 'Bob Tanaka', permissions: {} }]),
      { headers: JSON_HEADERS },
    );
    replyDirectory(t, [], [], { users: 403 });
    const [e] = await transferClient(agent).listFolderAcls(205);
    expect(e).toMatchObject({ type: 'User', id: '9', serverName: 'Bob Tanaka' });
    expect(e?.name).toBeUndefined();
  });

  it('deletes an entry with DELETE and a JSON body on the collection URL', async () => {
    const { agent, pool, calls } = createMock();
    const t = pool(TRANSFER);
    replyToken(t, { access: 'tok' });
    t.intercept({ path: '/api/v1/folders/205/acls', method: 'DELETE', body: JSON.stringify({ type: 'User', id: '9' }) }).reply(204, '');
    await transferClient(agent).deleteFolderAcl(205, { type: 'User', id: '9' });
    const del = calls().at(-1);
    expect(del?.method).toBe('DELETE');
    expect(del?.path).toBe('/api/v1/folders/205/acls');
    expect(del?.headers['content-type']).toBe('application/json');
  });
});

describe('users and groups', () => {
  it('finds a user by exact username, null when absent', async () => {
    const { agent, pool, calls } = createMock();
    const t = pool(TRANSFER);
    replyToken(t, { access: 'tok' });
    t.intercept({
      path: '/api/v1/users',
      query: { permission: 'AllUsers', status: 'AllUsers', username: 'alice', isExactMatch: true, page: 1, perPage: 1000 },
    }).reply(
      200,
      { items: [{ id: 'u1', username: 'alice', fullName: 'Alice' }], currentPage: 1, totalItems: 1, itemsPerPage: 1000 },
      { headers: JSON_HEADERS },
    );
    t.intercept({
      path: '/api/v1/users',
      query: { permission: 'AllUsers', status: 'AllUsers', username: 'bob', isExactMatch: true, page: 1, perPage: 1000 },
    }).reply(200, page([]), {
      headers: JSON_HEADERS,
    });
    const client = transferClient(agent);
    await expect(client.findUser('alice')).resolves.toMatchObject({ id: 'u1', fullName: 'Alice' });
    await expect(client.findUser('bob')).resolves.toBeNull();
    expect(calls()[1]?.query).toMatchObject({ username: 'alice', isExactMatch: 'true' });
  });

  it('finds a group by name with numeric ids turned into strings', async () => {
    const { agent, pool } = createMock();
    const t = pool(TRANSFER);
    replyToken(t, { access: 'tok' });
    t.intercept({ path: '/api/v1/groups', query: { page: 1, perPage: 1000 } })
      .reply(
        200,
        page([
          { id: 4, name: 'Acme Partners', membersCount: 3 },
          { id: 5, name: 'Ops' },
        ]),
        { headers: JSON_HEADERS },
      )
      .times(2);
    const client = transferClient(agent);
    await expect(client.findGroup('Acme Partners')).resolves.toEqual({ id: '4', name: 'Acme Partners', membersCount: 3 });
    await expect(client.findGroup('Nobody')).resolves.toBeNull();
  });

  it('reads group members from a groups field of names on user records, and from member items that carry only userId (T-16)', async () => {
    const { agent, pool } = createMock();
    const t = pool(TRANSFER);
    replyToken(t, { access: 'tok' });
    const groups = page([
      { id: 4, name: 'Acme Partners', membersCount: '2' },
      { id: 5, name: 'Ops' },
    ]);
    t.intercept({ path: '/api/v1/groups', query: { page: 1, perPage: 1000 } }).reply(200, groups, { headers: JSON_HEADERS });
    t.intercept({ path: '/api/v1/users', query: { permission: 'AllUsers', status: 'AllUsers', page: 1, perPage: 1000 } }).reply(
      200,
      page([
        { id: 'u1', username: 'bob', groups: ['acme partners', { id: 5 }] },
        { id: 'u2', username: 'carol', groups: 'Ops' },
        { id: 'u3', username: 'dan', groups: [] },
      ]),
      { headers: JSON_HEADERS },
    );
    const fromRecords = await transferClient(agent).listGroupMembers(['4']);
    expect(fromRecords.form).toBe('userField');
    expect(Object.fromEntries(fromRecords.members)).toEqual({ '4': ['u1'], '5': ['u1', 'u2'] });

    const second = createMock();
    const t2 = second.pool(TRANSFER);
    replyToken(t2, { access: 'tok' });
    t2.intercept({ path: '/api/v1/groups', query: { page: 1, perPage: 1000 } }).reply(200, groups, { headers: JSON_HEADERS });
    t2.intercept({ path: '/api/v1/users', query: { permission: 'AllUsers', status: 'AllUsers', page: 1, perPage: 1000 } }).reply(
      200,
      page([
        { id: 7, username: 'bob' },
        { id: 8, username: 'carol' },
      ]),
      { headers: JSON_HEADERS },
    );
    t2.intercept({ path: '/api/v1/groups/4/members', query: { page: 1, perPage: 1000 } }).reply(200, [{ userId: 8 }, 'bob', { username: 'nobody' }], {
      headers: JSON_HEADERS,
    });
    const fromMembers = await transferClient(second.agent).listGroupMembers(['4']);
    expect(fromMembers.form).toBe('members');
    expect(fromMembers.members.get('4')).toEqual(['8', '7']);
  });

  it('does not take a users list that ignores groupId for the members, and never fails when no form answers (T-16)', async () => {
    const { agent, pool } = createMock();
    const t = pool(TRANSFER);
    replyToken(t, { access: 'tok' });
    const everyone = page([
      { id: 'u1', username: 'bob' },
      { id: 'u2', username: 'carol' },
    ]);
    t.intercept({ path: '/api/v1/groups', query: { page: 1, perPage: 1000 } }).reply(200, page([{ id: 4, name: 'Acme Partners' }]), { headers: JSON_HEADERS });
    t.intercept({ path: '/api/v1/users', query: { permission: 'AllUsers', status: 'AllUsers', page: 1, perPage: 1000 } }).reply(200, everyone, {
      headers: JSON_HEADERS,
    });
    t.intercept({ path: '/api/v1/groups/4/members', query: { page: 1, perPage: 1000 } }).reply(405, { title: 'Method Not Allowed' }, { headers: JSON_HEADERS });
    t.intercept({ path: '/api/v1/users', query: { permission: 'AllUsers', status: 'AllUsers', groupId: '4', page: 1, perPage: 1000 } }).reply(200, everyone, {
      headers: JSON_HEADERS,
    });
    const membership = await transferClient(agent).listGroupMembers(['4']);
    expect(membership.form).toBe('none');
    expect(membership.members.size).toBe(0);
  });

  it('checks the API with GET /token without a bearer', async () => {
    const { agent, pool, calls } = createMock();
    const t = pool(TRANSFER);
    t.intercept({ path: '/api/v1/token' }).reply(200, { status: 'running' }, { headers: JSON_HEADERS });
    await expect(transferClient(agent).tokenCheck()).resolves.toEqual({ status: 'running' });
    expect(calls()[0]?.headers.authorization).toBeUndefined();
  });
});

describe('read-only client', () => {
  it('has no write methods at runtime', () => {
    const { agent } = createMock();
    const view = toReadonly(transferClient(agent)) as unknown as Record<string, unknown>;
    const writes = [
      'createSubfolder',
      'renameFolder',
      'setFolderAcl',
      'addFolderAcl',
      'deleteFolderAcl',
      'close',
    ] as const satisfies readonly (keyof TransferClient)[];
    for (const name of writes) expect(name in view).toBe(false);
    expect(Object.keys(view).sort()).toEqual([...TRANSFER_READ_METHODS, 'service', 'requestCount', 'tokenRequestCount'].sort());
  });
});
