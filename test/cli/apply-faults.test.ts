import { afterAll, beforeAll, expect, it } from 'vitest';
import { generateTaskManifest } from '../../bench/generate-manifests.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { countRequests } from '../../src/emulator/index.js';
import { startSeededEmulator } from '../integration/helpers.js';
import { runCli } from '../helpers/run-cli.js';
import { APPLY_ENV, applyWorkdir, tasksNamed } from '../apply/helpers.js';

const TASKS = 200;
const PREEXISTING = 50;
const MAX_RUNS = 8;
/** The `${env:}` secrets the generated manifests use. */
const GEN_ENV: Record<string, string> = Object.fromEntries([
  ...[0, 1, 2, 3, 4].map((i) => [`GEN_TOKEN_${i}`, `gen-token-value-${i}`]),
  ...[0, 1, 2].map((i) => [`GEN_PASSWORD_${i}`, `gen-password-value-${i}`]),
]);
const ENV = { ...APPLY_ENV, ...GEN_ENV };

const nameOf = (i: number) => `Generated task ${String(i).padStart(5, '0')}`;
/** The manifests of tasks [from, to), as one file per task. */
function manifests(from: number, to: number, edit: (text: string) => string = (t) => t): Record<string, string> {
  const files: Record<string, string> = {};
  for (let i = from; i < to; i++) files[`manifests/task-${i}.yaml`] = edit(generateTaskManifest(i));
  return files;
}

let emulator: RunningEmulator;
beforeAll(async () => {
  emulator = await startSeededEmulator({ faultSeed: 7 });
});
afterAll(() => emulator.close());

interface RunReport {
  readonly outcome: string;
  readonly counts: { ok: number; failed: number };
  readonly stats: { writes: number; unknownOutcomes: number; confirmedByReread: number; retriedAfterReread: number };
}

it('converges a ~200-change plan through 500s, 503s and resets (some after the write) with no duplicate task and no lost change', async () => {
  // Before the faults: 50 of the 200 tasks exist, with another description (so 150 creates, 50 updates).
  const old = applyWorkdir(emulator, { prune: [], manifests: manifests(0, PREEXISTING, (t) => t.replace(/Description: (.*)/, 'Description: $1 (old)')) });
  const seeded = await runCli(['apply', '--auto-approve', '-q'], { cwd: old, env: ENV });
  expect(seeded.code).toBe(0);

  const dir = applyWorkdir(emulator, { prune: [], manifests: manifests(0, TASKS) });
  const planned = await runCli(['plan', '--format', 'json'], { cwd: dir, env: ENV });
  const summary = (JSON.parse(planned.stdout) as { summary: Record<string, number> }).summary;
  expect(summary).toMatchObject({ create: TASKS - PREEXISTING, update: PREEXISTING, delete: 0, replace: 0 });

  emulator.resetRequestLog();
  emulator.configure({ faultRate: 0.2 });
  const reports: RunReport[] = [];
  let runs = 0;
  let code: number | null = 1;
  while (code !== 0 && runs < MAX_RUNS) {
    runs++;
    const r = await runCli(['apply', '--auto-approve', '--format', 'json', '-q'], { cwd: dir, env: ENV });
    code = r.code;
    // A run may also stop before its report (a read that failed five times): then it printed an error.
    if (r.stdout.trim().startsWith('{')) reports.push(JSON.parse(r.stdout) as RunReport);
    else expect(r.stderr).toMatch(/^mftops: error: /m);
  }
  const log = emulator.requestLog();
  emulator.configure({ faultRate: 0 });
  expect(code).toBe(0);

  const after = await runCli(['plan', '--detailed-exitcode', '-q'], { cwd: dir, env: ENV });
  expect(after.code).toBe(0);
  // No duplicate and no lost task: each generated name exactly once.
  const counts = Array.from({ length: TASKS }, (_, i) => tasksNamed(emulator, nameOf(i)).length);
  expect(counts.filter((n) => n !== 1)).toEqual([]);

  const faults = log.filter((r) => r.fault !== undefined);
  const afterWrite = faults.filter((r) => r.fault === 'write-then-500' || r.fault === 'write-then-reset');
  const unknown = reports.reduce((n, r) => n + r.stats.unknownOutcomes, 0);
  const confirmed = reports.reduce((n, r) => n + r.stats.confirmedByReread, 0);
  const retried = reports.reduce((n, r) => n + r.stats.retriedAfterReread, 0);
  // Faults after the write did happen, and re-reads found those writes instead of repeating them.
  expect(afterWrite.length).toBeGreaterThan(0);
  expect(confirmed).toBeGreaterThan(0);
  expect(unknown).toBeGreaterThanOrEqual(confirmed + retried - 0);
  console.info(
    `apply under faults: ${runs} run(s) to converge; ${countRequests(log).total} requests, ${faults.length} faults injected ` +
      `(${afterWrite.length} after the write); ${unknown} unknown write outcomes: ${confirmed} confirmed by re-read, ${retried} re-sent after a re-read; ` +
      `per run: ${reports.map((r) => `${r.outcome} ${r.counts.ok} ok / ${r.counts.failed} failed`).join('; ')}`,
  );
}, 240_000);
