import { describe, expect, it } from 'vitest';
import { describeWindowVerdict, judgeChangeWindow, openStretchEnd } from '../../src/schedule/change-window.js';
import type { ChangeWindowSettings } from '../../src/schedule/model.js';
import { readServerZone, UTC_ZONE } from '../../src/schedule/server-zone.js';

const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());
const weekendNights: ChangeWindowSettings = {
  allow: [{ days: ['Saturday', 'Sunday'], from: 22 * 60, to: 4 * 60, where: 'mftops.yaml:5:9' }],
  freeze: [
    { from: '2026-12-28', to: '2027-01-02', reason: 'year-end', where: 'mftops.yaml:7:9' },
    { dateList: 'Month End', where: 'mftops.yaml:8:9' },
  ],
};
const dateLists = new Map([['month end', new Set(['2026-11-28'])]]);

describe('judgeChangeWindow', () => {
  it('is open inside a window, including its part after midnight, and closed outside, naming the next opening', () => {
    // 2026-12-05 is a Saturday.
    expect(judgeChangeWindow(weekendNights, new Date('2026-12-05T23:00:00Z'), { zone: UTC_ZONE }).state).toBe('open');
    expect(judgeChangeWindow(weekendNights, new Date('2026-12-06T03:59:00Z'), { zone: UTC_ZONE }).state).toBe('open');
    const closed = judgeChangeWindow(weekendNights, new Date('2026-12-02T10:00:00Z'), { zone: UTC_ZONE });
    expect([closed.state, iso(closed.next), iso(closed.nextCloses)]).toEqual(['closed', '2026-12-05T22:00:00.000Z', '2026-12-06T04:00:00.000Z']);
  });

  it('a freeze by dates or by a date list closes a window; the next opening is after it', () => {
    const frozen = judgeChangeWindow(weekendNights, new Date('2026-11-28T22:30:00Z'), { zone: UTC_ZONE, dateLists });
    expect([frozen.state, iso(frozen.next)]).toEqual(['frozen', '2026-11-29T00:00:00.000Z']);
    const yearEnd = judgeChangeWindow(weekendNights, new Date('2027-01-02T23:00:00Z'), { zone: UTC_ZONE });
    expect([yearEnd.state, iso(yearEnd.next)]).toEqual(['frozen', '2027-01-03T00:00:00.000Z']);
    expect(describeWindowVerdict(yearEnd, new Date('2027-01-02T23:00:00Z'), UTC_ZONE)).toBe(
      'inside the freeze year-end (2026-12-28 to 2027-01-02, mftops.yaml:7:9), now is Sat 2027-01-02 23:00 UTC; the next window opens Sun 2027-01-03 00:00 UTC and closes Sun 2027-01-03 04:00 UTC',
    );
  });

  it("reads the windows in the server's zone and names the next one there and in UTC", () => {
    const ny = readServerZone({ serverTimezoneInfo: { timeZoneName: 'America/New_York', timeZoneBias: '300', daylightBias: '-60' } });
    const now = new Date('2026-12-06T02:00:00Z'); // Sat 21:00 in New York
    const verdict = judgeChangeWindow(weekendNights, now, { zone: ny });
    expect(describeWindowVerdict(verdict, now, ny)).toBe(
      'outside the allowed change windows, now is Sat 2026-12-05 21:00 America/New_York (2026-12-06 02:00 UTC); the next window opens Sat 2026-12-05 22:00 America/New_York (2026-12-06 03:00 UTC) and closes Sun 2026-12-06 04:00 America/New_York (2026-12-06 09:00 UTC)',
    );
  });

  it('with no allowed window only the freezes close it', () => {
    expect(judgeChangeWindow({ allow: [], freeze: weekendNights.freeze }, new Date('2026-12-02T10:00:00Z'), { zone: UTC_ZONE }).state).toBe('open');
  });

  it('a server zone known only by its bias, with daylight saving, is open only when open at both offsets', () => {
    const cet = readServerZone({ serverTimezoneInfo: { timeZoneName: 'Mitteleuropäische Zeit', timeZoneBias: '-60', daylightBias: '-60' } });
    // Sun 2026-07-05 02:30 UTC: 03:30 at UTC+01:00 (inside Sat/Sun 22:00–04:00), 04:30 at UTC+02:00 (outside).
    const now = new Date('2026-07-05T02:30:00Z');
    const verdict = judgeChangeWindow(weekendNights, now, { zone: cet });
    expect(verdict.state).toBe('closed');
    expect(describeWindowVerdict(verdict, now, cet)).toMatch(
      /^outside the allowed change windows, now is Sun 2026-07-05 04:30 Mitteleuropäische Zeit \(UTC\+02:00\)/,
    );
    // 01:30 UTC: 02:30 and 03:30, open at both.
    expect(judgeChangeWindow(weekendNights, new Date('2026-07-05T01:30:00Z'), { zone: cet }).state).toBe('open');
  });

  it('the next window closes at the start of a freeze that comes before its end', () => {
    const nights: ChangeWindowSettings = {
      allow: [{ days: [], from: 20 * 60, to: 6 * 60, where: 'mftops.yaml:5:9' }],
      freeze: [{ from: '2026-12-25', to: '2026-12-25', reason: 'christmas', where: 'mftops.yaml:7:9' }],
    };
    const verdict = judgeChangeWindow(nights, new Date('2026-12-24T10:00:00Z'), { zone: UTC_ZONE });
    expect([iso(verdict.next), iso(verdict.nextCloses)]).toEqual(['2026-12-24T20:00:00.000Z', '2026-12-25T00:00:00.000Z']);
  });
});

describe('openStretchEnd', () => {
  it('is the close of the window now open, or the start of a freeze before it', () => {
    // Sat 2026-12-05 23:00: the Sat/Sun 22:00–04:00 window closes Sun 04:00.
    expect(iso(openStretchEnd(weekendNights, new Date('2026-12-05T23:00:00Z'), { zone: UTC_ZONE }))).toBe('2026-12-06T04:00:00.000Z');
    const nights: ChangeWindowSettings = {
      allow: [{ days: [], from: 20 * 60, to: 6 * 60, where: 'mftops.yaml:5:9' }],
      freeze: [{ from: '2026-12-25', to: '2026-12-25', reason: 'christmas', where: 'mftops.yaml:7:9' }],
    };
    expect(iso(openStretchEnd(nights, new Date('2026-12-24T21:00:00Z'), { zone: UTC_ZONE }))).toBe('2026-12-25T00:00:00.000Z');
  });

  it("is judged in the server's zone; with no allowed window only a freeze within the horizon ends it", () => {
    const ny = readServerZone({ serverTimezoneInfo: { timeZoneName: 'America/New_York', timeZoneBias: '300', daylightBias: '-60' } });
    // Sat 23:00 in New York closes Sun 04:00 New York, 09:00 UTC.
    expect(iso(openStretchEnd(weekendNights, new Date('2026-12-06T04:00:00Z'), { zone: ny }))).toBe('2026-12-06T09:00:00.000Z');
    const freezesOnly: ChangeWindowSettings = { allow: [], freeze: weekendNights.freeze };
    expect(iso(openStretchEnd(freezesOnly, new Date('2026-12-27T10:00:00Z'), { zone: UTC_ZONE }))).toBe('2026-12-28T00:00:00.000Z');
    expect(openStretchEnd(freezesOnly, new Date('2026-12-02T10:00:00Z'), { zone: UTC_ZONE })).toBeUndefined();
  });

  it('a bias zone with daylight saving closes at the earlier of its two offsets', () => {
    const cet = readServerZone({ serverTimezoneInfo: { timeZoneName: 'Mitteleuropäische Zeit', timeZoneBias: '-60', daylightBias: '-60' } });
    // Sun 01:30 UTC: 02:30 / 03:30 local; 04:00 local comes first at UTC+02:00, 02:00 UTC.
    expect(iso(openStretchEnd(weekendNights, new Date('2026-07-05T01:30:00Z'), { zone: cet }))).toBe('2026-07-05T02:00:00.000Z');
  });
});
