import { noteApplyIsAlive, readSchedulerNote } from '../apply/scheduler-note.js';
import { userMessageOf } from '../errors.js';
import type { SchedulerStatus } from '../render/status.js';
import type { ReadonlyAutomationClient } from '../services/automation/client.js';
import { withDefined } from '../with-defined.js';
import { startSchedulerCommand } from './scheduler-pause.js';

/**
 * The scheduler as `mftops status` shows it: its state (read-only), and the recovery note an
 * `apply --pause-scheduler` left in `dir` (`<snapshots.dir>/<env>`) when it did not start it again.
 */
export async function readSchedulerStatus(
  client: Pick<ReadonlyAutomationClient, 'getSchedulerStatus'>,
  dir: string,
  environment: string,
  automationUrl: string,
): Promise<SchedulerStatus> {
  const note = readSchedulerNote(dir);
  let running: boolean | undefined;
  let error: string | undefined;
  try {
    running = await client.getSchedulerStatus();
  } catch (err) {
    error = userMessageOf(err);
    if (error === undefined) throw err;
  }
  // An apply still running stopped it for its writes and starts it again: no alarm, no advice to start it.
  if (note !== undefined && noteApplyIsAlive(dir, note))
    return withDefined({ running, error, pausedBy: { apply: note.apply, pid: note.pid, host: note.host } });
  const stoppedBy = note === undefined ? undefined : { apply: note.apply, stoppedAt: note.stoppedAt, pid: note.pid, host: note.host };
  const startWith = running === false || note !== undefined ? startSchedulerCommand(environment, automationUrl) : undefined;
  return withDefined({ running, error, stoppedBy, startWith });
}
