import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadManifests } from '../../src/manifest/load.js';
import { testdir } from '../helpers/testdir.js';

/**
 * The loader keeps neither the text nor the syntax tree of a file: a position asked for after
 * loading (plan's diagnostics: an unknown host, a name taken) reads the file again, and only the
 * bytes that were loaded may answer.
 */
const FAST = [
  '# a comment line',
  'apiVersion: mftops/v1',
  'kind: Task',
  'metadata:',
  '  name: Fast',
  'spec:',
  '  Active: 1',
  '  steps:',
  '    - Source: { Host: somewhere, Path: /out }',
  '',
].join('\n');

/** A block scalar: outside the fast reader's subset, read by `yaml`. */
const FULL = [
  'apiVersion: mftops/v1',
  'kind: Task',
  'metadata:',
  '  name: Full',
  'spec:',
  '  Info:',
  '    Description: |',
  '      two',
  '      lines',
  '  Active: 1',
  '',
].join('\n');

async function load(files: Record<string, string>) {
  const dir = testdir(files);
  const set = await loadManifests([dir]);
  expect(set.diagnostics).toEqual([]);
  const byName = (name: string) => set.manifests.find((m) => m.name === name)!;
  return { dir, byName };
}

describe('positions asked for after loading', () => {
  it('are exact while the files are as loaded, for fast-read files and the others', async () => {
    const { byName } = await load({ 'fast.yaml': FAST, 'full.yaml': FULL });
    expect(byName('Fast').sourceMap.locate(['spec', 'steps', 0, 'Source', 'Host'])).toMatchObject({ line: 9, col: 23 });
    expect(byName('Fast').source).toMatchObject({ line: 2, col: 1 });
    expect(byName('Full').sourceMap.locate(['spec', 'Active'])).toMatchObject({ line: 10, col: 11 });
    expect(byName('Full').sourceMap.locate(['spec', 'Active'], 'key')).toMatchObject({ line: 10, col: 3 });
  });

  it("fall back to the document's start when the file changed since, never a place in the new content", async () => {
    const { dir, byName } = await load({ 'fast.yaml': FAST, 'same-size.yaml': FULL.replace('Full', 'Same') });
    // Other content, other size.
    writeFileSync(join(dir, 'fast.yaml'), `\n\n\n${FAST}`);
    // Other content, the same size: the hash tells.
    writeFileSync(join(dir, 'same-size.yaml'), FULL.replace('Full', 'Same').replace('  Info:', '  INFO:'));
    expect(byName('Fast').sourceMap.locate(['spec', 'steps', 0, 'Source', 'Host'])).toEqual(byName('Fast').source);
    expect(byName('Same').sourceMap.locate(['spec', 'Active'])).toEqual(byName('Same').source);
    expect(byName('Same').source).toMatchObject({ line: 1, col: 1 });
  });

  it("fall back to the document's start when the file is gone", async () => {
    const { dir, byName } = await load({ 'fast.yaml': FAST });
    rmSync(join(dir, 'fast.yaml'));
    expect(byName('Fast').sourceMap.locate(['spec', 'Active'])).toEqual({ file: join(dir, 'fast.yaml'), line: 2, col: 1 });
  });
});
