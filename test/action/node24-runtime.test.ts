import { describe, expect, it, vi } from 'vitest';

/**
 * `npm test` runs what `npm ci` installed and downloads nothing: without MFTOPS_NODE24 the Node 24
 * runs of the Action's process tests use this Node and say so in their titles (`.ci/run` passes
 * a Node 24 in MFTOPS_NODE24).
 */
describe('the Node 24 runtime of the Action process tests', () => {
  it('without MFTOPS_NODE24, is this Node, named as a stand-in, found without npx or the network', async () => {
    vi.stubEnv('MFTOPS_NODE24', '');
    // Nothing could be fetched: no npx, no npm on the PATH.
    vi.stubEnv('PATH', '/nonexistent');
    vi.resetModules();
    const { NODE24_RUNTIME } = await import('./harness.js');
    const [name, findNode] = NODE24_RUNTIME;
    expect(name).toBe(`Node 24 not given (MFTOPS_NODE24 unset): this Node ${process.version} stands in`);
    await expect(findNode()).resolves.toBe(process.execPath);
  });

  it('with MFTOPS_NODE24 naming a binary that is not Node 24, fails the Node 24 runs', async () => {
    vi.stubEnv('MFTOPS_NODE24', process.execPath);
    vi.resetModules();
    const { NODE24_RUNTIME } = await import('./harness.js');
    const [name, findNode] = NODE24_RUNTIME;
    expect(name).toBe('Node 24');
    if (process.version.startsWith('v24.')) await expect(findNode()).resolves.toBe(process.execPath);
    else await expect(findNode()).rejects.toThrow(`MFTOPS_NODE24 (${process.execPath}) is Node ${process.version}, not Node 24`);
  });
});
