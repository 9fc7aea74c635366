import { describe, expect, it } from 'vitest';
import { renderPlanMarkdown } from '../../src/render/plan-markdown.js';
import { renderPlanText } from '../../src/render/plan-text.js';
import type { Plan } from '../../src/plan/model.js';
import { assemblePlanCalendar } from '../../src/schedule/plan-calendar.js';
import { readServerZone } from '../../src/schedule/server-zone.js';
import { expectGolden, loadFixturePlan } from '../fixtures/plans/load.js';

/**
 * every-action.json with a calendar: made Friday 2026-11-27 at 01:55 Berlin time, outside the
 * weekend-night change window; Payroll to bank (weekdays 02:00) is due in 5 minutes, Globex
 * outbound (its window 20:00–23:00) is not. New golden files: the fixture's own stay as they were.
 */
function planWithCalendar(): Plan {
  const plan = loadFixturePlan('every-action.json');
  const ids = new Map(plan.changes.map((c) => [c.address, c.liveId]));
  const liveTasks = new Map<string, unknown>([
    [
      ids.get('Task/Payroll to bank')!,
      {
        Active: 1,
        Schedules: {
          Schedule: [
            {
              Days: { DayOfWeek: ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday'] },
              Frequency: { Interval: [{ StartTime: '02:00', EndTime: '02:00' }] },
            },
          ],
        },
      },
    ],
    [ids.get('Task/Globex outbound')!, { Active: 1, Schedules: { Schedule: [{ Frequency: { Interval: [{ StartTime: '20:00', EndTime: '23:00' }] } }] } }],
  ]);
  const calendar = assemblePlanCalendar({
    changes: plan.changes,
    liveTasks,
    dateListNames: new Map(),
    dateLists: new Map(),
    zone: readServerZone({ serverTimezoneInfo: { timeZoneName: 'W. Europe Standard Time', timeZoneBias: '-60', daylightBias: '-60' } }),
    now: new Date('2026-11-27T00:55:00Z'),
    dueMarginMinutes: 15,
    changeWindows: { allow: [{ days: ['Saturday', 'Sunday'], from: 22 * 60, to: 4 * 60, where: 'mftops.yaml:12:11' }], freeze: [] },
  });
  return { ...plan, calendar: calendar! };
}

describe('golden renderings of a plan with a calendar (issue 28)', () => {
  const plan = planWithCalendar();

  it('records the changed tasks with schedules, in plan order, and the window', () => {
    expect(plan.calendar?.tasks.map((t) => [t.address, t.action, t.due !== undefined])).toEqual([
      ['Task/Payroll to bank', 'update', true],
      ['Task/Globex outbound', 'replace', false],
    ]);
    expect(plan.calendar?.changeWindow).toMatchObject({ state: 'closed', next: '2026-11-28T21:00:00.000Z' });
  });

  it('text', () => {
    expectGolden(renderPlanText(plan, { color: false }), 'calendar.txt');
  });

  it('markdown', () => {
    expectGolden(renderPlanMarkdown(plan, { artifactHint: 'the plan artifact' }), 'calendar.md');
  });
});
