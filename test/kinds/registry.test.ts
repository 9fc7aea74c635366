import { describe, expect, it } from 'vitest';
import { EVERY_KIND, KINDS, kindsInRank } from '../../src/kinds/registry.js';
import { MANIFEST_KINDS } from '../../src/manifest/types.js';
import { SCHEMA_FILES } from '../../src/manifest/schemas.js';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { ResourceGroupAcl, Task } from '../../src/services/automation/types.js';
import { automationState, entry, manifestsFrom, planFrom, taskYaml, transferState } from '../resources/fixtures.js';

const aclDoc =
  'apiVersion: mftops/v1\nkind: ResourceGroupAcl\nmetadata: { name: finance-ops }\nspec:\n  resourceGroup: Finance\n  userGroup: Operators\n  permissions: [TaskRun]\n';
const groupDoc = 'apiVersion: mftops/v1\nkind: Group\nmetadata: { name: Ops Team }\nspec:\n  mode: exact\n  members: [alice]\n';
const folderDoc =
  'apiVersion: mftops/v1\nkind: FolderPermissions\nmetadata: { name: /Distribution/Acme }\nspec:\n  createIfMissing: { inheritPermissions: None }\n  mode: exact\n  entries:\n    - user: alice\n      permissions: [listFiles]\n';

const userDoc = 'apiVersion: mftops/v1\nkind: User\nmetadata: { name: dave }\nspec:\n  fullName: Dave\n';

describe('the kind registry', () => {
  it('defines every resource kind, each under its own name, in manifest order', () => {
    expect(EVERY_KIND).toEqual(MANIFEST_KINDS);
    for (const kind of EVERY_KIND) expect(KINDS[kind].kind).toBe(kind);
  });

  it('names the schema the manifest loader validates each kind with, and ranks are distinct', () => {
    for (const kind of EVERY_KIND) {
      expect(KINDS[kind].schema).toBe(SCHEMA_FILES[kind]);
      expect(existsSync(fileURLToPath(new URL(`../../schemas/${KINDS[kind].schema}`, import.meta.url)))).toBe(true);
    }
    expect(new Set(EVERY_KIND.map((kind) => KINDS[kind].rank)).size).toBe(EVERY_KIND.length);
  });

  it('ranks the kinds as the plan orders them: creates in rank order, deletes in the reverse', () => {
    const task = (id: string, name: string): Task => ({ ID: id, Name: name, Group: ['Finance'], Active: 1 });
    const acl: ResourceGroupAcl = { ACLID: '9', ResourceGroupName: 'Finance', UserGroupName: 'Auditors', Permissions: { TaskRun: 1 } };
    const live = {
      automation: automationState({ tasks: [task('7', 'Unmanaged')], acls: [acl], userGroups: ['Operators', 'Auditors'] }),
      transfer: transferState([{ path: '/Distribution' }, { path: '/Distribution/Other', acl: [entry('User', 'u1', 'alice', ['listFiles'])] }], {
        scopeFolders: ['/Distribution/Other'],
      }),
    };
    const manifests = manifestsFrom([taskYaml('New', '  Active: 1\n'), aclDoc, folderDoc, userDoc, groupDoc].join('---\n'));
    // One unmanaged user in scope (carol): alice and bob are named by no mask.
    const scope = { taskGroups: ['Finance', 'Partners'], folders: ['/Distribution'], users: ['carol'] };
    const { plan, diagnostics } = planFrom(manifests, live, { prune: [...EVERY_KIND], scope });
    expect(diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    const creates = plan.changes.filter((c) => c.action === 'create').map((c) => c.kind);
    const deletes = plan.changes.filter((c) => c.action === 'delete' || c.reason?.code === 'folder-pruned').map((c) => c.kind);
    // The API deletes no group: an unmanaged group is blocked where its delete would stand.
    expect(plan.changes.filter((c) => c.reason?.code === 'group-not-deletable').map((c) => [c.action, c.name])).toEqual([
      ['blocked', 'Acme Partners'],
      ['blocked', 'Finance Team'],
    ]);
    const ranked = kindsInRank().map((definition) => definition.kind);
    expect(creates).toEqual(ranked);
    expect(deletes).toEqual([...ranked].reverse().filter((kind) => kind !== 'Group'));
  });
});
