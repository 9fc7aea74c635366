import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { REPO_ROOT } from './harness.js';

/**
 * GitHub's concurrency groups as "Control the concurrency of workflows and jobs" documents them,
 * for tests that run the Action once per queued job:
 * - at most one job of a group runs; a job queued meanwhile is `pending`;
 * - `queue: single` (the default): at most one job is pending; a newly queued job cancels the one
 *   pending and takes its place;
 * - `queue: max`: up to 100 jobs are pending, started first in, first out; a job queued when 100
 *   are pending is cancelled;
 * - `cancel-in-progress: true` would cancel the running job: not modelled (no mftops workflow may
 *   set it on apply or drift), so a group that sets it throws.
 * Group names are compared ignoring case, as GitHub does.
 */
export type QueueMode = 'single' | 'max';

/** The concurrency of one job of an example workflow, its group evaluated for a matrix value. */
export interface JobConcurrency {
  readonly group: string;
  readonly queue: QueueMode;
  readonly cancelInProgress: boolean;
}

/** `jobs.<job>.concurrency` of examples/workflows/<file>, with `${{ matrix.environment }}` put in. */
export function exampleJobConcurrency(file: string, job: string, environment: string): JobConcurrency {
  const workflow = parse(readFileSync(join(REPO_ROOT, 'examples', 'workflows', file), 'utf8')) as { jobs: Record<string, { concurrency?: unknown }> };
  const c = workflow.jobs[job]?.concurrency;
  if (typeof c === 'string') return { group: c, queue: 'single', cancelInProgress: false };
  if (c === null || typeof c !== 'object') throw new Error(`${file}: job ${job} has no concurrency`);
  const { group, queue, 'cancel-in-progress': cancel } = c as { group?: unknown; queue?: unknown; 'cancel-in-progress'?: unknown };
  if (typeof group !== 'string') throw new Error(`${file}: job ${job}: concurrency.group is not a string`);
  const evaluated = group.replace(/\$\{\{\s*([^}]*?)\s*\}\}/g, (_, expr: string) => {
    if (expr !== 'matrix.environment') throw new Error(`${file}: this model cannot evaluate ${expr} in the concurrency group`);
    return environment;
  });
  if (queue !== undefined && queue !== 'single' && queue !== 'max') throw new Error(`${file}: job ${job}: queue ${String(queue)} is neither single nor max`);
  return { group: evaluated, queue: queue ?? 'single', cancelInProgress: cancel === true || cancel === 'true' };
}

export type JobState = 'pending' | 'running' | 'completed' | 'cancelled';

export interface QueuedJob {
  readonly name: string;
  state: JobState;
}

/** The jobs of one group, in the order they were queued, and what happened, in order. */
export interface ConcurrencyGroup {
  /** Queue a job with its group's settings; `run` is started when the job's turn comes. */
  enqueue(name: string, concurrency: JobConcurrency, run: () => Promise<void>): QueuedJob;
  readonly jobs: readonly QueuedJob[];
  /** `start NAME`, `end NAME`, `cancel NAME`, in order. */
  readonly events: readonly string[];
  /** Resolves when no job runs or waits (rejects with the first error a job's run threw). */
  idle(): Promise<void>;
}

export const MAX_PENDING = 100;

export function createConcurrencyGroup(): ConcurrencyGroup {
  const jobs: QueuedJob[] = [];
  const events: string[] = [];
  let group: string | undefined;
  let running: QueuedJob | undefined;
  const pending: Array<{ job: QueuedJob; run: () => Promise<void> }> = [];
  let waiters: Array<{ resolve: () => void; reject: (err: unknown) => void }> = [];
  let failure: unknown;

  const settle = (): void => {
    if (running !== undefined || pending.length > 0) return;
    const ws = waiters;
    waiters = [];
    for (const w of ws) {
      if (failure === undefined) w.resolve();
      else w.reject(failure);
    }
  };
  const start = (job: QueuedJob, run: () => Promise<void>): void => {
    running = job;
    job.state = 'running';
    events.push(`start ${job.name}`);
    run().then(
      () => finish(job),
      (err: unknown) => {
        failure ??= err;
        finish(job);
      },
    );
  };
  const finish = (job: QueuedJob): void => {
    job.state = 'completed';
    events.push(`end ${job.name}`);
    running = undefined;
    const next = pending.shift();
    if (next !== undefined) start(next.job, next.run);
    settle();
  };
  const cancel = (job: QueuedJob): void => {
    job.state = 'cancelled';
    events.push(`cancel ${job.name}`);
  };

  return {
    jobs,
    events,
    enqueue(name, concurrency, run) {
      if (concurrency.cancelInProgress) throw new Error(`${name}: cancel-in-progress is not modelled (and must not be set on apply or drift)`);
      const key = concurrency.group.toLowerCase();
      if (group !== undefined && group !== key) throw new Error(`${name} is in group ${concurrency.group}, not ${group}: one model per group`);
      group = key;
      const job: QueuedJob = { name, state: 'pending' };
      jobs.push(job);
      if (running === undefined) {
        start(job, run);
      } else if (concurrency.queue === 'single') {
        // The documented default: the new job replaces the one waiting.
        for (const p of pending.splice(0)) cancel(p.job);
        pending.push({ job, run });
      } else if (pending.length >= MAX_PENDING) {
        cancel(job);
      } else {
        pending.push({ job, run });
      }
      return job;
    },
    idle: () =>
      new Promise<void>((resolve, reject) => {
        waiters.push({ resolve, reject });
        settle();
      }),
  };
}
