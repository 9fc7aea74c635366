import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';
import { testdir } from '../helpers/testdir.js';

const SCRAMBLED =
  "kind: ResourceGroupAcl\napiVersion: mftops/v1\nmetadata: { name: ops }\nspec:\n  permissions: [TaskRun]\n  userGroup: 'Auditors'\n  resourceGroup: Operations\n";
const CANONICAL =
  'apiVersion: mftops/v1\nkind: ResourceGroupAcl\nmetadata: { name: ops }\nspec:\n  resourceGroup: Operations\n  userGroup: Auditors\n  permissions: [TaskRun]\n';
const TIME =
  'apiVersion: mftops/v1\nkind: Task\nmetadata: { name: Nightly }\nspec:\n  Active: 1\n  Schedules:\n    Schedule:\n      - Frequency: { Interval: [{ StartTime: 02:00, EndTime: 02:00 }] }\n';

describe('mftops fmt', () => {
  it('--check lists the files not in canonical form, writes nothing and exits 1; fmt rewrites them; then --check exits 0', async () => {
    const dir = testdir({
      'manifests/access/ops.yaml': SCRAMBLED,
      'manifests/tasks/nightly.yaml': TIME,
      'manifests/ok.yaml': CANONICAL.replace('name: ops', 'name: x').replace('Auditors', 'x'),
    });
    const check = await runCli(['fmt', '--check', 'manifests'], { cwd: dir });
    expect(check).toMatchObject({ code: 1, stdout: 'manifests/access/ops.yaml\nmanifests/tasks/nightly.yaml\n', stderr: '' });
    expect(readFileSync(join(dir, 'manifests/access/ops.yaml'), 'utf8')).toBe(SCRAMBLED);

    const fmt = await runCli(['fmt', 'manifests'], { cwd: dir });
    expect(fmt).toMatchObject({ code: 0, stdout: 'manifests/access/ops.yaml\nmanifests/tasks/nightly.yaml\n', stderr: '' });
    expect(readFileSync(join(dir, 'manifests/access/ops.yaml'), 'utf8')).toBe(CANONICAL);
    expect(readFileSync(join(dir, 'manifests/tasks/nightly.yaml'), 'utf8')).toContain('StartTime: "02:00"');

    expect(await runCli(['fmt', '--check', 'manifests'], { cwd: dir })).toMatchObject({ code: 0, stdout: '' });
  });

  it('reports a file with errors as validate does, leaves it alone, and exits 1', async () => {
    const bad =
      'apiVersion: mftops/v1\nkind: ResourceGroupAcl\nmetadata: { name: ops }\nspec: { resourceGroup: Operations, userGroup: Auditors, permisions: [] }\n';
    const dir = testdir({ 'bad.yaml': bad });
    const r = await runCli(['fmt', 'bad.yaml'], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('bad.yaml:4:57: error MF201: unknown field `permisions`');
    expect(readFileSync(join(dir, 'bad.yaml'), 'utf8')).toBe(bad);
  });

  it('prints a JSON report with --format json and workflow annotations with --format github', async () => {
    const dir = testdir({ 'ops.yaml': SCRAMBLED });
    const json = await runCli(['fmt', '--check', '--format', 'json', '.'], { cwd: dir });
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toEqual({
      formatVersion: 1,
      kind: 'mftops.fmt',
      status: 'unformatted',
      check: true,
      files: [{ file: 'ops.yaml', state: 'unformatted' }],
      diagnostics: [],
    });
    const github = await runCli(['fmt', '--check', '--format', 'github', '.'], { cwd: dir });
    expect(github.stdout).toBe('::error file=ops.yaml,title=mftops fmt::ops.yaml is not in canonical form: run mftops fmt\n');
  });
});
