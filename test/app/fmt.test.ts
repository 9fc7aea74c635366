import { chmodSync, readFileSync, statSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatManifests } from '../../src/app/fmt.js';
import { importEnvironment } from '../../src/app/import.js';
import { PASSWORDS, configYaml } from '../drift/helpers.js';
import { testdir } from '../helpers/testdir.js';
import { startSeededEmulator } from '../integration/helpers.js';
import { recordingContext } from './helpers.js';

/** A manifest in canonical form, and the same with its keys out of order and needless quotes. */
const canonical = (group: string) =>
  `# yaml-language-server: $schema=https://mftops.dev/schemas/resource-group-acl.schema.json\napiVersion: mftops/v1\nkind: ResourceGroupAcl\nmetadata: { name: ${group} }\nspec:\n  resourceGroup: Operations\n  userGroup: ${group}\n  permissions: [TaskRun]\n`;
const scrambled = (group: string) =>
  `# yaml-language-server: $schema=https://mftops.dev/schemas/resource-group-acl.schema.json\nkind: ResourceGroupAcl\napiVersion: mftops/v1\nspec:\n  permissions: [TaskRun]\n  userGroup: '${group}'\n  resourceGroup: Operations\nmetadata: { name: ${group} }\n`;
/** Valid YAML with a schema error (an unknown field): not formatted. */
const INVALID =
  'kind: ResourceGroupAcl\napiVersion: mftops/v1\nmetadata: { name: bad }\nspec: { resourceGroup: Finance, userGroup: Auditors, permissions: [], Extra: 1 }\n';

const states = (report: Awaited<ReturnType<typeof formatManifests>>, dir: string) =>
  Object.fromEntries(report.files.map((f) => [f.file.slice(dir.length + 1), f.state]));

describe('formatManifests', () => {
  it('rewrites the files that are not in canonical form, in place, and leaves the others untouched', async () => {
    const dir = testdir({ 'm/a.yaml': scrambled('Auditors'), 'm/b.yaml': canonical('Operators') });
    const before = statSync(join(dir, 'm/b.yaml')).ino;
    const report = await formatManifests({ paths: ['m'], check: false }, recordingContext(dir));
    expect(report.status).toBe('ok');
    expect(states(report, dir)).toEqual({ 'm/a.yaml': 'rewritten', 'm/b.yaml': 'formatted' });
    expect(readFileSync(join(dir, 'm/a.yaml'), 'utf8')).toBe(canonical('Auditors'));
    expect(statSync(join(dir, 'm/b.yaml')).ino).toBe(before);
    // Idempotent: a second run finds nothing to do.
    expect(states(await formatManifests({ paths: ['m'], check: false }, recordingContext(dir)), dir)).toEqual({
      'm/a.yaml': 'formatted',
      'm/b.yaml': 'formatted',
    });
  });

  it('gives the same verdicts and writes the same text whether a file is plain YAML (read once) or needs the full parser', async () => {
    // b: a byte order mark (canonical text after it); c: an anchor, outside the fast reader's subset; d: a comment the fast form does not place.
    const dir = testdir({
      'a.yaml': scrambled('Auditors'),
      'b.yaml': `\ufeff${canonical('Operators')}`,
      'c.yaml': scrambled('Admins').replace('resourceGroup: Operations', 'resourceGroup: &rg Operations'),
      'd.yaml': scrambled('Viewers').replace('  resourceGroup: Operations', '  # the group\n  resourceGroup: Operations'),
      'e.yaml': canonical('Readers'),
    });
    const check = await formatManifests({ paths: ['.'], check: true }, recordingContext(dir));
    expect(states(check, dir)).toEqual({
      'a.yaml': 'unformatted',
      'b.yaml': 'unformatted',
      'c.yaml': 'unformatted',
      'd.yaml': 'unformatted',
      'e.yaml': 'formatted',
    });
    await formatManifests({ paths: ['.'], check: false }, recordingContext(dir));
    expect(readFileSync(join(dir, 'a.yaml'), 'utf8')).toBe(canonical('Auditors'));
    expect(readFileSync(join(dir, 'b.yaml'), 'utf8')).toBe(canonical('Operators'));
    expect(readFileSync(join(dir, 'c.yaml'), 'utf8')).toBe(canonical('Admins').replace('resourceGroup: Operations', 'resourceGroup: &rg Operations'));
    expect(readFileSync(join(dir, 'd.yaml'), 'utf8')).toBe(
      canonical('Viewers').replace('  resourceGroup: Operations', '  # the group\n  resourceGroup: Operations'),
    );
    expect(states(await formatManifests({ paths: ['.'], check: true }, recordingContext(dir)), dir)).toEqual({
      'a.yaml': 'formatted',
      'b.yaml': 'formatted',
      'c.yaml': 'formatted',
      'd.yaml': 'formatted',
      'e.yaml': 'formatted',
    });
  });

  it('formats a manifest that uses variables (they have no value while formatting)', async () => {
    const withVars = (quote: string) => scrambled('Auditors').replace(`userGroup: 'Auditors'`, `userGroup: ${quote}\${var:auditors}${quote}`);
    const dir = testdir({ 'a.yaml': withVars("'") });
    const report = await formatManifests({ paths: ['.'], check: false }, recordingContext(dir));
    expect(report.status).toBe('ok');
    expect(readFileSync(join(dir, 'a.yaml'), 'utf8')).toBe(canonical('Auditors').replace('userGroup: Auditors', 'userGroup: ${var:auditors}'));
  });

  it('with check, writes nothing and reports the files that are not formatted', async () => {
    const dir = testdir({ 'a.yaml': scrambled('Auditors'), 'b.yaml': canonical('Operators') });
    const report = await formatManifests({ paths: ['.'], check: true }, recordingContext(dir));
    expect(report.status).toBe('unformatted');
    expect(states(report, dir)).toEqual({ 'a.yaml': 'unformatted', 'b.yaml': 'formatted' });
    expect(readFileSync(join(dir, 'a.yaml'), 'utf8')).toBe(scrambled('Auditors'));
  });

  it('leaves a file with errors as it is and reports its errors; the other files are formatted', async () => {
    const dir = testdir({ 'bad.yaml': INVALID, 'good.yaml': scrambled('Auditors'), 'broken.yaml': 'kind: [\n' });
    const report = await formatManifests({ paths: ['.'], check: false }, recordingContext(dir));
    expect(report.status).toBe('invalid');
    expect(states(report, dir)).toEqual({ 'bad.yaml': 'invalid', 'broken.yaml': 'invalid', 'good.yaml': 'rewritten' });
    expect(report.diagnostics.map((d) => `${d.file!.slice(dir.length + 1)} ${d.code}`)).toEqual(['bad.yaml MF201', 'broken.yaml MF001']);
    expect(readFileSync(join(dir, 'bad.yaml'), 'utf8')).toBe(INVALID);
    expect(readFileSync(join(dir, 'good.yaml'), 'utf8')).toBe(canonical('Auditors'));
  });

  it("keeps a file's permissions and writes through a symbolic link, not over it", async () => {
    const dir = testdir({ 'real/acl.yaml': scrambled('Auditors') });
    chmodSync(join(dir, 'real/acl.yaml'), 0o640);
    symlinkSync(join(dir, 'real/acl.yaml'), join(dir, 'link.yaml'));
    const report = await formatManifests({ paths: ['link.yaml'], check: false }, recordingContext(dir));
    expect(states(report, dir)).toEqual({ 'link.yaml': 'rewritten' });
    expect(statSync(join(dir, 'real/acl.yaml')).mode & 0o777).toBe(0o640);
    expect(readFileSync(join(dir, 'real/acl.yaml'), 'utf8')).toBe(canonical('Auditors'));
    expect(readFileSync(join(dir, 'link.yaml'), 'utf8')).toBe(canonical('Auditors'));
  });

  it("formats the environment's manifests when no path is given", async () => {
    const dir = testdir({ 'mftops.yaml': configYaml({ url: 'http://127.0.0.1:9', manifests: ['manifests'] }), 'manifests/acl.yaml': scrambled('Auditors') });
    const report = await formatManifests({ check: true }, recordingContext(dir));
    expect(states(report, dir)).toEqual({ 'manifests/acl.yaml': 'unformatted' });
  });

  it('finds every file mftops import writes already in canonical form', async () => {
    const emulator = await startSeededEmulator();
    try {
      const dir = testdir({ 'mftops.yaml': configYaml({ url: emulator.url, scope: { folders: ['/'] } }) });
      const imported = await importEnvironment({ out: 'manifests', all: true }, recordingContext(dir, PASSWORDS));
      expect(imported.status).toBe('imported');
      const report = await formatManifests({ paths: ['manifests'], check: true }, recordingContext(dir));
      expect(report.files.length).toBeGreaterThan(10);
      expect(report.files.filter((f) => f.state !== 'formatted')).toEqual([]);
    } finally {
      await emulator.close();
    }
  });
});
