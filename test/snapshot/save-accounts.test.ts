import { readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { ApiError } from '../../src/services/index.js';
import type { GroupMembership, TransferGroup, TransferUser } from '../../src/services/index.js';
import {
  diffSnapshots,
  listSnapshots,
  loadSnapshot,
  SnapshotIntegrityError,
  verifySnapshot,
  type SavedAccounts,
  type SnapshotManifest,
  type SnapshotTransferSource,
} from '../../src/snapshot/index.js';
import { testdir } from '../helpers/testdir.js';
import { startSeededEmulator } from '../integration/helpers.js';
import { clientsFor, KEY_HEX, saveFrom, snapshotFolder, treeOf, type Clients } from './helpers.js';

let emulator: RunningEmulator;
let clients: Clients;
beforeAll(async () => {
  emulator = await startSeededEmulator();
  clients = clientsFor(emulator);
});
afterAll(async () => {
  await clients.close();
  await emulator.close();
});

const mode = (path: string): number => statSync(path).mode & 0o777;
const manifestOf = (dir: string, id: string): SnapshotManifest =>
  JSON.parse(readFileSync(join(snapshotFolder(dir, id), 'snapshot.json'), 'utf8')) as SnapshotManifest;
const accountsOf = (dir: string, id: string): SavedAccounts =>
  JSON.parse(readFileSync(join(snapshotFolder(dir, id), 'transfer-accounts.json'), 'utf8')) as SavedAccounts;

/** A transfer server that answers these users, groups and members, and no folder. */
function fakeTransfer(users: TransferUser[], groups: TransferGroup[], membership: GroupMembership): SnapshotTransferSource {
  return {
    findFolderByPath: async () => null,
    listFolderAcls: async () => [],
    listUsers: async () => users,
    listGroups: async () => groups,
    listGroupMembers: async () => membership,
  };
}

describe('the transfer part holds users, groups and memberships (transfer-accounts.json)', () => {
  it('saves every user as the users list answers it, every group with its members by id and username, and counts them in snapshot.json', async () => {
    const dir = testdir({});
    const info = await saveFrom(emulator, clients, dir);
    const folder = snapshotFolder(dir, info.id);
    expect(mode(join(folder, 'transfer-accounts.json'))).toBe(0o600);

    const accounts = accountsOf(dir, info.id);
    const users = await clients.transfer.listUsers({ fresh: true });
    expect(accounts.users.map((u) => u.username)).toEqual(users.map((u) => u.username).sort());
    const bob = users.find((u) => u.username === 'bob')!;
    expect(accounts.users.find((u) => u.username === 'bob')).toEqual({
      id: bob.id,
      username: 'bob',
      fullName: bob.fullName,
      permission: 'User',
      email: bob.email,
      status: bob.status,
      lastLoginStamp: bob.lastLoginStamp,
    });
    const acme = accounts.groups.find((g) => g.name === 'Acme Partners')!;
    expect(acme.members).toEqual([
      { id: users.find((u) => u.username === 'acme-svc')!.id, username: 'acme-svc' },
      { id: bob.id, username: 'bob' },
    ]);
    expect(accounts.membersForm).toBe('members');

    const manifest = manifestOf(dir, info.id);
    expect(manifest.transfer!.accounts).toMatchObject({ file: 'transfer-accounts.json', userCount: users.length, groupCount: 4 });
    expect(info).toMatchObject({ userCount: users.length, groupCount: 4 });
    expect(listSnapshots(dir, 'lab').snapshots[0]).toMatchObject({ userCount: users.length, groupCount: 4 });
    expect(loadSnapshot(dir, { env: 'lab', id: info.id }).accounts).toEqual(accounts);
    // The seed's passwords are nowhere in the snapshot but the automation export (which holds host passwords by design).
    for (const f of treeOf(folder).filter((n) => n !== 'automation-config.xml')) expect(readFileSync(join(folder, f), 'utf8'), f).not.toMatch(/password/i);
  });

  it('never saves a password, even when the server sends one, nor any field beyond the users list model', async () => {
    const dir = testdir({});
    const users: TransferUser[] = [
      {
        id: 'u1',
        username: 'zed',
        fullName: 'Zed',
        permission: 'Admin',
        email: 'z@example.com',
        status: 'Active',
        lastLoginStamp: '2026-01-01T00:00:00',
        password: 'S3CRET-PASS',
        passwordHash: 'x',
      },
    ];
    const groups: TransferGroup[] = [
      { id: '7', name: 'Ops', description: 'operators' },
      { id: '8', name: 'Unread' },
    ];
    const info = await saveFrom(emulator, clients, dir, {
      automation: undefined,
      transfer: fakeTransfer(users, groups, { form: 'members', members: new Map([['7', ['u1']]]) }),
      folders: [],
    });
    const folder = snapshotFolder(dir, info.id);
    for (const f of treeOf(folder)) expect(readFileSync(join(folder, f), 'utf8'), f).not.toContain('S3CRET-PASS');
    expect(accountsOf(dir, info.id)).toEqual({
      formatVersion: 2,
      membersForm: 'members',
      users: [
        { id: 'u1', username: 'zed', fullName: 'Zed', permission: 'Admin', email: 'z@example.com', status: 'Active', lastLoginStamp: '2026-01-01T00:00:00' },
      ],
      groups: [
        { id: '7', name: 'Ops', description: 'operators', members: [{ id: 'u1', username: 'zed' }] },
        // Members not read for this group: null, not an empty list (a restore then leaves them alone).
        { id: '8', name: 'Unread', members: null },
      ],
    });
  });

  it('records that members could not be read when no form of the members read answers', async () => {
    const dir = testdir({});
    const info = await saveFrom(emulator, clients, dir, {
      automation: undefined,
      transfer: fakeTransfer([{ id: 'u1', username: 'zed' }], [{ id: '7', name: 'Ops' }], { form: 'none', members: new Map() }),
      folders: [],
    });
    expect(accountsOf(dir, info.id)).toMatchObject({ membersForm: 'none', groups: [{ name: 'Ops', members: null }] });
  });

  it('encrypts the accounts with MFTOPS_SNAPSHOT_KEY, as the folders file', async () => {
    const dir = testdir({});
    const processEnv = { MFTOPS_SNAPSHOT_KEY: KEY_HEX };
    const info = await saveFrom(emulator, clients, dir, { processEnv });
    const folder = snapshotFolder(dir, info.id);
    expect(treeOf(folder)).toContain('transfer-accounts.json.enc');
    expect(treeOf(folder)).not.toContain('transfer-accounts.json');
    expect(mode(join(folder, 'transfer-accounts.json.enc'))).toBe(0o600);
    expect(readFileSync(join(folder, 'transfer-accounts.json.enc')).includes('acme-svc')).toBe(false);
    expect(manifestOf(dir, info.id).transfer!.accounts!.file).toBe('transfer-accounts.json.enc');
    expect(loadSnapshot(dir, { env: 'lab', id: info.id }, processEnv).accounts!.groups.map((g) => g.name)).toContain('Acme Partners');
    expect((await verifySnapshot(dir, info.id, { processEnv })).files.map((f) => f.file)).toContain('transfer-accounts.json.enc');
  });

  it('is saved without accounts, with a warning, when the account may not list users', async () => {
    const dir = testdir({});
    const warnings: string[] = [];
    const forbidden = new ApiError({ service: 'transfer', method: 'GET', path: '/api/v1/users', status: 403, body: { title: 'Forbidden', fieldErrors: [] } });
    const transfer = { ...fakeTransfer([], [], { form: 'none', members: new Map() }), listUsers: () => Promise.reject(forbidden) };
    const logger = { debug: () => undefined, info: () => undefined, warn: (m: string) => void warnings.push(m) };
    const info = await saveFrom(emulator, clients, dir, { automation: undefined, transfer, folders: [], logger });
    expect(treeOf(snapshotFolder(dir, info.id))).toEqual(['snapshot.json', 'transfer-folders.json']);
    expect(info.userCount).toBeUndefined();
    expect(warnings).toEqual([expect.stringMatching(/^users and groups not saved in the snapshot: the transfer account cannot list users and groups \(/)]);
  });

  it('verify names the accounts file when it changed after the save', async () => {
    const dir = testdir({});
    const info = await saveFrom(emulator, clients, dir);
    const path = join(snapshotFolder(dir, info.id), 'transfer-accounts.json');
    writeFileSync(path, readFileSync(path, 'utf8').replace('"bob"', '"bop"'));
    const err = await verifySnapshot(dir, info.id).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SnapshotIntegrityError);
    expect((err as SnapshotIntegrityError).file).toBe('transfer-accounts.json');
    expect((err as Error).message).toMatch(/transfer-accounts\.json does not match its sha256 in snapshot\.json/);
  });
});

describe('snapshots saved before users and groups were (no transfer-accounts.json)', () => {
  it('still load, list, verify and diff; the accounts are said not compared', async () => {
    const dir = testdir({});
    const old = await saveFrom(emulator, clients, dir, { now: new Date('2026-03-01T00:00:00.000Z') });
    const folder = snapshotFolder(dir, old.id);
    const { accounts: _dropped, ...transfer } = manifestOf(dir, old.id).transfer!;
    writeFileSync(join(folder, 'snapshot.json'), JSON.stringify({ ...manifestOf(dir, old.id), transfer }));
    rmSync(join(folder, 'transfer-accounts.json'));

    expect(loadSnapshot(dir, { env: 'lab', id: old.id }).accounts).toBeUndefined();
    expect((await verifySnapshot(dir, old.id)).files.map((f) => f.file)).toEqual(['automation-config.xml', 'transfer-folders.json']);
    const listed = listSnapshots(dir, 'lab').snapshots[0]!;
    expect(listed.userCount).toBeUndefined();
    expect(listed.services).toEqual(['automation', 'transfer']);

    const now = await saveFrom(emulator, clients, dir, { now: new Date('2026-03-02T00:00:00.000Z') });
    const diff = diffSnapshots(dir, old.id, now.id, { env: 'lab' });
    expect(diff.accounts).toBeUndefined();
    expect(diff.accountsNotCompared).toBe(`snapshot lab/${old.id} holds no users and groups`);
  });
});
