import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { planAccessChanges } from '../../src/plan/access-changes.js';
import type { AccessBasis } from '../../src/plan/access-changes.js';
import type { Change } from '../../src/plan/model.js';
import { renderPlanText } from '../../src/render/plan-text.js';
import type { Harness } from './helpers.js';
import { ROOT, planPaths, startHarness } from './helpers.js';

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
