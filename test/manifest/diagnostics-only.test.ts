import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadManifests } from '../../src/manifest/load.js';

const ROOT = join(import.meta.dirname, '..', '..');

/** `fmt` loads for the diagnostics only: the same problems, at the same places, nothing else kept. */
describe('a load for the diagnostics only', () => {
  it('finds what a full load finds in the invalid corpus and the examples, and keeps no manifest or hash', async () => {
    const paths = [join(ROOT, 'test', 'fixtures', 'invalid'), join(ROOT, 'examples', 'manifests')];
    const full = await loadManifests(paths);
    const only = await loadManifests(paths, { diagnosticsOnly: true });
    expect(full.diagnostics.length).toBeGreaterThan(10);
    expect(full.manifests.length).toBeGreaterThan(10);
    expect(only.diagnostics).toEqual(full.diagnostics);
    expect(only.files).toEqual(full.files);
    expect(only.policies).toEqual(full.policies.map((p) => expect.objectContaining({ name: p.name })));
    expect(only.manifests).toEqual([]);
    expect(only.fileHashes.size).toBe(0);
  });
});
