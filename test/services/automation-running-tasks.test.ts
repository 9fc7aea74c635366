import { expect, it } from 'vitest';
import { readRunningTask } from '../../src/services/automation/running-tasks.js';

it('reads a running task in the reference spelling and in the plausible others (register A-33)', () => {
  const reference = {
    TaskID: 7,
    TaskName: 'Payroll',
    NominalStart: '2026-11-27 01:58:00.00',
    TimeStarted: '2026-11-27T01:58:03Z',
    Status: 'Running',
    Scheduled: 1,
  };
  const camel = {
    taskId: '7',
    taskName: 'Payroll',
    nominalStart: '2026-11-27 01:58:00.00',
    timeStarted: '2026-11-27T01:58:03Z',
    status: 'running',
    scheduled: true,
  };
  const expected = { taskId: '7', taskName: 'Payroll', nominalStart: '2026-11-27 01:58:00.00', timeStarted: '2026-11-27T01:58:03Z', scheduled: true };
  expect(readRunningTask(reference)).toEqual({ task: expected, ended: false });
  expect(readRunningTask(camel)).toEqual({ task: expected, ended: false });
  expect(readRunningTask({ ID: '7', Name: 'Payroll', StartTime: 'x', Scheduled: '0' })).toEqual({
    task: { taskId: '7', taskName: 'Payroll', timeStarted: 'x', scheduled: false },
    ended: false,
  });
  // Listed but over; no status at all counts as running (the safe reading).
  expect(readRunningTask({ TaskName: 'Payroll', Status: 'Completed' })?.ended).toBe(true);
  expect(readRunningTask({ TaskName: 'Payroll' })?.ended).toBe(false);
  // Nothing that names a task: the caller refuses the answer.
  expect(readRunningTask({ Status: 'Running' })).toBeUndefined();
  expect(readRunningTask('Payroll')).toBeUndefined();
});
