import { describe, expect, it } from 'vitest';
import { parseManifestFile } from '../../src/manifest/parse.js';
import type { FolderPermissionsManifest, TaskManifest } from '../../src/manifest/types.js';
import { validateParsedFiles } from '../../src/manifest/validate.js';
import type { ManifestEnvironment } from '../../src/manifest/variables.js';
import { positionOf } from '../helpers/position-of.js';

const STAGING: ManifestEnvironment = {
  name: 'staging',
  vars: { retries: 5, partner: 'acme', groups: ['Finance', 'Ops'], active: true },
  known: ['staging', 'production'],
};
const PRODUCTION: ManifestEnvironment = {
  name: 'production',
  vars: { retries: 9, partner: 'acme-prod', groups: ['Finance'], active: false },
  known: ['staging', 'production'],
};

const TASK = (name: string, spec: string, metadata = '') => `apiVersion: mftops/v1\nkind: Task\nmetadata:\n  name: ${name}\n${metadata}spec:\n${spec}`;
// Inside a flow mapping `{ }` a reference is quoted (YAML reads `{` as a mapping there); a quoted whole reference keeps the type too.
const STEP = '  steps:\n    - Source: { Host: payroll-sftp, Path: /out, RetryCount: "${var:retries}" }\n';
const FOLDER = (name: string, entries: string, metadata = '') =>
  `apiVersion: mftops/v1\nkind: FolderPermissions\nmetadata:\n  name: ${name}\n${metadata}spec:\n  mode: exact\n  entries:\n${entries}`;

function check(files: Record<string, string>, env?: ManifestEnvironment) {
  const parsed = Object.entries(files).map(([file, text]) => parseManifestFile(`/m/${file}`, text));
  return validateParsedFiles(parsed, undefined, env);
}

describe('variables', () => {
  it('keep their type as a whole value and become text inside a longer one, metadata.name included', () => {
    const set = check(
      {
        'a.yaml': TASK(
          'Send to ${var:partner}',
          `  Active: \${var:active}\n  Group: \${var:groups}\n  Info: { Description: "for \${var:partner}, $\${var:partner} stays" }\n${STEP}`,
        ),
        'b.yaml': FOLDER('/Home/${var:partner}/in', '    - user: ${var:partner}-svc\n      permissions: [readFiles]\n'),
      },
      STAGING,
    );
    expect(set.diagnostics).toEqual([]);
    const task = set.manifests.find((m): m is TaskManifest => m.kind === 'Task')!;
    expect(task.name).toBe('Send to acme');
    expect(task.spec.Group).toEqual(['Finance', 'Ops']);
    expect(task.spec.Active).toBe(1);
    expect(task.spec.Info?.Description).toBe('for acme, ${var:partner} stays');
    expect((task.spec.steps![0] as { Source: { RetryCount: unknown } }).Source.RetryCount).toBe(5);
    const folder = set.manifests.find((m): m is FolderPermissionsManifest => m.kind === 'FolderPermissions')!;
    expect(folder.name).toBe('/Home/acme/in');
    expect(Object.fromEntries(set.variables)).toEqual({ partner: 'acme', groups: ['Finance', 'Ops'], active: true, retries: 5 });
  });

  it('an undefined variable is MF320 at its reference, with a near name; schema errors keep their places', () => {
    const text = TASK(
      'Payroll',
      `  Active: 1\n  Group: [Finance]\n  Info:\n    Description: "\${var:partnr}"\n    Notes: /Home/\${var:partnr}/in\n  Frobnicate: 1\n`,
    );
    const set = check({ 'a.yaml': text }, STAGING);
    const codes = set.diagnostics.map((d) => [d.code, d.line, d.col]);
    // At the reference itself: inside the quotes, and inside a longer text.
    expect(codes).toContainEqual(['MF320', positionOf(text, '${var:partnr}').line, positionOf(text, '${var:partnr}').col]);
    expect(codes).toContainEqual(['MF320', positionOf(text, '${var:partnr}/in').line, positionOf(text, '${var:partnr}/in').col]);
    expect(codes).toContainEqual(['MF201', positionOf(text, 'Frobnicate').line, positionOf(text, 'Frobnicate').col]);
    expect(codes.filter((c) => c[0] !== 'MF320' && c[0] !== 'MF201')).toEqual([]);
    const mf320 = set.diagnostics.find((d) => d.code === 'MF320')!;
    expect(mf320.summary).toBe('variable `partnr` is not defined for environment `staging` — did you mean `partner`?');
    expect(set.manifests).toEqual([]);
  });

  it('without an environment a variable is MF320 saying it needs one', () => {
    const set = check({ 'a.yaml': TASK('Payroll', `  Active: 1\n  Group: [Finance]\n${STEP}`) });
    expect(set.diagnostics.map((d) => [d.code, d.summary])).toContainEqual(['MF320', 'variable `retries` needs an environment']);
  });

  it('refuses a variable in a password (MF321) and a list inside a longer text', () => {
    const set = check(
      {
        'a.yaml': TASK(
          'Payroll',
          '  Active: 1\n  Group: [Finance]\n  Info: { Description: "groups ${var:groups}" }\n  steps:\n    - Destination: { Host: bank-as2, Path: /in, Password: "${var:partner}" }\n',
        ),
      },
      STAGING,
    );
    expect(set.diagnostics.filter((d) => d.code === 'MF321').map((d) => d.summary)).toEqual([
      'variable `groups` is a list and cannot be part of a longer text',
      'a variable cannot stand for a secret',
    ]);
  });
});

describe('metadata.environments', () => {
  const files = {
    'shared.yaml': TASK('Payroll', '  Active: 1\n  Group: [Finance]\n'),
    'staging.yaml': TASK('Nightly', '  Active: 1\n  Group: [Finance]\n', '  environments: [staging]\n'),
    'production.yaml': TASK('Nightly', '  Active: 0\n  Group: [Finance]\n', '  environments: [production]\n'),
  };

  it('limits a manifest to its environments: the same task in two manifests for different environments is fine', () => {
    const staging = check(files, STAGING);
    const production = check(files, PRODUCTION);
    expect(staging.diagnostics).toEqual([]);
    expect(production.diagnostics).toEqual([]);
    const nightly = (set: typeof staging) => set.manifests.find((m): m is TaskManifest => m.name === 'Nightly')!;
    expect(nightly(staging).spec.Active).toBe(1);
    expect(nightly(staging).source.file).toBe('/m/staging.yaml');
    expect(nightly(production).spec.Active).toBe(0);
  });

  it('the same object twice for one environment is still MF301, naming both places', () => {
    const set = check({ ...files, 'again.yaml': TASK('Nightly', '  Active: 1\n  Group: [Finance]\n', '  environments: [staging, production]\n') }, STAGING);
    const dup = set.diagnostics.filter((d) => d.code === 'MF301');
    expect(dup).toHaveLength(1);
    expect([dup[0]!.file, dup[0]!.related?.file].sort()).toEqual(['/m/again.yaml', '/m/staging.yaml']);
  });

  it('read without an environment, documents for different environments do not clash; documents sharing one do', () => {
    expect(check(files).diagnostics).toEqual([]);
    const both = check({ ...files, 'again.yaml': TASK('Nightly', '  Active: 1\n  Group: [Finance]\n', '  environments: [production]\n') });
    expect(both.diagnostics.map((d) => [d.code, d.file, d.related?.file])).toEqual([['MF301', '/m/again.yaml', '/m/production.yaml']]);
  });

  it('an environment the configuration does not have is MF322 at the name', () => {
    const text = TASK('Nightly', '  Active: 1\n  Group: [Finance]\n', '  environments: [stagin]\n');
    const set = check({ 'a.yaml': text }, STAGING);
    expect(set.diagnostics.map((d) => [d.code, d.line, d.summary])).toEqual([
      ['MF322', positionOf(text, 'stagin').line, 'environment `stagin` is not in the configuration — did you mean `staging`?'],
    ]);
  });
});

describe('kind: Patch', () => {
  const base = FOLDER(
    '/Home/acme/in',
    '    - group: Acme Partners\n      permissions: [listFiles]\n    - user: acme-svc\n      permissions: [listFiles, writeFiles]\n',
  );
  const task = TASK('Payroll', '  Active: 1\n  Group: [Finance]\n  Info: { Description: nightly, Notes: keep }\n');
  const patch = [
    'apiVersion: mftops/v1',
    'kind: Patch',
    'metadata: { name: staging-tweaks, environments: [staging] }',
    'spec:',
    '  target: { kind: Task, name: Payroll }',
    '  patch:',
    '    Active: 0',
    '    Info: { Description: staging only, Notes: null }',
    '---',
    'apiVersion: mftops/v1',
    'kind: Patch',
    'metadata: { name: acme-auditor, environments: [staging] }',
    'spec:',
    '  target: { kind: FolderPermissions, name: /Home/acme/in }',
    '  patch:',
    '    entries:',
    '      - user: acme-svc',
    '        permissions: [listFiles]',
    '      - user: auditor',
    '        permissions: [listFiles, readFiles]',
    '',
  ].join('\n');

  it('merges over the target spec in its environments (RFC 7386; entries by principal), and not in others', () => {
    const staging = check({ 'base.yaml': base + '---\n' + task, 'patch.yaml': patch }, STAGING);
    expect(staging.diagnostics).toEqual([]);
    const t = staging.manifests.find((m): m is TaskManifest => m.kind === 'Task')!;
    expect(t.spec.Active).toBe(0);
    expect(t.spec.Info).toEqual({ Description: 'staging only' });
    const f = staging.manifests.find((m): m is FolderPermissionsManifest => m.kind === 'FolderPermissions')!;
    expect(f.spec.entries.map((e) => [e.user ?? e.group, e.permissions])).toEqual([
      ['Acme Partners', ['listFiles']],
      ['acme-svc', ['listFiles']],
      ['auditor', ['listFiles', 'readFiles']],
    ]);
    // Patches are not resources.
    expect(staging.manifests.map((m) => m.kind).sort()).toEqual(['FolderPermissions', 'Task']);
    const production = check({ 'base.yaml': base + '---\n' + task, 'patch.yaml': patch }, PRODUCTION);
    expect(production.manifests.find((m): m is TaskManifest => m.kind === 'Task')!.spec.Info).toEqual({ Description: 'nightly', Notes: 'keep' });
  });

  it('places a patched field at the patch (its final origin) and the others at the base', () => {
    const set = check({ 'base.yaml': task, 'patch.yaml': patch }, STAGING);
    const t = set.manifests.find((m): m is TaskManifest => m.kind === 'Task')!;
    expect(t.sourceMap.locate(['spec', 'Info', 'Description'])).toMatchObject({ file: '/m/patch.yaml', ...positionOf(patch, 'staging only') });
    expect(t.sourceMap.patchedAt?.(['spec', 'Active'])).toMatchObject({ file: '/m/patch.yaml', line: positionOf(patch, 'Active: 0').line });
    expect(t.sourceMap.locate(['spec', 'Group'])).toMatchObject({ file: '/m/base.yaml', ...positionOf(task, '[Finance]') });
    expect(t.sourceMap.patchedAt?.(['spec', 'Group'])).toBeUndefined();
  });

  it('a target not defined in the environment is MF323 at the patch', () => {
    const set = check({ 'patch.yaml': patch }, STAGING);
    expect(set.diagnostics.map((d) => [d.code, d.file, d.line, d.summary])).toEqual([
      ['MF323', '/m/patch.yaml', positionOf(patch, '{ kind: Task').line, 'patch target Task/Payroll is not defined in environment `staging`'],
      [
        'MF323',
        '/m/patch.yaml',
        positionOf(patch, '{ kind: FolderPermissions').line,
        'patch target FolderPermissions/Home/acme/in is not defined in environment `staging`',
      ],
    ]);
  });
});
