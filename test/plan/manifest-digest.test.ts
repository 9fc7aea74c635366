import { createHash } from 'node:crypto';
import { renameSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadManifests } from '../../src/manifest/load.js';
import { manifestDigest } from '../../src/plan/manifest-digest.js';
import { testdir } from '../helpers/testdir.js';

const ACL = (name: string) =>
  `apiVersion: mftops/v1\nkind: ResourceGroupAcl\nmetadata: { name: ${name} }\nspec: { resourceGroup: Finance, userGroup: Auditors, permissions: [TaskRun] }\n`;

describe('manifest digest', () => {
  it('is stable for the same files, and changes when a file is edited or renamed', async () => {
    const dir = testdir({ 'm/a.yaml': ACL('a'), 'm/b.yaml': ACL('b').replace('Auditors', 'Finance Operators') });
    const digestNow = async () => manifestDigest(await loadManifests([join(dir, 'm')], { cwd: dir }), dir);
    const first = await digestNow();
    expect(await digestNow()).toBe(first);
    writeFileSync(join(dir, 'm/a.yaml'), ACL('a').replace('[TaskRun]', '[TaskRun, TaskEditExisting]'));
    const edited = await digestNow();
    expect(edited).not.toBe(first);
    renameSync(join(dir, 'm/a.yaml'), join(dir, 'm/c.yaml'));
    expect(await digestNow()).not.toBe(edited);
  });
});

describe('manifest digest, paths named without `relative` where they are plainly below the working folder', () => {
  /** The digest as it was made before: every path through `relative`. */
  const digestByRelative = (files: readonly string[], hashes: ReadonlyMap<string, string>, cwd: string): string => {
    const hash = createHash('sha256');
    const named = files
      .map((file) => ({ file, name: relative(cwd, file).split(sep).join('/') }))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const f of named) hash.update(`${f.name}\u0000${hashes.get(f.file) ?? 'unread'}\n`);
    return `sha256:${hash.digest('hex')}`;
  };
  const segment = fc.constantFrom('', '.', '..', '.hidden', 'a', 'b', 'manifests', 'x.yaml', 'ü');
  const path = fc.array(segment, { minLength: 0, maxLength: 4 }).map((parts) => `/${parts.join('/')}`);

  it('is the digest `relative` gives, for files below the working folder or elsewhere (differential)', () => {
    fc.assert(
      fc.property(path, fc.array(fc.tuple(path, fc.boolean()), { maxLength: 6 }), (cwd, picks) => {
        const files = picks.map(([tail, below]) => (below ? `${cwd}${tail}` : tail));
        const hashes = new Map(files.map((f, i) => [f, `h${i}`]));
        expect(manifestDigest({ files, fileHashes: hashes }, cwd)).toBe(digestByRelative(files, hashes, cwd));
      }),
      { numRuns: 2000 },
    );
  });
});
