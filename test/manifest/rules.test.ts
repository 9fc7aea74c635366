import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadManifests } from '../../src/manifest/load.js';
import { parseManifestFile } from '../../src/manifest/parse.js';
import { checkSecretParameters, checkStepReferences, checkTimesOfDay, runRules } from '../../src/manifest/rules.js';
import type { CheckedDocument, Rule } from '../../src/manifest/rules.js';
import { validateParsedFiles } from '../../src/manifest/validate.js';
import { testdir } from '../helpers/testdir.js';

const task = (name: string, spec: string, meta = '') => `apiVersion: mftops/v1\nkind: Task\nmetadata:\n  name: ${name}\n${meta}spec:\n${spec}`;
const acl = (name: string, rg: string, ug: string, perms: string) =>
  `apiVersion: mftops/v1\nkind: ResourceGroupAcl\nmetadata: { name: ${name} }\nspec:\n  resourceGroup: ${rg}\n  userGroup: ${ug}\n  permissions: ${perms}\n`;
const folder = (path: string, entries: string) =>
  `apiVersion: mftops/v1\nkind: FolderPermissions\nmetadata: { name: ${path} }\nspec:\n  mode: exact\n  entries:\n${entries}`;

async function check(files: Record<string, string>) {
  const dir = testdir(files);
  const set = await loadManifests(['.'], { cwd: dir });
  return { dir, set, codes: set.diagnostics.map((d) => `${d.severity} ${d.code}`) };
}

describe('rules across documents', () => {
  it('finds a task defined in two files and points at the first definition', async () => {
    const { dir, set } = await check({ 'a/one.yaml': task('Payroll to bank', '  Active: 1\n'), 'b/two.yaml': task('payroll TO bank', '  Active: 0\n') });
    expect(set.diagnostics).toHaveLength(1);
    const d = set.diagnostics[0]!;
    expect([d.code, d.file, d.line]).toEqual(['MF301', join(dir, 'b/two.yaml'), 4]);
    expect(d.related).toMatchObject({ file: join(dir, 'a/one.yaml'), line: 4 });
  });

  it('lets different kinds share a name', async () => {
    const { codes } = await check({
      'a.yaml': `${task('Finance', '  Active: 1\n')}---\n${acl('Finance', 'Finance', 'Auditors', '[TaskRun]')}`,
    });
    expect(codes).toEqual([]);
  });

  it('accepts a rename whose previous name is no longer managed', async () => {
    const { codes, set } = await check({ 'a.yaml': task('New name', '  Active: 1\n', '  previousNames: [Old name]\n') });
    expect(codes).toEqual([]);
    expect(set.manifests[0]?.previousNames).toEqual(['Old name']);
  });
});

describe('rules within a document', () => {
  it('accepts TaskAddEditDelete together with TaskEditExisting', async () => {
    expect((await check({ 'a.yaml': acl('pm', 'Partners', 'Partner Managers', '[TaskAddEditDelete, TaskEditExisting]') })).codes).toEqual([]);
  });

  it('accepts RenameTo and DelRename with DeleteOrig 2, and DelRename 0 with any DeleteOrig', async () => {
    const spec = [
      '  steps:',
      '    - Source: { Host: h, DeleteOrig: 2, RenameTo: /done, DelRename: true }',
      '    - Source: { Host: h, DeleteOrig: 1, DelRename: 0 }',
      '',
    ].join('\n');
    expect((await check({ 'a.yaml': task('T', spec) })).codes).toEqual([]);
  });

  it('accepts the first and last minute of the day', async () => {
    const spec = '  Schedules:\n    Schedule:\n      - Frequency: { Interval: [{ StartTime: "00:00", EndTime: "23:59" }] }\n';
    expect((await check({ 'a.yaml': task('T', spec) })).codes).toEqual([]);
  });

  it('checks every Process step and Destination step reference, not only the first', async () => {
    const spec = [
      '  steps:',
      '    - Source: { Host: h }',
      '    - Process: { Script: A }',
      '    - Process: { ScriptID: "12", Script: B }',
      '    - Destination: { HostID: "9" }',
      '    - Destination: { Path: /in }',
      '',
    ].join('\n');
    const { set } = await check({ 'a.yaml': task('T', spec) });
    expect(set.diagnostics.map((d) => [d.code, d.line])).toEqual([
      ['MF308', 9],
      ['MF308', 11],
    ]);
  });

  it('warns, without failing, about a literal value in a parameter named like a secret', async () => {
    const spec = ['  Parameters:', '    ApiToken: abc123', '    Password: { value: not-secret-here, secret: false }', '    Region: eu', ''].join('\n');
    const { set, codes } = await check({ 'a.yaml': task('T', spec) });
    expect(codes).toEqual(['warning MF310']);
    expect(set.diagnostics[0]?.line).toBe(7);
    expect(set.manifests).toHaveLength(1);
  });

  it('keys folder entries by kind: a user and a group may have the same name', async () => {
    const entries = '    - user: finance\n      permissions: [listFiles]\n    - group: finance\n      permissions: [readFiles]\n';
    expect((await check({ 'a.yaml': folder('/Finance', entries) })).codes).toEqual([]);
  });

  it('skips a value the schema rejected, so one mistake gives one error', async () => {
    const spec = '  steps:\n    - Source: { Host: h, DeleteOrig: 3, RenameTo: /done }\n';
    const { codes } = await check({ 'a.yaml': task('T', spec) });
    expect(codes).toEqual(['error MF204']);
  });
});

describe('rules on documents with schema errors: every problem of a file at once', () => {
  const schedule = (interval: string) => `  Schedules:\n    Schedule:\n      - Frequency: { Interval: [${interval}] }\n`;

  it('reports a bad time of day (MF305) next to an unknown field (MF201) of the same document', async () => {
    const spec = `  Activ: 1\n${schedule('{ StartTime: "25:00", EndTime: "01:00" }')}`;
    const { set } = await check({ 'a.yaml': task('T', spec) });
    expect(set.diagnostics.map((d) => `${d.code} ${d.line}`)).toEqual(['MF201 6', 'MF305 9']);
    expect(set.manifests).toEqual([]);
  });

  it('runs every rule on a document with schema errors elsewhere in it', async () => {
    const spec = [
      '  RetryCount: many',
      '  steps:',
      '    - Source: { Host: h, HostID: "7", RenameTo: /done }',
      '  Parameters: { ApiToken: { value: literal, secret: true } }',
      schedule('{ StartTime: "7:00", EndTime: "08:00" }'),
    ].join('\n');
    const { codes } = await check({
      'a.yaml': `${task('T', spec)}---\n${acl('a', 'Finance', 'Ops', '[TaskAddEditDelete]').replace('spec:', 'spec:\n  extra: 1')}`,
      'b.yaml': folder('/F', '    - { user: u, permissions: [listFiles] }\n    - { user: U, permissions: [readFiles] }\n  createIfMising: true\n'),
    });
    expect(codes.sort()).toEqual(
      ['error MF201', 'error MF201', 'error MF201', 'error MF303', 'error MF304', 'error MF305', 'error MF307', 'error MF308', 'error MF309'].sort(),
    );
  });

  it('never reads a value the schema rejected (one error for one mistake, no crash on a wrong shape)', async () => {
    const shapes = [
      `  Schedules:\n    Schedule:\n      - Frequency: { Interval: "02:00" }\n`,
      `  Schedules:\n    Schedule:\n      - Frequency: { Interval: [{ StartTime: 2500, EndTime: "01:00" }] }\n`,
      `  steps:\n    - Source: { Hots: h }\n`,
      `  steps: { Source: { Host: h } }\n`,
      `  steps:\n    - Source: [Host, h]\n`,
      `  Parameters: [Token, literal]\n`,
      `  Parameters: { Token: { value: [literal], secret: true } }\n`,
    ];
    for (const spec of shapes) {
      const { set } = await check({ 'a.yaml': task('T', spec) });
      expect(
        set.diagnostics.map((d) => d.code),
        spec,
      ).toHaveLength(1);
      expect(set.diagnostics[0]!.code, spec).toMatch(/^MF20\d$/);
    }
    const names = await check({ 'a.yaml': folder('/F', '    - { user: " u", permissions: [listFiles] }\n    - { user: " u", permissions: [readFiles] }\n') });
    expect(names.codes).toEqual(['error MF206', 'error MF206']);
    const both = await check({
      'a.yaml': folder('/F', '    - { user: u, group: g, permissions: [listFiles] }\n    - { user: u, permissions: [readFiles] }\n'),
    });
    expect(both.codes).toEqual(['error MF209']);
    // Another mistake in an entry leaves its user checkable: two mistakes, two errors.
    const typo = await check({ 'a.yaml': folder('/F', '    - { user: u, permissions: [listFiles] }\n    - { user: u, permissions: [readFile] }\n') });
    expect(typo.codes).toEqual(['error MF309', 'error MF204']);
    const perms = await check({ 'a.yaml': acl('a', 'Finance', 'Ops', '[TaskAddEditDelete, TaskEditExistin]') });
    expect(perms.codes).toEqual(['error MF204']);
  });
});

describe('rules run together', () => {
  /** The checked documents of some files, as the rules see them (each file's name tells them apart). */
  function checkedDocuments(files: Record<string, string>): CheckedDocument[] {
    const seen: CheckedDocument[] = [];
    validateParsedFiles(
      Object.entries(files).map(([file, text]) => parseManifestFile(file, text)),
      [(docs) => (seen.push(...docs), [])],
    );
    return seen;
  }
  const bad = (name: string) =>
    task(
      name,
      '  Schedules:\n    Schedule:\n      - Frequency: { Interval: [{ StartTime: "25:00", EndTime: "01:00" }] }\n  steps:\n    - Destination: { Path: /in }\n  Parameters: { Token: literal }\n',
    );
  const docs = checkedDocuments({ 'a.yaml': bad('A'), 'b.yaml': bad('B'), 'c.yaml': bad('C') });
  const where = (rule: Rule, on: readonly CheckedDocument[]) => rule(on).map((d) => `${d.code} ${d.file}`);

  it('give each rule the documents it is called with, even when one rule calls others on a part of them', () => {
    const some = docs.slice(1);
    const nested: Rule = (all) => runRules(all.slice(0, 1), [checkStepReferences, checkTimesOfDay]);
    const rules: Rule[] = [
      checkStepReferences,
      (all) => checkStepReferences(all.slice(1)),
      nested,
      checkSecretParameters,
      (all) => checkTimesOfDay(all.slice(2)),
      checkTimesOfDay,
    ];
    const expected = [
      ...where(checkStepReferences, docs),
      ...where(checkStepReferences, some),
      ...where(checkStepReferences, docs.slice(0, 1)),
      ...where(checkTimesOfDay, docs.slice(0, 1)),
      ...where(checkSecretParameters, docs),
      ...where(checkTimesOfDay, docs.slice(2)),
      ...where(checkTimesOfDay, docs),
    ];
    expect(expected).toEqual([
      'MF308 a.yaml',
      'MF308 b.yaml',
      'MF308 c.yaml',
      'MF308 b.yaml',
      'MF308 c.yaml',
      'MF308 a.yaml',
      'MF305 a.yaml',
      'MF310 a.yaml',
      'MF310 b.yaml',
      'MF310 c.yaml',
      'MF305 c.yaml',
      'MF305 a.yaml',
      'MF305 b.yaml',
      'MF305 c.yaml',
    ]);
    expect(runRules(docs, rules).map((d) => `${d.code} ${d.file}`)).toEqual(expected);
    // A second run on other documents does not see the first run's.
    expect(runRules(some, [checkStepReferences]).map((d) => d.file)).toEqual(['b.yaml', 'c.yaml']);
  });
});
