import { describe, expect, it } from 'vitest';
import type { Scope } from '../../src/config/model.js';
import { FOLDER_LIST_THRESHOLD, readLiveState } from '../../src/live/read-live-state.js';
import type { TransferReader } from '../../src/live/read-live-state.js';
import { startEmulator } from '../../src/emulator/index.js';
import { Secret } from '../../src/secret.js';
import { ApiError } from '../../src/services/errors.js';
import { createTransferClient } from '../../src/services/transfer/client.js';
import type { Folder } from '../../src/services/transfer/types.js';
import { manifestsFrom } from '../resources/fixtures.js';

const SCOPE: Scope = { taskGroups: [], folders: [] };
const folderDoc = (path: string, extra = '') =>
  `apiVersion: mftops/v1\nkind: FolderPermissions\nmetadata: { name: ${path} }\nspec:\n${extra}  mode: exact\n  entries:\n    - user: alice\n      permissions: [listFiles]\n`;

/** A transfer reader over a flat list of folders that logs its calls; `listStatus` makes the list fail. */
function fakeTransfer(paths: string[], calls: string[], listStatus?: number): TransferReader {
  const folders = paths.map((path, i): Folder => ({ id: String(100 + i), name: path.split('/').pop()!, path }) as Folder);
  const log = <T>(what: string, value: T): Promise<T> => {
    calls.push(what);
    return Promise.resolve(value);
  };
  return {
    listUsers: () => log('users', [{ id: 'u1', username: 'alice' }]),
    listFolders: () => {
      calls.push('list');
      if (listStatus)
        return Promise.reject(new ApiError({ service: 'transfer', method: 'GET', path: '/folders', status: listStatus, body: { fieldErrors: [] } }));
      return Promise.resolve(folders);
    },
    findFolderByPath: (p: string) => log(`find ${p}`, folders.find((f) => f.path === p) ?? null),
    listFolderAcls: (id: string) => log(`acls ${id}`, []),
  } as unknown as TransferReader;
}

const many = Array.from({ length: FOLDER_LIST_THRESHOLD + 5 }, (_, i) => `/Bulk/F${i}`);

describe('readLiveState: many managed folders come from one folder list', () => {
  it('reads the list once instead of a lookup per path, with the same answers', async () => {
    const live = ['/Bulk', ...many.slice(1)];
    const calls: string[] = [];
    const state = await readLiveState({
      manifests: manifestsFrom(many.map((p) => folderDoc(p)).join('---\n')),
      transfer: fakeTransfer(live, calls),
      scope: SCOPE,
      prune: [],
    });
    expect(calls.filter((c) => c === 'list')).toHaveLength(1);
    expect(calls.filter((c) => c.startsWith('find '))).toEqual([]);
    expect(state.transfer!.folders.get('/bulk/f0')).toBeNull();
    expect(state.transfer!.folders.get('/bulk/f1')).toMatchObject({ folder: { path: '/Bulk/F1' }, acl: [] });
    expect(calls.filter((c) => c.startsWith('acls '))).toHaveLength(many.length - 1);
  });

  it('matches paths as the server compares them: case and a trailing slash ignored', async () => {
    const calls: string[] = [];
    const live = many.map((p, i) => (i === 0 ? p.toLowerCase() : i === 1 ? `${p}/` : p));
    const state = await readLiveState({
      manifests: manifestsFrom(many.map((p) => folderDoc(p)).join('---\n')),
      transfer: fakeTransfer(live, calls),
      scope: SCOPE,
      prune: [],
    });
    expect(state.transfer!.folders.get('/bulk/f0')).toMatchObject({ folder: { path: '/bulk/f0' } });
    expect(state.transfer!.folders.get('/bulk/f1')).toMatchObject({ folder: { path: '/Bulk/F1/' } });
  });

  it('answers the parent of a folder to create from the list it already read', async () => {
    const calls: string[] = [];
    const docs = [...many.map((p) => folderDoc(p)), folderDoc('/Bulk/New', '  createIfMissing: { inheritPermissions: None }\n')];
    const state = await readLiveState({
      manifests: manifestsFrom(docs.join('---\n')),
      transfer: fakeTransfer(['/Bulk', ...many], calls),
      scope: SCOPE,
      prune: [],
    });
    expect(state.transfer!.folders.get('/bulk/new')).toBeNull();
    expect(state.transfer!.folders.get('/bulk')).toMatchObject({ folder: { path: '/Bulk' } });
    expect(calls.filter((c) => c.startsWith('find ') || c === 'list')).toEqual(['list']);
  });

  it('answers the previous paths of managed folders from the list it reads anyway: no lookup of their own', async () => {
    const calls: string[] = [];
    const renamed = folderDoc('/Bulk/Incoming').replace(
      'metadata: { name: /Bulk/Incoming }',
      'metadata: { name: /Bulk/Incoming, previousNames: [/Bulk/Inbound, /Bulk/Older] }',
    );
    const docs = [...many.map((p) => folderDoc(p)), renamed];
    const state = await readLiveState({
      manifests: manifestsFrom(docs.join('---\n')),
      transfer: fakeTransfer(['/Bulk/Inbound', ...many], calls),
      scope: SCOPE,
      prune: [],
    });
    expect(state.transfer!.folders.get('/bulk/incoming')).toBeNull();
    expect(state.transfer!.folders.get('/bulk/inbound')).toMatchObject({ folder: { path: '/Bulk/Inbound' }, acl: [] });
    expect(state.transfer!.folders.get('/bulk/older')).toBeNull();
    expect(calls.filter((c) => c === 'list')).toHaveLength(1);
    expect(calls.filter((c) => c.startsWith('find '))).toEqual([]);
  });

  it('falls back to lookups by path when the account may not list folders (403)', async () => {
    const calls: string[] = [];
    const state = await readLiveState({
      manifests: manifestsFrom(many.map((p) => folderDoc(p)).join('---\n')),
      transfer: fakeTransfer(many, calls, 403),
      scope: SCOPE,
      prune: [],
    });
    expect(calls.filter((c) => c.startsWith('find '))).toHaveLength(many.length);
    expect(state.transfer!.folders.get('/bulk/f3')).toMatchObject({ folder: { path: '/Bulk/F3' } });
  });

  it('looks a handful of folders up by path and never reads the list', async () => {
    const calls: string[] = [];
    const few = many.slice(0, 3);
    await readLiveState({ manifests: manifestsFrom(few.map((p) => folderDoc(p)).join('---\n')), transfer: fakeTransfer(few, calls), scope: SCOPE, prune: [] });
    expect(calls).not.toContain('list');
    expect(calls.filter((c) => c.startsWith('find '))).toHaveLength(3);
  });
});

describe('transfer client: listFolders', () => {
  it('reads every folder in pages of 1,000', async () => {
    const folders = Array.from({ length: 1_200 }, (_, i) => ({ path: `/Many/F${String(i).padStart(4, '0')}` }));
    const emulator = await startEmulator({ seed: { transfer: { users: [{ username: 'admin', password: 'admin-pw', permission: 'SysAdmin' }], folders } } });
    const client = createTransferClient({ url: emulator.transferUrl, username: 'admin', password: new Secret('admin-pw') });
    try {
      emulator.resetRequestLog();
      const listed = await client.listFolders();
      const paths = new Set(listed.map((f) => f.path));
      expect(folders.every((f) => paths.has(f.path))).toBe(true);
      expect(paths.has('/Many')).toBe(true);
      expect(emulator.requestLog().filter((r) => r.method === 'GET' && r.path.endsWith('/folders'))).toHaveLength(2);
    } finally {
      await client.close();
      await emulator.close();
    }
  });
});
