import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { planAccessChanges } from '../../src/plan/access-changes.js';
import type { AccessBasis } from '../../src/plan/access-changes.js';
import type { AccessChange, Change } from '../../src/plan/model.js';
import { renderPlanText } from '../../src/render/plan-text.js';
import type { Harness } from './helpers.js';
import { ROOT, planPaths, startHarness } from './helpers.js';
import { changeOf, largeMembershipCase, membership, smallMembershipCase, transferOf } from '../helpers/membership-access.js';

const GROUP_ENTRY = join(ROOT, 'test/fixtures/access/group-entry.yaml');

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('access changes of a plan', () => {
  it.each(['members', 'userField', 'usersFilter'] as const)('names the same members whichever form the server lists them in (%s)', async (form) => {
    h = await startHarness({ variants: { 'transfer.groupMembers': form } });
    const { plan } = await planPaths(h, [GROUP_ENTRY]);
    expect(plan!.access!.changes.map((c) => `${c.who.type} ${c.who.name} ${c.target}`)).toEqual([
      'User acme-svc /Distribution/Acme/Outbound',
      'User bob /Distribution/Acme/Outbound',
      'User globex-svc /Distribution/Globex/Outbound',
    ]);
    expect(plan!.access!.membersUnknown).toEqual([]);
  });

  it('shows the group-level change, and says the members could not be read, on a server that lists them in no form', async () => {
    h = await startHarness({ variants: { 'transfer.groupMembers': 'none' } });
    const { plan, diagnostics } = await planPaths(h, [GROUP_ENTRY]);
    expect(diagnostics).toEqual([]);
    expect(plan!.access!.changes.map((c) => [c.who, c.target, c.gained, c.lost, c.removed])).toEqual([
      [{ type: 'Group', name: 'Acme Partners' }, '/Distribution/Acme/Outbound', [], ['readFiles', 'listFiles'], true],
      [{ type: 'Group', name: 'Globex Partners' }, '/Distribution/Globex/Outbound', ['writeFiles', 'share'], ['readFiles'], false],
    ]);
    expect([...plan!.access!.membersUnknown].sort()).toEqual(['Acme Partners', 'Globex Partners']);
    const text = renderPlanText(plan!, { color: false });
    expect(text).toContain(
      '  ! group Globex Partners (members unknown) gains writeFiles, share and loses readFiles on /Distribution/Globex/Outbound [grants share]',
    );
    expect(text).toContain('The members of groups');
    expect(text).toContain('could not be read from the transfer server');
  });

  it('has no access report when no permission changes', async () => {
    h = await startHarness();
    const { plan } = await planPaths(h, [join(ROOT, 'examples/manifests/tasks')]);
    expect(plan!.changes.some((c) => c.kind === 'FolderPermissions')).toBe(false);
    expect(plan!.access).toBeUndefined();
  });
});

describe('resource-group ACL access per user (A-28)', () => {
  const change = (address: string) => ({ address, action: 'update', name: address.split('/')[1] }) as unknown as Change;
  const acl = (rg: string, ug: string, perms: Record<string, number>) => ({ ACLID: '1', ResourceGroupName: rg, UserGroupName: ug, Permissions: perms });
  const members = {
    members: new Map([
      ['finance operators', ['bob', 'erin']],
      ['auditors', ['bob']],
    ]),
  };
  const liveAcls = new Map([
    ['finance\u0000finance operators', acl('Finance', 'Finance Operators', { TaskRun: 1, TaskEditExisting: 1 })],
    ['finance\u0000auditors', acl('Finance', 'Auditors', { TaskRun: 1 })],
  ]);
  const bases = new Map<string, AccessBasis>([
    [
      'ResourceGroupAcl/ops',
      { kind: 'acl', userGroup: 'Finance Operators', resourceGroup: 'Finance', before: ['TaskRun', 'TaskEditExisting'], after: ['HostAddEditDelete'] },
    ],
  ]);

  it('counts every user group of a user: what another group still grants is not lost', () => {
    const report = planAccessChanges([change('ResourceGroupAcl/ops')], bases, undefined, { members, acls: liveAcls });
    expect(report!.changes.map((c) => [c.who.name, c.gained, c.lost, c.via.map((v) => v.name), c.flagged, c.removed])).toEqual([
      // bob keeps TaskRun through Auditors.
      ['bob', ['HostAddEditDelete'], ['TaskEditExisting'], ['Finance Operators'], ['HostAddEditDelete'], false],
      ['erin', ['HostAddEditDelete'], ['TaskRun', 'TaskEditExisting'], ['Finance Operators'], ['HostAddEditDelete'], false],
    ]);
    expect(report!.userGroupsUnknown).toBeUndefined();
  });

  it('shows the user group itself when its members were not read, and names it only when a read was made', () => {
    const unread = planAccessChanges([change('ResourceGroupAcl/ops')], bases, undefined);
    expect(unread!.changes.map((c) => [c.who, c.gained, c.lost])).toEqual([
      [{ type: 'Group', name: 'Finance Operators' }, ['HostAddEditDelete'], ['TaskRun', 'TaskEditExisting']],
    ]);
    expect(unread!.userGroupsUnknown).toBeUndefined();
    const refused = planAccessChanges([change('ResourceGroupAcl/ops')], bases, undefined, { members: { members: new Map() }, acls: liveAcls });
    expect(refused!.changes.map((c) => c.who)).toEqual([{ type: 'Group', name: 'Finance Operators' }]);
    expect(refused!.userGroupsUnknown).toEqual(['Finance Operators']);
  });
});

describe('access across membership changes (issue 26)', () => {
  const row = (c: AccessChange) => [c.who.name, c.target, c.gained, c.lost, c.via.map((v) => `${v.type} ${v.name}`), c.flagged, c.removed, c.address];

  it('combines desired entries with desired members: a member added and an entry removed in one plan give the net result', () => {
    const { changes, bases, transfer } = smallMembershipCase();
    const report = planAccessChanges(changes, bases, transfer)!;
    expect(report.changes.map(row)).toEqual([
      // alice stays a member: she loses only what the removed entry granted.
      ['alice', '/Partners/Globex', [], ['readFiles', 'listFiles'], ['Group Partners'], [], true, 'FolderPermissions/Partners/Globex'],
      // bob joins: he gains on the folders whose entries stay, nothing on /Partners/Globex, and admin is flagged as a direct grant would be.
      ['bob', '/Partners/Acme', ['readFiles', 'listFiles'], [], ['Group Partners'], [], false, 'Group/Partners'],
      ['bob', '/Partners/Admin', ['listFiles', 'admin'], [], ['Group Partners'], ['admin'], false, 'Group/Partners'],
      // carol leaves: she loses everywhere Partners reached her, /Partners/Globex through both changes.
      ['carol', '/Partners/Globex', [], ['readFiles', 'listFiles'], ['Group Partners'], [], true, 'Group/Partners'],
      ['carol', '/Partners/Acme', [], ['readFiles', 'listFiles'], ['Group Partners'], [], true, 'Group/Partners'],
      ['carol', '/Partners/Admin', [], ['listFiles', 'admin'], ['Group Partners'], [], true, 'Group/Partners'],
    ]);
    expect(report.changes.map((c) => c.memberships)).toEqual([undefined, ['Partners'], ['Partners'], ['Partners'], ['Partners'], ['Partners']]);
    // Four folders were read; group Others' folder was checked and has nothing to say.
    expect(report.membershipScope).toEqual({ groups: ['Partners'], foldersRead: 4 });
    expect(report.changes.some((c) => c.target === '/Other')).toBe(false);
  });

  it("keeps what a user's own entry grants: a new member gains only what the group adds", () => {
    const { changes, bases, transfer } = largeMembershipCase(4, 2);
    const report = planAccessChanges(changes, bases, transfer)!;
    const user01 = report.changes.filter((c) => c.who.name === 'user01').map((c) => [c.target, c.gained]);
    expect(user01).toEqual([
      ['/Partners', ['listFiles', 'admin']],
      ['/Partners/Partner 001/Outbound', ['listFiles']],
      ['/Partners/Partner 002/Outbound', ['readFiles', 'listFiles']],
      ['/Partners/Partner 003/Outbound', ['listFiles']],
      ['/Partners/Partner 004/Outbound', ['readFiles', 'listFiles']],
    ]);
    expect(report.changes.filter((c) => c.who.name === 'alice')).toEqual([]);
  });

  it('uses the members the plan sees for a group whose live members were not read', () => {
    const { changes, bases, transfer } = smallMembershipCase();
    const report = planAccessChanges(changes, bases, { folders: transfer.folders })!;
    expect(report.membersUnknown).toEqual([]);
    expect(report.changes.map((c) => c.who.name)).toEqual(['alice', 'bob', 'bob', 'carol', 'carol', 'carol']);
  });

  it('reports a membership change that reaches no folder read, so the scope sentence can say what was not checked', () => {
    const report = planAccessChanges([changeOf('Group/Readers')], new Map([['Group/Readers', membership('Readers', [], ['bob'])]]), transferOf([], {}))!;
    expect(report).toEqual({ changes: [], membersUnknown: [], membershipScope: { groups: ['Readers'], foldersRead: 0 } });
  });

  it('ignores blocked and no-op membership changes: they write nothing', () => {
    const { bases, transfer } = smallMembershipCase();
    for (const action of ['blocked', 'no-op'] as const) {
      const report = planAccessChanges([changeOf('Group/Partners', action)], bases, transfer);
      expect(report).toBeUndefined();
    }
  });

  it('plans without membership changes are unchanged: the folder change alone, with the live members', () => {
    const { changes, bases, transfer } = smallMembershipCase();
    bases.delete('Group/Partners');
    const report = planAccessChanges(changes.slice(0, 1), bases, transfer)!;
    expect(report.changes.map((c) => [c.who.name, c.target, c.lost, c.memberships])).toEqual([
      ['alice', '/Partners/Globex', ['readFiles', 'listFiles'], undefined],
      ['carol', '/Partners/Globex', ['readFiles', 'listFiles'], undefined],
    ]);
    expect(report.membershipScope).toBeUndefined();
  });
});
