import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Schedule } from '../../src/kinds/task/model.js';
import { findDueRun, listNextRuns } from '../../src/schedule/next-runs.js';
import { readServerZone, UTC_ZONE } from '../../src/schedule/server-zone.js';
import { WEEK_DAYS } from '../../src/vocabulary.js';

const iso = (ms: number) => new Date(ms).toISOString();
const at = (text: string) => new Date(text);
const daily = (start: string, end = start, extra: Partial<Schedule> = {}): Schedule => ({
  Frequency: { Interval: [{ StartTime: start, EndTime: end }] },
  ...extra,
});

describe('listNextRuns', () => {
  it('runs on the days of the week named, at each interval start, in time order', () => {
    // 2026-11-27 is a Friday.
    const schedules: Schedule[] = [
      {
        Days: { DayOfWeek: ['Monday', 'Saturday'] },
        Frequency: {
          Interval: [
            { StartTime: '18:00', EndTime: '18:00' },
            { StartTime: '02:00', EndTime: '02:00' },
          ],
        },
      },
    ];
    const runs = listNextRuns(schedules, { from: at('2026-11-27T12:00:00Z'), count: 5, zone: UTC_ZONE });
    expect(runs.map((r) => iso(r.start))).toEqual([
      '2026-11-28T02:00:00.000Z',
      '2026-11-28T18:00:00.000Z',
      '2026-11-30T02:00:00.000Z',
      '2026-11-30T18:00:00.000Z',
      '2026-12-05T02:00:00.000Z',
    ]);
  });

  it('a window interval runs at its start and stays open until its end', () => {
    const [run] = listNextRuns([daily('08:00', '18:00')], { from: at('2026-11-27T19:00:00Z'), count: 1, zone: UTC_ZONE });
    expect([iso(run!.start), iso(run!.end)]).toEqual(['2026-11-28T08:00:00.000Z', '2026-11-28T18:00:00.000Z']);
  });

  it('an overnight schedule: the pre-midnight part on its day, the post-midnight part the morning after', () => {
    const schedules: Schedule[] = [
      { Days: { DayOfWeek: ['Friday'] }, Multi: 1, Frequency: { Interval: [{ StartTime: '23:00', EndTime: '23:59' }] } },
      { Days: { DayOfWeek: ['Friday'] }, Multi: 2, Frequency: { Interval: [{ StartTime: '00:00', EndTime: '01:30' }] } },
    ];
    const runs = listNextRuns(schedules, { from: at('2026-11-27T12:00:00Z'), count: 3, zone: UTC_ZONE });
    expect(runs.map((r) => [iso(r.start), r.schedule])).toEqual([
      ['2026-11-27T23:00:00.000Z', 0],
      ['2026-11-28T00:00:00.000Z', 1],
      ['2026-12-04T23:00:00.000Z', 0],
    ]);
  });

  it('a date list excludes its dates (the assumed reading), or with the other reading is the only dates', () => {
    const dateLists = new Map([['holidays', new Set(['2026-11-28', '2026-11-29'])]]);
    const schedule = daily('02:00', '02:00', { DateListRef: ['Holidays'] });
    const from = at('2026-11-27T12:00:00Z');
    expect(listNextRuns([schedule], { from, count: 2, zone: UTC_ZONE, dateLists }).map((r) => iso(r.start))).toEqual([
      '2026-11-30T02:00:00.000Z',
      '2026-12-01T02:00:00.000Z',
    ]);
    expect(listNextRuns([schedule], { from, count: 3, zone: UTC_ZONE, dateLists, dateListRule: 'only' }).map((r) => iso(r.start))).toEqual([
      '2026-11-28T02:00:00.000Z',
      '2026-11-29T02:00:00.000Z',
    ]);
  });

  it('follows daylight saving in an IANA zone, and a fixed offset when only the bias is known', () => {
    const berlin = readServerZone({ serverTimezoneInfo: { timeZoneName: 'W. Europe Standard Time', timeZoneBias: '-60', daylightBias: '-60' } });
    expect(berlin.iana).toBe('Europe/Berlin');
    // Clocks go back on 2026-10-25: 02:00 local is 00:00Z on the 24th and 01:00Z on the 26th.
    expect(listNextRuns([daily('02:00')], { from: at('2026-10-24T00:00:00Z'), count: 3, zone: berlin }).map((r) => iso(r.start))).toEqual([
      '2026-10-24T00:00:00.000Z',
      '2026-10-25T00:00:00.000Z',
      '2026-10-26T01:00:00.000Z',
    ]);
    // Clocks go forward on 2026-03-29: 02:30 does not exist and runs at 03:30 CEST.
    expect(iso(listNextRuns([daily('02:30')], { from: at('2026-03-29T00:00:00Z'), count: 1, zone: berlin })[0]!.start)).toBe('2026-03-29T01:30:00.000Z');
    const fixed = readServerZone({ serverTimezoneInfo: { timeZoneName: 'Nowhere Standard Time', timeZoneBias: '-60', daylightBias: '-60' } });
    expect(fixed.source).toBe('bias');
    expect(fixed.note).toContain('without daylight saving');
    expect(listNextRuns([daily('02:00')], { from: at('2026-10-24T12:00:00Z'), count: 2, zone: fixed }).map((r) => iso(r.start))).toEqual([
      '2026-10-25T01:00:00.000Z',
      '2026-10-26T01:00:00.000Z',
    ]);
  });

  it('every run starts at or after from, in order, on an allowed day, never the same instant twice', () => {
    const day = fc.constantFrom(...WEEK_DAYS);
    const time = fc
      .tuple(fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 59 }))
      .map(([h, m]) => `${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}`);
    const schedule = fc.record({
      Days: fc.record({ DayOfWeek: fc.uniqueArray(day, { minLength: 1, maxLength: 7 }) }),
      Frequency: fc.record({ Interval: fc.array(fc.record({ StartTime: time, EndTime: time }), { minLength: 1, maxLength: 3 }) }),
    });
    fc.assert(
      fc.property(
        fc.array(schedule, { minLength: 1, maxLength: 3 }),
        fc.date({ min: at('2020-01-01T00:00:00Z'), max: at('2030-01-01T00:00:00Z'), noInvalidDate: true }),
        (schedules, from) => {
          const runs = listNextRuns(schedules, { from, count: 6, zone: UTC_ZONE });
          expect(runs.length).toBe(6);
          runs.forEach((r, i) => {
            expect(r.start).toBeGreaterThanOrEqual(from.getTime());
            if (i > 0) expect(r.start).toBeGreaterThan(runs[i - 1]!.start);
            const weekday = WEEK_DAYS[(new Date(r.start).getUTCDay() + 6) % 7]!;
            expect(schedules[r.schedule]!.Days!.DayOfWeek).toContain(weekday);
          });
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('findDueRun', () => {
  it('flags a run starting within the margin, and a window open now, and nothing else', () => {
    const now = at('2026-11-27T01:55:00Z');
    expect(iso(findDueRun([daily('02:00')], { now, marginMinutes: 15, zone: UTC_ZONE })!.start)).toBe('2026-11-27T02:00:00.000Z');
    expect(findDueRun([daily('02:30')], { now, marginMinutes: 15, zone: UTC_ZONE })).toBeUndefined();
    expect(iso(findDueRun([daily('22:00', '04:00')], { now, marginMinutes: 15, zone: UTC_ZONE })!.start)).toBe('2026-11-26T22:00:00.000Z');
    expect(findDueRun([daily('01:00')], { now, marginMinutes: 15, zone: UTC_ZONE })).toBeUndefined();
  });
});
