import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import {
  diffConfigs,
  diffSavedFolders,
  diffSnapshots,
  parseConfigXml,
  SENSITIVE,
  type ConfigDiff,
  type KindDiff,
  type SavedAclEntry,
  type SavedFolder,
} from '../../src/snapshot/index.js';
import { renderSnapshotDiffJson, renderSnapshotDiffText } from '../../src/render/snapshot.js';
import { getValueVocabulary } from '../../src/manifest/schemas.js';
import { testdir } from '../helpers/testdir.js';
import { startSeededEmulator } from '../integration/helpers.js';
import { clientsFor, KEY_HEX, saveFrom, type Clients } from './helpers.js';

const BASE = `<?xml version="1.0" encoding="UTF-8"?>
<Config Version="1" NextID="10">
  <Users><User Username="admin" Password="admin-USERSECRET"/></Users>
  <ACLs>
    <ACL ACLID="1" ResourceGroupName="Finance" UserGroupName="Operators"><Permissions TaskRun="1" TaskEditExisting="0"/></ACL>
    <ACL ACLID="2" ResourceGroupName="Partners" UserGroupName="Auditors"><Permissions TaskRun="0"/></ACL>
  </ACLs>
  <Hosts>
    <SSHFTP ID="5" Name="sftp" Host="a.example.com" DefPassword="sftp-HOSTSECRET"><Group>Finance</Group></SSHFTP>
    <FTP ID="6" Name="ftp" Host="f.example.com" DefPassword="ftp-HOSTSECRET"/>
  </Hosts>
  <Tasks>
    <Task ID="7" Name="Payroll" Active="1">
      <Group>Finance</Group>
      <Info Description="Nightly &amp; daily" Notes=""/>
      <Schedules><Schedule><Days><DayOfWeek>Monday</DayOfWeek><DayOfWeek>Friday</DayOfWeek></Days></Schedule></Schedules>
      <Parameters>
        <Parameter Name="Recipient" value="bank@example.com" Secret="0"/>
        <Parameter Name="ApiKey" value="api-PARAMSECRET" Secret="1"/>
      </Parameters>
      <Source ID="1" HostID="5" Path="/out"/>
      <Destination ID="2" HostID="6" Path="/in"/>
    </Task>
    <Task ID="8" Name="Cleanup" Active="1"><Source ID="1" HostID="5" Path="/tmp"/></Task>
  </Tasks>
</Config>
`;

const diffOf = (a: string, b: string): ConfigDiff => diffConfigs(parseConfigXml(a), parseConfigXml(b));
const kind = (d: ConfigDiff, k: KindDiff['kind']): KindDiff => d.kinds.find((x) => x.kind === k)!;

describe('diffConfigs (pure)', () => {
  it('finds nothing between an export and itself', () => {
    expect(diffOf(BASE, BASE).kinds).toEqual([
      { kind: 'task', added: [], removed: [], changed: [] },
      { kind: 'host', added: [], removed: [], changed: [] },
      { kind: 'resourceGroupAcl', added: [], removed: [], changed: [] },
    ]);
  });

  it('names tasks added, removed and changed, with attribute, child, list and step fields', () => {
    const b = BASE.replace('<Task ID="8" Name="Cleanup" Active="1"><Source ID="1" HostID="5" Path="/tmp"/></Task>', '<Task ID="9" Name="New one" Active="0"/>')
      .replace('Name="Payroll" Active="1"', 'Name="Payroll" Active="0"')
      .replace('Description="Nightly &amp; daily"', 'Description="Nightly &lt;only&gt;"')
      .replace('<DayOfWeek>Friday</DayOfWeek>', '<DayOfWeek>Tuesday</DayOfWeek>')
      .replace('Path="/in"', 'Path="/in2"');
    const tasks = kind(diffOf(BASE, b), 'task');
    expect(tasks.added).toEqual(['New one']);
    expect(tasks.removed).toEqual(['Cleanup']);
    expect(tasks.changed).toEqual([
      {
        name: 'Payroll',
        fields: [
          { path: 'Active', before: '1', after: '0' },
          { path: 'Info.Description', before: 'Nightly & daily', after: 'Nightly <only>' },
          { path: 'Schedules.Schedule.Days.DayOfWeek', before: 'Monday, Friday', after: 'Monday, Tuesday' },
          { path: 'Destination.Path', before: '/in', after: '/in2' },
        ],
      },
    ]);
  });

  it('shows a changed secret parameter and host password as (sensitive), and keys parameters by name', () => {
    const b = BASE.replace('api-PARAMSECRET', 'api-PARAMSECRET-2')
      .replace('sftp-HOSTSECRET', 'sftp-HOSTSECRET-2')
      .replace('bank@example.com', 'pay@example.com');
    const d = diffOf(BASE, b);
    expect(kind(d, 'task').changed[0]!.fields).toEqual([
      { path: 'Parameters.Parameter[Recipient].value', before: 'bank@example.com', after: 'pay@example.com' },
      { path: 'Parameters.Parameter[ApiKey].value', before: SENSITIVE, after: SENSITIVE },
    ]);
    expect(kind(d, 'host').changed).toEqual([{ name: 'sftp', fields: [{ path: 'DefPassword', before: SENSITIVE, after: SENSITIVE }] }]);
    expect(JSON.stringify(d)).not.toMatch(/SECRET/);
  });

  it('hides any other value that contains a secret, and a secret that was added', () => {
    const b = BASE.replace('Notes=""', 'Notes="password is ftp-HOSTSECRET"').replace(
      '<FTP ID="6" Name="ftp" Host="f.example.com" DefPassword="ftp-HOSTSECRET"/>',
      '<FTP ID="6" Name="ftp" Host="f.example.com" DefPassword="ftp-HOSTSECRET" Password="as2-OTHER-SECRET"/>',
    );
    const d = diffOf(BASE, b);
    expect(kind(d, 'task').changed[0]!.fields).toEqual([{ path: 'Info.Notes', before: '', after: SENSITIVE }]);
    expect(kind(d, 'host').changed).toEqual([{ name: 'ftp', fields: [{ path: 'Password', after: SENSITIVE }] }]);
  });

  it('compares hosts by name across a type change, and ACLs by resource group and user group', () => {
    const b = BASE.replace(
      '<FTP ID="6" Name="ftp" Host="f.example.com" DefPassword="ftp-HOSTSECRET"/>',
      '<SSHFTP ID="6" Name="ftp" Host="f.example.com" DefPassword="ftp-HOSTSECRET"/>',
    )
      .replace('<Permissions TaskRun="1" TaskEditExisting="0"/>', '<Permissions TaskRun="1" TaskEditExisting="1"/>')
      .replace(
        '<ACL ACLID="2" ResourceGroupName="Partners" UserGroupName="Auditors"><Permissions TaskRun="0"/></ACL>',
        '<ACL ACLID="3" ResourceGroupName="Partners" UserGroupName="Managers"><Permissions TaskRun="1"/></ACL>',
      );
    const d = diffOf(BASE, b);
    expect(kind(d, 'host').changed).toEqual([{ name: 'ftp', fields: [{ path: '(type)', before: 'FTP', after: 'SSHFTP' }] }]);
    expect(kind(d, 'resourceGroupAcl')).toEqual({
      kind: 'resourceGroupAcl',
      added: ['Partners / Managers'],
      removed: ['Partners / Auditors'],
      changed: [{ name: 'Finance / Operators', fields: [{ path: 'Permissions.TaskEditExisting', before: '0', after: '1' }] }],
    });
  });
});

describe('diffSavedFolders (pure)', () => {
  const entry = (type: string, id: string, permissions: Record<string, unknown>, name?: string): SavedAclEntry => ({
    type,
    id,
    ...(name ? { name } : {}),
    permissions,
  });
  const folder = (path: string, entries: SavedAclEntry[], id: string | null = '1'): SavedFolder => ({ path, id, entries });

  it('compares folders by path as the server does, and entries by principal with the permissions as sets', () => {
    const a = [
      folder('/Partners/Acme', [
        entry('Group', '10', { listFiles: true, readFiles: true }, 'Acme Partners'),
        entry('User', '20', { readFiles: true, writeFiles: false, sharePermissions: { readFiles: false } }, 'alice'),
        entry('User', '30', { listFiles: 1 }),
      ]),
      folder('/Old', []),
      folder('/Same', [entry('User', '20', { listFiles: true, readFiles: true }, 'alice')]),
    ];
    const b = [
      folder('/partners/acme/', [
        entry('User', '20', { readFiles: true }, 'alice'),
        entry('User', '30', { listFiles: true, deleteFiles: true, sharePermissions: { readFiles: true } }),
        entry('User', '40', { readFiles: true }, 'bob'),
      ]),
      folder('/Same', [entry('User', '20', { readFiles: 'true', listFiles: true }, 'alice')]),
      folder('/New', []),
    ];
    const diff = diffSavedFolders(a, b);
    expect(diff).toEqual({
      compared: 2,
      onlyInA: ['/Old'],
      onlyInB: ['/New'],
      changed: [
        {
          path: '/partners/acme/',
          added: [{ type: 'User', id: '40', name: 'bob', permissions: ['readFiles'], sharePermissions: [] }],
          removed: [{ type: 'Group', id: '10', name: 'Acme Partners', permissions: ['readFiles', 'listFiles'], sharePermissions: [] }],
          changed: [
            {
              type: 'User',
              id: '30',
              before: { permissions: ['listFiles'], sharePermissions: [] },
              after: { permissions: ['deleteFiles', 'listFiles'], sharePermissions: ['readFiles'] },
            },
          ],
        },
      ],
    });

    const text = renderSnapshotDiffText({
      a: { env: 'lab', id: 'A' },
      b: { env: 'lab', id: 'B' },
      automationNotCompared: 'snapshot lab/A holds no automation export',
      folders: diff,
    });
    expect(text).toBe(
      [
        'Snapshot diff lab/A → lab/B',
        '',
        'Automation configuration: not compared (snapshot lab/A holds no automation export)',
        'Folder ACLs: 1 changed (2 folder(s) saved in both snapshots)',
        '  ~ /partners/acme/',
        '      + User bob: readFiles',
        '      - Group Acme Partners: readFiles, listFiles',
        '      ~ User 30: listFiles → deleteFiles, listFiles; share: readFiles',
        '  < /Old: saved only in A',
        '  > /New: saved only in B',
        '',
        '0 added, 0 removed, 1 changed. 2 folder(s) saved in one snapshot only.',
        '',
      ].join('\n'),
    );
  });

  it('says when a folder did not exist when one snapshot was taken', () => {
    const diff = diffSavedFolders([folder('/Later', [], null)], [folder('/Later', [entry('User', '20', {}, 'alice')], '5')]);
    expect(diff.changed).toEqual([
      { path: '/Later', absentIn: 'a', added: [{ type: 'User', id: '20', name: 'alice', permissions: [], sharePermissions: [] }], removed: [], changed: [] },
    ]);
    expect(renderSnapshotDiffText({ a: { env: 'lab', id: 'A' }, b: { env: 'lab', id: 'B' }, kinds: [], folders: diff })).toContain(
      '  ~ /Later (the folder did not exist when A was taken)\n      + User alice: (no permissions)\n',
    );
    expect(diffSavedFolders([folder('/Gone', [], null)], [folder('/Gone', [], null)]).changed).toEqual([]);
  });
});

describe('diffSnapshots against the emulator', () => {
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

  it('names exactly the tasks, hosts and ACLs changed between two snapshots, and never a secret', async () => {
    const dir = testdir({});
    const processEnv = { MFTOPS_SNAPSHOT_KEY: KEY_HEX };
    const a = await saveFrom(emulator, clients, dir, { folders: [], processEnv, now: new Date('2026-06-01T00:00:00.000Z') });

    const scratch = join(testdir({}), 'now.xml');
    await clients.automation.exportConfig(scratch);
    await clients.automation.importConfig(
      readFileSync(scratch, 'utf8').replace('Desc="Globex FTPS server"', 'Desc="Globex FTPS (new)"').replace('globex-SEEDSECRET-5', 'globex-NEWSECRET-5'),
    );
    const tasks = await clients.automation.listTasks();
    const payroll = tasks.find((t) => t.Name === 'Payroll to bank')!;
    await clients.automation.updateTask(payroll.ID!, { ...payroll, Active: 0 });
    await clients.automation.deleteTask(tasks.find((t) => t.Name === 'Nightly cleanup')!.ID!);
    const fs = (await clients.automation.listHosts()).find((h) => h.Name === 'local-fs')!;
    await clients.automation.createTask({
      Name: 'Archive sweep',
      Group: ['Operations'],
      Active: 1,
      steps: [{ Source: { HostID: fs.ID, Type: fs.type, Path: 'D:\\y', FileMask: '*' } }],
    });
    const acls = await clients.automation.listResourceGroupAcls();
    await clients.automation.updateResourceGroupAcl(acls.find((x) => x.ResourceGroupName === 'Finance')!.ACLID, {
      Permissions: { TaskRun: 0, TaskEditExisting: 1 },
    });
    await clients.automation.deleteResourceGroupAcl(acls.find((x) => x.ResourceGroupName === 'Operations')!.ACLID);

    const b = await saveFrom(emulator, clients, dir, { folders: [], processEnv, now: new Date('2026-06-02T00:00:00.000Z') });
    const diff = diffSnapshots(dir, a.id, 'latest', { env: 'lab', processEnv });
    expect(diff.a).toEqual({ env: 'lab', id: a.id });
    expect(diff.b).toEqual({ env: 'lab', id: b.id });
    expect(diff.kinds).toEqual([
      {
        kind: 'task',
        added: ['Archive sweep'],
        removed: ['Nightly cleanup'],
        changed: [{ name: 'Payroll to bank', fields: [{ path: 'Active', before: '1', after: '0' }] }],
      },
      {
        kind: 'host',
        added: [],
        removed: [],
        changed: [
          {
            name: 'globex-ftp',
            fields: [
              { path: 'Desc', before: 'Globex FTPS server', after: 'Globex FTPS (new)' },
              { path: 'DefPassword', before: SENSITIVE, after: SENSITIVE },
            ],
          },
        ],
      },
      {
        kind: 'resourceGroupAcl',
        added: [],
        removed: ['Operations / Auditors'],
        changed: [{ name: 'Finance / Finance Operators', fields: [{ path: 'Permissions.TaskRun', before: '1', after: '0' }] }],
      },
    ]);

    // Values as plan says them: a task flag and an ACL permission as true/false, other text quoted.
    const text = renderSnapshotDiffText(diff, { task: getValueVocabulary('Task') });
    const json = renderSnapshotDiffJson(diff);
    for (const out of [text, json]) {
      expect(out).not.toMatch(/SEEDSECRET|NEWSECRET|Pa55!seed/);
    }
    expect(text).toContain(`Snapshot diff lab/${a.id} → lab/${b.id}`);
    expect(text).toContain('Tasks: 1 added, 1 removed, 1 changed\n  + Archive sweep\n  - Nightly cleanup\n  ~ Payroll to bank\n      Active: true → false\n');
    expect(text).toContain('      Desc: "Globex FTPS server" → "Globex FTPS (new)"\n');
    expect(text).toContain('  ~ Finance / Finance Operators\n      Permissions.TaskRun: true → false\n');
    expect(text).toContain('      DefPassword: (sensitive) → (sensitive)\n');
    expect(text).toContain('Resource-group ACLs: 1 removed, 1 changed\n');
    expect(text.trimEnd().split('\n').at(-1)).toBe('1 added, 2 removed, 3 changed.');
    expect(JSON.parse(json)).toEqual({ formatVersion: 1, kind: 'mftops.snapshot.diff', ...JSON.parse(JSON.stringify(diff)) });

    const none = renderSnapshotDiffText(diffSnapshots(dir, b.id, b.id, { env: 'lab', processEnv }));
    expect(none).toContain(
      'Tasks: no changes\nHosts: no changes\nResource-group ACLs: no changes\nFolder ACLs: no changes (0 folder(s) saved in both snapshots)\nUsers: no changes\nGroups: no changes\n\nNo differences in tasks, hosts, resource-group ACLs, folder ACLs, users or groups.\n',
    );
  });
});
