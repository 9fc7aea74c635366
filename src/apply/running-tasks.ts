import { userMessageOf } from '../errors.js';
import type { Change } from '../plan/model.js';
import type { RunningTask } from '../services/automation/running-tasks.js';

/**
 * What apply does before writing a task that is running (issue 28 item 2):
 * - `wait` (default): poll until the run ends, at most `RunningTaskGuard.waitMs` and never past
 *   the close of the change window apply started in; a run still going at the deadline leaves the
 *   change not applied (reported as skipped, exit 1);
 * - `skip`: the change is not applied and reported so (exit 1); the others go on;
 * - `ignore`: write anyway (mftops before issue 28).
 */
export type RunningTasksMode = 'wait' | 'skip' | 'ignore';
export const RUNNING_TASKS_MODES: readonly RunningTasksMode[] = ['wait', 'skip', 'ignore'];

/** How long `wait` waits for a run to end, by default. */
export const DEFAULT_RUNNING_WAIT_MS = 10 * 60_000;
/** How often `wait` asks again, by default (`MFTOPS_RUNNING_POLL_MS` shortens it for tests). */
export const DEFAULT_RUNNING_POLL_MS = 5000;

export interface RunningTaskGuardOptions {
  readonly mode: RunningTasksMode;
  /** `wait`'s deadline per change, from its first look. */
  readonly waitMs: number;
  readonly pollMs: number;
  /** GET /tasks/running, read again for every look. */
  readonly read: () => Promise<readonly RunningTask[]>;
  /** Elapsed time for the deadline (ms); default `Date.now`. */
  readonly now?: () => number;
  /** Resolves after `ms`, or early when `signal` aborts. */
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Ctrl-C: a wait in progress ends, and its change is not applied. */
  readonly signal?: AbortSignal;
  /**
   * When the change window apply started in closes (`atMs` on the clock of `now`; `text` in the
   * server's zone): a wait ends there, so a task write never lands after the window it waited in.
   */
  readonly windowCloses?: { readonly atMs: number; readonly text: string };
}

/**
 * Asked immediately before a change's first request: undefined to write it, or why it is not
 * applied (one line). Asked per change, not once per apply: a run may start between two writes.
 */
export type ChangeGate = (change: Change) => Promise<string | undefined>;

/** The writes a running task makes unsafe: an update, a replace or a delete of the task itself. */
export function isGuardedWrite(change: Change): boolean {
  return change.kind === 'Task' && (change.action === 'update' || change.action === 'replace' || change.action === 'delete');
}

/**
 * The gate of `RunningTaskGuardOptions.mode`; `ignore` has none. A task is matched to a run by
 * its live id, or by name (its name before a rename too) when the server lists no id. A failed
 * read leaves the change not applied: mftops cannot tell, and does not guess.
 */
export function createRunningTaskGate(opts: RunningTaskGuardOptions): ChangeGate | undefined {
  switch (opts.mode) {
    case 'ignore':
      return undefined;
    case 'skip':
    case 'wait':
      break;
    default: {
      const never: never = opts.mode;
      throw new Error(`unknown running-tasks mode ${String(never)}`);
    }
  }
  const now = opts.now ?? Date.now;
  const sleep = opts.sleep ?? abortableSleep;
  const mode = opts.mode;
  return async (change) => {
    if (!isGuardedWrite(change)) return undefined;
    const started = now();
    for (;;) {
      let run: RunningTask | undefined;
      try {
        run = (await opts.read()).find((r) => runsTask(r, change));
      } catch (err) {
        const message = userMessageOf(err);
        if (message === undefined) throw err;
        return `not applied: could not tell whether task ${JSON.stringify(change.name)} is running (${message})`;
      }
      if (run === undefined) return undefined;
      if (mode === 'skip') return `not applied: task ${JSON.stringify(change.name)} is running (${describeRun(run)}); --running-tasks skip`;
      if (opts.signal?.aborted) return `not applied: interrupted while waiting for task ${JSON.stringify(change.name)} to finish (${describeRun(run)})`;
      const closes = opts.windowCloses;
      const byWindow = closes !== undefined && closes.atMs < started + opts.waitMs;
      const left = (byWindow ? closes.atMs : started + opts.waitMs) - now();
      if (left <= 0) {
        if (byWindow)
          return `not applied: task ${JSON.stringify(change.name)} was still running when the change window closed at ${closes.text} (${describeRun(run)}); apply again in the next window`;
        return `not applied: task ${JSON.stringify(change.name)} was still running after waiting ${describeWait(opts.waitMs)} (${describeRun(run)}); wait longer with --running-wait, or apply again once it ends`;
      }
      await sleep(Math.min(opts.pollMs, left), opts.signal);
    }
  };
}

function runsTask(run: RunningTask, change: Change): boolean {
  if (run.taskId !== undefined && change.liveId !== undefined) return run.taskId === change.liveId;
  if (run.taskName === undefined) return false;
  const name = run.taskName.toLowerCase();
  return name === change.name.toLowerCase() || (change.previousName !== undefined && name === change.previousName.toLowerCase());
}

/** `started 2026-11-27 01:58 UTC by the scheduler`; the server's own text when it is no time mftops reads. */
export function describeRun(run: RunningTask): string {
  const by = run.scheduled === true ? ' by the scheduler' : run.scheduled === false ? ' by hand or through the API' : '';
  if (run.timeStarted === undefined) return `start time not given${by}`;
  const ms = Date.parse(run.timeStarted);
  const at =
    Number.isFinite(ms) && /[zZ]|[+-]\d\d:?\d\d$/.test(run.timeStarted) ? `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC` : run.timeStarted;
  return `started ${at}${by}`;
}

/** `10m`, `90s`, `1h30m`. */
export function describeWait(ms: number): string {
  const s = Math.round(ms / 1000);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  const parts = [h > 0 ? `${h}h` : '', m > 0 ? `${m}m` : '', sec > 0 || s === 0 ? `${sec}s` : ''];
  return parts.join('');
}

/**
 * `--running-wait`: `600`, `90s`, `10m`, `1h` or `1h30m` (a bare number is seconds), up to 24
 * hours; undefined when it is none of these.
 */
export function parseWait(text: string): number | undefined {
  const m = /^\s*(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s?)?\s*$/.exec(text);
  if (m === null || (m[1] === undefined && m[2] === undefined && m[3] === undefined)) return undefined;
  const ms = (Number(m[1] ?? 0) * 3600 + Number(m[2] ?? 0) * 60 + Number(m[3] ?? 0)) * 1000;
  return ms <= 24 * 3600_000 ? ms : undefined;
}

function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
