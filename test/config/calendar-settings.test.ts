import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import { ConfigError } from '../../src/errors.js';
import { testdir } from '../helpers/testdir.js';

const BASE = `apiVersion: mftops/v1
kind: Config
environments:
  prod:
    automation:
      url: https://automation.example.com
      username: svc
      password: \${env:P}
`;

function problemsOf(yaml: string): (string | number | undefined)[][] {
  try {
    loadConfig('mftops.yaml', testdir({ 'mftops.yaml': yaml }));
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).diagnostics.map((d) => [d.code, d.line, d.col, d.summary]);
  }
  throw new Error('expected a ConfigError');
}

describe('changeWindows and schedule in mftops.yaml', () => {
  it('reads the windows (day names, times, a window past midnight), the freezes with their places, and the due margin', () => {
    const dir = testdir({
      'mftops.yaml': `${BASE}    changeWindows:
      allow: [{ days: [Sat, Sunday], from: "22:00", to: "04:00" }, { from: "12:00", to: "24:00" }]
      freeze:
        - { from: 2026-12-28, to: 2027-01-02, reason: year-end }
        - { dateList: Month End }
    schedule: { dueMargin: 2h }
`,
    });
    const env = loadConfig('mftops.yaml', dir).environments.get('prod')!;
    expect(env.changeWindows).toEqual({
      allow: [
        { days: ['Saturday', 'Sunday'], from: 1320, to: 240, where: 'mftops.yaml:10:15' },
        { days: [], from: 720, to: 1440, where: 'mftops.yaml:10:68' },
      ],
      freeze: [
        { from: '2026-12-28', to: '2027-01-02', reason: 'year-end', where: 'mftops.yaml:12:11' },
        { dateList: 'Month End', where: 'mftops.yaml:13:11' },
      ],
    });
    expect(env.schedule).toEqual({ dueMarginMinutes: 120 });
    expect(loadConfig('mftops.yaml', testdir({ 'mftops.yaml': BASE })).environments.get('prod')!.changeWindows).toBeUndefined();
  });

  it('refuses a bad time, day, date, margin, an empty window and a freeze that ends before it starts, each at its place', () => {
    expect(
      problemsOf(`${BASE}    changeWindows:
      allow: [{ days: [Caturday], from: "25:00", to: "04:00" }, { from: "10:00", to: "10:00" }]
      freeze: [{ from: 2026-02-30, to: 2026-03-01 }, { from: 2026-05-02, to: 2026-05-01 }]
    schedule: { dueMargin: soon }
`),
    ).toEqual([
      [
        'MF505',
        10,
        24,
        'environments.prod.changeWindows.allow.0.days.0: must be one of Monday, Tuesday, Wednesday, Thursday, Friday, Saturday, Sunday, Mon, Tue, Wed, Thu, Fri, Sat, Sun',
      ],
      ['MF505', 10, 41, 'environments.prod.changeWindows.allow.0.from: must be a time written HH:mm (00:00 to 24:00)'],
      ['MF505', 10, 65, 'environments.prod.changeWindows.allow.1: the window opens and closes at the same minute (write 00:00 to 24:00 for a whole day)'],
      ['MF505', 11, 24, 'environments.prod.changeWindows.freeze.0.from: 2026-02-30 is not a date of the calendar'],
      ['MF505', 11, 54, 'environments.prod.changeWindows.freeze.1: the freeze ends (2026-05-01) before it starts (2026-05-02)'],
      ['MF505', 12, 28, 'environments.prod.schedule.dueMargin: must be minutes, or a duration such as 15m or 2h'],
    ]);
  });

  it('names what a freeze lacks or has too much of', () => {
    expect(
      problemsOf(`${BASE}    changeWindows:
      freeze: [{ from: 2026-12-28 }, { to: 2026-12-31 }, { from: 2026-12-28, to: 2026-12-31, dateList: Month End }, { reason: none }]
`),
    ).toEqual([
      ['MF504', 10, 16, 'environments.prod.changeWindows.freeze.0: missing `to`'],
      ['MF504', 10, 38, 'environments.prod.changeWindows.freeze.1: missing `from`'],
      ['MF504', 10, 58, 'environments.prod.changeWindows.freeze.2: `from`/`to` and `dateList` cannot be given together'],
      ['MF504', 10, 117, 'environments.prod.changeWindows.freeze.3: needs `from` and `to`, or `dateList`'],
    ]);
  });
});
