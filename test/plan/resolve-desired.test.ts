import { describe, expect, it } from 'vitest';
import { resolveDesired } from '../../src/plan/resolve-desired.js';
import { MANIFEST_FILE, automationState, manifestsFrom, taskYaml, transferState } from '../resources/fixtures.js';

const BROKEN = [
  taskYaml(
    'Broken task',
    `  Group: [Finanse]
  Schedules:
    Schedule:
      - DateListRef: [Bank Holiday]
        Frequency: { Interval: [{ StartTime: "02:00", EndTime: "02:00" }] }
  steps:
    - Source: { Host: payrol-sftp, Path: /out }
    - Process: { Script: PGP Encrypt, Run: per-file }
    - Process: { Script: Checksun }
    - Destination: { Host: bank-as2, Type: FTP, Path: /in }
`,
  ),
  `apiVersion: mftops/v1
kind: ResourceGroupAcl
metadata: { name: typo }
spec:
  resourceGroup: Partners
  userGroup: Finance Operator
  permissions: [TaskRun]
`,
  `apiVersion: mftops/v1
kind: FolderPermissions
metadata: { name: /Distribution/Acme }
spec:
  mode: exact
  entries:
    - user: alise
      permissions: [listFiles]
    - group: Acme Partner
      permissions: [listFiles]
    - user: bob
      permissions: [listFiles]
`,
].join('---\n');

describe('resolveDesired', () => {
  it('reports every unknown name at once, where it is written, with a suggestion', () => {
    const manifests = manifestsFrom(BROKEN);
    const { desired, diagnostics } = resolveDesired(manifests, { automation: automationState(), transfer: transferState([]) });
    const shown = diagnostics.map((d) => `${d.file}:${d.line}:${d.col} ${d.code} ${d.summary}`);
    expect(shown).toEqual([
      `${MANIFEST_FILE}:6:11 MF404 no resource group named \`Finanse\` on the automation server — did you mean \`Finance\`?`,
      `${MANIFEST_FILE}:9:23 MF403 no date list named \`Bank Holiday\` on the automation server — did you mean \`Bank Holidays\`?`,
      `${MANIFEST_FILE}:12:23 MF401 no host named \`payrol-sftp\` on the automation server — did you mean \`payroll-sftp\`?`,
      `${MANIFEST_FILE}:14:26 MF402 no custom or standard script named \`Checksun\` on the automation server — did you mean \`Checksum\`?`,
      `${MANIFEST_FILE}:15:44 MF410 \`Type\` is \`FTP\` but host \`bank-as2\` is of type \`AS2\``,
      `${MANIFEST_FILE}:22:14 MF405 no user group named \`Finance Operator\` on the automation server — did you mean \`Finance Operators\`?`,
      `${MANIFEST_FILE}:31:13 MF406 no user named \`alise\` on the transfer server — did you mean \`alice\`?`,
      `${MANIFEST_FILE}:33:14 MF407 no group named \`Acme Partner\` on the transfer server — did you mean \`Acme Partners\`?`,
    ]);
    expect(diagnostics.every((d) => d.severity === 'error')).toBe(true);
    // Objects with an unknown name are left out of the desired state, but stay known as managed.
    expect(desired.byKind.Task).toEqual([]);
    expect(desired.byKind.ResourceGroupAcl).toEqual([]);
    expect(desired.byKind.FolderPermissions).toEqual([]);
    expect(desired.skipped.map((m) => m.name)).toEqual(['Broken task', 'typo', '/Distribution/Acme']);
  });

  it('records each name it resolved, once per object, with the id it resolved to (what apply checks again)', () => {
    const manifests = manifestsFrom(
      [
        taskYaml(
          'Named',
          `  Group: [finance, Finance]
  Schedules:
    Schedule:
      - DateListRef: [Bank Holidays]
        Frequency: { Interval: [{ StartTime: "02:00", EndTime: "02:00" }] }
  steps:
    - Source: { Host: Payroll-SFTP, Path: /out }
    - Process: { Script: PGP Encrypt, Run: per-file }
    - Destination: { HostID: "12", Path: /in }
`,
        ),
        `apiVersion: mftops/v1\nkind: ResourceGroupAcl\nmetadata: { name: x }\nspec:\n  resourceGroup: Partners\n  userGroup: Auditors\n  permissions: [TaskRun]\n`,
        `apiVersion: mftops/v1\nkind: FolderPermissions\nmetadata: { name: /A }\nspec:\n  mode: additive\n  entries:\n    - user: bob\n      permissions: [listFiles]\n    - group: Acme Partners\n      permissions: [listFiles]\n`,
      ].join('---\n'),
    );
    const { desired, diagnostics } = resolveDesired(manifests, { automation: automationState(), transfer: transferState([]) });
    expect(diagnostics).toEqual([]);
    // A HostID written as an id resolves no name; a user group has no id and no list.
    expect(desired.byKind.Task[0]!.resolved).toEqual([
      { kind: 'resourceGroup', name: 'finance' },
      { kind: 'dateList', name: 'Bank Holidays', id: '31' },
      { kind: 'host', name: 'Payroll-SFTP', id: '11' },
      { kind: 'script', name: 'PGP Encrypt', id: '21' },
    ]);
    expect(desired.byKind.ResourceGroupAcl[0]!.resolved).toEqual([{ kind: 'resourceGroup', name: 'Partners' }]);
    expect(desired.byKind.FolderPermissions[0]!.resolved).toEqual([
      { kind: 'user', name: 'bob', id: 'u-bob' },
      { kind: 'group', name: 'Acme Partners', id: '7' },
    ]);
  });

  it('accepts ids pasted from API output, and reports an id the server does not have', () => {
    const manifests = manifestsFrom(taskYaml('By id', '  steps:\n    - Source: { HostID: "11", Path: /a }\n    - Process: { ScriptID: "99" }\n'));
    const { desired, diagnostics } = resolveDesired(manifests, { automation: automationState() });
    expect(diagnostics.map((d) => d.code)).toEqual(['MF402']);
    expect(diagnostics[0]!.summary).toContain('no custom or standard script has ID `99`');
    expect(desired.byKind.Task).toEqual([]);
    const ok = resolveDesired(manifestsFrom(taskYaml('By id', '  steps:\n    - Source: { HostID: "11", Path: /a }\n')), { automation: automationState() });
    expect(ok.desired.byKind.Task[0]!.body.steps).toEqual([{ Source: { HostID: '11', Type: 'SSHFTP', Path: '/a' } }]);
  });

  it('does not call an unreadable user group unknown', () => {
    const manifests = manifestsFrom(
      `apiVersion: mftops/v1\nkind: ResourceGroupAcl\nmetadata: { name: x }\nspec:\n  resourceGroup: Finance\n  userGroup: Nobody Knows\n  permissions: []\n`,
    );
    const { desired, diagnostics } = resolveDesired(manifests, { automation: automationState({ userGroupsReadable: false }) });
    expect(diagnostics).toEqual([]);
    expect(desired.byKind.ResourceGroupAcl[0]!.userGroup).toBe('Nobody Knows');
  });

  it('says once per service when manifests need a service the environment does not configure', () => {
    const manifests = manifestsFrom([taskYaml('A', '  Active: 1\n'), taskYaml('B', '  Active: 1\n')].join('---\n'));
    const { diagnostics, desired } = resolveDesired(manifests, {});
    expect(diagnostics.map((d) => [d.code, d.line, d.summary])).toEqual([
      ['MF411', 1, '2 manifests need the automation service, which this environment does not configure'],
    ]);
    expect(desired.skipped).toHaveLength(2);
  });
});
