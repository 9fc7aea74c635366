import { describe, expect, it } from 'vitest';
import type { Schedule } from '../../src/manifest/types.js';
import { describeSchedules, readSchedules } from '../../src/render/schedule-words.js';

const at = (...times: string[]) => ({ Interval: times.map((t) => ({ StartTime: t, EndTime: t })) });
const window = (start: string, end: string) => ({ Interval: [{ StartTime: start, EndTime: end }] });
const WEEKDAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday'] as const;

const cases: [string, Schedule[], string][] = [
  ['weekdays once', [{ Days: { DayOfWeek: [...WEEKDAYS] }, Frequency: at('02:00') }], 'Weekdays (Mon–Fri) at 02:00'],
  ['no days means every day', [{ Frequency: at('23:30') }], 'Every day at 23:30'],
  ['all seven days', [{ Days: { DayOfWeek: [...WEEKDAYS, 'Saturday', 'Sunday'] }, Frequency: at('06:00') }], 'Every day at 06:00'],
  ['a window', [{ Frequency: window('08:00', '18:00') }], 'Every day, repeatedly from 08:00 to 18:00'],
  ['around the clock', [{ Frequency: window('00:00', '23:59') }], 'Every day, around the clock (00:00–23:59)'],
  ['weekends', [{ Days: { DayOfWeek: ['Sunday', 'Saturday'] }, Frequency: at('09:00') }], 'Weekends (Sat–Sun) at 09:00'],
  ['one day', [{ Days: { DayOfWeek: ['Saturday'] }, Frequency: at('09:00') }], 'Every Saturday at 09:00'],
  ['a run of days', [{ Days: { DayOfWeek: ['Tuesday', 'Wednesday', 'Thursday'] }, Frequency: at('12:00') }], 'Tue–Thu at 12:00'],
  ['scattered days, in week order', [{ Days: { DayOfWeek: ['Friday', 'Monday', 'Wednesday'] }, Frequency: at('20:00') }], 'Mon, Wed and Fri at 20:00'],
  ['two days', [{ Days: { DayOfWeek: ['Monday', 'Thursday'] }, Frequency: at('07:00') }], 'Mon and Thu at 07:00'],
  ['several times', [{ Frequency: at('02:00', '12:00', '18:00') }], 'Every day at 02:00, 12:00 and 18:00'],
  [
    'times and windows',
    [
      {
        Frequency: {
          Interval: [
            { StartTime: '02:00', EndTime: '02:00' },
            { StartTime: '08:00', EndTime: '12:00' },
            { StartTime: '13:00', EndTime: '17:00' },
          ],
        },
      },
    ],
    'Every day at 02:00, and repeatedly from 08:00 to 12:00 and from 13:00 to 17:00',
  ],
  [
    'date lists',
    [{ Days: { DayOfWeek: [...WEEKDAYS] }, DateListRef: ['UK bank holidays', 'Year end'], Frequency: at('02:00') }],
    'Weekdays (Mon–Fri) at 02:00, with date lists UK bank holidays and Year end',
  ],
  [
    'flags',
    [{ Frequency: window('06:00', '10:00'), OnlyUntilFirstSuccess: 1, FailIfNoSuccessInSched: 1, RunEvenIfNotif: 1 }],
    'Every day, repeatedly from 06:00 to 10:00, until the first success, failing if no run succeeds, even when its sources use notifications',
  ],
  ['flags at 0 say nothing', [{ Frequency: at('01:00'), OnlyUntilFirstSuccess: 0, Multi: 0 }], 'Every day at 01:00'],
  [
    'an overnight schedule in two parts',
    [
      { Days: { DayOfWeek: ['Friday'] }, Frequency: window('22:00', '23:59'), Multi: 1 },
      { Days: { DayOfWeek: ['Saturday'] }, Frequency: window('00:00', '04:00'), Multi: 2 },
    ],
    'Every Friday, repeatedly from 22:00 to 23:59 (the part before midnight of an overnight schedule); Every Saturday, repeatedly from 00:00 to 04:00 (the part after midnight of an overnight schedule)',
  ],
  ['no schedule', [], 'Not scheduled'],
];

describe('describeSchedules', () => {
  it.each(cases)('%s', (_, schedules, words) => {
    expect(describeSchedules({ Schedule: schedules })).toBe(words);
  });

  it('says "Not scheduled" when there are no schedules at all', () => {
    expect(describeSchedules(undefined)).toBe('Not scheduled');
  });
});

describe('readSchedules', () => {
  it('reads an API task body, date lists by id', () => {
    const body = {
      Schedule: [
        {
          ID: '7',
          Days: { DayOfWeek: ['Monday'] },
          Frequency: { Interval: [{ StartTime: '05:00', EndTime: '05:00' }] },
          DateListRef: [{ DateListID: '303001' }],
          OnlyUntilFirstSuccess: true,
        },
      ],
    };
    expect(describeSchedules(readSchedules(body))).toBe('Every Monday at 05:00, with date list id 303001, until the first success');
  });

  it('names date lists given by id from the names the payload carries, and keeps the id of one it does not name', () => {
    const body = {
      Schedule: [{ Frequency: { Interval: [{ StartTime: '02:00', EndTime: '02:00' }] }, DateListRef: [{ DateListID: '303001' }, { DateListID: 9 }] }],
    };
    expect(describeSchedules(readSchedules(body, { '303001': 'Bank Holidays 2026' }))).toBe('Every day at 02:00, with date lists Bank Holidays 2026 and id 9');
  });

  it('refuses values that are not schedules', () => {
    expect(readSchedules('02:00')).toBeUndefined();
    expect(readSchedules({ Schedule: [{ Days: {} }] })).toBeUndefined();
    expect(readSchedules({ Schedule: [{ Frequency: { Interval: [{ StartTime: 2 }] } }] })).toBeUndefined();
  });
});
