import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { startSeededEmulator } from '../integration/helpers.js';
import { hasStackTrace, runCli } from '../helpers/run-cli.js';
import { APPLY_ENV, applyWorkdir, readLedger, writesOf } from '../apply/helpers.js';
import { applyEnvironment } from '../../src/app/apply.js';
import { recordingContext } from '../app/helpers.js';

const ALLOW = ['--allow-delete', '--allow-replace'];

let emulator: RunningEmulator;
beforeEach(async () => {
  emulator = await startSeededEmulator();
});
afterEach(() => emulator.close());

/** The apply work dir with these lines added to the `lab` environment of mftops.yaml. */
function workdirWith(lines: readonly string[]): string {
  const dir = applyWorkdir(emulator);
  const file = join(dir, 'mftops.yaml');
  writeFileSync(file, readFileSync(file, 'utf8').replace(/^snapshots:/m, `${lines.join('\n')}\nsnapshots:`));
  return dir;
}

/** Weekend nights only, and the year-end freeze (the emulator's zone is UTC). */
const WINDOWS = [
  '    changeWindows:',
  '      allow: [{ days: [Sat, Sun], from: "22:00", to: "04:00" }]',
  '      freeze: [{ from: 2026-12-28, to: 2027-01-02, reason: year-end }]',
];

describe('plan shows the next runs of the tasks it changes', () => {
  it('flags a task due in 5 minutes (Payroll to bank runs weekdays at 02:00; the plan is made Friday 01:55), and writes nothing', async () => {
    const dir = applyWorkdir(emulator);
    const env = { ...APPLY_ENV, MFTOPS_NOW: '2026-11-27T01:55:00Z' };
    const text = await runCli(['plan', '--no-color'], { cwd: dir, env });
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('Schedules of the tasks this plan changes (server time zone UTC): 1 due within 15 min:');
    expect(text.stdout).toContain('  Task/Payroll to bank (changed): next run Fri 02:00 (in 5 min) ⚠ due within 15 min; then Mon 02:00, Tue 02:00');
    expect(text.stdout).toContain('  Task/Nightly cleanup (deleted): next run Fri 23:30 (in 21 h 35 min); then Sat 23:30, Sun 23:30');
    const json = await runCli(['plan', '--format', 'json'], { cwd: dir, env });
    const calendar = (JSON.parse(json.stdout) as { calendar: { tasks: { address: string; due?: unknown; nextRuns: string[] }[] } }).calendar;
    expect(calendar.tasks.find((t) => t.address === 'Task/Payroll to bank')).toMatchObject({
      due: { start: '2026-11-27T02:00:00.000Z', open: false },
      nextRuns: ['2026-11-27T02:00:00.000Z', '2026-11-30T02:00:00.000Z', '2026-12-01T02:00:00.000Z'],
    });
    expect(writesOf(emulator)).toEqual([]);
  });

  it("skips the dates of the task's date list (Bank Holidays 2026 holds 2026-12-25): not due on Christmas at 01:55", async () => {
    const dir = applyWorkdir(emulator);
    const r = await runCli(['plan', '--no-color'], { cwd: dir, env: { ...APPLY_ENV, MFTOPS_NOW: '2026-12-25T01:55:00Z' } });
    expect(r.stdout).toContain('  Task/Payroll to bank (changed): next run Mon 02:00 (in 3 days); then Tue 02:00, Wed 02:00');
    expect(r.stdout).not.toContain('due within');
  });

  it('honours schedule.dueMargin of the environment', async () => {
    const dir = workdirWith(['    schedule: { dueMargin: 2m }']);
    const r = await runCli(['plan', '--no-color'], { cwd: dir, env: { ...APPLY_ENV, MFTOPS_NOW: '2026-11-27T01:55:00Z' } });
    expect(r.stdout).toContain('Task/Payroll to bank (changed): next run Fri 02:00 (in 5 min); then');
    expect(r.stdout).not.toContain('⚠');
  });
});

describe('change windows', () => {
  it('plan says apply would be refused now, naming the next window', async () => {
    const dir = workdirWith(WINDOWS);
    const r = await runCli(['plan', '--no-color'], { cwd: dir, env: { ...APPLY_ENV, MFTOPS_NOW: '2026-12-02T10:00:00Z' } });
    expect(r.stdout).toContain(
      'Change windows: apply would be refused now: outside the allowed change windows, now is Wed 2026-12-02 10:00 UTC; the next window opens Sat 2026-12-05 22:00 UTC and closes Sun 2026-12-06 04:00 UTC',
    );
  });

  it('apply outside a window refuses before any write (no snapshot either), naming the next window; exit 1', async () => {
    const dir = workdirWith(WINDOWS);
    const r = await runCli(['apply', '--auto-approve', ...ALLOW], { cwd: dir, env: { ...APPLY_ENV, MFTOPS_NOW: '2026-12-02T10:00:00Z' } });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('Apply refused; nothing was written:');
    expect(r.stdout).toContain(
      '  - outside the allowed change windows, now is Wed 2026-12-02 10:00 UTC; the next window opens Sat 2026-12-05 22:00 UTC and closes Sun 2026-12-06 04:00 UTC; to apply now anyway: --override-window "reason"',
    );
    expect(hasStackTrace(r.stderr)).toBe(false);
    expect(writesOf(emulator)).toEqual([]);
    expect(existsSync(join(dir, '.mftops/snapshots/lab')) ? readdirSync(join(dir, '.mftops/snapshots/lab')).filter((n) => !n.startsWith('.')) : []).toEqual([]);
  });

  it('a saved plan (its calendar in the file) is refused the same when applied outside a window', async () => {
    const dir = workdirWith(WINDOWS);
    const env = { ...APPLY_ENV, MFTOPS_NOW: '2026-12-02T10:00:00Z' };
    const planned = await runCli(['plan', '--out', 'plan.json'], { cwd: dir, env });
    expect(planned.code).toBe(0);
    const saved = JSON.parse(readFileSync(join(dir, 'plan.json'), 'utf8')) as { plan: { calendar: { changeWindow: { state: string } } } };
    expect(saved.plan.calendar.changeWindow.state).toBe('closed');
    const r = await runCli(['apply', 'plan.json', ...ALLOW], { cwd: dir, env });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('the next window opens Sat 2026-12-05 22:00 UTC');
    expect(writesOf(emulator)).toEqual([]);
  });

  it('a freeze refuses inside an allowed window, and names itself', async () => {
    const dir = workdirWith(WINDOWS);
    const r = await runCli(['apply', '--auto-approve', ...ALLOW, '--format', 'json', '-q'], {
      cwd: dir,
      env: { ...APPLY_ENV, MFTOPS_NOW: '2027-01-02T23:00:00Z' },
    });
    expect(r.code).toBe(1);
    const report = JSON.parse(r.stdout) as { outcome: string; changeWindow: { state: string; text: string } };
    expect(report.outcome).toBe('refused');
    expect(report.changeWindow.state).toBe('frozen');
    expect(report.changeWindow.text).toMatch(/^inside the freeze year-end \(2026-12-28 to 2027-01-02, mftops\.yaml:\d+:\d+\)/);
    expect(writesOf(emulator)).toEqual([]);
  });

  it('--override-window "reason" applies, and records the reason in the ledger and the JSON report; an empty reason is refused', async () => {
    const dir = workdirWith(WINDOWS);
    const env = { ...APPLY_ENV, MFTOPS_NOW: '2026-12-02T10:00:00Z' };
    const empty = await runCli(['apply', '--auto-approve', ...ALLOW, '--override-window', ' '], { cwd: dir, env });
    expect(empty.code).toBe(1);
    expect(empty.stderr).toContain('--override-window needs a reason');
    expect(writesOf(emulator)).toEqual([]);

    const r = await runCli(['apply', '--auto-approve', ...ALLOW, '--override-window', 'INC-4711 payroll fix', '--format', 'json', '-q'], { cwd: dir, env });
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout) as { outcome: string; ledger: string; changeWindow: unknown };
    expect(report.outcome).toBe('applied');
    expect(report.changeWindow).toMatchObject({ state: 'closed', overrideReason: 'INC-4711 payroll fix' });
    expect(writesOf(emulator).length).toBeGreaterThan(0);
    const ledger = readLedger(report.ledger);
    expect(ledger.map((l) => l.event).slice(0, 2)).toEqual(['start', 'window-override']);
    expect(ledger[1]).toMatchObject({ event: 'window-override', state: 'closed', reason: 'INC-4711 payroll fix' });
  });
});

describe('a pinned clock (MFTOPS_NOW) judging the window is said and recorded', () => {
  it('apply inside a window by MFTOPS_NOW warns, and records the pinned time in the ledger and the JSON report', async () => {
    const dir = workdirWith(WINDOWS);
    const env = { ...APPLY_ENV, MFTOPS_NOW: '2026-12-05T23:00:00Z' };
    const r = await runCli(['apply', '--auto-approve', ...ALLOW, '--format', 'json'], { cwd: dir, env });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('the change windows are judged at MFTOPS_NOW=2026-12-05T23:00:00Z, not the real time');
    const report = JSON.parse(r.stdout) as { outcome: string; ledger: string; changeWindow: unknown };
    expect(report.changeWindow).toEqual({ state: 'open', pinnedClock: '2026-12-05T23:00:00.000Z' });
    const ledger = readLedger(report.ledger);
    expect(ledger.map((l) => l.event).slice(0, 2)).toEqual(['start', 'window-clock']);
    expect(ledger[1]).toMatchObject({ event: 'window-clock', at: '2026-12-05T23:00:00.000Z' });
  });
});

describe('the window is judged again once the apply is approved', () => {
  it('an apply asked at Sun 03:58 (window closes 04:00) and answered yes at 04:30 is refused, nothing written, no snapshot', async () => {
    const dir = workdirWith(WINDOWS);
    let now = new Date('2026-12-06T03:58:00Z');
    const ctx = { ...recordingContext(dir, APPLY_ENV), now: () => now };
    const result = await applyEnvironment(
      {
        permissions: { allowDelete: true, allowReplace: true },
        approve: async () => {
          now = new Date('2026-12-06T04:30:00Z');
          return true;
        },
      },
      ctx,
    );
    expect(result.status).toBe('finished');
    const report = (result as { report: { outcome: string; changeWindow?: { state: string; text?: string } } }).report;
    expect(report.outcome).toBe('refused');
    expect(report.changeWindow).toMatchObject({ state: 'closed' });
    expect(report.changeWindow?.text).toContain('now is Sun 2026-12-06 04:30 UTC');
    expect(writesOf(emulator)).toEqual([]);
    expect(existsSync(join(dir, '.mftops/snapshots/lab')) ? readdirSync(join(dir, '.mftops/snapshots/lab')).filter((n) => !n.startsWith('.')) : []).toEqual([]);
  });
});

describe('an approximate server zone and the change windows', () => {
  it('automation.timeZone=bias (DST unknown): at Sun 04:30 summer time, outside Sat/Sun 22:00–04:00, plan says refused and apply writes nothing, both naming the approximation', async () => {
    const other = await startSeededEmulator({ variants: { 'automation.timeZone': 'bias' } });
    try {
      const dir = applyWorkdir(other);
      const file = join(dir, 'mftops.yaml');
      writeFileSync(file, readFileSync(file, 'utf8').replace(/^snapshots:/m, `${WINDOWS.join('\n')}\nsnapshots:`));
      const env = { ...APPLY_ENV, MFTOPS_NOW: '2026-07-05T02:30:00Z' };
      const plan = await runCli(['plan', '--no-color'], { cwd: dir, env });
      expect(plan.stdout).toContain('Change windows: apply would be refused now: outside the allowed change windows');
      expect(plan.stdout).toMatch(/Change windows: apply would be refused now: .*is not known to mftops/);
      const r = await runCli(['apply', '--auto-approve', ...ALLOW], { cwd: dir, env });
      expect(r.code).toBe(1);
      expect(r.stdout).toContain('Apply refused; nothing was written:');
      expect(r.stdout).toContain('is not known to mftops');
      expect((await runCli(['plan', '--out', 'plan.json'], { cwd: dir, env })).code).toBe(0);
      const saved = await runCli(['apply', 'plan.json', ...ALLOW], { cwd: dir, env });
      expect([saved.code, saved.stdout]).toEqual([1, expect.stringContaining('is not known to mftops')]);
      expect(writesOf(other)).toEqual([]);
    } finally {
      await other.close();
    }
  });
});

describe("the server's time zone (register A-30)", () => {
  it.each([
    ['windows', 'W. Europe Standard Time', ''],
    ['iana', 'Europe/Berlin', ''],
    [
      'bias',
      'Mitteleuropäische Zeit',
      '; the server\'s time zone "Mitteleuropäische Zeit" is not known to mftops: times use its fixed offset UTC+01:00, without daylight saving',
    ],
  ] as const)('automation.timeZone=%s: next runs and windows are in the server zone (%s)', async (form, label, note) => {
    const other = await startSeededEmulator({ variants: { 'automation.timeZone': form } });
    try {
      const dir = applyWorkdir(other);
      // 00:55 UTC is 01:55 in Berlin (winter): Payroll to bank's 02:00 is 5 minutes away.
      const r = await runCli(['plan', '--no-color'], { cwd: dir, env: { ...APPLY_ENV, MFTOPS_NOW: '2026-11-27T00:55:00Z' } });
      expect(r.stdout).toContain(`Schedules of the tasks this plan changes (server time zone ${label}${note}): 1 due within 15 min:`);
      expect(r.stdout).toContain('  Task/Payroll to bank (changed): next run Fri 02:00 (in 5 min) ⚠ due within 15 min');
    } finally {
      await other.close();
    }
  });
});
