import { EventEmitter } from 'node:events';
import { mkdtempSync, existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { installCrashGuard, releaseAfterCrash } from '../../src/app/crash-guard.js';
import { createSchedulerPause } from '../../src/app/scheduler-pause.js';
import { acquireApplyLock, releaseHeldApplyLocks } from '../../src/apply/apply-lock.js';

/** A guard on a private emitter; resolves with what happened, in order, once it exits. */
function guarded(report: (err: unknown) => void | Promise<void> = () => undefined): { target: EventEmitter; events: string[]; exited: Promise<number> } {
  const target = new EventEmitter();
  const events: string[] = [];
  let exit!: (code: number) => void;
  const exited = new Promise<number>((resolve) => (exit = resolve));
  const uninstall = installCrashGuard({
    target,
    report: async (err) => {
      events.push(`report ${err instanceof Error ? err.message : String(err)}`);
      await report(err);
    },
    release: async () => void events.push('release'),
    exit: (code) => {
      events.push(`exit ${code}`);
      exit(code);
    },
  });
  onTestFinished(uninstall);
  return { target, events, exited };
}

describe('installCrashGuard', () => {
  it('reports the first failure once, releases, then exits 1; later failures add nothing', async () => {
    const { target, events, exited } = guarded();
    target.emit('unhandledRejection', new Error('first'));
    target.emit('uncaughtException', new Error('second'));
    target.emit('unhandledRejection', new Error('third'));
    expect(await exited).toBe(1);
    expect(events).toEqual(['report first', 'release', 'exit 1']);
  });

  it('still releases and exits when reporting fails', async () => {
    const { target, events, exited } = guarded(() => {
      throw new Error('stdout is gone');
    });
    target.emit('uncaughtException', new Error('boom'));
    expect(await exited).toBe(1);
    expect(events).toEqual(['report boom', 'release', 'exit 1']);
  });

  it('the default release removes the apply locks this process holds', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mftops-crash-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const lock = acquireApplyLock({ dir: join(dir, 'lab'), environment: 'lab' });
    expect(existsSync(lock.path)).toBe(true);
    releaseHeldApplyLocks();
    expect(existsSync(lock.path)).toBe(false);
    lock.release(); // once only: nothing left to do
  });

  it('the default release starts a paused scheduler again before it releases the apply lock (a second apply cannot start in between)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mftops-crash-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const lock = acquireApplyLock({ dir: join(dir, 'lab'), environment: 'lab' });
    const seen: boolean[] = [];
    const pause = createSchedulerPause({
      client: {
        getSchedulerStatus: async () => true,
        stopScheduler: async () => undefined,
        startScheduler: async () => void seen.push(existsSync(lock.path)),
      },
      dir: join(dir, 'lab'),
      environment: 'lab',
      automationUrl: 'https://automation.example',
    });
    expect(await pause.pause('apply-1')).toBeUndefined();
    await releaseAfterCrash();
    expect(seen).toEqual([true]);
    expect(existsSync(lock.path)).toBe(false);
  });
});
