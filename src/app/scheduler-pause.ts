import { hostname } from 'node:os';
import type { SchedulerOutcome } from '../apply/model.js';
import { clearSchedulerNote, readSchedulerNote, writeSchedulerNote } from '../apply/scheduler-note.js';
import type { SchedulerNote } from '../apply/scheduler-note.js';
import { userMessageOf } from '../errors.js';
import type { AutomationClient } from '../services/automation/client.js';

/** The command that starts the scheduler again, for messages: the environment named, so it is copied whole. */
export function startSchedulerCommand(environment: string, automationUrl: string): string {
  return `mftops scheduler start --env ${environment} (or PUT ${automationUrl.replace(/\/+$/, '')}/api/v1/tasks/scheduler/start as an administrator)`;
}

/** The warning of a recovery note an earlier `apply --pause-scheduler` left (killed, or its start failed). */
export function leftStoppedWarning(note: SchedulerNote, command: string): string {
  return `mftops apply ${note.apply} stopped the automation scheduler at ${note.stoppedAt} (pid ${note.pid} on ${note.host}) and did not start it again: start it with ${command}`;
}

export interface SchedulerPauseInput {
  readonly client: Pick<AutomationClient, 'getSchedulerStatus' | 'stopScheduler' | 'startScheduler'>;
  /** `<snapshots.dir>/<env>`: where the recovery note goes. */
  readonly dir: string;
  readonly environment: string;
  readonly automationUrl: string;
  readonly now?: () => Date;
  /** Between tries of the start; default a real timer. */
  readonly sleep?: (ms: number) => Promise<void>;
}

/**
 * `apply --pause-scheduler`: `pause` stops the scheduler before the first write (after writing
 * the recovery note, so a SIGKILL between the two leaves a note and no silently stopped
 * scheduler); `resume` starts it again, once, whatever way apply ends. A scheduler that was
 * already stopped is left stopped. While paused the resume is also held for the process's crash
 * paths (`resumeHeldSchedulers`: an uncaught error, a second Ctrl-C).
 */
export interface SchedulerPause {
  /** Undefined: paused (or was already stopped); else why apply must not write (one line). */
  pause(applyId: string): Promise<string | undefined>;
  /** What happened to the scheduler; undefined when `pause` never ran. Safe to call more than once. */
  resume(): Promise<SchedulerOutcome | undefined>;
}

/** Tries of the start before the note is left for a person (starting is idempotent, so a retry is safe). */
const START_TRIES = 3;

export function createSchedulerPause(input: SchedulerPauseInput): SchedulerPause {
  const now = input.now ?? (() => new Date());
  const sleep = input.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const command = startSchedulerCommand(input.environment, input.automationUrl);
  let state: 'idle' | 'was-stopped' | 'paused' = 'idle';
  let resumed: Promise<SchedulerOutcome> | undefined;

  const start = async (): Promise<SchedulerOutcome> => {
    let last = '';
    for (let attempt = 1; attempt <= START_TRIES; attempt++) {
      if (attempt > 1) await sleep(500 * attempt);
      try {
        await input.client.startScheduler();
        clearSchedulerNote(input.dir);
        return { state: 'restarted', message: 'the scheduler was stopped for the writes and started again' };
      } catch (err) {
        const message = userMessageOf(err);
        if (message === undefined) throw err;
        last = message;
      }
    }
    return {
      state: 'not-restarted',
      message: `the scheduler was stopped for the writes and could not be started again (${last}): start it with ${command}`,
    };
  };
  const resume = (): Promise<SchedulerOutcome | undefined> => {
    switch (state) {
      case 'idle':
        return Promise.resolve(undefined);
      case 'was-stopped': {
        const note = readSchedulerNote(input.dir);
        const by = note === undefined ? '' : ` (by mftops apply ${note.apply}, which did not start it again: its note is kept)`;
        return Promise.resolve({ state: 'left-stopped', message: `the scheduler was already stopped before apply${by}, and is left stopped` });
      }
      case 'paused':
        resumed ??= start().finally(() => HELD.delete(held));
        return resumed;
      default: {
        const never: never = state;
        throw new Error(`unknown pause state ${String(never)}`);
      }
    }
  };
  const held = async (): Promise<void> => {
    await resume();
  };

  return {
    resume,
    async pause(applyId) {
      let running: boolean;
      try {
        running = await input.client.getSchedulerStatus();
      } catch (err) {
        const message = userMessageOf(err);
        if (message === undefined) throw err;
        return `--pause-scheduler: cannot read the scheduler's state (${message}); nothing was written`;
      }
      if (!running) {
        state = 'was-stopped';
        return undefined;
      }
      // On disk before the stop: a process killed right after the stop still leaves the note.
      writeSchedulerNote(input.dir, {
        environment: input.environment,
        apply: applyId,
        stoppedAt: now().toISOString(),
        pid: process.pid,
        host: hostname(),
        automationUrl: input.automationUrl,
      });
      state = 'paused';
      HELD.add(held);
      try {
        await input.client.stopScheduler();
      } catch (err) {
        const message = userMessageOf(err);
        if (message === undefined) throw err;
        // The stop may have taken effect (an unknown outcome): start it again rather than guess.
        const back = await resume();
        const tail = back?.state === 'not-restarted' ? `; ${back.message}` : '';
        return `--pause-scheduler: cannot stop the scheduler (${message}); nothing was written${tail}`;
      }
      return undefined;
    },
  };
}

/** Resumes of the pauses in progress in this process. */
const HELD = new Set<() => Promise<void>>();

/**
 * Start again every scheduler this process paused and has not started yet: the crash guard and a
 * second Ctrl-C call this before the tokens are revoked. Bounded by `timeoutMs`; never throws.
 */
export async function resumeHeldSchedulers(timeoutMs: number): Promise<void> {
  if (HELD.size === 0) return;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    Promise.allSettled([...HELD].map((resume) => resume())),
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, timeoutMs);
    }),
  ]);
  clearTimeout(timer);
}
