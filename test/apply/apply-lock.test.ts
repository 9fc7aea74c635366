import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LOCK_FILE, acquireApplyLock, describeTakeover } from '../../src/apply/apply-lock.js';
import type { LockOwner } from '../../src/apply/apply-lock.js';
import { testdir } from '../helpers/testdir.js';

const T0 = Date.parse('2026-11-22T10:00:00.000Z');

function owner(overrides: Partial<LockOwner> = {}): LockOwner {
  return { pid: 4242, host: 'ci-runner', startedAt: '2026-11-22T09:59:00.000Z', expiresAt: '2026-11-22T10:09:00.000Z', environment: 'prod', ...overrides };
}

describe('apply lock', () => {
  it('is a 0600 file naming pid, host, start and expiry, removed on release', () => {
    const dir = join(testdir({}), 'snapshots', 'prod');
    const lock = acquireApplyLock({ dir, environment: 'prod', now: () => T0, ttlMs: 60_000, pid: 77, host: 'laptop' });
    const path = join(dir, LOCK_FILE);
    expect(lock.path).toBe(path);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir)).toEqual([LOCK_FILE]); // the draft it was written to is gone
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({
      pid: 77,
      host: 'laptop',
      startedAt: '2026-11-22T10:00:00.000Z',
      expiresAt: '2026-11-22T10:01:00.000Z',
      environment: 'prod',
    });
    expect(describeTakeover(lock)).toBeUndefined();
    lock.release();
    expect(existsSync(path)).toBe(false);
    lock.release(); // twice is harmless
  });

  it('refuses a second apply while the first holds the lock, naming the owner and how to clear it', () => {
    const dir = testdir({});
    const first = acquireApplyLock({ dir, environment: 'prod', now: () => T0, pid: 1, host: 'ci-runner' });
    expect(() => acquireApplyLock({ dir, environment: 'prod', now: () => T0 + 1000, pid: 2, host: 'laptop', isAlive: () => true })).toThrow(
      /another apply to environment "prod" is running \(pid 1 on ci-runner, since 2026-11-22T10:00:00\.000Z; the lock expires at .*\): wait for it, or delete .*apply\.lock/,
    );
    first.release();
    const second = acquireApplyLock({ dir, environment: 'prod', now: () => T0 + 2000, pid: 2, host: 'laptop' });
    second.release();
  });

  it('takes over a lock whose process is gone on this host (a SIGKILLed apply), and says so', () => {
    const dir = testdir({ [LOCK_FILE]: JSON.stringify(owner({ host: 'laptop' })) });
    const lock = acquireApplyLock({ dir, environment: 'prod', now: () => T0, pid: 9, host: 'laptop', isAlive: (pid) => pid !== 4242 });
    expect(lock.tookOverFrom?.pid).toBe(4242);
    expect(describeTakeover(lock)).toMatch(/took over a stale apply lock \(pid 4242 on laptop, since 2026-11-22T09:59:00\.000Z/);
    expect(JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8')).pid).toBe(9);
    lock.release();
  });

  it('takes over an expired lock of another host, but never a live one of another host', () => {
    const live = testdir({ [LOCK_FILE]: JSON.stringify(owner()) });
    expect(() => acquireApplyLock({ dir: live, environment: 'prod', now: () => T0, pid: 9, host: 'laptop', isAlive: () => false })).toThrow(/another apply/);
    const expired = testdir({ [LOCK_FILE]: JSON.stringify(owner({ expiresAt: '2026-11-22T09:59:59.000Z' })) });
    const lock = acquireApplyLock({ dir: expired, environment: 'prod', now: () => T0, pid: 9, host: 'laptop' });
    expect(lock.tookOverFrom?.host).toBe('ci-runner');
    lock.release();
  });

  it('an unreadable lock file stops the apply with the path to delete', () => {
    const dir = testdir({ [LOCK_FILE]: '' });
    expect(() => acquireApplyLock({ dir, environment: 'prod', now: () => T0 })).toThrow(/apply lock .*apply\.lock exists but cannot be read/);
  });

  it('release leaves a lock that another apply took over in place', () => {
    const dir = testdir({});
    const mine = acquireApplyLock({ dir, environment: 'prod', now: () => T0, pid: 5, host: 'laptop' });
    writeFileSync(join(dir, LOCK_FILE), JSON.stringify(owner({ pid: 6, host: 'laptop' })));
    mine.release();
    expect(JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8')).pid).toBe(6);
  });
});

describe('apply lock folders', () => {
  it('removes the folders it created when nothing else was written there, and keeps them otherwise', () => {
    const root = testdir({});
    const dir = join(root, '.mftops', 'snapshots', 'prod');
    acquireApplyLock({ dir, environment: 'prod' }).release();
    expect(existsSync(join(root, '.mftops'))).toBe(false);

    const kept = acquireApplyLock({ dir, environment: 'prod' });
    writeFileSync(join(dir, 'snapshot-marker'), 'x');
    kept.release();
    expect(existsSync(join(dir, 'snapshot-marker'))).toBe(true);
    expect(existsSync(join(dir, LOCK_FILE))).toBe(false);
  });
});
