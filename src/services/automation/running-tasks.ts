import { isRecord } from '../../is-record.js';
import { withDefined } from '../../with-defined.js';

/**
 * A task running now, as `GET /tasks/running` answers it, read from whichever spelling the
 * server uses (register A-33: the reference's `{TaskID, TaskName, NominalStart, TimeStarted,
 * Status, Scheduled}` names are of medium confidence, so camelCase and `ID`/`Name` are accepted
 * too). Every field but one identity is optional: a run is matched to a task by `taskId`, or by
 * `taskName` when the server gives no id.
 */
export interface RunningTask {
  /** The task's id, as a decimal string (ids may come as numbers, A-2). */
  readonly taskId?: string;
  readonly taskName?: string;
  /** The run's key for `POST /tasks/{id}/stop`, as given. */
  readonly nominalStart?: string;
  /** When the run started, as the server wrote it (ISO, or `yyyy-MM-dd HH:mm:ss`). */
  readonly timeStarted?: string;
  /** Started by the scheduler (true) or by hand/API (false); absent when not said. */
  readonly scheduled?: boolean;
}

const ID_KEYS = ['TaskID', 'TaskId', 'taskId', 'taskID', 'ID', 'Id', 'id'] as const;
const NAME_KEYS = ['TaskName', 'taskName', 'Name', 'name'] as const;
const NOMINAL_KEYS = ['NominalStart', 'nominalStart'] as const;
const STARTED_KEYS = ['TimeStarted', 'timeStarted', 'StartTime', 'startTime', 'Started', 'started'] as const;
const SCHEDULED_KEYS = ['Scheduled', 'scheduled'] as const;
const STATUS_KEYS = ['Status', 'status'] as const;
/** Statuses that say a listed run is over; any other (or none) counts as running, the safe reading. */
const ENDED = /^(stopped|completed|complete|finished|done|failed|succeeded|success|cancelled|canceled|aborted|killed)$/i;

/**
 * One item of the running-tasks list, or undefined when it names no task at all (neither an id
 * nor a name: the caller refuses to guess). `ended`: the item is listed but says it is over.
 */
export function readRunningTask(item: unknown): { readonly task: RunningTask; readonly ended: boolean } | undefined {
  if (!isRecord(item)) return undefined;
  const first = (keys: readonly string[]): unknown => keys.map((k) => item[k]).find((v) => v !== undefined && v !== null && v !== '');
  const id = first(ID_KEYS);
  const name = first(NAME_KEYS);
  const taskId = typeof id === 'string' || typeof id === 'number' ? String(id) : undefined;
  const taskName = typeof name === 'string' ? name : undefined;
  if (taskId === undefined && taskName === undefined) return undefined;
  const text = (keys: readonly string[]): string | undefined => {
    const v = first(keys);
    return typeof v === 'string' ? v : undefined;
  };
  const status = text(STATUS_KEYS);
  const task: RunningTask = withDefined({
    taskId,
    taskName,
    nominalStart: text(NOMINAL_KEYS),
    timeStarted: text(STARTED_KEYS),
    scheduled: readFlag(first(SCHEDULED_KEYS)),
  });
  return { task, ended: status !== undefined && ENDED.test(status.trim()) };
}

function readFlag(v: unknown): boolean | undefined {
  if (typeof v === 'boolean') return v;
  if (v === 0 || v === 1) return v === 1;
  if (typeof v === 'string') return /^(1|true|yes)$/i.test(v.trim()) ? true : /^(0|false|no)$/i.test(v.trim()) ? false : undefined;
  return undefined;
}
