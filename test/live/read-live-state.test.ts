import { describe, expect, it } from 'vitest';
import type { Scope } from '../../src/config/model.js';
import { planLiveReads, readLiveState, readUserGroupMembers } from '../../src/live/read-live-state.js';
import type { AutomationReader, TransferReader } from '../../src/live/read-live-state.js';
import { ApiError } from '../../src/services/errors.js';
import { Secret } from '../../src/secret.js';
import { createAutomationClient, toReadonlyAutomationClient } from '../../src/services/automation/client.js';
import { createTransferClient, toReadonlyTransferClient } from '../../src/services/transfer/client.js';
import type { Folder } from '../../src/services/transfer/types.js';
import { manifestsFrom, taskYaml } from '../resources/fixtures.js';

const SCOPE: Scope = { taskGroups: ['Finance'], folders: ['/Distribution'] };
const folderDoc = (path: string, entries = '    - user: alice\n      permissions: [listFiles]\n', extra = '') =>
  `apiVersion: mftops/v1\nkind: FolderPermissions\nmetadata: { name: ${path} }\nspec:\n${extra}  mode: exact\n  entries:\n${entries}`;
const aclDoc = (ug: string) =>
  `apiVersion: mftops/v1\nkind: ResourceGroupAcl\nmetadata: { name: ${ug.replace(/ /g, '-')} }\nspec:\n  resourceGroup: Finance\n  userGroup: ${ug}\n  permissions: []\n`;

/** A fake that fails the test on any call: the service must not be contacted. */
const untouchable = <T>(name: string): T =>
  new Proxy({}, { get: (_t, prop) => (prop === 'then' ? undefined : () => Promise.reject(new Error(`${name}.${String(prop)} must not be called`))) }) as T;

/** A transfer reader over a folder tree (path → child paths) that logs calls and the most per-folder requests in flight. */
function fakeTransfer(folders: Record<string, string[]>, calls: string[], holdOpen = false, listStatus = 200): TransferReader & { mostInFlight(): number } {
  const byPath = new Map(Object.keys(folders).map((p, i) => [p.toLowerCase(), { id: String(100 + i), name: p.split('/').pop()!, path: p } as Folder]));
  let inFlight = 0;
  let most = 0;
  const track = async <T>(what: string, value: T): Promise<T> => {
    calls.push(what);
    const perFolder = !what.startsWith('users') && !what.startsWith('groups');
    if (perFolder) most = Math.max(most, ++inFlight);
    // Held for a turn of the event loop, not a time: every request that can start has started by then.
    if (holdOpen) await new Promise((r) => setImmediate(r));
    if (perFolder) inFlight--;
    return value;
  };
  return {
    mostInFlight: () => most,
    listUsers: () => track('users', [{ id: 'u1', username: 'alice' }]),
    listGroups: () => track('groups', [{ id: '1', name: 'Team' }]),
    findFolderByPath: (p: string) => track(`find ${p}`, byPath.get(p.toLowerCase()) ?? null),
    listFolders: async () => {
      await track('folder list', undefined);
      if (listStatus !== 200) throw new ApiError({ service: 'transfer', method: 'GET', path: '/folders', status: listStatus, body: { fieldErrors: [] } });
      return [...byPath.values()];
    },
    listFolderAcls: (id: string) => track(`acls ${id}`, []),
    listSubfolders: (id: string) => {
      const parent = [...byPath.values()].find((f) => f.id === id)!;
      return track(
        `subfolders ${parent.path}`,
        (folders[parent.path] ?? []).map((p) => byPath.get(p.toLowerCase())!),
      );
    },
  } as unknown as TransferReader & { mostInFlight(): number };
}

describe('readLiveState: read-only by construction', () => {
  it('refuses a full client at compile time and gets a view without write methods at run time', () => {
    const full = createAutomationClient({ url: 'http://127.0.0.1:1', username: 'u', password: new Secret('p') });
    const fullTransfer = createTransferClient({ url: 'http://127.0.0.1:1', username: 'u', password: new Secret('p') });
    // Never called: this is the compile-time half of the check (tsc --noEmit runs over test/).
    const handFullClients = () => [
      // @ts-expect-error a full automation client has write methods: readLiveState refuses it
      readLiveState({ manifests: [], automation: full, scope: SCOPE, prune: [] }),
      // @ts-expect-error a full transfer client has write methods: readLiveState refuses it
      readLiveState({ manifests: [], transfer: fullTransfer, scope: SCOPE, prune: [] }),
    ];
    expect(typeof handFullClients).toBe('function');
    const view: AutomationReader = toReadonlyAutomationClient(full);
    const transferView: TransferReader = toReadonlyTransferClient(fullTransfer);
    for (const write of [
      'createTask',
      'updateTask',
      'deleteTask',
      'createResourceGroupAcl',
      'updateResourceGroupAcl',
      'deleteResourceGroupAcl',
      'importConfig',
      'startTask',
    ]) {
      expect(write in view, write).toBe(false);
    }
    for (const write of ['createSubfolder', 'setFolderAcl', 'addFolderAcl', 'deleteFolderAcl']) expect(write in transferView, write).toBe(false);
  });
});

describe('planLiveReads: what needs reading', () => {
  it('skips a service no manifest and no prune needs', () => {
    const onlyTasks = planLiveReads(manifestsFrom(taskYaml('T', '  Active: 1\n')), SCOPE, []);
    expect(onlyTasks.transfer).toBeUndefined();
    expect(onlyTasks.automation).toEqual({ tasks: true, catalogs: true, resourceGroups: true, acls: false, userGroups: [] });
    const onlyFolders = planLiveReads(manifestsFrom(folderDoc('/A')), SCOPE, []);
    expect(onlyFolders.automation).toBeUndefined();
    expect(onlyFolders.transfer).toEqual({
      users: true,
      userDetails: [],
      groups: false,
      groupNames: [],
      folders: ['/A'],
      previous: [],
      creatable: [],
      walk: [],
    });
  });

  it('reads tasks for a prune of Tasks (and the host, script and date-list lists a pruned task is shown with), and walks the scope folders for a prune of FolderPermissions', () => {
    const needs = planLiveReads([], SCOPE, ['Task', 'FolderPermissions']);
    expect(needs.automation).toMatchObject({ tasks: true, catalogs: true, acls: false });
    expect(needs.transfer).toMatchObject({ walk: ['/Distribution'], users: false, groups: false });
    expect(planLiveReads([], { taskGroups: [], folders: [] }, ['Task', 'ResourceGroupAcl']).automation).toBeUndefined();
  });
});

describe('readLiveState: transfer reads', () => {
  it('never contacts the automation service when only folders are managed', async () => {
    const calls: string[] = [];
    const live = await readLiveState({
      manifests: manifestsFrom(folderDoc('/Distribution/A')),
      automation: untouchable<AutomationReader>('automation'),
      transfer: fakeTransfer({ '/Distribution/A': [] }, calls),
      scope: SCOPE,
      prune: [],
    });
    expect(live.automation).toBeUndefined();
    expect(calls.sort()).toEqual(['acls 100', 'find /Distribution/A', 'users']);
  });

  it('records a missing folder as null and looks up the parent of a folder it may create', async () => {
    const calls: string[] = [];
    const docs = manifestsFrom([folderDoc('/Finance/New', undefined, '  createIfMissing: { inheritPermissions: None }\n'), folderDoc('/Gone')].join('---\n'));
    const live = await readLiveState({ manifests: docs, transfer: fakeTransfer({ '/Finance': [] }, calls), scope: SCOPE, prune: [] });
    expect(live.transfer!.folders.get('/finance/new')).toBeNull();
    expect(live.transfer!.folders.get('/gone')).toBeNull();
    expect(live.transfer!.folders.get('/finance')).toMatchObject({ folder: { path: '/Finance' }, acl: [] });
    expect(calls).toContain('find /Finance');
  });

  it('keeps at most `parallelism` folder requests in flight', async () => {
    const paths = Array.from({ length: 12 }, (_, i) => `/F${i}`);
    const calls: string[] = [];
    const transfer = fakeTransfer(Object.fromEntries(paths.map((p) => [p, []])), calls, true);
    await readLiveState({ manifests: manifestsFrom(paths.map((p) => folderDoc(p)).join('---\n')), transfer, scope: SCOPE, prune: [], parallelism: 3 });
    expect(calls.filter((c) => c.startsWith('find '))).toHaveLength(12);
    expect(calls.filter((c) => c.startsWith('acls '))).toHaveLength(12);
    expect(transfer.mostInFlight()).toBe(3);
  });

  const renamed = (path: string, previous: string) =>
    folderDoc(path).replace(`metadata: { name: ${path} }`, `metadata: { name: ${path}, previousNames: [${previous}] }`);

  it('looks up the previous paths of managed folders with them, and reads the ACL of the one it finds', async () => {
    const calls: string[] = [];
    const docs = manifestsFrom(renamed('/Distribution/Acme/Incoming', '/Distribution/Acme/Inbound'));
    expect(planLiveReads(docs, SCOPE, []).transfer).toMatchObject({ folders: ['/Distribution/Acme/Incoming'], previous: ['/Distribution/Acme/Inbound'] });
    const live = await readLiveState({ manifests: docs, transfer: fakeTransfer({ '/Distribution/Acme/Inbound': [] }, calls), scope: SCOPE, prune: [] });
    expect(live.transfer!.folders.get('/distribution/acme/incoming')).toBeNull();
    expect(live.transfer!.folders.get('/distribution/acme/inbound')).toMatchObject({ folder: { id: '100', path: '/Distribution/Acme/Inbound' }, acl: [] });
    expect(calls.sort()).toEqual(['acls 100', 'find /Distribution/Acme/Inbound', 'find /Distribution/Acme/Incoming', 'users']);
  });

  it('finds previous paths below the scope of a prune in the walk it makes anyway: no lookup of their own', async () => {
    const calls: string[] = [];
    const live = await readLiveState({
      manifests: manifestsFrom(renamed('/Distribution/C', '/Distribution/B')),
      transfer: fakeTransfer(tree, calls),
      scope: SCOPE,
      prune: ['FolderPermissions'],
    });
    expect(live.transfer!.folders.get('/distribution/b')).toMatchObject({ folder: { path: '/Distribution/B' } });
    expect(live.transfer!.folders.get('/distribution/c')).toBeNull();
    expect(calls.filter((c) => !c.startsWith('acls ')).sort()).toEqual(['folder list', 'users']);
  });

  const tree = {
    '/Distribution': ['/Distribution/A', '/Distribution/B'],
    '/Distribution/A': ['/Distribution/A/In'],
    '/Distribution/B': [],
    '/Distribution/A/In': [],
    '/Elsewhere': [],
  };

  it('finds the scope folders for a prune in the folder list: one list instead of a listing per folder', async () => {
    const calls: string[] = [];
    const live = await readLiveState({
      manifests: manifestsFrom(folderDoc('/Distribution/A')),
      transfer: fakeTransfer(tree, calls),
      scope: SCOPE,
      prune: ['FolderPermissions'],
    });
    expect([...live.transfer!.scopeFolders!].sort()).toEqual(['/distribution', '/distribution/a', '/distribution/a/in', '/distribution/b']);
    expect(calls.filter((c) => !c.startsWith('acls ')).sort()).toEqual(['folder list', 'users']);
    expect(calls.filter((c) => c.startsWith('acls '))).toHaveLength(4);
  });

  it('walks the scope folders, reading each once, when the account may not list folders', async () => {
    const calls: string[] = [];
    const live = await readLiveState({
      manifests: manifestsFrom(folderDoc('/Distribution/A')),
      transfer: fakeTransfer(tree, calls, false, 403),
      scope: SCOPE,
      prune: ['FolderPermissions'],
    });
    expect([...live.transfer!.scopeFolders!].sort()).toEqual(['/distribution', '/distribution/a', '/distribution/a/in', '/distribution/b']);
    expect(calls.filter((c) => c.startsWith('find '))).toEqual(['find /Distribution']);
    expect(calls.filter((c) => c.startsWith('subfolders ')).sort()).toEqual([
      'subfolders /Distribution',
      'subfolders /Distribution/A',
      'subfolders /Distribution/A/In',
      'subfolders /Distribution/B',
    ]);
    expect(calls.filter((c) => c.startsWith('acls '))).toHaveLength(4);
  });
});

describe('readLiveState: automation reads', () => {
  function fakeAutomation(options: { userGroup: (name: string) => Promise<{ Name: string }> }): AutomationReader {
    const empty = async () => [];
    return {
      info: async () => ({ appVersion: '1' }),
      listResourceGroups: async () => [{ Name: 'Finance' }],
      listResourceGroupAcls: async () => [{ ACLID: '1', ResourceGroupName: 'Finance', UserGroupName: 'Finance Operators', Permissions: {} }],
      getUserGroup: options.userGroup,
      listTasks: empty,
      listHosts: empty,
      listCustomScripts: empty,
      listStandardScripts: empty,
      listDateLists: empty,
    } as unknown as AutomationReader;
  }
  const forbidden = (status: number) => new ApiError({ service: 'automation', method: 'GET', path: '/api/v1/usergroups/x', status, body: { fieldErrors: [] } });

  it('knows user groups from live ACLs and looks up only the others', async () => {
    const asked: string[] = [];
    const live = await readLiveState({
      manifests: manifestsFrom([aclDoc('finance operators'), aclDoc('Auditors'), aclDoc('Nobody')].join('---\n')),
      automation: fakeAutomation({
        userGroup: async (name) => {
          asked.push(name);
          if (name === 'Nobody') throw forbidden(404);
          return { Name: name };
        },
      }),
      scope: SCOPE,
      prune: [],
    });
    expect(asked.sort()).toEqual(['Auditors', 'Nobody']);
    expect(live.automation!.userGroups).toEqual({
      names: new Map([
        ['finance operators', 'Finance Operators'],
        ['auditors', 'Auditors'],
      ]),
      readable: true,
    });
  });

  it('marks user groups unreadable when the account may not read them (403)', async () => {
    const live = await readLiveState({
      manifests: manifestsFrom(aclDoc('Auditors')),
      automation: fakeAutomation({ userGroup: async () => Promise.reject(forbidden(403)) }),
      scope: SCOPE,
      prune: [],
    });
    expect(live.automation!.userGroups!.readable).toBe(false);
  });
});

describe('readLiveState: the folders of task steps on transfer hosts (cross-server checks)', () => {
  it('looks them up after the managed folders, reads their ACLs and the users list once, and keeps them apart', async () => {
    const calls: string[] = [];
    const transfer = fakeTransfer({ '/Distribution/A': [], '/Distribution/B': [] }, calls);
    const live = await readLiveState({
      manifests: manifestsFrom('apiVersion: mftops/v1\nkind: FolderPermissions\nmetadata: { name: /Distribution/A }\nspec:\n  mode: additive\n  entries: []\n'),
      transfer,
      scope: SCOPE,
      prune: [],
      stepFolders: () => ({ paths: ['/Distribution/A', '/distribution/b/', '/Distribution/Gone'], accounts: true }),
    });
    // The managed folder is read once, for both uses; the users list, which no entry needed, once for the accounts.
    expect(calls.filter((c) => c.startsWith('find')).sort()).toEqual(['find /Distribution/A', 'find /Distribution/Gone', 'find /distribution/b/']);
    expect(calls.filter((c) => c === 'users')).toHaveLength(1);
    expect([...(live.transfer?.stepFolders?.keys() ?? [])].sort()).toEqual(['/distribution/b', '/distribution/gone']);
    expect(live.transfer?.stepFolders?.get('/distribution/gone')).toBeNull();
    expect(live.transfer?.folders.has('/distribution/b')).toBe(false);
    expect(live.transfer?.users?.byName.has('alice')).toBe(true);
  });

  it('contacts the transfer server not at all when no managed folder and no step needs it', async () => {
    const live = await readLiveState({
      manifests: [],
      transfer: untouchable<TransferReader>('transfer'),
      scope: SCOPE,
      prune: [],
      stepFolders: () => ({ paths: [], accounts: false }),
    });
    expect(live.transfer).toBeUndefined();
  });
});

describe('readLiveState: a failed read is one rejection, handled (issue 23, finding 8)', () => {
  it("an automation read that fails before the transfer reads end leaves no rejection unhandled (the steps' folders wait on it)", async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const refused = new ApiError({
        service: 'automation',
        method: 'POST',
        path: '/api/v1/token',
        status: 400,
        body: { fieldErrors: [], note: 'invalid_grant' },
      });
      // Every automation call fails at once (a wrong password); the transfer reads take a turn of the event loop each.
      const automation = new Proxy({}, { get: (_t, prop) => (prop === 'then' ? undefined : () => Promise.reject(refused)) }) as AutomationReader;
      const read = readLiveState({
        manifests: manifestsFrom([taskYaml('Payroll', '  Group: [Finance]\n'), folderDoc('/Distribution/A')].join('---\n')),
        automation,
        transfer: fakeTransfer({ '/Distribution/A': [] }, [], true),
        scope: SCOPE,
        prune: [],
        stepFolders: () => ({ paths: ['/Distribution/B'], accounts: false }),
      });
      await expect(read).rejects.toBe(refused);
      // Unhandled rejections are reported once the microtasks of a turn have run: two turns.
      for (let turn = 0; turn < 2; turn++) await new Promise((r) => setImmediate(r));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});

describe('readUserGroupMembers (A-28)', () => {
  const failing = (status: number) =>
    ({
      listUserGroups: () =>
        Promise.reject(new ApiError({ service: 'automation', method: 'GET', path: '/api/v1/usergroups', status, body: { fieldErrors: [] } })),
    }) as unknown as AutomationReader;

  it('keys members by lower-cased user-group name and leaves a group answered without members unknown', async () => {
    const reader = {
      listUserGroups: () => Promise.resolve([{ name: 'Finance Operators', members: ['operator'] }, { name: 'Auditors' }]),
    } as unknown as AutomationReader;
    const read = await readUserGroupMembers(reader);
    expect([...read.members]).toEqual([['finance operators', ['operator']]]);
  });

  it.each([403, 404, 405, 501])('reads no members, without failing, on %i', async (status) => {
    await expect(readUserGroupMembers(failing(status))).resolves.toEqual({ members: new Map() });
  });

  it('fails on any other server error, as every read does', async () => {
    await expect(readUserGroupMembers(failing(500))).rejects.toBeInstanceOf(ApiError);
  });
});
