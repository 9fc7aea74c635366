import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { renderRestoreDiffText } from '../../src/render/snapshot.js';
import { ApiError } from '../../src/services/index.js';
import { SnapshotError } from '../../src/snapshot/errors.js';
import {
  diffSavedAccounts,
  planAccountRestore,
  restoreSnapshot,
  writeAccountRestore,
  type AccountRestoreTarget,
  type RestoreSnapshotOptions,
  type SavedAccounts,
  type SavedGroup,
  type SavedUser,
} from '../../src/snapshot/index.js';
import { accountMismatches } from '../../src/snapshot/restore-accounts.js';
import { prepareRestore } from '../../src/snapshot/restore-snapshot.js';
import { addTransferUser, readTransferUser } from '../helpers/emulator-test-api.js';
import { testdir } from '../helpers/testdir.js';
import { startSeededEmulator } from '../integration/helpers.js';
import { clientsFor, rewriteAccounts, saveFrom, type Clients } from './helpers.js';

const user = (id: string, username: string, more: Partial<SavedUser> = {}): SavedUser => ({
  id,
  username,
  fullName: username.toUpperCase(),
  permission: 'User',
  email: `${username}@example.com`,
  status: 'Active',
  ...more,
});
const group = (id: string, name: string, members: SavedUser[] | null, description = ''): SavedGroup => ({
  id,
  name,
  description,
  members: members && members.map((m) => ({ id: m.id, username: m.username })),
});
const accounts = (users: SavedUser[], groups: SavedGroup[]): SavedAccounts => ({ formatVersion: 2, membersForm: 'members', users, groups });

/** A writer that records what it was asked to write, and refuses what `refuse` names. */
function recordingTarget(refuse: (call: string) => boolean = () => false): AccountRestoreTarget & { calls: string[] } {
  const calls: string[] = [];
  const record = async (call: string): Promise<void> => {
    calls.push(call);
    if (refuse(call)) throw new SnapshotError(`transfer: ${call}: 403 Forbidden`);
  };
  return {
    calls,
    patchUser: (id, body) => record(`PATCH /users/${id} ${JSON.stringify(body)}`),
    addGroupMembers: (groupId, userIds) => record(`POST /groups/${groupId}/members ${JSON.stringify(userIds)}`),
    removeGroupMember: (groupId, userId) => record(`DELETE /groups/${groupId}/members/${userId}`),
  };
}

const alice = user('1', 'alice');
const bob = user('2', 'bob');
const carol = user('3', 'carol');

describe('diffSavedAccounts', () => {
  it('compares users by username and groups by name, case-insensitively: fields, ids, members; never lastLoginStamp', () => {
    const a = accounts(
      [alice, bob, { ...carol, lastLoginStamp: '2026-01-01T00:00:00' }],
      [group('10', 'Partners', [alice, bob], 'old'), group('11', 'Gone', []), group('12', 'Unread', null)],
    );
    const b = accounts(
      [{ ...alice, username: 'ALICE', permission: 'Admin' }, user('22', 'bob'), { ...carol, lastLoginStamp: '2026-02-02T00:00:00' }, user('4', 'dave')],
      [group('10', 'partners', [bob, user('4', 'dave')], 'new'), group('12', 'Unread', [alice]), group('13', 'New', [])],
    );
    expect(diffSavedAccounts(a, b)).toEqual({
      users: {
        added: ['dave'],
        removed: [],
        changed: [
          { username: 'ALICE', fields: [{ path: 'permission', before: 'User', after: 'Admin' }] },
          { username: 'bob', fields: [], recreated: { before: '2', after: '22' } },
        ],
      },
      groups: {
        added: ['New'],
        removed: ['Gone'],
        changed: [{ name: 'partners', fields: [{ path: 'description', before: 'old', after: 'new' }], membersAdded: ['dave'], membersRemoved: ['alice'] }],
      },
      membersNotCompared: ['Unread'],
    });
  });
});

describe('planAccountRestore and writeAccountRestore with a recording writer', () => {
  const saved = accounts([alice, bob, carol], [group('10', 'Partners', [alice, carol]), group('11', 'Finance', [bob])]);

  it('patches the fields that differ, adds missing members and removes extra ones, by live id; a re-created user gets neither fields nor groups', async () => {
    const live = accounts(
      [{ ...alice, permission: 'Admin', status: 'Suspended' }, bob, user('33', 'Carol', { fullName: 'C.', email: 'carol@example.com' })],
      [group('10', 'Partners', [alice, bob]), group('11', 'finance', [bob])],
    );
    const plan = planAccountRestore(saved, live);
    const target = recordingTarget();
    const result = await writeAccountRestore(plan, target);
    expect(target.calls).toEqual([
      'PATCH /users/1 {"permission":"User","status":"Active"}',
      // carol was deleted and re-created (id 3, now 33): another account may bear the name, so
      // it is neither patched nor put back in Partners.
      'DELETE /groups/10/members/2',
    ]);
    expect(result).toEqual({
      outcome: 'restored',
      usersPatched: 1,
      membersAdded: 0,
      membersRemoved: 1,
      notRestorable: [
        'user carol was deleted and re-created since the snapshot (id 3, now 33): another account may have the name, so it gets neither the saved fields nor the saved groups; set them by hand or through a User manifest',
        'carol not put back in group Partners: the user was re-created since the snapshot',
      ],
      leftAlone: [],
      warnings: [],
      errors: [],
    });
  });

  it('lists what it cannot put back instead of guessing: a deleted user (passwords cannot be restored), a deleted group, a description', async () => {
    const live = accounts([alice, carol, user('9', 'eve')], [group('10', 'Partners', [alice, carol], 'changed'), group('14', 'Later', [])]);
    const plan = planAccountRestore(saved, live);
    expect(plan.notRestorable).toEqual([
      'user bob no longer exists: passwords cannot be restored: re-create bob by hand or through a User manifest',
      'group Partners: description "" cannot be put back (now "changed"): this API release cannot update a group',
      'group Finance no longer exists: a group cannot be re-created with its id; re-create it by hand or through a Group manifest',
    ]);
    expect(plan.leftAlone).toEqual([
      'user eve was created since the snapshot: left alone (a restore deletes no user)',
      'group Later was created since the snapshot: left alone (this API release cannot delete a group)',
    ]);
    const target = recordingTarget();
    expect(await writeAccountRestore(plan, target)).toMatchObject({ outcome: 'unchanged' });
    expect(target.calls).toEqual([]);
  });

  it('writes nothing when the live accounts are as saved, and leaves members alone that were not read', async () => {
    const target = recordingTarget();
    expect(await writeAccountRestore(planAccountRestore(saved, saved), target)).toEqual({
      outcome: 'unchanged',
      usersPatched: 0,
      membersAdded: 0,
      membersRemoved: 0,
      notRestorable: [],
      leftAlone: [],
      warnings: [],
      errors: [],
    });
    const unread = accounts(saved.users as SavedUser[], [group('10', 'Partners', null), group('11', 'Finance', [])]);
    const plan = planAccountRestore(saved, unread);
    expect(plan.memberships).toEqual([{ groupId: '11', group: 'Finance', add: [{ id: '2', username: 'bob' }], remove: [] }]);
    expect(plan.leftAlone).toEqual(['group Partners: members cannot be read now: left alone']);
    expect(target.calls).toEqual([]);
  });

  it('leaves the members of a group git only observes alone, and every group when that is not known; users are still patched', async () => {
    // Someone left Finance (bob removed) and joined Partners (bob added) since the snapshot.
    const live = accounts([{ ...alice, status: 'Suspended' }, bob, carol], [group('10', 'Partners', [alice, bob, carol]), group('11', 'Finance', [])]);
    const observed = planAccountRestore(saved, live, { byName: new Map([['finance', 'manifests/groups.yaml:3']]) });
    const target = recordingTarget();
    await writeAccountRestore(observed, target);
    expect(target.calls).toEqual(['PATCH /users/1 {"status":"Active"}', 'DELETE /groups/10/members/2']);
    expect(observed.leftAlone).toEqual(['group Finance: members left alone: git only observes them (spec.manage: observe at manifests/groups.yaml:3)']);
    // Nor does the check after the restore call an observed group's members a mismatch.
    expect(
      accountMismatches(
        planAccountRestore(saved, accounts([alice, bob, carol], [group('10', 'Partners', [alice, carol]), group('11', 'Finance', [])]), {
          byName: new Map([['finance', 'manifests/groups.yaml:3']]),
        }),
      ),
    ).toEqual([]);

    const unknown = planAccountRestore(saved, live, { unknown: 'the manifests have errors' });
    expect(unknown.memberships).toEqual([]);
    expect(unknown.patches).toHaveLength(1);
    expect(unknown.leftAlone).toEqual([
      'group Partners: members left alone: the manifests have errors',
      'group Finance: members left alone: the manifests have errors',
    ]);
  });

  it('without a writer, reports what it would write and writes nothing', async () => {
    const live = accounts([{ ...alice, email: 'x@example.com' }, bob, carol], saved.groups as SavedGroup[]);
    expect(await writeAccountRestore(planAccountRestore(saved, live), undefined)).toMatchObject({ outcome: 'notWritten', usersPatched: 1 });
  });

  it('records a refused write and goes on with the others', async () => {
    const live = accounts([{ ...alice, email: 'x@example.com' }, bob, carol], [group('10', 'Partners', [alice]), group('11', 'Finance', [])]);
    const target = recordingTarget((call) => call.startsWith('PATCH'));
    const result = await writeAccountRestore(planAccountRestore(saved, live), target);
    expect(target.calls).toHaveLength(3);
    expect(result).toMatchObject({
      outcome: 'failed',
      usersPatched: 0,
      membersAdded: 2,
      errors: ['user alice: email not put back: transfer: PATCH /users/1 {"email":"alice@example.com"}: 403 Forbidden'],
    });
  });
});

describe('restoreSnapshot of users and groups against the emulator', () => {
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

  const restoreOptions = (dir: string, id: string, extra: Partial<RestoreSnapshotOptions> = {}): RestoreSnapshotOptions => ({
    dir,
    env: 'lab',
    id,
    services: ['transfer'],
    transfer: clients.transfer,
    transferUrl: emulator.transferUrl,
    keep: 30,
    processEnv: {},
    ...extra,
  });

  it('shows the accounts in the diff, puts back fields and members through the writer, and reports a deleted user as not restorable', async () => {
    const dir = testdir({});
    const saved = await saveFrom(emulator, clients, dir, { automation: undefined, automationUrl: undefined, folders: [] });
    const live = await clients.transfer.listUsers({ fresh: true });
    const id = (name: string): string => live.find((u) => u.username === name)!.id;
    // The snapshot says: bob was an Admin, carol was in Acme Partners and bob was not, and zoe existed.
    rewriteAccounts(dir, saved.id, (a) => ({
      ...a,
      users: [...a.users.map((u) => (u.username === 'bob' ? { ...u, permission: 'Admin' } : u)), { id: '999', username: 'zoe', permission: 'User' }],
      groups: a.groups.map((g) =>
        g.name === 'Acme Partners'
          ? {
              ...g,
              members: [
                { id: id('acme-svc'), username: 'acme-svc' },
                { id: id('carol'), username: 'carol' },
              ],
            }
          : g,
      ),
    }));
    addTransferUser(emulator, { ...readTransferUser(emulator, 'carol')!, id: 'new-1', username: 'mallory' });

    const prepared = await prepareRestore(restoreOptions(dir, saved.id, { accounts: recordingTarget() }));
    expect(prepared.diff.accounts).toMatchObject({
      users: { added: ['zoe'], removed: ['mallory'], changed: [{ username: 'bob', fields: [{ path: 'permission', before: 'User', after: 'Admin' }] }] },
      groups: { changed: [{ name: 'Acme Partners', membersAdded: ['carol'], membersRemoved: ['bob'] }] },
    });
    expect(prepared.accounts).toMatchObject({ usersPatched: 1, membersAdded: 1, membersRemoved: 1, writable: true });
    const text = renderRestoreDiffText(prepared.diff, `lab/${saved.id}`);
    expect(text).toContain('Users: 1 added, 1 removed, 1 changed\n  + zoe\n  - mallory\n  ~ bob\n      permission: "User" → "Admin"\n');
    expect(text).toContain('Groups: 1 changed\n  ~ Acme Partners\n      + member carol\n      - member bob\n');

    const target = recordingTarget();
    const acme = (await clients.transfer.findGroup('Acme Partners'))!;
    const result = await restoreSnapshot(restoreOptions(dir, saved.id, { accounts: target }));
    expect(target.calls).toEqual([
      `PATCH /users/${id('bob')} {"permission":"Admin"}`,
      `POST /groups/${acme.id}/members ["${id('carol')}"]`,
      `DELETE /groups/${acme.id}/members/${id('bob')}`,
    ]);
    expect(result.accounts).toMatchObject({
      outcome: 'restored',
      notRestorable: ['user zoe no longer exists: passwords cannot be restored: re-create zoe by hand or through a User manifest'],
      leftAlone: ['user mallory was created since the snapshot: left alone (a restore deletes no user)'],
    });
    // A user that cannot be re-created leaves the restore incomplete; the recording writer kept nothing, so nothing reads back as saved.
    expect(result.complete).toBe(false);
    expect(result.mismatches).toContain('user bob differs from the snapshot (permission)');
    expect(result.mismatches).toContain('group Acme Partners: carol is not a member as in the snapshot');
    expect(JSON.stringify(result)).not.toMatch(/password"/i);

    // Without a writer: compared and reported, nothing written, said so.
    const reported = await restoreSnapshot(restoreOptions(dir, saved.id));
    expect(reported.accounts).toMatchObject({ outcome: 'notWritten', usersPatched: 1, membersAdded: 1, membersRemoved: 1 });
    expect(reported.complete).toBe(false);
  });

  it('a users list that fails while restoring leaves the accounts not restored, as a result, after the other parts were written', async () => {
    const dir = testdir({});
    const saved = await saveFrom(emulator, clients, dir, { automation: undefined, automationUrl: undefined, folders: [] });
    const t = clients.transfer;
    let reads = 0;
    const failing = {
      findFolderByPath: t.findFolderByPath.bind(t),
      listFolderAcls: t.listFolderAcls.bind(t),
      setFolderAcl: t.setFolderAcl.bind(t),
      deleteFolderAcl: t.deleteFolderAcl.bind(t),
      listGroups: t.listGroups.bind(t),
      listGroupMembers: t.listGroupMembers.bind(t),
      // The compare and the pre-restore snapshot read it; the restore's own read fails.
      listUsers: (o?: { fresh?: boolean }) =>
        ++reads >= 3
          ? Promise.reject(new ApiError({ service: 'transfer', method: 'GET', path: '/api/v1/users', status: 500, body: { fieldErrors: [] } }))
          : t.listUsers(o),
    };
    const target = recordingTarget();
    const result = await restoreSnapshot(restoreOptions(dir, saved.id, { transfer: failing, accounts: target }));
    expect(target.calls).toEqual([]);
    expect(result.accounts).toMatchObject({
      outcome: 'failed',
      errors: [expect.stringMatching(/^the users and groups could not be read: transfer: GET \/api\/v1\/users: 500/)],
    });
    expect(result.complete).toBe(false);
  });

  it('writes nothing to users and groups when they are as saved', async () => {
    const dir = testdir({});
    const saved = await saveFrom(emulator, clients, dir, { automation: undefined, automationUrl: undefined, folders: [] });
    // The snapshot is made to hold exactly what the server holds now (mallory included).
    const target = recordingTarget();
    const now = await saveFrom(emulator, clients, dir, { automation: undefined, automationUrl: undefined, folders: [] });
    const result = await restoreSnapshot(restoreOptions(dir, now.id, { accounts: target }));
    expect(target.calls).toEqual([]);
    expect(result).toMatchObject({ complete: true, verified: true, accounts: { outcome: 'unchanged' } });
    expect(saved.userCount).toBe(now.userCount);
  });
});
