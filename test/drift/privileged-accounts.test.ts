import { describe, expect, it } from 'vitest';
import type { PrivilegedAccountSettings } from '../../src/config/model.js';
import { DEFAULT_PRIVILEGED_ACCOUNTS } from '../../src/config/model.js';
import { assessAccounts, declaredUsernames, signOnReport, withAccounts } from '../../src/drift/privileged-accounts.js';
import type { AccountsLiveState } from '../../src/live/model.js';
import type { Manifest } from '../../src/manifest/types.js';
import { readSignOnStamp, readUser } from '../../src/services/transfer/normalize.js';
import type { TransferUser } from '../../src/services/transfer/types.js';
import { assembleDrift } from '../../src/drift/assemble-drift.js';
import { assemblePlan } from '../../src/plan/assemble-plan.js';

const NOW = new Date('2026-11-27T12:00:00Z');

function user(username: string, permission: string, extra: Record<string, unknown> = {}): TransferUser {
  return readUser({ id: `id-${username}`, username, permission, status: 'Active', ...extra });
}

function settings(over: Partial<PrivilegedAccountSettings> = {}): PrivilegedAccountSettings {
  return { ...DEFAULT_PRIVILEGED_ACCOUNTS, ...over };
}

function read(users: TransferUser[], admins?: string[]): AccountsLiveState {
  return {
    transfer: { state: 'read', value: users },
    ...(admins ? { automation: { state: 'read' as const, value: { group: 'Administrators', members: admins } } } : {}),
  };
}

function assess(state: AccountsLiveState, over: Partial<Parameters<typeof assessAccounts>[0]> = {}) {
  return assessAccounts({ read: state, declared: new Set(), settings: settings(), signedInAs: { transfer: 'admin', automation: 'admin' }, now: NOW, ...over });
}

const SERVER = [user('admin', 'SysAdmin'), user('eve', 'Admin'), user('fred', 'FileAdmin'), user('alice', 'User'), user('svc-backup', 'Admin')];

describe('the guard on privileged accounts', () => {
  it('still names a declared account whose manifest leaves its permission unmanaged (a promotion would pass the plan unseen)', () => {
    const declared = declaredUsernames([
      { kind: 'User', name: 'eve', spec: { email: 'eve@example.com' } } as unknown as Manifest,
      { kind: 'User', name: 'fred', spec: { permission: 'FileAdmin' } } as unknown as Manifest,
    ]);
    expect([...declared]).toEqual(['fred']);
    expect(assess(read(SERVER), { declared }).report.privileged.map((a) => a.username)).toEqual(['eve', 'svc-backup']);
  });

  it('says it cannot judge accounts whose permission the references do not name (a number, another word, none), and does not crash on odd types', () => {
    const odd = [...SERVER, user('mallory', 30 as unknown as string, { status: 1 }), readUser({ id: 'id-x', username: 'x' }), user('sam', 'sysadmin')];
    const { report } = assess(read(odd));
    // sam's permission is SysAdmin whatever its case; mallory's and x's cannot be judged, and the check says so.
    expect(report.privileged.map((a) => `${a.username} (${a.role})`)).toEqual(['eve (Admin)', 'fred (FileAdmin)', 'sam (SysAdmin)', 'svc-backup (Admin)']);
    expect(report.checks.transfer).toEqual({
      state: 'not-checked',
      message: '2 of 8 accounts have a permission the transfer references do not name (mallory: "30", x: none), so whether they are privileged is not judged',
    });
    expect(() => signOnReport(odd, 90, NOW)).not.toThrow();
  });

  it('drops every field named like a password from a user record, but keeps forceChangePassword and passwordChangeStamp', () => {
    const u = readUser({
      id: 1,
      username: 'bob',
      Password: 'p1',
      passwordHash: 'h',
      currentPassword: 'c',
      forceChangePassword: true,
      passwordChangeStamp: 's',
    });
    expect(u).toEqual({ id: '1', username: 'bob', forceChangePassword: true, passwordChangeStamp: 's' });
  });

  it('names every Admin, SysAdmin and FileAdmin no manifest declares, but not the account mftops signs in with, nor plain users', () => {
    const { report } = assess(read(SERVER));
    expect(report.privileged.map((a) => `${a.username} (${a.role})`)).toEqual(['eve (Admin)', 'fred (FileAdmin)', 'svc-backup (Admin)']);
    expect(report.privileged[0]).toEqual({
      service: 'transfer',
      username: 'eve',
      role: 'Admin',
      liveId: 'id-eve',
      creator: { state: 'unknown', why: 'no-audit-record' },
    });
    expect(report.allowed).toEqual([{ service: 'transfer', username: 'admin', role: 'SysAdmin', by: 'sign-in' }]);
    expect(report.checks).toEqual({ transfer: { state: 'checked', accounts: 5 } });
  });

  it('leaves out accounts a User manifest declares and those allowUnmanaged lists, whatever their case', () => {
    const declared = declaredUsernames([
      { kind: 'User', name: 'EVE', spec: { permission: 'Admin' } } as unknown as Manifest,
      { kind: 'Task', name: 'fred' } as unknown as Manifest,
    ]);
    const allowUnmanaged = [{ name: 'SVC-Backup', reason: 'backup agent', where: 'mftops.yaml:9:11' }];
    const { report, unmatchedAllowed } = assess(read(SERVER), { declared, settings: settings({ allowUnmanaged }) });
    expect(report.privileged.map((a) => a.username)).toEqual(['fred']);
    expect(report.allowed).toContainEqual({
      service: 'transfer',
      username: 'svc-backup',
      role: 'Admin',
      by: 'config',
      reason: 'backup agent',
      where: 'mftops.yaml:9:11',
    });
    expect(unmatchedAllowed).toEqual([]);
  });

  it('names automation administrators that are not allowed, an entry for the other service allowing nothing there', () => {
    const allowUnmanaged = [{ name: 'deployer', service: 'transfer' as const, where: 'mftops.yaml:9:11' }];
    const { report, unmatchedAllowed } = assess(read([user('admin', 'SysAdmin')], ['admin', 'deployer', 'Mallory']), {
      settings: settings({ allowUnmanaged }),
    });
    expect(report.privileged).toEqual([
      { service: 'automation', username: 'deployer', role: 'Administrators', creator: { state: 'unknown', why: 'not-asked' } },
      { service: 'automation', username: 'Mallory', role: 'Administrators', creator: { state: 'unknown', why: 'not-asked' } },
    ]);
    // deployer is no transfer user: the entry allows nothing (MF420).
    expect(unmatchedAllowed).toEqual([0]);
  });

  it('warns about an entry naming no account only for services it could read', () => {
    const allowUnmanaged = [
      { name: 'gone', where: 'a' },
      { name: 'alice', where: 'b' },
      { name: 'ops', service: 'automation' as const, where: 'c' },
    ];
    const unreadable: AccountsLiveState = {
      transfer: { state: 'read', value: SERVER },
      automation: { state: 'unreadable', httpStatus: 403, message: 'no: 403' },
    };
    const { report, unmatchedAllowed } = assess(unreadable, { settings: settings({ allowUnmanaged }) });
    expect(unmatchedAllowed).toEqual([0]);
    expect(report.checks.automation).toEqual({ state: 'not-checked', httpStatus: 403, message: 'no: 403' });
  });

  it('judges nothing when only part of the manifests was given, and says so', () => {
    const { report, unmatchedAllowed } = assess(read(SERVER), {
      omitted: 'partial-manifests',
      settings: settings({ allowUnmanaged: [{ name: 'gone', where: 'a' }] }),
    });
    expect(report.privileged).toEqual([]);
    expect(report.omitted).toBe('partial-manifests');
    expect(unmatchedAllowed).toEqual([]);
  });

  it('makes the drift report drift (exit 2) when an unmanaged privileged account exists, and only then', () => {
    const plan = assemblePlan({ toolVersion: 't', createdAt: NOW.toISOString(), environment: 'prod', servers: {}, manifestDigest: 'sha256:0' }, [], false);
    const base = assembleDrift({ plan, live: {}, prune: [], ignore: [], now: NOW });
    expect(base.status).toBe('in-sync');
    expect(withAccounts(base, assess(read(SERVER)).report).status).toBe('drift');
    expect(withAccounts(base, assess(read([user('admin', 'SysAdmin'), user('alice', 'User')])).report).status).toBe('in-sync');
  });
});

describe('the sign-on report', () => {
  const users = [
    user('alice', 'User', { lastLoginStamp: '2026-11-20T08:00:00' }),
    user('bob', 'User', { lastLoginStamp: '2026-06-01T08:00:00Z' }),
    user('carol', 'User', { lastLoginStamp: '' }),
    user('dave', 'User', { status: 'Suspended' }),
    user('erin', 'User', { lastLoginStamp: 'yesterday' }),
    user('tmpl', 'User', { status: 'Template', lastLoginStamp: null }),
    user('old', 'Admin', { lastLoginStamp: '0001-01-01T00:00:00' }),
    user('zed', 'User', { lastLoginStamp: '2025-01-01T00:00:00+02:00' }),
  ];

  it('lists who never signed on, who not for more than N days (oldest first), and unreadable dates; templates left out', () => {
    const r = signOnReport(users, 90, NOW);
    expect(r.available).toBe(true);
    expect(r.never).toEqual([
      { username: 'carol', permission: 'User' },
      { username: 'dave', permission: 'User', status: 'Suspended' },
      { username: 'old', permission: 'Admin' },
    ]);
    expect(r.stale).toEqual([
      { username: 'zed', permission: 'User', lastSignOn: '2024-12-31T22:00:00.000Z', days: 695 },
      { username: 'bob', permission: 'User', lastSignOn: '2026-06-01T08:00:00.000Z', days: 179 },
    ]);
    expect(r.unknown).toEqual([{ username: 'erin', permission: 'User', stamp: 'yesterday' }]);
  });

  it('lists no stale sign-on with staleSignOnDays 0, and nothing when the server sends no lastLoginStamp', () => {
    expect(signOnReport(users, 0, NOW).stale).toEqual([]);
    const none = signOnReport([user('alice', 'User'), user('bob', 'User')], 90, NOW);
    expect(none).toEqual({ available: false, staleSignOnDays: 90, never: [], stale: [], unknown: [] });
  });

  it('reads lastLoginStamp with or without a zone, .NET fractions and "no date" forms; never throws', () => {
    expect(readSignOnStamp('2026-11-01T10:00:00')).toBe('2026-11-01T10:00:00.000Z');
    expect(readSignOnStamp('2026-11-01 10:00:00.1234567')).toBe('2026-11-01T10:00:00.123Z');
    expect(readSignOnStamp('2026-11-01T10:00:00+0200')).toBe('2026-11-01T08:00:00.000Z');
    expect(readSignOnStamp('2026-11-01T10:00:00-05:30')).toBe('2026-11-01T15:30:00.000Z');
    expect(readSignOnStamp('2026-11-01')).toBe('2026-11-01T00:00:00.000Z');
    for (const never of [null, undefined, '', '   ', '0001-01-01T00:00:00']) expect(readSignOnStamp(never)).toBe('');
    for (const odd of ['2026-02-30T10:00:00', '2026-13-01', 'yesterday', '2026-11-01T25:00:00']) expect(readSignOnStamp(odd)).toBe(odd);
    expect(readSignOnStamp(1700000000)).toBe('1700000000');
    expect(readSignOnStamp({ a: 1 })).toBe('{"a":1}');
    expect(readUser({ id: 1, username: 'x' })).not.toHaveProperty('lastLoginStamp');
    expect(readUser({ id: 1, username: 'x', lastLoginStamp: null }).lastLoginStamp).toBe('');
  });
});
