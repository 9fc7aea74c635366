import { encodeValue } from './automation-wire.js';
import type { JsonObject } from './json.js';
import type { EmulatorState, TaskRun, Variants } from './state.js';
import { nowMs } from './state.js';

/** Task runs of the emulated automation service: how they start, last and are answered (SPEC rules 48, 121). */

/** `yyyy-MM-dd HH:mm:ss.SS` (the Stop Task Input format). */
function nominalStart(ms: number): string {
  const d = new Date(ms).toISOString();
  return `${d.slice(0, 10)} ${d.slice(11, 22)}`;
}

/**
 * Start a run of `task` now on the emulator clock (the API's start, a seeded run, a test's): it
 * lasts `seconds`, else the emulator's `runMs`, else until stopped. Returns its nominal start.
 */
export function addRun(state: EmulatorState, task: JsonObject, opts: { readonly scheduled: boolean; readonly seconds?: number }): string {
  const id = String(task.ID);
  let ms = nowMs(state);
  while (state.automation.runs.some((r) => r.TaskID === id && r.NominalStart === nominalStart(ms))) ms += 10;
  const start = nominalStart(ms);
  const lasts = opts.seconds !== undefined ? opts.seconds * 1000 : state.runMs;
  state.automation.runs.push({
    TaskID: id,
    TaskName: String(task.Name),
    NominalStart: start,
    TimeStarted: new Date(ms).toISOString(),
    Status: 'Running',
    Scheduled: opts.scheduled ? 1 : 0,
    ...(lasts !== undefined ? { endsAtMs: ms + lasts } : {}),
  });
  return start;
}

/** A running task as `automation.running` spells it; the emulator's `endsAtMs` never shown. */
export function runningView(r: TaskRun, v: Variants): JsonObject {
  const taskId = encodeValue('id', r.TaskID, v);
  const form = v['automation.running'];
  switch (form) {
    case 'reference':
      return { TaskID: taskId, TaskName: r.TaskName, NominalStart: r.NominalStart, TimeStarted: r.TimeStarted, Status: r.Status, Scheduled: r.Scheduled };
    case 'camel':
      return { taskId, taskName: r.TaskName, nominalStart: r.NominalStart, timeStarted: r.TimeStarted, status: r.Status, scheduled: r.Scheduled === 1 };
    default: {
      const never: never = form;
      throw new Error(`unknown running-task form ${String(never)}`);
    }
  }
}
