import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { generateTaskManifest } from '../../bench/generate-manifests.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { startSeededEmulator } from '../integration/helpers.js';
import { hasStackTrace, runCli } from '../helpers/run-cli.js';
import { APPLY_ENV, EXPECTED_ACTIONS, applyWorkdir } from '../apply/helpers.js';

/**
 * Behind a gateway that answers 2 requests per second per service (429 with Retry-After beyond),
 * plan, import and apply still complete at the default parallelism: the client honours
 * Retry-After within the retry budget and lowers its requests in flight. Before, a read gave up
 * after 5 attempts (~7 s) and apply lost changes after a few 429s.
 */
const RATE = 2;
const ALLOW = ['--allow-delete', '--allow-replace'];
/** The hang detector of each run (the runs take tens of seconds at 2 requests/s). */
const RUN_MS = 240_000;
const TASKS = 60;
/** The `${env:}` secrets the generated manifests use, and the services' passwords. */
const GEN_ENV: Record<string, string> = {
  ...APPLY_ENV,
  ...Object.fromEntries([0, 1, 2, 3, 4].map((i) => [`GEN_TOKEN_${i}`, `gen-token-value-${i}`])),
  ...Object.fromEntries([0, 1, 2].map((i) => [`GEN_PASSWORD_${i}`, `gen-password-value-${i}`])),
};

function generated(count: number): Record<string, string> {
  return Object.fromEntries(Array.from({ length: count }, (_, i) => [`manifests/task-${i}.yaml`, generateTaskManifest(i)]));
}

let emulator: RunningEmulator;
beforeEach(async () => {
  emulator = await startSeededEmulator({ rateLimit: RATE });
});
afterEach(() => emulator.close());

function throttled(): number {
  return emulator.requestLog().filter((r) => r.status === 429).length;
}

describe('a server limited to 2 requests per second per service', () => {
  it(
    'gets a complete plan of 60 tasks at the default parallelism, throttled on the way',
    async () => {
      // 60 tasks on the server (created without a limit), each read one by one by the plan.
      emulator.configure({ rateLimit: 0 });
      const dir = applyWorkdir(emulator, { prune: [], manifests: generated(TASKS) });
      const created = await runCli(['apply', '--auto-approve', '-q'], { cwd: dir, env: GEN_ENV, timeoutMs: RUN_MS });
      expect(created.code).toBe(0);
      writeFileSync(join(dir, 'manifests/task-0.yaml'), generateTaskManifest(0).replace(/Description: (.*)/, 'Description: $1 (changed)'));
      emulator.configure({ rateLimit: RATE });
      emulator.resetRequestLog();
      const r = await runCli(['plan', '--format', 'json', '-v'], { cwd: dir, env: GEN_ENV, timeoutMs: RUN_MS });
      expect(hasStackTrace(r.stderr)).toBe(false);
      expect(r.stderr).not.toMatch(/^mftops: error/m);
      expect(r.code).toBe(0);
      const plan = JSON.parse(r.stdout) as { summary: Record<string, number> };
      expect(plan.summary).toMatchObject({ update: 1, create: 0, delete: 0 });
      expect(throttled()).toBeGreaterThan(0);
      // -v prints the budget in force and the client slowing down.
      expect(r.stderr).toMatch(/debug: automation: request deadline 120 s, export deadline 600 s, retry budget 60 s, up to \d+ requests in flight/);
      expect(r.stderr).toMatch(/debug: (automation|transfer): throttled \(429\): at most \d+ requests in flight/);
      expect(r.stderr).toMatch(/429, throttled, retry \d+ in \d+ ms \(Retry-After\)/);
    },
    2 * RUN_MS + 10_000,
  );

  it(
    'gets a complete import of everything',
    async () => {
      const dir = applyWorkdir(emulator);
      const r = await runCli(['import', '--all', '--out', 'imported'], { cwd: dir, env: APPLY_ENV, timeoutMs: RUN_MS });
      expect(r.stderr).not.toMatch(/error/);
      expect(r.code).toBe(0);
      expect(throttled()).toBeGreaterThan(0);
    },
    RUN_MS + 10_000,
  );

  it(
    'applies every change at the default parallelism, and the plan after it is empty',
    async () => {
      const dir = applyWorkdir(emulator);
      const r = await runCli(['apply', '--auto-approve', ...ALLOW], { cwd: dir, env: APPLY_ENV, timeoutMs: RUN_MS });
      expect(r.stderr).not.toMatch(/failed|error/i);
      expect(r.code).toBe(0);
      const total = Object.keys(EXPECTED_ACTIONS).length;
      expect(r.stdout).toContain(`Apply complete for environment "lab": ${total} applied, 0 failed, 0 skipped.`);
      expect(throttled()).toBeGreaterThan(0);
      const after = await runCli(['plan', '--detailed-exitcode', '-q'], { cwd: dir, env: APPLY_ENV, timeoutMs: RUN_MS });
      expect(after.code).toBe(0);
    },
    2 * RUN_MS + 10_000,
  );
});
