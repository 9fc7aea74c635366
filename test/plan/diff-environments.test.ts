import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadManifests } from '../../src/manifest/load.js';
import { compareEnvironments, environmentsDiffer } from '../../src/plan/diff-environments.js';
import type { Manifest } from '../../src/manifest/types.js';
import type { Change, Plan } from '../../src/plan/model.js';
import { planOf } from '../apply/helpers.js';
import { testdir } from '../helpers/testdir.js';

/** The manifests of one YAML text, loaded as the CLI loads them (normalised). */
async function manifestsOf(yaml: string): Promise<readonly Manifest[]> {
  const dir = testdir({ 'm.yaml': yaml });
  const set = await loadManifests([join(dir, 'm.yaml')], { cwd: dir });
  expect(set.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  return set.manifests;
}

const folder = (path: string, entries: string) => `apiVersion: mftops/v1
kind: FolderPermissions
metadata: { name: ${path} }
spec:
  mode: exact
  entries:
${entries}
`;

const acl = (name: string, permissions: string) => `apiVersion: mftops/v1
kind: ResourceGroupAcl
metadata: { name: ${name} }
spec: { resourceGroup: Finance, userGroup: Auditors, permissions: ${permissions} }
`;

const task = (name: string, days: string, host = 'bank-sftp') => `apiVersion: mftops/v1
kind: Task
metadata: { name: ${name} }
spec:
  Group: [Finance]
  Schedules:
    Schedule:
      - Days: { DayOfWeek: ${days} }
        Frequency: { Interval: [{ StartTime: "02:00", EndTime: "02:00" }] }
  steps:
    - Source: { Host: ${host}, Path: /out }
`;

describe('compareEnvironments: desired against desired, by identity', () => {
  it('matches tasks case-insensitively, compares lists of plain values as sets and folder entries by principal, in any order', async () => {
    const a = await manifestsOf(
      [
        task('Payroll', '[Monday, Friday]'),
        folder('/Finance', '    - { user: carol, permissions: [listFiles, readFiles] }\n    - { group: Team, permissions: [listFiles] }'),
      ].join('---\n'),
    );
    const b = await manifestsOf(
      [
        task('payroll', '[Friday, Monday]'),
        folder('/Finance', '    - { group: Team, permissions: [listFiles] }\n    - { user: carol, permissions: [readFiles, listFiles] }'),
      ].join('---\n'),
    );
    const diff = compareEnvironments({ name: 'a', manifests: a }, { name: 'b', manifests: b });
    // Only the spelling of the task's name differs: its identity is the same.
    expect(diff.objects).toEqual([
      expect.objectContaining({ address: 'Task/Payroll', presence: 'differ', fields: [{ path: 'metadata.name', a: 'Payroll', b: 'payroll' }] }),
    ]);
    expect(diff.summary).toEqual({ onlyInA: 0, onlyInB: 0, differ: 1, same: 1, sameButNotInSync: 0 });
    expect(diff.offline).toBe(true);
  });

  it("names the fields that differ, with each side's value (absent where one side does not set it), and the objects declared on one side only", async () => {
    const a = await manifestsOf(
      [task('Payroll', '[Monday]'), acl('auditors', '[TaskRun]'), folder('/Finance', '    - { user: carol, permissions: [listFiles] }')].join('---\n'),
    );
    const b = await manifestsOf(
      [
        task('Payroll', '[Monday]', 'bank-sftp-test'),
        acl('finance-auditors', '[TaskRun, TaskEditExisting]'),
        folder('/Staging', '    - { user: carol, permissions: [listFiles] }'),
      ].join('---\n'),
    );
    const diff = compareEnvironments({ name: 'prod', manifests: a }, { name: 'staging', manifests: b });
    expect(diff.objects.map((o) => [o.address, o.presence, o.fields])).toEqual([
      ['Task/Payroll', 'differ', [{ path: 'steps[0].Source.Host', a: 'bank-sftp', b: 'bank-sftp-test' }]],
      // An ACL is the same object by resource group and user group, whatever its metadata.name.
      [
        'ResourceGroupAcl/auditors',
        'differ',
        [
          { path: 'metadata.name', a: 'auditors', b: 'finance-auditors' },
          { path: 'permissions', a: ['TaskRun'], b: ['TaskRun', 'TaskEditExisting'] },
        ],
      ],
      ['FolderPermissions/Finance', 'only-in-a', []],
      ['FolderPermissions/Staging', 'only-in-b', []],
    ]);
    expect(environmentsDiffer(diff)).toBe(true);
  });

  it('never compares or shows a secret: password fields and secret parameter values are (sensitive) on both sides', async () => {
    const secretTask = (key: string, password: string) => `apiVersion: mftops/v1
kind: Task
metadata: { name: Payroll }
spec:
  Parameters:
    ApiKey: { value: "${key}", secret: true }
  steps:
    - Destination: { Host: bank-sftp, Path: /in, UseDefUser: 0, Username: push, Password: "${password}" }
`;
    const a = await manifestsOf(secretTask('${env:KEY_ONE}', '${env:PROD_PASSWORD}'));
    const b = await manifestsOf(secretTask('${env:KEY_TWO}', '${env:TEST_PASSWORD}'));
    const diff = compareEnvironments({ name: 'a', manifests: a }, { name: 'b', manifests: b });
    expect(diff.objects).toEqual([]);
    expect(diff.summary.same).toBe(1);
    expect(JSON.stringify(diff)).not.toMatch(/KEY_ONE|KEY_TWO|PASSWORD/);
  });

  it("compares a user's forceChangePassword (no secret, though named like one) and never its password", async () => {
    const user = (force: boolean, env: string) =>
      `apiVersion: mftops/v1\nkind: User\nmetadata: { name: dave }\nspec:\n  forceChangePassword: ${force}\n  password: \${env:${env}}\n`;
    const diff = compareEnvironments(
      { name: 'a', manifests: await manifestsOf(user(true, 'A_PW')) },
      { name: 'b', manifests: await manifestsOf(user(false, 'B_PW')) },
    );
    expect(diff.objects).toEqual([
      expect.objectContaining({ address: 'User/dave', presence: 'differ', fields: [{ path: 'forceChangePassword', a: true, b: false }] }),
    ]);
  });

  it('with both plans: each side says whether its server is in sync with its own manifests, and an object declared alike is listed only when a server is not', async () => {
    const manifests = await manifestsOf([task('Payroll', '[Monday]'), task('Statements', '[Monday]')].join('---\n'));
    const change = (name: string, action: Change['action'], fields: string[] = []): Change =>
      ({ address: `Task/${name}`, kind: 'Task', name, service: 'automation', action, fields: fields.map((path) => ({ path, before: 1, after: 2 })) }) as Change;
    const planA: Plan = planOf([change('Payroll', 'no-op'), change('Statements', 'no-op')]);
    const planB: Plan = planOf([change('Payroll', 'update', ['Active']), change('Statements', 'no-op')]);
    const diff = compareEnvironments({ name: 'a', manifests, plan: planA }, { name: 'b', manifests, plan: planB });
    expect(diff.offline).toBe(false);
    expect(diff.objects).toEqual([
      expect.objectContaining({
        address: 'Task/Payroll',
        presence: 'same',
        live: { a: { inSync: true, action: 'no-op', fields: [] }, b: { inSync: false, action: 'update', fields: ['Active'] } },
      }),
    ]);
    expect(diff.summary).toEqual({ onlyInA: 0, onlyInB: 0, differ: 0, same: 1, sameButNotInSync: 1 });
    expect(environmentsDiffer(compareEnvironments({ name: 'a', manifests, plan: planA }, { name: 'b', manifests, plan: planA }))).toBe(false);
  });
});
