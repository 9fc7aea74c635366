import { describe, expect, it } from 'vitest';
import { assemblePlanCalendar } from '../../src/schedule/plan-calendar.js';
import { UTC_ZONE } from '../../src/schedule/server-zone.js';
import { calendarTextLines } from '../../src/render/plan-calendar.js';

/** A live task as the server answers it: weekday runs at `at`. */
function liveTask(name: string, at: string, active = 1): unknown {
  return {
    Name: name,
    Active: active,
    Schedules: {
      Schedule: [{ Days: { DayOfWeek: ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday'] }, Frequency: { Interval: [{ StartTime: at, EndTime: at }] } }],
    },
  };
}

const LIVE = new Map<string, unknown>([
  ['1', liveTask('Payroll to bank', '02:00')],
  ['2', liveTask('Invoices out', '02:05')],
  ['3', liveTask('Old export', '02:01', 0)],
  ['4', liveTask('Nightly cleanup', '23:30')],
]);

const BASE = {
  changes: [],
  liveTasks: LIVE,
  dateListNames: new Map<string, string>(),
  dateLists: new Map<string, ReadonlySet<string>>(),
  zone: UTC_ZONE,
  now: new Date('2026-11-27T01:55:00Z'),
  dueMarginMinutes: 15,
};

describe('the runs a paused scheduler may miss (apply --pause-scheduler)', () => {
  it('are those of every active task within the due margin, changed or not, in time order', () => {
    const calendar = assemblePlanCalendar({ ...BASE, pauseScheduler: true });
    expect(calendar?.paused).toEqual({
      minutes: 15,
      runs: [
        { address: 'Task/Payroll to bank', start: '2026-11-27T02:00:00.000Z' },
        { address: 'Task/Invoices out', start: '2026-11-27T02:05:00.000Z' },
      ],
    });
    expect(calendarTextLines(calendar).slice(1)).toEqual([
      "--pause-scheduler: 2 runs fall in the next 15 min (the due margin, taken as the apply's time) and may be missed while the scheduler is stopped (the server makes up at most one missed run per task):",
      '  Task/Payroll to bank: Fri 02:00 (in 5 min)',
      '  Task/Invoices out: Fri 02:05 (in 10 min)',
    ]);
  });

  it('says when no run falls in the margin, and is absent without --pause-scheduler', () => {
    const quiet = assemblePlanCalendar({ ...BASE, now: new Date('2026-11-27T12:00:00Z'), pauseScheduler: true });
    expect(quiet?.paused).toEqual({ minutes: 15, runs: [] });
    expect(calendarTextLines(quiet)).toEqual(['', "--pause-scheduler: no task is due to run in the next 15 min (the due margin, taken as the apply's time)."]);
    expect(assemblePlanCalendar(BASE)).toBeUndefined();
  });
});
