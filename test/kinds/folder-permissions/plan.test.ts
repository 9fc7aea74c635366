import { describe, expect, it } from 'vitest';
import type { Change, FolderPermissionsPayload } from '../../../src/plan/model.js';
import { fingerprintFolder, viewEntries } from '../../../src/kinds/folder-permissions/plan.js';
import type { FolderAclEntry } from '../../../src/services/transfer/types.js';
import { entry, manifestsFrom, planFrom, transferState } from '../../resources/fixtures.js';

function folderYaml(path: string, mode: 'exact' | 'additive', entries: string, extra = ''): string {
  return `apiVersion: mftops/v1\nkind: FolderPermissions\nmetadata: { name: ${path} }\nspec:\n${extra}  mode: ${mode}\n  entries:\n${entries}`;
}

const ENTRIES = `    - group: Acme Partners
      permissions: [listFiles, readFiles]
    - user: alice
      permissions: [listFiles, readFiles, writeFiles]
      sharePermissions: [readFiles]
`;

const LIVE_ACL: FolderAclEntry[] = [
  entry('Group', '7', 'Acme Partners', ['readFiles', 'listFiles']),
  entry('User', 'u-alice', 'alice', ['readFiles', 'writeFiles', 'listFiles', 'share:readFiles']),
];

function planFolder(yaml: string, acl: FolderAclEntry[]): Change {
  const { plan, diagnostics } = planFrom(manifestsFrom(yaml), { transfer: transferState([{ path: '/Distribution/Acme', id: '42', acl }]) });
  expect(diagnostics).toEqual([]);
  return plan.changes[0]!;
}

const payload = (c: Change) => c.payload as FolderPermissionsPayload;

describe('FolderPermissions', () => {
  it('compares entries as a set, by principal, without regard to order or name case', () => {
    const yaml = folderYaml('/distribution/acme', 'exact', ENTRIES.replace('group: Acme Partners', 'group: acme partners'));
    const c = planFolder(yaml, [...LIVE_ACL].reverse());
    expect(c.action).toBe('no-op');
    expect(c.liveId).toBe('42');
    expect(c.entries?.map((e) => e.action)).toEqual(['no-op', 'no-op']);
  });

  it('treats missing sharePermissions as none granted', () => {
    const yaml = folderYaml('/Distribution/Acme', 'exact', ENTRIES.replace('      sharePermissions: [readFiles]\n', ''));
    const c = planFolder(yaml, LIVE_ACL);
    expect(c.action).toBe('update');
    expect(c.fields).toEqual([]);
    expect(c.entries).toContainEqual({
      principal: { type: 'User', name: 'alice' },
      action: 'update',
      before: expect.objectContaining({ sharePermissions: ['readFiles'] }),
      after: expect.objectContaining({ sharePermissions: [] }),
    });
  });

  it('in exact mode removes editable entries the manifest does not list', () => {
    const acl = [...LIVE_ACL, entry('User', 'u-bob', 'bob', ['readFiles'])];
    const c = planFolder(folderYaml('/Distribution/Acme', 'exact', ENTRIES), acl);
    expect(c.action).toBe('update');
    expect(payload(c).remove).toEqual([{ type: 'User', id: 'u-bob', name: 'bob' }]);
    expect(c.entries).toContainEqual({
      principal: { type: 'User', name: 'bob' },
      action: 'delete',
      before: { permissions: ['readFiles'], sharePermissions: [] },
    });
  });

  it('in additive mode never removes anything', () => {
    const acl = [...LIVE_ACL, entry('User', 'u-bob', 'bob', ['readFiles'])];
    const c = planFolder(folderYaml('/Distribution/Acme', 'additive', ENTRIES), acl);
    expect(c.action).toBe('no-op');
  });

  it('never removes non-editable entries nor entries of other types, even in exact mode', () => {
    const acl: FolderAclEntry[] = [
      ...LIVE_ACL,
      entry('User', 'u-carol', 'carol', ['readFiles', 'admin'], { isEditable: false, isDeletable: false }),
      { ...entry('Group', 'e1', 'someone@example.com', ['readFiles']), type: 'Email' },
    ];
    expect(planFolder(folderYaml('/Distribution/Acme', 'exact', ENTRIES), acl).action).toBe('no-op');
  });

  it('blocks a wanted change to a non-editable entry, and still applies the rest of the folder', () => {
    const acl = [...LIVE_ACL, entry('User', 'u-carol', 'carol', ['readFiles', 'admin'], { isEditable: false, isDeletable: false })];
    const yaml = folderYaml(
      '/Distribution/Acme',
      'exact',
      `${ENTRIES}    - user: carol\n      permissions: [readFiles]\n    - user: bob\n      permissions: [listFiles]\n`,
    );
    const c = planFolder(yaml, acl);
    expect(c.action).toBe('update');
    expect(c.reason).toEqual({ code: 'entries-not-editable', principals: [{ type: 'User', name: 'carol' }], partial: true });
    expect(c.entries).toContainEqual(expect.objectContaining({ principal: { type: 'User', name: 'carol' }, action: 'blocked' }));
    expect(c.entries).toContainEqual(expect.objectContaining({ principal: { type: 'User', name: 'bob' }, action: 'create' }));
    expect(payload(c).set.map((s) => s.name)).toEqual(['bob']);
    expect(c.entries?.filter((e) => e.action !== 'no-op').map((e) => `${e.action} ${e.principal.name}`)).toEqual(['blocked carol', 'create bob']);
  });

  it('is blocked when the only difference is on a non-editable entry', () => {
    const acl = [entry('User', 'u-carol', 'carol', ['readFiles', 'admin'], { isEditable: false, isDeletable: false })];
    const c = planFolder(folderYaml('/Distribution/Acme', 'additive', '    - user: carol\n      permissions: [readFiles]\n'), acl);
    expect(c.action).toBe('blocked');
    expect(c.payload).toBeUndefined();
    expect(c.entries).toEqual([
      {
        principal: { type: 'User', name: 'carol' },
        action: 'blocked',
        reason: { code: 'entry-not-editable', principal: { type: 'User', name: 'carol' } },
        before: { permissions: ['readFiles', 'admin'], sharePermissions: [] },
        after: { permissions: ['readFiles'], sharePermissions: [] },
      },
    ]);
  });

  it('sets whole entries (every flag) with resolved ids', () => {
    const c = planFolder(
      folderYaml('/Distribution/Acme', 'additive', '    - user: bob\n      permissions: [listFiles]\n      sharePermissions: [readFiles]\n'),
      LIVE_ACL,
    );
    expect(payload(c).set).toEqual([
      {
        type: 'User',
        id: 'u-bob',
        name: 'bob',
        permissions: {
          readFiles: false,
          writeFiles: false,
          deleteFiles: false,
          listFiles: true,
          notify: false,
          addDeleteSubfolders: false,
          share: false,
          admin: false,
          listUsers: false,
          sharePermissions: { readFiles: true, writeFiles: false, deleteFiles: false, listFiles: false, notify: false, listUsers: false },
        },
      },
    ]);
  });

  it('fingerprints the folder by id and sorted entries', () => {
    const folder = { id: '42', name: 'Acme', path: '/Distribution/Acme' };
    const a = fingerprintFolder({ folder, acl: LIVE_ACL });
    expect(fingerprintFolder({ folder: { ...folder, lastContentChangeTime: 'now' }, acl: [...LIVE_ACL].reverse() })).toBe(a);
    expect(fingerprintFolder({ folder, acl: LIVE_ACL.slice(1) })).not.toBe(a);
    expect(fingerprintFolder({ folder: { ...folder, id: '43' }, acl: LIVE_ACL })).not.toBe(a);
  });

  it('reads 0/1 and "true" permission values as granted', () => {
    const views = viewEntries([
      { type: 'User', id: '1', name: 'x', permissions: { readFiles: 1 as unknown as boolean, listFiles: 'true' as unknown as boolean, writeFiles: false } },
    ]);
    expect(views[0]!.permissions).toEqual({ permissions: ['readFiles', 'listFiles'], sharePermissions: [] });
  });
});
