import { describe, expect, it } from 'vitest';
import { planAdoption } from '../../src/adopt/plan-adoption.js';
import type { AdoptionInput } from '../../src/adopt/plan-adoption.js';
import { assembleDrift } from '../../src/drift/assemble-drift.js';
import { aclToManifest } from '../../src/import/to-manifest.js';
import { schemaKeyOrder } from '../../src/manifest/canonical-form.js';
import type { LiveState } from '../../src/live/model.js';
import { parseManifestFile } from '../../src/manifest/parse.js';
import { validateParsedFiles } from '../../src/manifest/validate.js';
import { assemblePlan } from '../../src/plan/assemble-plan.js';
import type { Change } from '../../src/plan/model.js';

const NOW = new Date('2026-11-27T12:00:00Z');
const CWD = '/work/repo';

const TASKS = `# Finance tasks.
apiVersion: mftops/v1
kind: Task
metadata:
  name: Payroll to bank
spec:
  Active: true  # paused only by change request
  Group: [Finance]
  Info:
    Description: Nightly payroll file to the bank
  steps:
    - Source: { Host: payroll-sftp, Path: /out, FileMask: "\${var:MASK}" }
    - Destination: { Host: bank-as2, Path: /in }
---
apiVersion: mftops/v1
kind: Task
metadata:
  name: Month-end report
spec:
  Active: 1
  Group: [Finance]
  steps:
    - Source:
        Host: payroll-sftp
        Path: /reports
        Criteria: { comp: [{ a: "[FileDate]", b: "[Today-30]", test: DLT }] }
`;

const FOLDERS = `apiVersion: mftops/v1
kind: FolderPermissions
metadata: { name: /Finance/Payroll }
spec:
  mode: exact
  entries:
    - group: Finance Team  # the whole team reads
      permissions: [listFiles, readFiles]
    - user: carol
      permissions: [listFiles, readFiles, writeFiles]
      sharePermissions: [readFiles]
`;

const ACL = `apiVersion: mftops/v1
kind: ResourceGroupAcl
metadata: { name: finance-operators }
spec:
  resourceGroup: Finance
  userGroup: Finance Operators
  permissions: [TaskRun]
`;

const PATCHES = `apiVersion: mftops/v1
kind: Patch
metadata: { name: month-end words, environments: [prod] }
spec:
  target: { kind: Task, name: Month-end report }
  patch:
    Info: { Description: Patched words }
`;

const GROUPS = `apiVersion: mftops/v1
kind: Group
metadata: { name: Auditors }
spec:
  mode: exact
  members:
    - alice  # the lead auditor
    - bob
`;

const FILES: Record<string, string> = {
  [`${CWD}/manifests/tasks.yaml`]: TASKS,
  [`${CWD}/manifests/folders.yaml`]: FOLDERS,
  [`${CWD}/manifests/acl.yaml`]: ACL,
  [`${CWD}/manifests/patches.yaml`]: PATCHES,
  [`${CWD}/manifests/groups.yaml`]: GROUPS,
};

function loaded() {
  const parsed = Object.entries(FILES).map(([file, text]) => parseManifestFile(file, text));
  const set = validateParsedFiles(parsed, undefined, { name: 'prod', vars: { MASK: '*.csv' }, known: ['prod'] });
  expect(set.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  return set.manifests;
}

function task(name: string, action: Change['action'], fields: Change['fields']): Change {
  return { address: `Task/${name}`, kind: 'Task', name, service: 'automation', action, ...(action === 'create' ? {} : { liveId: '1' }), fields };
}

function adopt(changes: Change[], extra: Partial<AdoptionInput> = {}) {
  const plan = assemblePlan({ toolVersion: 't', createdAt: NOW.toISOString(), environment: 'prod', servers: {}, manifestDigest: 'sha256:0' }, changes, false);
  const live: LiveState = extra.live ?? {};
  const report = assembleDrift({ plan, live, prune: [], ignore: [], now: NOW });
  return planAdoption({
    report,
    manifests: loaded(),
    texts: new Map(Object.entries(FILES)),
    live,
    cwd: CWD,
    newManifest: () => undefined,
    keyOrder: schemaKeyOrder,
    ...extra,
  });
}

describe('planAdoption', () => {
  it("a group's members are a set (the kind's nameSets): a member added on the server is appended, one removed goes by name, comments kept", () => {
    const out = adopt([
      {
        address: 'Group/Auditors',
        kind: 'Group',
        name: 'Auditors',
        service: 'transfer',
        action: 'update',
        liveId: '7',
        fields: [
          { path: 'members', after: 'bob' },
          { path: 'members', before: 'dave' },
        ],
      },
    ]);
    expect(out.refused).toEqual([]);
    expect(out.files.map((f) => f.after)).toEqual([GROUPS.replace('    - bob\n', '    - dave\n')]);
    expect(out.files[0]!.objects[0]!.paths).toEqual(['members: bob', 'members: dave']);
  });

  it('sets only the fields that drifted, keeps comments, and writes a flag the way the manifest writes it', () => {
    const out = adopt([
      task('Payroll to bank', 'update', [
        { path: 'Active', before: 0, after: 1 },
        { path: 'Info.Description', before: 'Payroll, fixed at 2 a.m.', after: 'Nightly payroll file to the bank' },
      ]),
    ]);
    expect(out.refused).toEqual([]);
    expect(out.files.map((f) => f.file)).toEqual([`${CWD}/manifests/tasks.yaml`]);
    const after = out.files[0]!.after!;
    expect(after).toContain('  Active: false  # paused only by change request\n');
    expect(after).toContain('    Description: Payroll, fixed at 2 a.m.\n');
    expect(after.replace('Active: false', 'Active: true').replace('Payroll, fixed at 2 a.m.', 'Nightly payroll file to the bank')).toBe(TASKS);
    expect(out.files[0]!.objects).toEqual([
      { address: 'Task/Payroll to bank', kind: 'Task', drift: 'changed', outcome: 'changed', paths: ['Active', 'Info.Description'] },
    ]);
  });

  it('refuses a field written as ${var:NAME}, naming the variable, and adopts the others', () => {
    const out = adopt([
      task('Payroll to bank', 'update', [
        { path: 'steps[0].Source.FileMask', before: '*.txt', after: '*.csv' },
        { path: 'steps[1].Destination.Path', before: '/incoming', after: '/in' },
      ]),
    ]);
    expect(out.refused).toEqual([
      {
        address: 'Task/Payroll to bank',
        path: 'steps[0].Source.FileMask',
        why: 'variable',
        reason: 'written as ${var:MASK}: change the variable in mftops.yaml or write the value in the manifest by hand',
      },
    ]);
    expect(out.files[0]!.after).toContain('FileMask: "${var:MASK}"');
    expect(out.files[0]!.after).toContain('- Destination: { Host: bank-as2, Path: /incoming }');
  });

  it('refuses a field a kind: Patch gives, naming the patch file and line', () => {
    const out = adopt([task('Month-end report', 'update', [{ path: 'Info.Description', before: 'Server words', after: 'Patched words' }])]);
    expect(out.files).toEqual([]);
    expect(out.refused).toEqual([
      {
        address: 'Task/Month-end report',
        path: 'Info.Description',
        why: 'patch',
        reason: 'the kind: Patch at manifests/patches.yaml:7 gives this value: adopt it in the patch by hand',
      },
    ]);
  });

  it('never writes a secret: a live value holding one is "changed on the server, not adoptable"', () => {
    const out = adopt([
      task('Payroll to bank', 'update', [{ path: 'steps[2]', before: { Destination: { Host: 'bank-as2', Password: { $sensitive: true } } } }]),
    ]);
    expect(out.files).toEqual([]);
    expect(out.refused).toEqual([
      { address: 'Task/Payroll to bank', path: 'steps[2]', why: 'secret', reason: 'holds a secret: changed on the server, not adoptable' },
    ]);
  });

  it('appends a list item the server has and deletes one it lacks; a list left empty goes with its map', () => {
    const out = adopt([
      task('Payroll to bank', 'update', [{ path: 'steps[2]', before: { Destination: { Host: 'archive', Path: '/copy' } } }]),
      task('Month-end report', 'update', [{ path: 'steps[0].Source.Criteria.comp[0]', after: { a: '[FileDate]', b: '[Today-30]', test: 'DLT' } }]),
    ]);
    expect(out.refused).toEqual([]);
    const after = out.files[0]!.after!;
    expect(after).toMatch(/- Destination:[\s{]+Host: archive,?\s+Path: \/copy/);
    expect(after).not.toContain('Criteria');
    expect(after).toContain('        Path: /reports\n');
  });

  it('removes the document of an object deleted on the server, and the file when it was the only one', () => {
    const acl: Change = {
      address: 'ResourceGroupAcl/finance-operators',
      kind: 'ResourceGroupAcl',
      name: 'finance-operators',
      service: 'automation',
      action: 'create',
      fields: [{ path: 'permissions', after: ['TaskRun'] }],
    };
    const out = adopt([task('Payroll to bank', 'create', []), acl]);
    expect(out.refused).toEqual([]);
    const tasks = out.files.find((f) => f.file.endsWith('tasks.yaml'))!;
    expect(tasks.after).not.toContain('Payroll to bank');
    expect(tasks.after).toContain('name: Month-end report');
    expect(tasks.objects[0]!.outcome).toBe('removed');
    expect(out.files.find((f) => f.file.endsWith('acl.yaml'))!.after).toBeUndefined();
  });

  it('refuses to remove a document a kind: Patch still targets', () => {
    const out = adopt([task('Month-end report', 'create', [])]);
    expect(out.files).toEqual([]);
    expect(out.refused[0]).toMatchObject({ address: 'Task/Month-end report', why: 'patch' });
    expect(out.refused[0]!.reason).toContain('manifests/patches.yaml:');
  });

  it('folder entries: permissions as on the server, an entry the server lacks removed, one it has added', () => {
    const folder: Change = {
      address: 'FolderPermissions/Finance/Payroll',
      kind: 'FolderPermissions',
      name: '/Finance/Payroll',
      service: 'transfer',
      action: 'update',
      liveId: '7',
      fields: [],
      entries: [
        { principal: { type: 'Group', name: 'Finance Team' }, action: 'create', after: { permissions: ['listFiles', 'readFiles'], sharePermissions: [] } },
        {
          principal: { type: 'User', name: 'carol' },
          action: 'update',
          before: { permissions: ['listFiles', 'readFiles'], sharePermissions: [] },
          after: { permissions: ['listFiles', 'readFiles', 'writeFiles'], sharePermissions: ['readFiles'] },
        },
        { principal: { type: 'User', name: 'dana' }, action: 'delete', before: { permissions: ['listFiles'], sharePermissions: [] } },
      ],
    };
    const out = adopt([folder]);
    expect(out.refused).toEqual([]);
    const after = out.files[0]!.after!;
    expect(after).not.toContain('Finance Team');
    expect(after).toMatch(/- user: carol\n\s+permissions: \[listFiles, readFiles\]\n/);
    expect(after).not.toContain('sharePermissions');
    expect(after).toMatch(/- user: dana\n\s+permissions:/);
    expect(out.files[0]!.objects[0]!.paths).toEqual(['entries.group:Finance Team', 'entries.user:carol', 'entries.user:dana']);
  });

  it('an object created on the server becomes a new manifest as import writes it', () => {
    const acl = { ACLID: '501009', ResourceGroupName: 'Finance', UserGroupName: 'Auditors', Permissions: { TaskRun: 1 } };
    const live = { automation: { acls: new Map([['finance\u0000auditors', acl]]) } } as unknown as LiveState;
    const unmanaged: Change = {
      address: 'ResourceGroupAcl/Finance/Auditors',
      kind: 'ResourceGroupAcl',
      name: 'Finance/Auditors',
      service: 'automation',
      action: 'delete',
      liveId: '501009',
      reason: { code: 'pruned', kind: 'ResourceGroupAcl', scope: ['Finance'] },
      fields: [],
      payload: { kind: 'ResourceGroupAcl', resourceGroup: 'Finance', userGroup: 'Auditors', permissions: [] } as never,
    };
    const out = adopt([unmanaged], { live, newManifest: (o) => (o.liveId === acl.ACLID ? aclToManifest(acl as never) : undefined) });
    expect(out.refused).toEqual([]);
    expect(out.created.map((c) => [c.address, c.manifest.address, c.manifest.document])).toEqual([
      [
        'ResourceGroupAcl/Finance/Auditors',
        'ResourceGroupAcl/finance-auditors',
        {
          apiVersion: 'mftops/v1',
          kind: 'ResourceGroupAcl',
          metadata: { name: 'finance-auditors' },
          spec: { resourceGroup: 'Finance', userGroup: 'Auditors', permissions: ['TaskRun'] },
        },
      ],
    ]);
  });

  it('with addresses: adopts only those; an unknown one is refused, one in sync is said to be', () => {
    const out = adopt(
      [
        task('Payroll to bank', 'update', [{ path: 'Info.Description', before: 'x', after: 'Nightly payroll file to the bank' }]),
        task('Month-end report', 'no-op', []),
      ],
      { addresses: ['Task/Month-end report', 'Task/Nope'] },
    );
    expect(out.files).toEqual([]);
    expect(out.inSync).toEqual(['Task/Month-end report']);
    expect(out.refused).toEqual([{ address: 'Task/Nope', why: 'unknown', reason: 'names no drifted, unmanaged or managed object of this environment' }]);
  });
});
