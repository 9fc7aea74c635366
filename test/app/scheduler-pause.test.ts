import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { readSchedulerNote, SCHEDULER_NOTE_FILE } from '../../src/apply/scheduler-note.js';
import { createSchedulerPause, resumeHeldSchedulers } from '../../src/app/scheduler-pause.js';
import { MftopsError } from '../../src/errors.js';
import { testdir } from '../helpers/testdir.js';

/** A scheduler that records calls; `failStop`/`failStart` count the calls that fail. */
function fakeScheduler(opts: { running?: boolean; failStop?: boolean; failStart?: number } = {}) {
  const calls: string[] = [];
  let running = opts.running ?? true;
  let startFailures = opts.failStart ?? 0;
  return {
    calls,
    get running() {
      return running;
    },
    getSchedulerStatus: () => Promise.resolve(running),
    stopScheduler: () => {
      calls.push('stop');
      running = false;
      return opts.failStop === true ? Promise.reject(new MftopsError('503 Service Unavailable')) : Promise.resolve();
    },
    startScheduler: () => {
      calls.push('start');
      if (startFailures-- > 0) return Promise.reject(new MftopsError('403 Forbidden'));
      running = true;
      return Promise.resolve();
    },
  };
}

const base = (dir: string) => ({ dir, environment: 'prod', automationUrl: 'https://mft.example/', sleep: () => Promise.resolve() });

it('writes the note before the stop, and removes it once started again (once, however often resumed)', async () => {
  const dir = testdir({});
  const client = fakeScheduler();
  let noteAtStop = false;
  const stop = client.stopScheduler;
  client.stopScheduler = () => ((noteAtStop = existsSync(join(dir, SCHEDULER_NOTE_FILE))), stop());
  const pause = createSchedulerPause({ ...base(dir), client });
  expect(await pause.pause('20261127-0158-abc')).toBeUndefined();
  expect(noteAtStop).toBe(true);
  expect(readSchedulerNote(dir)).toMatchObject({ environment: 'prod', apply: '20261127-0158-abc', pid: process.pid });
  expect(await pause.resume()).toEqual({ state: 'restarted', message: 'the scheduler was stopped for the writes and started again' });
  await pause.resume();
  await resumeHeldSchedulers(1000);
  expect(client.calls).toEqual(['stop', 'start']);
  expect(readSchedulerNote(dir)).toBeUndefined();
});

it('a start that keeps failing leaves the note and says how to start it', async () => {
  const dir = testdir({});
  const client = fakeScheduler({ failStart: 5 });
  const pause = createSchedulerPause({ ...base(dir), client });
  await pause.pause('a1');
  expect(await pause.resume()).toEqual({
    state: 'not-restarted',
    message:
      'the scheduler was stopped for the writes and could not be started again (403 Forbidden): start it with mftops scheduler start --env prod (or PUT https://mft.example/api/v1/tasks/scheduler/start as an administrator)',
  });
  expect(client.calls).toEqual(['stop', 'start', 'start', 'start']);
  expect(readSchedulerNote(dir)?.apply).toBe('a1');
});

it('a stop that fails refuses the writes and starts the scheduler again (the stop may have taken effect)', async () => {
  const dir = testdir({});
  const client = fakeScheduler({ failStop: true });
  const pause = createSchedulerPause({ ...base(dir), client });
  expect(await pause.pause('a1')).toBe('--pause-scheduler: cannot stop the scheduler (503 Service Unavailable); nothing was written');
  expect(client.running).toBe(true);
  expect(readSchedulerNote(dir)).toBeUndefined();
});

it('the crash path starts a paused scheduler again; a scheduler stopped before is left alone', async () => {
  const dir = testdir({});
  const client = fakeScheduler();
  await createSchedulerPause({ ...base(dir), client }).pause('a1');
  await resumeHeldSchedulers(1000);
  expect(client.running).toBe(true);
  expect(readSchedulerNote(dir)).toBeUndefined();

  const stopped = fakeScheduler({ running: false });
  const pause = createSchedulerPause({ ...base(dir), client: stopped });
  expect(await pause.pause('a2')).toBeUndefined();
  expect((await pause.resume())?.state).toBe('left-stopped');
  expect(stopped.calls).toEqual([]);
});
