import { afterEach, describe, expect, it, vi } from 'vitest';

const setFlagsFromString = vi.fn();
vi.mock('node:v8', async (original) => ({ ...(await original<typeof import('node:v8')>()), setFlagsFromString }));
const { HEAP_GROWING_PERCENT, limitHeapGrowth } = await import('../src/heap-growth.js');

describe('limitHeapGrowth', () => {
  afterEach(() => setFlagsFromString.mockClear());

  it("bounds V8's heap growth for the CLI's process", () => {
    limitHeapGrowth(['--enable-source-maps', '']);
    expect(setFlagsFromString).toHaveBeenCalledExactlyOnceWith(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
    expect(HEAP_GROWING_PERCENT).toBeGreaterThan(0);
  });

  it("keeps a growth the user gave node itself, in either of V8's spellings", () => {
    limitHeapGrowth(['--heap-growing-percent=50']);
    limitHeapGrowth(['--max-old-space-size=4096', '--heap_growing_percent=80']);
    expect(setFlagsFromString).not.toHaveBeenCalled();
  });
});
