import { resolve } from 'node:path';
import { clearSchedulerNote, noteApplyIsAlive, readSchedulerNote } from '../apply/scheduler-note.js';
import type { SchedulerNote } from '../apply/scheduler-note.js';
import { ConfigError, MftopsError } from '../errors.js';
import { openClients } from './clients.js';
import type { AppContext, EnvironmentChoice } from './context.js';
import { openEnvironment, resolveServices } from './environment.js';

/** What `mftops scheduler start` did. */
export interface SchedulerStartReport {
  readonly environment: string;
  /** The scheduler ran already: nothing was sent but the read. */
  readonly wasRunning: boolean;
  /** The recovery note an `apply --pause-scheduler` left, now removed. */
  readonly clearedNote?: SchedulerNote;
}

/**
 * `mftops scheduler start`: start the automation scheduler of the environment (a write, admin
 * only: the full client), then remove the recovery note an `apply --pause-scheduler` left. A
 * scheduler that runs already is not started again; the note is removed all the same.
 */
export async function startEnvironmentScheduler(
  choice: EnvironmentChoice,
  ctx: AppContext,
  options: { readonly force?: boolean } = {},
): Promise<SchedulerStartReport> {
  const { config, env } = openEnvironment(choice, ctx);
  const services = resolveServices(config, env, ctx).filter((s) => s.name === 'automation');
  if (services.length === 0) throw new ConfigError(`environment "${env.name}" has no automation service, so no scheduler to start`);
  const dir = resolve(config.snapshots.dir, env.name);
  // Started mid-writes, the apply's tasks would run on a half-written configuration.
  const pausing = readSchedulerNote(dir);
  if (pausing !== undefined && options.force !== true && noteApplyIsAlive(dir, pausing)) {
    throw new MftopsError(
      `an apply in progress (pid ${pausing.pid} on ${pausing.host}) stopped the scheduler for its writes and starts it again when they finish: wait for it, or use --force to start it now`,
    );
  }
  const clients = await openClients(services, ctx);
  try {
    const automation = clients.full.automation!;
    const wasRunning = await automation.getSchedulerStatus();
    if (!wasRunning) await automation.startScheduler();
    const note = readSchedulerNote(dir);
    clearSchedulerNote(dir);
    return { environment: env.name, wasRunning, ...(note !== undefined ? { clearedNote: note } : {}) };
  } finally {
    await clients.close();
  }
}
