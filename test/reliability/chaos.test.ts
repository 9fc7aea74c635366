import { describe, expect, it } from 'vitest';
import { classifyEnd, runChaos, stackTraceSigns } from '../../bench/chaos.js';
import type { CliRun } from '../../bench/chaos.js';

/**
 * A short run of the fault campaign (`npm run chaos` runs the long one at 0.3 and 0.5 and commits
 * bench/chaos-results.json): one round at fault rate 0.3 with 3 s tokens, answers held past the
 * client timeout, bodies cut short, `/users` growing between its pages, and its first apply
 * SIGKILLed at a random point.
 */
it('converges through faults and a SIGKILL with no duplicate, nothing lost, only clear errors and no stack trace', async () => {
  const lines: string[] = [];
  const results = await runChaos({ rates: [0.3], rounds: 1, seed: 21, budgetMs: 60_000, killRate: 0, minRuns: 0, log: (l) => lines.push(l) });
  const r = results.results[0]!;
  expect(r.faultsInjected).toBeGreaterThan(10);
  expect(Object.keys(r.faultsByKind)).toEqual(expect.arrayContaining(['slow-answer', 'reset', 'short-read']));
  expect(r.runsKilled).toBe(1);
  expect(r.kills.every((k) => k.okButMissing.length === 0 && k.recovered === true)).toBe(true);
  expect(r.sigkillRecoveries).toBe(1);
  expect(r.duplicates).toBe(0);
  expect(r.lostChanges).toBe(0);
  expect(r.unclearEnds, r.unclearSamples.join('\n')).toBe(0);
  expect(r.stackTraces.runs, r.stackTraces.samples.join('\n')).toBe(0);
  expect(r.roundsConverged).toBe(1);
  expect(r.runs).toBe(r.runsToConverge[0]);
  expect(results.passed).toBe(true);
});

describe('the stack-trace count of the campaign', () => {
  it('counts the frames, the Node.js banner and an unhandled rejection of a crash, and nothing in a clear error', () => {
    const crash = [
      'node:internal/process/promises:394',
      '    triggerUncaughtException(err, true /* fromPromise */);',
      '    ^',
      '[UnhandledPromiseRejection: This error originated either by throwing inside of an async function without a catch block]',
      '    at readLiveState (file:///app/dist/live/read-live-state.js:40:11)',
      '    at async plan (file:///app/dist/app/plan.js:12:3)',
      '',
      'Node.js v20.19.0',
    ].join('\n');
    expect(stackTraceSigns(crash)).toEqual({ frames: 2, nodeBanners: 1, unhandledRejections: 1 });
    expect(stackTraceSigns('mftops: error: automation: GET /api/v1/tasks: 503 Service Unavailable (gave up after 5 attempts)\n')).toEqual({
      frames: 0,
      nodeBanners: 0,
      unhandledRejections: 0,
    });
    // A manifest line that merely holds " at " is not a frame.
    expect(stackTraceSigns('  Description: files arrive at 06:00\n').frames).toBe(0);
  });

  it('refuses a campaign of fewer apply runs than asked, whatever else it shows', async () => {
    const results = await runChaos({ rates: [0.3], rounds: 0, seed: 21, budgetMs: 10_000, killRate: 0, minRuns: 60 });
    expect(results.runs).toBe(0);
    expect(results.passed).toBe(false);
  });

  it('takes an mftops.error document that says why (--format json) as a clear end, and one that does not as unclear', () => {
    const run = (stdout: string, stderr = ''): CliRun => ({ code: 1, signal: null, stdout, stderr, ms: 1, timedOut: false });
    const error = (message: string): string => JSON.stringify({ formatVersion: 1, kind: 'mftops.error', errors: [{ severity: 'error', message }] });
    const takeover = 'mftops: warning: took over a stale apply lock (pid 1 on vm, expired or no longer running)\n';
    expect(classifyEnd(run(error('transfer: GET /transfer/api/v1/users: the list changed while it was read, 3 reads in a row'), takeover))).toBe('clear');
    expect(classifyEnd(run(error(''), takeover))).toBe('unclear');
    expect(classifyEnd(run(JSON.stringify({ formatVersion: 1, kind: 'mftops.error', errors: [] }), takeover))).toBe('unclear');
    expect(classifyEnd(run(error('anything'), 'node:internal/process/promises:394\n    at readLiveState (file:///x.js:1:1)\n'))).toBe('unclear');
  });
});
