import { describe, expect, it } from 'vitest';
import type { LiveState, TransferLiveState } from '../../src/live/model.js';
import { checkTransferSteps, findTransferSteps, hostnameOf, isTransferHost } from '../../src/plan/cross-server.js';
import type { TransferHostMatch } from '../../src/plan/cross-server.js';
import type { Host } from '../../src/services/automation/types.js';
import { automationState, entry, HOSTS, manifestsFrom, planFrom, taskYaml, transferState } from '../resources/fixtures.js';

const XFER: Host = { type: 'siLock', ID: '13', Name: 'xfer', DefUsername: 'automation-svc' };
const SFTP_ON_XFER: Host = { type: 'SSHFTP', ID: '15', Name: 'xfer-sftp', Host: 'XFER.example.com', DefUsername: 'alice' };
const hosts = [...HOSTS.filter((h) => h.Name !== 'xfer'), XFER, SFTP_ON_XFER];
const MATCH: TransferHostMatch = { transferHosts: ['XFER'], transferHostname: 'xfer.example.com' };

const steps = (...lines: string[]) => taskYaml('T', `  steps:\n${lines.map((l) => `    - ${l}\n`).join('')}`);
const folderDoc = (path: string, body: string) => `---\napiVersion: mftops/v1\nkind: FolderPermissions\nmetadata: { name: ${path} }\nspec:\n${body}`;

/** Plan the manifests against this state and run the checks, as readAndPlan does. */
function check(yaml: string, transfer: TransferLiveState, match: TransferHostMatch = MATCH) {
  const manifests = manifestsFrom(yaml);
  const live: LiveState = { automation: automationState({ hosts }), transfer };
  const { plan } = planFrom(manifests, live, { cwd: '/work' });
  return checkTransferSteps({ steps: findTransferSteps(manifests, live.automation, match), live, changes: plan.changes, cwd: '/work' });
}

describe('which hosts are transfer hosts', () => {
  it("a host named in transferHosts (case aside), or one whose Host is the transfer URL's hostname; no other", () => {
    expect(isTransferHost(XFER, MATCH)).toBe(true);
    expect(isTransferHost(SFTP_ON_XFER, MATCH)).toBe(true);
    expect(isTransferHost(XFER, { transferHosts: [] })).toBe(false);
    expect(isTransferHost(SFTP_ON_XFER, { transferHosts: [], transferHostname: 'other.example.com' })).toBe(false);
    expect(hostnameOf('https://XFER.example.com:8443/base')).toBe('xfer.example.com');
    expect(hostnameOf('not a url')).toBeUndefined();
  });
});

describe('findTransferSteps', () => {
  it('takes Source and Destination steps on transfer hosts with a Path, with the account and the rights each needs', () => {
    const manifests = manifestsFrom(
      steps(
        '{ Source: { Host: xfer, Path: /In, DeleteOrig: 1 } }',
        '{ Source: { Host: xfer-sftp, Path: Out/, DeleteOrig: 2 } }',
        '{ Process: { Script: PGP Encrypt } }',
        '{ Destination: { Host: xfer, Path: /Drop, Username: bob } }',
        '{ Destination: { Host: xfer, Path: "/Drop/[yyyy]" } }',
        '{ Destination: { Host: payroll-sftp, Path: /in } }',
      ),
    );
    const found = findTransferSteps(manifests, automationState({ hosts }), MATCH);
    expect(found.map(({ index, kind, path, account, needs }) => ({ index, kind, path, account, needs }))).toEqual([
      { index: 0, kind: 'Source', path: '/In', account: 'automation-svc', needs: ['readFiles', 'listFiles', 'deleteFiles'] },
      { index: 1, kind: 'Source', path: '/Out', account: 'alice', needs: ['readFiles', 'listFiles'] },
      { index: 3, kind: 'Destination', path: '/Drop', account: 'bob', needs: ['writeFiles'] },
    ]);
  });
});

describe('checkTransferSteps', () => {
  const members = (names: Record<string, string[]>): TransferLiveState['groupMembers'] => ({ form: 'members', members: new Map(Object.entries(names)) });

  it("warns (MF415) at the step's Path about a folder that does not exist and is not created", () => {
    const r = check(steps('{ Destination: { Host: xfer, Path: /Gone, Username: bob } }'), transferState([], { missing: ['/Gone'] }));
    expect(r.diagnostics.map((d) => [d.severity, d.code, d.line, d.col])).toEqual([['warning', 'MF415', 7, 42]]);
    expect(r.checks).toEqual({
      checked: 1,
      problems: [
        {
          problem: 'missing-folder',
          address: 'Task/T',
          step: 0,
          stepKind: 'Destination',
          host: 'xfer',
          path: '/Gone',
          account: 'bob',
          source: { file: 'manifests/test.yaml', line: 7, col: 42 },
        },
      ],
    });
  });

  it("a folder the plan creates exists; it starts with its parent's entries when it inherits them", () => {
    const parent = { path: '/Parent', acl: [entry('User', 'u-bob', 'bob', ['writeFiles'])] };
    const create = (inherit: string) =>
      steps('{ Destination: { Host: xfer, Path: /Parent/New, Username: bob } }') +
      folderDoc('/Parent/New', `  createIfMissing: { inheritPermissions: ${inherit} }\n  mode: additive\n  entries: []\n`);
    expect(check(create('CopyOnly'), transferState([parent], { missing: ['/Parent/New'] })).diagnostics).toEqual([]);
    const none = check(create('None'), transferState([parent], { missing: ['/Parent/New'] }));
    expect(none.diagnostics.map((d) => d.code)).toEqual(['MF416']);
    expect(none.checks?.problems[0]).toMatchObject({ problem: 'missing-rights', missing: ['writeFiles'] });
  });

  it("a folder the plan renames to the step's path exists, with the renamed folder's entries", () => {
    const yaml =
      steps('{ Destination: { Host: xfer, Path: /Renamed, Username: bob } }') +
      folderDoc('/Renamed', '  mode: additive\n  entries: []\n').replace('metadata: { name: /Renamed }', 'metadata: { name: /Renamed, previousNames: [/Old] }');
    const r = check(yaml, transferState([{ path: '/Old', acl: [entry('User', 'u-bob', 'bob', ['writeFiles'])] }], { missing: ['/Renamed'] }));
    expect(r.diagnostics).toEqual([]);
  });

  it('counts the groups the account is in, and names a group whose members are unknown instead of guessing', () => {
    const acl = [entry('Group', '7', 'Acme Partners', ['readFiles', 'listFiles'])];
    const yaml = steps('{ Source: { Host: xfer, Path: /Box, Username: bob } }');
    const known = check(yaml, { ...transferState([{ path: '/Box', acl }]), groupMembers: members({ 'acme partners': ['bob'] }) });
    expect(known.diagnostics).toEqual([]);
    const notMember = check(yaml, { ...transferState([{ path: '/Box', acl }]), groupMembers: members({ 'acme partners': ['alice'] }) });
    expect(notMember.diagnostics.map((d) => d.summary)).toEqual([
      'account `bob` lacks readFiles, listFiles on /Box, which step 1 (Source) of task `T` on host `xfer` needs',
    ]);
    expect(notMember.checks?.groupsUncounted).toBeUndefined();
    const unknown = check(yaml, { ...transferState([{ path: '/Box', acl }]), groupMembers: { form: 'none', members: new Map() } });
    expect(unknown.diagnostics[0]?.detail).toContain('the members of `Acme Partners` could not be read');
    expect(unknown.checks?.groupsUncounted).toBe('membership-unreadable');
  });

  it('an account that is not a user of the transfer server, or no account at all, is a rights problem; unreadable users leave rights unchecked', () => {
    const acl = [entry('User', 'u-bob', 'bob', ['writeFiles'])];
    const stranger = check(steps('{ Destination: { Host: xfer, Path: /Box } }'), transferState([{ path: '/Box', acl }]));
    expect(stranger.diagnostics.map((d) => d.summary)).toEqual([
      'account `automation-svc` is not a user of the transfer server: step 1 (Destination) of task `T` on host `xfer` needs writeFiles on /Box',
    ]);
    expect(stranger.checks?.problems[0]).toMatchObject({ problem: 'unknown-account', account: 'automation-svc', missing: ['writeFiles'] });
    const none = check(steps('{ Destination: { Host: finance-share, Path: /Box } }'), transferState([{ path: '/Box', acl }]), {
      transferHosts: ['finance-share'],
    });
    expect(none.diagnostics.map((d) => d.summary)).toEqual([
      'host `finance-share` has no account (`DefUsername`) and the step no `Username`: step 1 (Destination) of task `T` on host `finance-share` needs writeFiles on /Box',
    ]);
    const { users: _users, ...noUsers } = transferState([{ path: '/Box', acl }]);
    const unreadable = check(steps('{ Destination: { Host: xfer, Path: /Box } }'), noUsers);
    expect(unreadable.diagnostics).toEqual([]);
    expect(unreadable.checks).toEqual({ checked: 1, problems: [], rightsUnchecked: 'users-unreadable' });
    // A step without any account needs no users list to be told it has none.
    const noneUnread = check(steps('{ Destination: { Host: finance-share, Path: /Box } }'), noUsers, { transferHosts: ['finance-share'] });
    expect(noneUnread.diagnostics.map((d) => d.code)).toEqual(['MF416']);
    expect(noneUnread.checks?.rightsUnchecked).toBeUndefined();
  });

  it('checks nothing when no step runs on a transfer host', () => {
    const r = check(steps('{ Destination: { Host: xfer, Path: /Gone } }'), transferState([], { missing: ['/Gone'] }), { transferHosts: [] });
    expect(r).toEqual({ diagnostics: [] });
  });
});
