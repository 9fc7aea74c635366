import { describe, expect, it } from 'vitest';
import type { Change } from '../../../src/plan/model.js';
import { fingerprintAcl, grantedPermissions } from '../../../src/kinds/resource-group-acl/plan.js';
import type { ResourceGroupAcl } from '../../../src/services/automation/types.js';
import { automationState, manifestsFrom, planFrom } from '../../resources/fixtures.js';

function aclYaml(name: string, resourceGroup: string, userGroup: string, permissions: string[]): string {
  return `apiVersion: mftops/v1\nkind: ResourceGroupAcl\nmetadata: { name: ${name} }\nspec:\n  resourceGroup: ${resourceGroup}\n  userGroup: ${userGroup}\n  permissions: [${permissions.join(', ')}]\n`;
}

const LIVE: ResourceGroupAcl = {
  ACLID: '501',
  ResourceGroupName: 'Finance',
  UserGroupName: 'Finance Operators',
  Permissions: {
    TaskRun: 1,
    TaskEditExisting: 1,
    TaskAddEditDelete: 0,
    HostAddEditDelete: 0,
    ScriptAddEditDelete: 0,
    SSLAddEditDelete: 0,
    SSHAddEditDelete: 0,
    PGPAddEditDelete: 0,
  },
};

function planAcl(yaml: string, live: ResourceGroupAcl[]): Change {
  const { plan, diagnostics } = planFrom(manifestsFrom(yaml), { automation: automationState({ acls: live }) });
  expect(diagnostics).toEqual([]);
  return plan.changes[0]!;
}

describe('ResourceGroupAcl', () => {
  it('compares permissions as a set: order in the manifest does not matter', () => {
    const c = planAcl(aclYaml('ops', 'Finance', 'Finance Operators', ['TaskEditExisting', 'TaskRun']), [LIVE]);
    expect(c.action).toBe('no-op');
    expect(c.liveId).toBe('501');
  });

  it('identifies the ACL by its pair without regard to case, and treats true as 1', () => {
    const live = { ...LIVE, Permissions: { TaskRun: true, TaskEditExisting: true } };
    const c = planAcl(aclYaml('ops', 'finance', 'finance operators', ['TaskRun', 'TaskEditExisting']), [live]);
    expect(c.action).toBe('no-op');
  });

  it('updates a differing ACL with the whole permission set (every permission 0 or 1)', () => {
    const c = planAcl(aclYaml('ops', 'Finance', 'Finance Operators', ['TaskRun']), [LIVE]);
    expect(c.action).toBe('update');
    expect(c.fields).toEqual([{ path: 'permissions', before: ['TaskRun', 'TaskEditExisting'], after: ['TaskRun'] }]);
    expect(c.payload).toEqual({
      kind: 'ResourceGroupAcl',
      resourceGroup: 'Finance',
      userGroup: 'Finance Operators',
      permissions: {
        TaskRun: 1,
        TaskEditExisting: 0,
        TaskAddEditDelete: 0,
        HostAddEditDelete: 0,
        ScriptAddEditDelete: 0,
        SSLAddEditDelete: 0,
        SSHAddEditDelete: 0,
        PGPAddEditDelete: 0,
      },
    });
    expect(c.address).toBe('ResourceGroupAcl/ops');
  });

  it('creates a missing ACL with the server spelling of both groups', () => {
    const c = planAcl(aclYaml('audit', 'FINANCE', 'auditors', ['TaskRun']), [LIVE]);
    expect(c.action).toBe('create');
    expect(c.payload).toMatchObject({ resourceGroup: 'Finance', userGroup: 'Auditors' });
    expect(c.fields).toContainEqual({ path: 'permissions', after: ['TaskRun'] });
  });

  it('fingerprints the ACL so that 1 and true read alike', () => {
    expect(fingerprintAcl({ ...LIVE, Permissions: { TaskRun: true, TaskEditExisting: true } })).toBe(fingerprintAcl(LIVE));
    expect(fingerprintAcl({ ...LIVE, Permissions: { TaskRun: 1 } })).not.toBe(fingerprintAcl(LIVE));
    expect(grantedPermissions(LIVE)).toEqual(['TaskRun', 'TaskEditExisting']);
  });
});
