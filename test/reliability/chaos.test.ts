import { expect, it } from 'vitest';
import { runChaos } from '../../bench/chaos.js';

/**
 * A short run of the fault campaign (`npm run chaos` runs the long one at 0.1 and 0.3 and commits
 * bench/chaos-results.json): one round at fault rate 0.3 with 3 s tokens, answers held past the
 * client timeout, and its first apply SIGKILLed at a random point.
 */
it('converges through faults and a SIGKILL with no duplicate, nothing lost, and only clear errors', async () => {
  const lines: string[] = [];
  const results = await runChaos({ rates: [0.3], rounds: 1, seed: 21, budgetMs: 60_000, killRate: 0, minRuns: 0, log: (l) => lines.push(l) });
  const r = results.results[0]!;
  expect(r.faultsInjected).toBeGreaterThan(10);
  expect(Object.keys(r.faultsByKind)).toEqual(expect.arrayContaining(['slow-answer', 'reset']));
  expect(r.runsKilled).toBe(1);
  expect(r.kills.every((k) => k.okButMissing.length === 0 && k.recovered === true)).toBe(true);
  expect(r.sigkillRecoveries).toBe(1);
  expect(r.duplicates).toBe(0);
  expect(r.lostChanges).toBe(0);
  expect(r.unclearEnds).toBe(0);
  expect(r.roundsConverged).toBe(1);
  expect(r.runs).toBe(r.runsToConverge[0]);
  expect(results.passed).toBe(true);
});
