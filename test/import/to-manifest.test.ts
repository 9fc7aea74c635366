import { describe, expect, it } from 'vitest';
import { aclToManifest, createImportCatalog, createSecretNamer, folderToManifest, taskToManifest } from '../../src/import/to-manifest.js';
import type { ImportCatalog } from '../../src/import/to-manifest.js';
import type { Task } from '../../src/services/automation/types.js';

const catalog: ImportCatalog = createImportCatalog({
  hosts: [
    { ID: '201001', Name: 'payroll-sftp', type: 'SSHFTP' },
    { ID: '201008', Name: 'xfer', type: 'siLock' },
  ],
  scripts: [{ ID: '301001', Name: 'PGP Encrypt' }],
  dateLists: [{ ID: '303001', Name: 'Bank Holidays 2026' }],
});

const spec = (task: Task) => taskToManifest(task, catalog, createSecretNamer()).document.spec as Record<string, any>;

describe('a task as a minimal manifest', () => {
  it('leaves out server-numbered, read-only and default-valued fields, and keeps Active', () => {
    const task: Task = {
      steps: [],
      ID: '401001',
      Name: 'Payroll to bank',
      NextEID: 7,
      Renamed: false,
      xRun: true,
      xAlter: true,
      Scheduled: true,
      Watched: false,
      TT: '',
      CacheNames: 'random',
      AR: 0,
      UseDefStateCaching: 0,
      Info: { Description: '', Notes: '' },
      NextActions: {},
      Parameters: {},
      Schedules: { Schedule: [] },
      Group: ['Finance'],
      Active: true,
    };
    const m = taskToManifest(task, catalog, createSecretNamer());
    expect(m.document).toEqual({ apiVersion: 'mftops/v1', kind: 'Task', metadata: { name: 'Payroll to bank' }, spec: { Active: 1, Group: ['Finance'] } });
    expect(m.notes).toEqual([]);
    expect(m.address).toBe('Task/Payroll to bank');
  });

  it('writes the fields that differ from the defaults in the schema order, whatever order the server used', () => {
    const s = spec({
      UseDefStateCaching: 1,
      steps: [{ Source: { Path: '/out', HostID: '201001' } }],
      Schedules: { Schedule: [{ Frequency: { Interval: [{ EndTime: '02:00', StartTime: '02:00' }] }, ID: '1' }] },
      Parameters: { Recipient: { value: 'bank@example.com' } },
      Info: { Notes: 'n', Description: 'd' },
      Group: ['Finance'],
      CacheNames: 'orig',
      AR: 1,
      Active: 0,
      Name: 'x',
    });
    expect(Object.keys(s)).toEqual(['Active', 'AR', 'CacheNames', 'Group', 'Info', 'Parameters', 'Schedules', 'steps', 'UseDefStateCaching']);
    expect(Object.keys(s.Info)).toEqual(['Description', 'Notes']);
    expect(Object.keys(s.steps[0].Source)).toEqual(['Host', 'Path']);
    expect(s.Schedules.Schedule[0]).toEqual({ Frequency: { Interval: [{ StartTime: '02:00', EndTime: '02:00' }] } });
  });

  it('turns ids into names and leaves out a step type that is its host type', () => {
    const s = spec({
      Name: 'Payroll to bank',
      Schedules: { Schedule: [{ DateListRef: [{ DateListID: '303001' }], Frequency: { Interval: [{ StartTime: '02:00', EndTime: '02:00' }] } }] },
      steps: [
        { Source: { ID: '2', HostID: '201001', Type: 'SSHFTP', Path: '/out' } },
        { Process: { ID: '3', ScriptID: '301001', Run: 'per-file' } },
        // The reference's spelling of the transfer-server type is the same type as siLock.
        { Destination: { ID: '4', HostID: '201008', Type: 'xferLock', Path: '/in' } },
        { Destination: { ID: '5', HostID: '201001', Type: 'FTP', Path: '/odd' } },
      ],
    });
    expect(s.Schedules.Schedule[0].DateListRef).toEqual(['Bank Holidays 2026']);
    expect(s.steps).toEqual([
      { Source: { Host: 'payroll-sftp', Path: '/out' } },
      { Process: { Script: 'PGP Encrypt', Run: 'per-file' } },
      { Destination: { Host: 'xfer', Path: '/in' } },
      { Destination: { Host: 'payroll-sftp', Type: 'FTP', Path: '/odd' } },
    ]);
  });

  it('keeps an id it cannot name, and says so', () => {
    const m = taskToManifest(
      {
        Name: 'x',
        steps: [{ Source: { HostID: '999', Path: '/' } }],
        Schedules: { Schedule: [{ DateListRef: [{ DateListID: '404' }], Frequency: { Interval: [{ StartTime: '01:00', EndTime: '01:00' }] } }] },
      },
      catalog,
      createSecretNamer(),
    );
    const s = m.document.spec as Record<string, any>;
    expect(s.steps[0].Source.HostID).toBe('999');
    expect(s.Schedules.Schedule[0].DateListRef).toBeUndefined();
    expect(m.notes).toEqual([
      'Schedules.Schedule[0].DateListRef: no date list has id 404; left out',
      'steps[0].Source.HostID: no host has id 999; kept as an id',
    ]);
  });

  it('writes the types the schema wants: 0/1 for flags read as booleans, numbers for numbers read as text', () => {
    // As a server or an export might answer: flags as booleans or text, numbers as text.
    const s = spec({
      Name: 'x',
      Active: 'true',
      steps: [{ Source: { HostID: '201001', DeleteOrig: '2', SearchSubdirs: true, RetryCount: '3', FileMask: '*' } }],
    } as unknown as Task);
    expect(s.Active).toBe(1);
    expect(s.steps[0].Source).toEqual({ Host: 'payroll-sftp', DeleteOrig: 2, SearchSubdirs: 1, RetryCount: 3, FileMask: '*' });
  });

  it('writes placeholders for secrets, with names unique across the import, and lists them', () => {
    const secrets = createSecretNamer();
    const suppressed = { value: '', DisplayValue: '(suppressed)' };
    const a = taskToManifest(
      {
        Name: 'Payroll to bank',
        Parameters: { ApiKey: suppressed, Recipient: { value: 'x' } },
        steps: [{ Source: { HostID: '201001', Password: '(suppressed)' } }, { Process: { ScriptID: '301001', Parameters: { Key: suppressed } } }],
      },
      catalog,
      secrets,
    );
    const b = taskToManifest({ Name: 'payroll-to-bank', Parameters: { ApiKey: suppressed } }, catalog, secrets);
    const c = taskToManifest({ Name: '2nd run', Parameters: { 'pass word': suppressed } }, catalog, secrets);
    const sa = a.document.spec as Record<string, any>;
    expect(sa.Parameters).toEqual({ ApiKey: { value: '${env:PAYROLL_TO_BANK_APIKEY}', secret: true }, Recipient: 'x' });
    expect(sa.steps[0].Source.Password).toBe('${env:PAYROLL_TO_BANK_STEP1_PASSWORD}');
    expect(sa.steps[1].Process.Parameters).toEqual({ Key: { value: '${env:PAYROLL_TO_BANK_STEP2_KEY}', secret: true } });
    expect((b.document.spec as Record<string, any>).Parameters.ApiKey.value).toBe('${env:PAYROLL_TO_BANK_APIKEY_2}');
    expect((c.document.spec as Record<string, any>).Parameters['pass word'].value).toBe('${env:MFTOPS_2ND_RUN_PASS_WORD}');
    expect(secrets.list()).toEqual([
      { variable: 'PAYROLL_TO_BANK_APIKEY', address: 'Task/Payroll to bank', field: 'Parameters.ApiKey' },
      { variable: 'PAYROLL_TO_BANK_STEP1_PASSWORD', address: 'Task/Payroll to bank', field: 'steps[0].Source.Password' },
      { variable: 'PAYROLL_TO_BANK_STEP2_KEY', address: 'Task/Payroll to bank', field: 'steps[1].Process.Parameters.Key' },
      { variable: 'PAYROLL_TO_BANK_APIKEY_2', address: 'Task/payroll-to-bank', field: 'Parameters.ApiKey' },
      { variable: 'MFTOPS_2ND_RUN_PASS_WORD', address: 'Task/2nd run', field: 'Parameters.pass word' },
    ]);
  });

  it('leaves out what a manifest cannot say, with a note: step kinds beyond Source/Process/Destination, unknown fields, other task types', () => {
    const m = taskToManifest(
      { Name: 'Legacy EDI router', TT: 'COS', steps: [{ Source: { HostID: '201001' } }, { For: { steps: [] } }] },
      catalog,
      createSecretNamer(),
    );
    expect(m.document.spec).toEqual({ Active: 1, TT: 'COS' });
    expect(m.notes).toEqual(['steps: For steps cannot be written in a manifest yet; the steps are left out (plan then leaves them as they are)']);
    const odd = taskToManifest({ Name: 'odd', TT: 'XYZ', steps: [{ Destination: { HostID: '201001', FileMask: '*.x' } }] }, catalog, createSecretNamer());
    expect(odd.document.spec).toEqual({ Active: 1, steps: [{ Destination: { Host: 'payroll-sftp' } }] });
    expect(odd.notes).toEqual([
      'TT: "XYZ" cannot be written in a manifest; left out',
      'steps[0].Destination.FileMask has no place in a manifest and is left out',
    ]);
  });
});

describe('ACLs and folders as manifests', () => {
  it('an ACL: the pair, the granted permissions in the canonical order, a label made of the pair', () => {
    const m = aclToManifest({
      ACLID: '501001',
      ResourceGroupName: 'Finance',
      UserGroupName: 'Finance Operators',
      Permissions: { TaskEditExisting: 1, TaskRun: true, TaskAddEditDelete: 0 },
    });
    expect(m.document).toEqual({
      apiVersion: 'mftops/v1',
      kind: 'ResourceGroupAcl',
      metadata: { name: 'finance-finance-operators' },
      spec: { resourceGroup: 'Finance', userGroup: 'Finance Operators', permissions: ['TaskRun', 'TaskEditExisting'] },
    });
    expect(m.address).toBe('ResourceGroupAcl/finance-finance-operators');
  });

  it('a folder: exact mode, every user and group entry (the non-editable owner too), other entry types noted', () => {
    const m = folderToManifest({
      folder: { id: '12', name: 'alice', path: '/Home/alice' },
      acl: [
        { type: 'User', id: 'u1', name: 'alice', permissions: { listFiles: true, readFiles: true, sharePermissions: { readFiles: true } }, isEditable: false },
        { type: 'Group', id: '3', name: 'Finance Team', permissions: { listFiles: true } },
        { type: 'Email', id: 'e1', name: 'x@example.com', permissions: {} },
      ],
    });
    expect(m.document.spec).toEqual({
      mode: 'exact',
      entries: [
        { user: 'alice', permissions: ['readFiles', 'listFiles'], sharePermissions: ['readFiles'] },
        { group: 'Finance Team', permissions: ['listFiles'] },
      ],
    });
    expect(m.notes).toEqual(['1 entry of type Email cannot be managed and is left out (plan never touches them)']);
    expect(m.address).toBe('FolderPermissions/Home/alice');
  });
});
