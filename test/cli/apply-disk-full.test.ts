import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it, vi } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { mftops } from '../fidelity/harness.js';
import { startSeededEmulator } from '../integration/helpers.js';
import { hasStackTrace } from '../helpers/run-cli.js';
import { APPLY_ENV, applyWorkdir, writesOf } from '../apply/helpers.js';

/**
 * Issue 23 finding 10: the disk fills up while the export is saved. As on Linux, the write that
 * reaches the end of the space writes what fits and says how much; the next one fails with
 * ENOSPC. The CLI runs in this process (the file system is mocked), over HTTP to the emulator.
 */
const ROOM = 4096;
const disk = vi.hoisted(() => ({ full: false, left: 0 }));
vi.mock('node:fs/promises', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs/promises')>();
  const noSpace = (): Error => Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC', errno: -28, syscall: 'write' });
  const open = (async (...args: Parameters<typeof fs.open>) => {
    const handle = await fs.open(...args);
    if (!disk.full) return handle;
    const writev = handle.writev.bind(handle);
    const write = handle.write.bind(handle) as (...a: unknown[]) => Promise<{ bytesWritten: number }>;
    Object.assign(handle, {
      writev: async (buffers: Buffer[]) => {
        if (disk.left === 0) throw noSpace();
        const all = Buffer.concat(buffers);
        const fits = all.subarray(0, Math.min(all.length, disk.left));
        disk.left -= fits.length;
        await writev([fits]);
        return { bytesWritten: fits.length, buffers };
      },
      write: async (...a: unknown[]) => {
        if (disk.left === 0) throw noSpace();
        return write(...a);
      },
    });
    return handle;
  }) as typeof fs.open;
  return { ...fs, open, default: { ...fs, open } };
});

let emulator: RunningEmulator | undefined;
afterEach(async () => {
  disk.full = false;
  await emulator?.close();
});

it('a disk that fills up while the export is saved: the message names ENOSPC and the path, nothing is written to the server, no snapshot is left', async () => {
  emulator = await startSeededEmulator();
  const dir = applyWorkdir(emulator);
  emulator.resetRequestLog();
  disk.full = true;
  disk.left = ROOM;
  const r = await mftops(['apply', '--auto-approve', '--allow-delete', '--allow-replace'], dir, APPLY_ENV);
  disk.full = false;
  const out = `${r.stdout}\n${r.stderr}`;
  expect(r.code, out).toBe(1);
  expect(out).toMatch(/cannot write snapshot \S*\/\.mftops\/snapshots\/lab\/\S+\/automation-config\.xml: no space left on the device \(ENOSPC\)/);
  expect(out).not.toContain('differs from what the server sent');
  expect(hasStackTrace(out)).toBe(false);
  expect(writesOf(emulator)).toEqual([]);
  const envDir = join(dir, '.mftops/snapshots/lab');
  expect(existsSync(envDir) ? readdirSync(envDir).filter((n) => n !== 'apply.lock') : []).toEqual([]);
});
