import { describe, expect, it } from 'vitest';
import { loadManifests } from '../../src/manifest/load.js';
import { getValidator } from '../../src/manifest/schemas.js';
import { testdir } from '../helpers/testdir.js';
import { generateTaskFiles } from '../../bench/generate-manifests.js';

describe('bulk validation', () => {
  it('validates 2,000 generated task manifests in one run (how fast: npm run bench, target validate)', async () => {
    const files = generateTaskFiles(2000);
    const dir = testdir(files);
    const started = performance.now();
    const set = await loadManifests(['gen'], { cwd: dir });
    const ms = performance.now() - started;
    console.log(`validated ${set.manifests.length} task manifests in ${Math.round(ms)} ms`);
    expect(set.diagnostics).toEqual([]);
    expect(set.manifests).toHaveLength(2000);
    expect(set.files).toHaveLength(Object.keys(files).length);
  });

  it('compiles each schema once and reuses it', () => {
    expect(getValidator('Task')).toBe(getValidator('Task'));
    expect(getValidator('FolderPermissions')).toBe(getValidator('FolderPermissions'));
  });
});
