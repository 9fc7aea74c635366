import { describe, expect, it } from 'vitest';
import { TRANSFER_READ_METHODS } from '../../src/services/transfer/client.js';
import type { TransferClient } from '../../src/services/transfer/client.js';
import { toReadonly } from '../../src/services/index.js';
import { JSON_HEADERS, TRANSFER, createMock, replyToken, transferClient } from './helpers.js';

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
    t.intercept({ path: '/api/v1/folders', query: { path: '/Nope', page: 1, perPage: 1000 } }).reply(200, page([{ id: 1, name: 'Nopeish', path: '/Nopeish' }]), {
      headers: JSON_HEADERS,
    });
    t.intercept({ path: '/api/v1/folders', query: { path: '/Secret', page: 1, perPage: 1000 } }).reply(403, { title: 'Forbidden', detail: 'no' }, { headers: JSON_HEADERS });
    const client = transferClient(agent);
    await expect(client.findFolderByPath('/Nope')).resolves.toBeNull();
    await expect(client.findFolderByPath('/Secret')).resolves.toBeNull();
  });

  it('creates a subfolder with its inheritance mode', async () => {
    const { agent, pool, calls } = createMock();
    const t = pool(TRANSFER);
    replyToken(t, { access: 'tok' });
    t.intercept({ path: '/api/v1/folders/101/subfolders', method: 'POST' }).reply(201, { id: 300, parentId: 101, name: 'Inbound', path: '/Distribution/Acme/Inbound' }, { headers: JSON_HEADERS });
    await expect(transferClient(agent).createSubfolder(101, { name: 'Inbound', inheritPermissions: 'None' })).resolves.toMatchObject({ id: '300' });
    expect(JSON.parse(calls().at(-1)?.body ?? '')).toEqual({ name: 'Inbound', inheritPermissions: 'None' });
  });
  it('renames a folder with PATCH {name} and answers the folder; an answer without a body is read back', async () => {
    const { agent, pool, calls } = createMock();
    const t = pool(TRANSFER);
    replyToken(t, { access: 'tok' });
    t.intercept({ path: '/api/v1/folders/300', method: 'PATCH' }).reply(200, { id: 300, parentId: 101, name: 'Incoming', path: '/Distribution/Acme/Incoming' }, { headers: JSON_HEADERS });
    t.intercept({ path: '/api/v1/folders/301', method: 'PATCH' }).reply(204, '');
    t.intercept({ path: '/api/v1/folders/301' }).reply(200, { id: 301, parentId: 101, name: 'Sent', path: '/Distribution/Acme/Sent' }, { headers: JSON_HEADERS });
    const client = transferClient(agent);
    await expect(client.renameFolder(300, 'Incoming')).resolves.toMatchObject({ id: '300', parentId: '101', path: '/Distribution/Acme/Incoming' });
    const patch = calls().find((c) => c.method === 'PATCH');
    expect(patch?.headers['content-type']).toBe('application/json');
    expect(JSON.parse(patch?.body ?? '')).toEqual({ name: 'Incoming' });
    await expect(client.renameFolder('301', 'Sent')).resolves.toMatchObject({ id: '301', path: '/Distribution/Acme/Sent' });
    expect(calls().slice(-2).map((c) => `${c.method} ${c.path}`)).toEqual(['PATCH /api/v1/folders/301', 'GET /api/v1/folders/301']);
  });
});

describe('folder ACLs', () => {
  const entry = {
    type: 'Group',
    id: 12,
    name: 'Acme Partners',
    permissions: { readFiles: true, listFiles: true, writeFiles: false, sharePermissions: { readFiles: true, listFiles: false } },
  };

  it('sets an entry with PUT and returns the whole list, ids as strings and share permissions nested', async () => {
    const { agent, pool, calls } = createMock();
    const t = pool(TRANSFER);
    replyToken(t, { access: 'tok' });
    t.intercept({ path: '/api/v1/folders/205/acls', method: 'PUT' }).reply(200, page([entry, { type: 'User', id: '9', name: 'alice', permissions: { readFiles: 1 }, isEditable: false }]), {
      headers: JSON_HEADERS,
    });
    const list = await transferClient(agent).setFolderAcl(205, { type: 'Group', id: '12', permissions: { readFiles: true, listFiles: true } });
    expect(list).toEqual([
      { ...entry, id: '12' },
      { type: 'User', id: '9', name: 'alice', permissions: { readFiles: true }, isEditable: false },
    ]);
    expect(JSON.parse(calls().at(-1)?.body ?? '')).toEqual({ type: 'Group', id: '12', permissions: { readFiles: true, listFiles: true } });
  });

  it('adds an entry with POST, accepting a bare array in answer', async () => {
    const { agent, pool } = createMock();
    const t = pool(TRANSFER);
    replyToken(t, { access: 'tok' });
    t.intercept({ path: '/api/v1/folders/205/acls', method: 'POST' }).reply(200, [entry], { headers: JSON_HEADERS });
    await expect(transferClient(agent).addFolderAcl('205', { type: 'Group', id: '12', permissions: {} })).resolves.toMatchObject([{ id: '12' }]);
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
    t.intercept({ path: '/api/v1/users', query: { username: 'alice', isExactMatch: true, page: 1, perPage: 1000 } }).reply(
      200,
      { items: [{ id: 'u1', username: 'alice', fullName: 'Alice' }], currentPage: 1, totalItems: 1, itemsPerPage: 1000 },
      { headers: JSON_HEADERS },
    );
    t.intercept({ path: '/api/v1/users', query: { username: 'bob', isExactMatch: true, page: 1, perPage: 1000 } }).reply(200, page([]), { headers: JSON_HEADERS });
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
      .reply(200, page([{ id: 4, name: 'Acme Partners', membersCount: 3 }, { id: 5, name: 'Ops' }]), { headers: JSON_HEADERS })
      .times(2);
    const client = transferClient(agent);
    await expect(client.findGroup('Acme Partners')).resolves.toEqual({ id: '4', name: 'Acme Partners', membersCount: 3 });
    await expect(client.findGroup('Nobody')).resolves.toBeNull();
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
    const writes = ['createSubfolder', 'renameFolder', 'setFolderAcl', 'addFolderAcl', 'deleteFolderAcl', 'close'] as const satisfies readonly (keyof TransferClient)[];
    for (const name of writes) expect(name in view).toBe(false);
    expect(Object.keys(view).sort()).toEqual([...TRANSFER_READ_METHODS, 'service', 'requestCount', 'tokenRequestCount'].sort());
  });
});
