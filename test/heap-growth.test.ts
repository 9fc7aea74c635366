import { afterEach, describe, expect, it, vi } from 'vitest';

const setFlagsFromString = vi.fn();
vi.mock('node:v8', async (original) => ({ ...(await original<typeof import('node:v8')>()), setFlagsFromString }));
const { HEAP_GROWING_PERCENT, LIMIT_HEAP_FROM_BYTES, allowHeapGrowthLimit, noteInputBytes } = await import('../src/heap-growth.js');

describe('heap growth', () => {
  afterEach(() => setFlagsFromString.mockClear());

  it("bounds V8's heap growth for the CLI's process once its manifests are large, and only once", () => {
    allowHeapGrowthLimit(['--enable-source-maps', '']);
    noteInputBytes(LIMIT_HEAP_FROM_BYTES - 1);
    expect(setFlagsFromString).not.toHaveBeenCalled();
    noteInputBytes(LIMIT_HEAP_FROM_BYTES);
    noteInputBytes(LIMIT_HEAP_FROM_BYTES * 2);
    expect(setFlagsFromString).toHaveBeenCalledExactlyOnceWith(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
    expect(HEAP_GROWING_PERCENT).toBeGreaterThan(0);
  });

  it("keeps a growth the user gave node itself, in either of V8's spellings", () => {
    allowHeapGrowthLimit(['--heap-growing-percent=50']);
    noteInputBytes(LIMIT_HEAP_FROM_BYTES * 4);
    allowHeapGrowthLimit(['--max-old-space-size=4096', '--heap_growing_percent=80']);
    noteInputBytes(LIMIT_HEAP_FROM_BYTES * 4);
    expect(setFlagsFromString).not.toHaveBeenCalled();
  });
});
