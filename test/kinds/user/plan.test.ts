import { describe, expect, it } from 'vitest';
import { indexByName } from '../../../src/live/model.js';
import type { LiveState } from '../../../src/live/model.js';
import type { Plan } from '../../../src/plan/model.js';
import { renderPlanMarkdown } from '../../../src/render/plan-markdown.js';
import { renderPlanText } from '../../../src/render/plan-text.js';
import { USER_IO } from '../../../src/kinds/user/io.js';
import { fingerprintUser, isPrivileged } from '../../../src/kinds/user/plan.js';
import type { TransferUser, TransferUserDetails } from '../../../src/services/transfer/types.js';
import { manifestsFrom, planFrom } from '../../resources/fixtures.js';

const ALICE: TransferUser = { id: 'u-alice', username: 'Alice', fullName: 'Alice Smith', email: 'alice@example.com', permission: 'User', status: 'Active' };
const ALICE_DETAILS: TransferUserDetails = {
  ...ALICE,
  notes: '',
  authMethod: 'MOVEitOnly',
  emailFormat: 'HTML',
  receivesNotification: 'ReceivesNotifications',
  folderQuota: 0,
  forceChangePassword: false,
  lastLoginStamp: '2026-11-01T08:00:00Z',
};
const OPS: TransferUser = { id: 'u-ops', username: 'ops-admin', permission: 'Admin', status: 'Active', lastLoginStamp: '' };
const PARTNER: TransferUser = { id: 'u-p1', username: 'partner-acme', permission: 'User', status: 'Active', lastLoginStamp: '2025-01-02T00:00:00Z' };

function live(users: TransferUser[] = [ALICE, OPS, PARTNER], details: TransferUserDetails[] = [ALICE_DETAILS]): LiveState {
  return {
    transfer: {
      users: indexByName(
        users,
        (u) => u.username,
        (u) => u.id,
      ),
      userDetails: new Map(details.map((d) => [d.id, d])),
      folders: new Map(),
    },
  };
}

function userYaml(name: string, spec: string, metadata = ''): string {
  return `apiVersion: mftops/v1\nkind: User\nmetadata:\n  name: ${name}\n${metadata}spec:\n${spec}`;
}

function planUsers(yaml: string, state: LiveState = live(), options: Parameters<typeof planFrom>[2] = {}): Plan {
  const { plan, diagnostics } = planFrom(manifestsFrom(yaml), state, options);
  expect(diagnostics).toEqual([]);
  return plan;
}

describe('User plan', () => {
  it('is a no-op when the fields the manifest sets match, whatever the case of the username', () => {
    const plan = planUsers(userYaml('alice', '  fullName: Alice Smith\n  permission: User\n  status: Active\n  folderQuota: 0\n'));
    expect(plan.changes.map((c) => [c.address, c.action, c.liveId])).toEqual([['User/alice', 'no-op', 'u-alice']]);
  });

  it('updates only the fields that differ, and sends only those', () => {
    const plan = planUsers(userYaml('alice', '  fullName: Alice Smith\n  email: a.smith@example.com\n  notes: contractor\n'));
    const c = plan.changes[0]!;
    expect(c.action).toBe('update');
    expect(c.fields).toEqual([
      { path: 'email', before: 'alice@example.com', after: 'a.smith@example.com' },
      { path: 'notes', before: '', after: 'contractor' },
    ]);
    expect(c.payload).toEqual({ kind: 'User', username: 'alice', patch: { email: 'a.smith@example.com', notes: 'contractor' } });
    expect(c.fingerprint).toBe(fingerprintUser(ALICE, ALICE_DETAILS));
  });

  it('creates a missing user: AddUserModel fields in the create, the rest patched after it; the password as its reference only', () => {
    const plan = planUsers(
      userYaml('bob', '  fullName: Bob Jones\n  permission: User\n  status: Suspended\n  homeFolderPath: /Home/bob\n  password: ${env:BOB_PASSWORD}\n'),
    );
    const c = plan.changes[0]!;
    expect(c.action).toBe('create');
    expect(c.payload).toEqual({
      kind: 'User',
      username: 'bob',
      create: { username: 'bob', fullName: 'Bob Jones', permission: 'User', homeFolderPath: '/Home/bob', password: '${env:BOB_PASSWORD}' },
      patch: { status: 'Suspended' },
    });
    expect(c.fields.find((f) => f.path === 'password')).toEqual({ path: 'password', sensitive: true });
    expect(USER_IO.planSteps(c, c.payload).map((s) => s.op)).toEqual(['user-create', 'user-patch']);
  });

  it('never diffs a password: a changed reference is no change without --rotate-passwords, a sensitive update with it', () => {
    const yaml = userYaml('alice', '  fullName: Alice Smith\n  password: ${env:ALICE_NEW}\n');
    expect(planUsers(yaml).changes[0]!.action).toBe('no-op');
    const rotated = planUsers(yaml, live(), { rotatePasswords: true }).changes[0]!;
    expect(rotated.action).toBe('update');
    expect(rotated.fields).toEqual([{ path: 'password', sensitive: true }]);
    expect(rotated.payload).toEqual({ kind: 'User', username: 'alice', patch: { password: '${env:ALICE_NEW}' } });
    // Shown as (sensitive), never as the reference or a value.
    const text = renderPlanText(planUsers(yaml, live(), { rotatePasswords: true }), { color: false });
    expect(text).toContain('(sensitive)');
    expect(text).not.toContain('ALICE_NEW');
  });

  it('does not compare homeFolderPath on an existing user (create only)', () => {
    expect(planUsers(userYaml('alice', '  fullName: Alice Smith\n  homeFolderPath: /Home/elsewhere\n')).changes[0]!.action).toBe('no-op');
  });

  it('blocks a rename through previousNames: the API cannot rename a user, so never a delete and a create', () => {
    const plan = planUsers(userYaml('alice.smith', '  fullName: Alice Smith\n', '  previousNames: [alice]\n'));
    expect(plan.changes).toHaveLength(1);
    const c = plan.changes[0]!;
    expect([c.action, c.reason, c.previousName, c.liveId, c.payload]).toEqual([
      'blocked',
      { code: 'user-rename', from: 'Alice' },
      'Alice',
      'u-alice',
      undefined,
    ]);
    expect(renderPlanText(plan, { color: false })).toContain('the API cannot rename a user');
  });

  it('flags a privileged permission granted in the access report and the PR comment, like admin on a folder', () => {
    const plan = planUsers(userYaml('alice', '  permission: Admin\n') + '---\n' + userYaml('carol', '  fullName: Carol\n  permission: SysAdmin\n'));
    expect(plan.access?.changes.map((a) => [a.who.name, a.gained, a.lost, a.flagged])).toEqual([
      ['alice', ['Admin'], ['User'], ['Admin']],
      ['carol', ['SysAdmin'], [], ['SysAdmin']],
    ]);
    const md = renderPlanMarkdown(plan);
    expect(md).toContain(':warning: alice gains Admin and loses User on the transfer server (permission level) — **grants `Admin`**');
    // The destructive-change alert names the account, never "1 folder".
    expect(md).toContain('> - alice **gains `Admin`** on the transfer server (permission level)');
    // A plain User created is nobody's privilege: not in the access report.
    expect(planUsers(userYaml('dave', '  fullName: Dave\n  permission: User\n')).access).toBeUndefined();
  });

  it('prunes unmanaged users only within scope.users, offering status Suspended instead', () => {
    const yaml = userYaml('alice', '  fullName: Alice Smith\n');
    const scope = { taskGroups: [], folders: [], users: ['partner-*'] };
    const plan = planUsers(yaml, live(), { prune: ['User'], scope });
    const deletes = plan.changes.filter((c) => c.action === 'delete');
    expect(deletes.map((c) => [c.address, c.liveId, c.reason])).toEqual([['User/partner-acme', 'u-p1', { code: 'user-pruned', scope: ['partner-*'] }]]);
    expect(renderPlanText(plan, { color: false })).toContain('status: Suspended');
    // Never the account mftops signs in with, whatever the masks say.
    const everyone = planUsers(yaml, live(), {
      prune: ['User'],
      scope: { taskGroups: [], folders: [], users: ['*'] },
      servers: { transfer: { url: 'https://t', username: 'OPS-ADMIN' } },
    });
    expect(everyone.changes.filter((c) => c.action === 'delete').map((c) => c.address)).toEqual(['User/partner-acme']);
    // No scope.users: nothing is pruned, even with User in prune.
    expect(planUsers(yaml, live(), { prune: ['User'], scope: { taskGroups: [], folders: [] } }).changes.filter((c) => c.action === 'delete')).toEqual([]);
  });

  it('keeps the password reference out of every field value and resolves only the password when applied', () => {
    const plan = planUsers(userYaml('bob', '  fullName: Bob\n  notes: ${env:NOT_A_SECRET}\n  password: ${env:BOB_PASSWORD}\n'));
    const c = plan.changes[0]!;
    expect(JSON.stringify(c.fields)).not.toContain('BOB_PASSWORD');
    const mapped = USER_IO.mapPayloadStrings(c.payload!, (v) => (typeof v === 'string' && v.startsWith('${') ? 'RESOLVED' : v));
    expect(mapped).toEqual({ kind: 'User', username: 'bob', create: { username: 'bob', fullName: 'Bob', notes: '${env:NOT_A_SECRET}', password: 'RESOLVED' } });
  });
});

describe('User stale check', () => {
  it('finds a user renamed, gone or changed since the plan, and one that appeared where the plan creates', () => {
    const update = planUsers(userYaml('alice', '  notes: x\n')).changes[0]!;
    const create = planUsers(userYaml('bob', '  fullName: Bob\n')).changes[0]!;
    const now = (users: TransferUser[], details: TransferUserDetails[]) => ({
      byId: new Map(users.map((u) => [u.id, u])),
      byName: new Map(users.map((u) => [u.username.toLowerCase(), u])),
      details: new Map(details.map((d) => [d.id, d])),
    });
    expect(USER_IO.findStale(update, now([ALICE], [ALICE_DETAILS]))).toEqual([]);
    expect(USER_IO.findStale(update, now([ALICE], [{ ...ALICE_DETAILS, notes: 'someone else' }]))).toEqual([{ how: 'changed' }]);
    expect(USER_IO.findStale(update, now([{ ...ALICE, username: 'mallory' }], [ALICE_DETAILS]))[0]?.detail).toBe('user id u-alice is now named mallory');
    expect(USER_IO.findStale(update, now([], []))).toEqual([{ how: 'gone', detail: 'user id u-alice' }]);
    expect(USER_IO.findStale(create, now([{ id: 'u-b', username: 'BOB' }], []))).toEqual([{ how: 'appeared', detail: 'a user named BOB now exists (id u-b)' }]);
  });
});

describe('User drift words', () => {
  it('describes an unmanaged user by permission and last sign-on', async () => {
    const { USER } = await import('../../../src/kinds/user/definition.js');
    const words = { escape: (t: string) => t, grant: () => '' };
    expect(USER.describeUnmanaged({ kind: 'User', permission: 'Admin', lastLoginStamp: '2026-10-01T00:00:00Z' }, words)).toBe(
      'user, permission Admin, last sign-on 2026-10-01T00:00:00Z',
    );
    expect(USER.describeUnmanaged({ kind: 'User', permission: 'User', status: 'Suspended' }, words)).toBe('user, permission User, Suspended, never signed on');
  });

  it('takes a privileged permission in any case (the server may spell it sysadmin), and nothing else for one', () => {
    expect(['SysAdmin', 'sysadmin', 'ADMIN', 'fileadmin'].map(isPrivileged)).toEqual([true, true, true, true]);
    expect(['User', 'AuditUser', 'TemporaryUser', undefined].map(isPrivileged)).toEqual([false, false, false, false]);
  });
});
