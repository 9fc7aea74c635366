import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomicSync } from '../atomic-file.js';
import { systemError } from '../errors.js';
import { isRecord } from '../is-record.js';
import { liveApplyLockOwner } from './apply-lock.js';

/** The note's file name in `<snapshots.dir>/<env>/`, beside `apply.lock`. */
export const SCHEDULER_NOTE_FILE = 'scheduler-stopped.json';

/**
 * The recovery note of `apply --pause-scheduler` (issue 28 item 4): written (and on disk) before
 * the scheduler is stopped, removed once it is started again. One left behind means an apply
 * stopped the scheduler and never started it (killed, or the start failed): `mftops status` says
 * so and how to start it. It outlives the apply lock on purpose: the next apply takes a dead
 * owner's lock over, and the scheduler would still be stopped.
 */
export interface SchedulerNote {
  readonly environment: string;
  /** The apply's snapshot id: its ledger is `<snapshots.dir>/<env>/<id>/ledger.jsonl`. */
  readonly apply: string;
  /** ISO time the scheduler was about to be stopped. */
  readonly stoppedAt: string;
  readonly pid: number;
  readonly host: string;
  /** The automation service's configured URL. */
  readonly automationUrl: string;
}

/** Write the note (0600, atomically), creating the folder if needed. */
export function writeSchedulerNote(dir: string, note: SchedulerNote): void {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (err) {
    throw systemError(`cannot create ${dir} for the scheduler note`, err);
  }
  writeFileAtomicSync(join(dir, SCHEDULER_NOTE_FILE), `${JSON.stringify(note, null, 2)}\n`, { mode: 0o600 });
}

/** The note in `dir`, or undefined when there is none (or it is not one: a note mftops cannot read is no note). */
export function readSchedulerNote(dir: string): SchedulerNote | undefined {
  let text: string;
  try {
    text = readFileSync(join(dir, SCHEDULER_NOTE_FILE), 'utf8');
  } catch {
    return undefined;
  }
  try {
    const v: unknown = JSON.parse(text);
    if (!isRecord(v) || typeof v['apply'] !== 'string' || typeof v['stoppedAt'] !== 'string') return undefined;
    return {
      environment: String(v['environment'] ?? ''),
      apply: v['apply'],
      stoppedAt: v['stoppedAt'],
      pid: typeof v['pid'] === 'number' ? v['pid'] : 0,
      host: String(v['host'] ?? ''),
      automationUrl: String(v['automationUrl'] ?? ''),
    };
  } catch {
    return undefined;
  }
}

export function clearSchedulerNote(dir: string): void {
  rmSync(join(dir, SCHEDULER_NOTE_FILE), { force: true });
}

/**
 * Whether the apply that wrote `note` still runs: it holds the apply lock of `dir` (the same pid
 * and host, the lock not stale). Its scheduler is stopped for its writes, not left stopped.
 */
export function noteApplyIsAlive(dir: string, note: SchedulerNote): boolean {
  const owner = liveApplyLockOwner(dir);
  return owner !== undefined && owner.pid === note.pid && owner.host === note.host;
}
