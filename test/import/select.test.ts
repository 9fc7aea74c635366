import { describe, expect, it } from 'vitest';
import type { ImportSelection, ImportSource } from '../../src/import/model.js';
import { checkSelection, findUnmatchedScope, importObjects } from '../../src/import/select.js';
import type { LiveFolder } from '../../src/live/model.js';

const folder = (path: string, entries: LiveFolder['acl'] = []): LiveFolder => ({ folder: { id: path, name: path.split('/').pop() ?? '', path }, acl: entries });
const alice = { type: 'User', id: 'u1', name: 'alice', permissions: { listFiles: true } };

const source: ImportSource = {
  origin: 'test',
  tasks: [
    { Name: 'Payroll to bank', Group: ['Finance'] },
    { Name: 'Bank statements in', Group: ['finance'] },
    { Name: 'Acme outbound', Group: ['Partners'] },
    { Name: 'Nightly cleanup', Group: ['Operations'] },
  ],
  hosts: [],
  scripts: [],
  dateLists: [],
  acls: [
    { ACLID: '1', ResourceGroupName: 'Finance', UserGroupName: 'Finance Operators', Permissions: {} },
    { ACLID: '2', ResourceGroupName: 'Partners', UserGroupName: 'Partner Managers', Permissions: {} },
  ],
  folders: [
    folder('/Distribution'),
    folder('/Distribution/Acme/Outbound', [alice]),
    folder('/Distribution/Acme/Inbound', [alice]),
    folder('/Finance', [alice]),
  ],
};

function select(s: Partial<ImportSelection> & Pick<ImportSelection, 'kinds'>, from: ImportSource = source): string[] {
  return importObjects(from, { all: false, scope: { taskGroups: ['Finance'], folders: ['/Distribution'] }, ...s }).manifests.map((m) => m.address);
}

describe('what an import takes', () => {
  it('by default, the scope: tasks and ACLs of its task groups, folders with entries below its folders', () => {
    expect(select({ kinds: ['Task', 'ResourceGroupAcl', 'FolderPermissions'] })).toEqual([
      'Task/Bank statements in',
      'Task/Payroll to bank',
      'ResourceGroupAcl/finance-finance-operators',
      'FolderPermissions/Distribution/Acme/Inbound',
      'FolderPermissions/Distribution/Acme/Outbound',
    ]);
  });

  it('with --all, everything the account sees', () => {
    expect(select({ kinds: ['Task'], all: true })).toHaveLength(4);
    expect(select({ kinds: ['FolderPermissions'], all: true })).toEqual([
      'FolderPermissions/Distribution/Acme/Inbound',
      'FolderPermissions/Distribution/Acme/Outbound',
      'FolderPermissions/Finance',
    ]);
  });

  it('with --name, the automation name masks for tasks and ACLs, a path glob for folders, whatever the scope', () => {
    expect(select({ kinds: ['Task'], name: '*bank*' })).toEqual(['Task/Bank statements in', 'Task/Payroll to bank']);
    expect(select({ kinds: ['Task'], name: 'acme*' })).toEqual(['Task/Acme outbound']);
    expect(select({ kinds: ['ResourceGroupAcl'], name: 'partner managers' })).toEqual(['ResourceGroupAcl/partners-partner-managers']);
    expect(select({ kinds: ['FolderPermissions'], name: '/Distribution/*/Outbound' })).toEqual(['FolderPermissions/Distribution/Acme/Outbound']);
    expect(select({ kinds: ['FolderPermissions'], name: '/**' })).toHaveLength(3);
  });

  it('a folder asked for by its exact path even without entries; a walked folder without entries never', () => {
    expect(select({ kinds: ['FolderPermissions'], name: '/Distribution' }, { ...source, exactFolders: ['/distribution'] })).toEqual([
      'FolderPermissions/Distribution',
    ]);
  });

  it('refuses to guess when there is no scope, no --name and no --all', () => {
    const none = { taskGroups: [], folders: [] };
    expect(() => checkSelection({ kinds: ['Task'], all: false, scope: none }, 'prod')).toThrow(
      'environment "prod" has no scope.taskGroups: pass --name PATTERN, or --all to import every Task the account can see',
    );
    expect(() => checkSelection({ kinds: ['FolderPermissions'], all: false, scope: none }, 'prod')).toThrow(/no scope\.folders/);
    expect(() => checkSelection({ kinds: ['Task'], all: true, scope: none }, 'prod')).not.toThrow();
  });
});

describe('folders whose path would not validate (MF324)', () => {
  it('are skipped, each named with why; the others are imported', () => {
    const from: ImportSource = { ...source, folders: [...source.folders, folder('/Distribution/..', [alice]), folder('/Distribution/a:b/', [alice])] };
    const result = importObjects(from, { kinds: ['FolderPermissions'], all: false, scope: { taskGroups: [], folders: ['/Distribution'] } });
    expect(result.manifests.map((m) => m.address)).toEqual(['FolderPermissions/Distribution/Acme/Inbound', 'FolderPermissions/Distribution/Acme/Outbound']);
    expect(result.skipped).toEqual([
      'folder "/Distribution/.." not imported (MF324): it has a folder named `..`, which the server would create as such rather than stay or go up',
      'folder "/Distribution/a:b/" not imported (MF324): the name `a:b` holds `:`, which a folder name cannot (\\ : * ? " < > |)',
    ]);
  });
});

describe('scope entries an import finds nothing for', () => {
  const scope = { taskGroups: ['finance', 'Operations', 'Reports', 'Audit'], folders: ['/Distribution', '/distribution/acme', '/Reports', '/Empty'] };
  const withAudit: ImportSource = {
    ...source,
    acls: [...source.acls, { ACLID: '3', ResourceGroupName: 'Audit', UserGroupName: 'Auditors', Permissions: {} }],
    folders: [...source.folders, folder('/Empty'), folder('/Empty/Sub')],
  };
  const unmatched = (kinds: ImportSelection['kinds'], extra: Partial<ImportSelection> = {}) =>
    findUnmatchedScope(withAudit, { kinds, all: false, scope, ...extra }).map((u) => `${u.key}[${u.index}] ${u.entry}: ${u.why}`);

  it('names each entry once, in scope order, with what it matched none of (case aside, as the selection matches)', () => {
    expect(unmatched(['Task', 'ResourceGroupAcl', 'FolderPermissions'])).toEqual([
      // Operations has a task and no ACL: it matches. Audit has an ACL but no task: the import brings none of its tasks.
      'taskGroups[2] Reports: matches no task and no resource-group ACL',
      'taskGroups[3] Audit: matches no task',
      'folders[2] /Reports: matches no folder: there is no such folder, or this account cannot see it',
      'folders[3] /Empty: matches no folder with user or group entries (none of its 2 folders has any)',
    ]);
  });

  it('looks only at the parts of the scope the kinds read', () => {
    expect(unmatched(['ResourceGroupAcl'])).toEqual([
      'taskGroups[1] Operations: matches no resource-group ACL',
      'taskGroups[2] Reports: matches no resource-group ACL',
    ]);
    expect(unmatched(['FolderPermissions'])).toHaveLength(2);
  });

  it('says nothing when --name or --all replaces the scope', () => {
    expect(unmatched(['Task', 'FolderPermissions'], { name: 'x' })).toEqual([]);
    expect(unmatched(['Task', 'FolderPermissions'], { all: true })).toEqual([]);
  });

  it('says "not saved" for a snapshot, which holds only some folders', () => {
    const snap = findUnmatchedScope(
      { ...withAudit, origin: 'snapshot lab/2026-11-27T08-00-00Z' },
      { kinds: ['FolderPermissions'], all: false, scope: { taskGroups: [], folders: ['/Reports'] } },
    );
    expect(snap.map((u) => u.why)).toEqual(['matches no folder saved in snapshot lab/2026-11-27T08-00-00Z']);
  });
});

describe('importObjects and server text that reads as a reference', () => {
  it('leaves out, with a warning, an object whose server text would load as a ${env:}/${file:}/${var:} reference; a placeholder import puts is kept', () => {
    const from: ImportSource = {
      ...source,
      tasks: [
        { Name: 'Payroll to bank', Group: ['Finance'], Info: { Description: '${env:MFT_TRANSFER_PASSWORD}' } },
        { Name: 'Bank statements in', Group: ['Finance'], Info: { Description: 'see $${var:escaped}' } },
        { Name: 'Finance report', Group: ['Finance'], Info: { Notes: 'x ${file:/etc/passwd}' } },
      ],
    };
    const result = importObjects(from, { kinds: ['Task'], all: false, scope: { taskGroups: ['Finance'], folders: [] } });
    expect(result.manifests.map((m) => m.address)).toEqual(['Task/Bank statements in']);
    expect(result.skipped).toEqual([
      "Task/Finance report not imported: the server's value holds `${…}`, which a manifest reads as a variable or secret reference: not written into a manifest (write it by hand, escaped as `$${var:…}` where meant)",
      "Task/Payroll to bank not imported: the server's value holds `${…}`, which a manifest reads as a variable or secret reference: not written into a manifest (write it by hand, escaped as `$${var:…}` where meant)",
    ]);
  });
});
