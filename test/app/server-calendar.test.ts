import { describe, expect, it } from 'vitest';
import { checkApplyWindow } from '../../src/app/server-calendar.js';
import type { EnvironmentSettings } from '../../src/config/model.js';
import type { AutomationReader } from '../../src/live/read-live-state.js';
import { indexDateLists } from '../../src/schedule/plan-calendar.js';

/** An automation server whose `/info` gives no usable time zone. */
const noZone = { info: async () => ({ version: '8.5' }), listDateLists: async () => [] } as unknown as AutomationReader;
const env = {
  name: 'lab',
  changeWindows: { allow: [{ days: [], from: 0, to: 1440, where: 'mftops.yaml:5:9' }], freeze: [] },
} as unknown as EnvironmentSettings;

describe('checkApplyWindow', () => {
  it('refuses when the server gives no usable zone and change windows are set, unless --override-window', async () => {
    const checked = await checkApplyWindow(env, noZone, new Date('2026-12-02T10:00:00Z'), undefined);
    expect(checked?.refusal).toMatch(
      /the change windows cannot be judged: the server did not give a usable time zone .*; to apply now anyway: --override-window "reason"$/,
    );
    const overridden = await checkApplyWindow(env, noZone, new Date('2026-12-02T10:00:00Z'), 'INC-1');
    expect(overridden?.refusal).toBeUndefined();
    expect(overridden?.report).toMatchObject({ state: 'closed', overrideReason: 'INC-1' });
  });
});

/** A server in UTC whose list of date lists gives only summaries; `entries` is what the list's own GET gives. */
function summaryServer(entries: unknown): AutomationReader {
  return {
    info: async () => ({ serverTimezoneInfo: { timeZoneName: 'UTC', timeZoneBias: '0', daylightBias: '0' } }),
    listDateLists: async () => [{ ID: '7', Name: 'Holidays' }],
    getDateList: async (id: string) => (id === '7' ? { ID: '7', Name: 'Holidays', Entries: entries } : Promise.reject(new Error(`no date list ${id}`))),
  } as unknown as AutomationReader;
}
const frozenByList = {
  name: 'lab',
  changeWindows: { allow: [], freeze: [{ dateList: 'Holidays', reason: 'bank holidays', where: 'mftops.yaml:6:9' }] },
} as unknown as EnvironmentSettings;
const monday = new Date('2026-11-30T10:00:00Z');

describe('checkApplyWindow: a freeze by a date list whose dates cannot be read is not guessed open', () => {
  it.each([
    ['M/d/yyyy', [{ Date: '11/30/2026' }]],
    ['an ISO date', [{ Date: '2026-11-30' }]],
    ['an ISO instant', [{ Date: '2026-11-30T00:00:00' }]],
  ])('reads the list by id when the list answer has no entries, dates as %s: frozen on the date', async (_form, entries) => {
    const checked = await checkApplyWindow(frozenByList, summaryServer(entries), monday, undefined);
    expect(checked?.report.state).toBe('frozen');
    expect(checked?.refusal).toContain('inside the freeze bank holidays');
  });

  it.each([
    ['an entry in another form', [{ Date: '2026-12-25' }, { Date: '30.11.2026' }]],
    ['no entries at all', undefined],
    ['no readable date', []],
  ])('refuses, naming the list, when it has %s', async (_what, entries) => {
    const checked = await checkApplyWindow(frozenByList, summaryServer(entries), monday, undefined);
    expect(checked?.report.state).toBe('frozen');
    expect(checked?.refusal).toMatch(/^changeWindows\.freeze names the date list "Holidays", whose dates cannot be read.*: the freeze cannot be checked/);
  });
});

describe('indexDateLists: the one reader of date list dates (next runs and freezes)', () => {
  it('reads ISO dates, ISO instants and M/d/yyyy, skips comments, and names a list with a date it cannot read', () => {
    const index = indexDateLists([
      { ID: '1', Name: 'Bank', Entries: [{ Date: '12/25/2026' }, { Date: '2026-12-26T00:00:00Z' }, { C: 'Boxing day' }] },
      { ID: '2', Name: 'Odd', Entries: [{ Date: '25.12.2026' }] },
    ]);
    expect(index.byName.get('bank')).toEqual(new Set(['2026-12-25', '2026-12-26']));
    expect([...index.unreadable]).toEqual(['odd']);
  });
});
