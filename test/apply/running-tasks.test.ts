import { describe, expect, it } from 'vitest';
import { createRunningTaskGate, describeRun, describeWait, parseWait } from '../../src/apply/running-tasks.js';
import type { RunningTask } from '../../src/services/automation/running-tasks.js';
import { MftopsError } from '../../src/errors.js';
import type { Change } from '../../src/plan/model.js';

const update = (over: Partial<Change> = {}): Change =>
  ({ address: 'Task/Payroll', kind: 'Task', name: 'Payroll', action: 'update', liveId: '7', ...over }) as Change;
const RUN: RunningTask = { taskId: '7', taskName: 'Payroll', timeStarted: '2026-11-27T01:58:03.120Z', scheduled: true };

/** A fake clock the sleeper moves: no real waiting. */
function fakeTime() {
  let now = 0;
  return { now: () => now, sleep: (ms: number) => ((now += ms), Promise.resolve()) };
}

describe('the running-task gate', () => {
  it('wait: asks again until the run is gone, then lets the write through', async () => {
    const t = fakeTime();
    let looks = 0;
    const gate = createRunningTaskGate({ mode: 'wait', waitMs: 60_000, pollMs: 5000, read: () => Promise.resolve(++looks < 4 ? [RUN] : []), ...t })!;
    expect(await gate(update())).toBeUndefined();
    expect(looks).toBe(4);
    expect(t.now()).toBe(15_000);
  });

  it('wait: at the deadline the change is not applied, naming the wait and the run', async () => {
    const t = fakeTime();
    const gate = createRunningTaskGate({ mode: 'wait', waitMs: 12_000, pollMs: 5000, read: () => Promise.resolve([RUN]), ...t })!;
    expect(await gate(update())).toBe(
      'not applied: task "Payroll" was still running after waiting 12s (started 2026-11-27 01:58 UTC by the scheduler); wait longer with --running-wait, or apply again once it ends',
    );
    expect(t.now()).toBe(12_000);
  });

  it('wait: never past the close of the change window apply started in; the write is not sent after it', async () => {
    const t = fakeTime();
    let looks = 0;
    const windowCloses = { atMs: 7_000, text: 'Sun 2026-11-29 04:00 UTC' };
    const gate = createRunningTaskGate({ mode: 'wait', waitMs: 600_000, pollMs: 5000, read: () => (looks++, Promise.resolve([RUN])), windowCloses, ...t })!;
    expect(await gate(update())).toBe(
      'not applied: task "Payroll" was still running when the change window closed at Sun 2026-11-29 04:00 UTC (started 2026-11-27 01:58 UTC by the scheduler); apply again in the next window',
    );
    // It slept 5 s and then only up to the close, not the 10 minutes --running-wait allows.
    expect(t.now()).toBe(7_000);
    expect(looks).toBe(3);
    // Asked again once the window has closed, a task still running is not waited for at all.
    expect(await gate(update())).toMatch(/^not applied: task "Payroll" was still running when the change window closed/);
    expect(t.now()).toBe(7_000);
    // A run that ends before the close lets the write through; --running-wait shorter than the window still rules.
    const early = fakeTime();
    let n = 0;
    const through = createRunningTaskGate({
      mode: 'wait',
      waitMs: 600_000,
      pollMs: 1000,
      read: () => Promise.resolve(++n < 3 ? [RUN] : []),
      windowCloses,
      ...early,
    })!;
    expect(await through(update())).toBeUndefined();
    const short = createRunningTaskGate({ mode: 'wait', waitMs: 2000, pollMs: 1000, read: () => Promise.resolve([RUN]), windowCloses, ...fakeTime() })!;
    expect(await short(update())).toMatch(/after waiting 2s/);
  });

  it('skip: one look; a run of another task, a create and an ACL are not held', async () => {
    let looks = 0;
    const gate = createRunningTaskGate({ mode: 'skip', waitMs: 1, pollMs: 1, read: () => (looks++, Promise.resolve([RUN])) })!;
    expect(await gate(update())).toMatch(/^not applied: task "Payroll" is running \(started 2026-11-27 01:58 UTC by the scheduler\); --running-tasks skip$/);
    expect(await gate(update({ liveId: '8', name: 'Other' }))).toBeUndefined();
    expect(await gate(update({ action: 'create', liveId: undefined }))).toBeUndefined();
    expect(await gate(update({ kind: 'ResourceGroupAcl' }))).toBeUndefined();
    expect(looks).toBe(2);
  });

  it('matches by name (a rename: the name before too) when the server lists no id; deletes and replaces are held', async () => {
    const gate = createRunningTaskGate({ mode: 'skip', waitMs: 1, pollMs: 1, read: () => Promise.resolve([{ taskName: 'payroll OLD' }]) })!;
    expect(await gate(update({ previousName: 'Payroll old' }))).toMatch(/is running \(start time not given\)/);
    expect(await gate(update({ action: 'delete', name: 'Payroll old' }))).toMatch(/^not applied/);
    expect(await gate(update({ action: 'replace', name: 'Payroll old' }))).toMatch(/^not applied/);
  });

  it('a list it cannot read leaves the change not applied (no guess); ignore has no gate', async () => {
    const gate = createRunningTaskGate({ mode: 'wait', waitMs: 1, pollMs: 1, read: () => Promise.reject(new MftopsError('403 Forbidden')) })!;
    expect(await gate(update())).toBe('not applied: could not tell whether task "Payroll" is running (403 Forbidden)');
    expect(createRunningTaskGate({ mode: 'ignore', waitMs: 1, pollMs: 1, read: () => Promise.resolve([]) })).toBeUndefined();
  });

  it('Ctrl-C during a wait ends it: not applied', async () => {
    const stop = new AbortController();
    stop.abort();
    const gate = createRunningTaskGate({ mode: 'wait', waitMs: 60_000, pollMs: 1, read: () => Promise.resolve([RUN]), signal: stop.signal })!;
    expect(await gate(update())).toMatch(/^not applied: interrupted while waiting for task "Payroll" to finish/);
  });
});

describe('words and durations', () => {
  it('describes a run by hand, and a start time that is not an instant as the server wrote it', () => {
    expect(describeRun({ taskId: '1', timeStarted: '2026-11-27 01:58:03', scheduled: false })).toBe('started 2026-11-27 01:58:03 by hand or through the API');
  });
  it('reads --running-wait', () => {
    expect([parseWait('10m'), parseWait('90s'), parseWait('600'), parseWait('1h30m'), parseWait('25h'), parseWait('soon'), parseWait('')]).toEqual([
      600_000,
      90_000,
      600_000,
      5_400_000,
      undefined,
      undefined,
      undefined,
    ]);
    expect([describeWait(600_000), describeWait(90_000), describeWait(5_400_000)]).toEqual(['10m', '1m30s', '1h30m']);
  });
});
