import { describe, expect, it, vi } from 'vitest';
import { testdir } from '../helpers/testdir.js';

const noteInputBytes = vi.fn();
vi.mock('../../src/heap-growth.js', async (original) => ({ ...(await original<typeof import('../../src/heap-growth.js')>()), noteInputBytes }));
const { loadManifests } = await import('../../src/manifest/load.js');

describe('loadManifests and the heap', () => {
  it('tells the heap-growth limit how many bytes of manifests it reads, once', async () => {
    const a = 'apiVersion: mftops/v1\nkind: Host\nmetadata: { name: a }\nspec: { type: sftp, address: a.example }\n';
    const b = 'not: [valid\n';
    const dir = testdir({ 'a.yaml': a, 'sub/b.yml': b, 'notes.txt': 'x'.repeat(1000) });
    const loaded = await loadManifests([dir]);
    expect(noteInputBytes).toHaveBeenCalledExactlyOnceWith(Buffer.byteLength(a) + Buffer.byteLength(b));
    expect(loaded.diagnostics.length).toBeGreaterThan(0);
  });
});
