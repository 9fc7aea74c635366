import { readdirSync } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import { acquireApplyLock } from '../../src/apply/apply-lock.js';
import { testdir } from '../helpers/testdir.js';

/**
 * A disk that fills up while the lock is written: a write creates its file but no byte of it lands.
 * The lock written in place (create, then write) was left empty, and every later apply stopped at
 * "exists but cannot be read"; the lock written whole to a private name and then linked never is.
 */
const disk = vi.hoisted(() => ({ full: false }));
vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>();
  const noSpace = (): Error => Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
  return {
    ...fs,
    writeSync: ((...args: Parameters<typeof fs.writeSync>) => {
      if (disk.full) throw noSpace();
      return fs.writeSync(...args);
    }) as typeof fs.writeSync,
    writeFileSync: ((...args: Parameters<typeof fs.writeFileSync>) => {
      if (disk.full) {
        fs.writeFileSync(args[0], '', args[2]);
        throw noSpace();
      }
      fs.writeFileSync(...args);
    }) as typeof fs.writeFileSync,
  };
});

describe('apply lock on a full disk', () => {
  it('a lock that could not be written leaves nothing behind: the next apply takes the lock', () => {
    const dir = testdir({});
    disk.full = true;
    try {
      expect(() => acquireApplyLock({ dir, environment: 'prod', pid: 5, host: 'laptop' })).toThrow(
        /^cannot create the apply lock .*apply\.lock: no space left on the device \(ENOSPC\): free some space/,
      );
    } finally {
      disk.full = false;
    }
    expect(readdirSync(dir)).toEqual([]);
    const lock = acquireApplyLock({ dir, environment: 'prod', pid: 6, host: 'laptop' });
    lock.release();
  });
});
