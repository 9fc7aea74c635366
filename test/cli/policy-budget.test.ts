import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { SEED_LOGINS, startSeededEmulator } from '../integration/helpers.js';
import { nestedComprehension } from '../helpers/nested-comprehension.js';
import { positionOf } from '../helpers/position-of.js';
import { hasStackTrace, runCli } from '../helpers/run-cli.js';
import { testdir } from '../helpers/testdir.js';
import { exampleWorkdir } from '../helpers/example-workdir.js';

const TASK = ['apiVersion: mftops/v1', 'kind: Task', 'metadata: { name: Payroll }', 'spec:', '  Active: 1', ''].join('\n');

describe('a policy whose work is exponential in its text', () => {
  it('validate refuses comprehensions nested 6 deep over list literals as MF311 at the expression, instead of running for hours', async () => {
    const expression = nestedComprehension(6, 40);
    const policy = [
      'apiVersion: mftops/v1',
      'kind: Policy',
      'metadata: { name: nested }',
      'spec:',
      '  severity: deny',
      '  validations:',
      `    - expression: ${JSON.stringify(expression)}`,
      '      message: never',
      '',
    ].join('\n');
    const dir = testdir({ 'policy.yaml': policy, 'task.yaml': TASK });
    // vitest's timeout is the hang detector: the old code evaluated 40^6 steps on the task.
    const r = await runCli(['validate', '.'], { cwd: dir });
    const at = positionOf(policy, JSON.stringify(expression));
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(new RegExp(`policy\\.yaml:${at.line}:${at.col}: error MF311: .*estimated cost is [\\d,]+ steps, over the limit of 1,000,000`));
    expect(hasStackTrace(r.stdout + r.stderr)).toBe(false);
  }, 60_000);
});

// The per-evaluation time budget (EVALUATION_BUDGET_MS, 1 s): an expression whose work no static
// estimate bounds (comprehensions over the object's own lists, a backtracking regular expression)
// is stopped and is an error of its policy at the expression. Before the budget these ran for
// minutes: runCli kills the CLI after HANG_MS, which is the hang detector (no timed assertion).
const HANG_MS = 60_000;
const ENV = {
  MFT_AUTOMATION_PASSWORD: SEED_LOGINS.automationAdmin.password,
  MFT_TRANSFER_PASSWORD: SEED_LOGINS.transferAdmin.password,
  ACME_SFTP_PASSWORD: 'acme-sftp-budget-test',
};

/** A deny policy on tasks; its expression is at line 8, column 19 of its file. */
function denyPolicy(expression: string): string {
  return [
    'apiVersion: mftops/v1',
    'kind: Policy',
    'metadata: { name: slow }',
    'spec:',
    '  severity: deny',
    '  match: { kinds: [Task] }',
    '  validations:',
    `    - expression: ${JSON.stringify(expression)}`,
    '      message: never reached',
    '',
  ].join('\n');
}

/** A task with `count` steps: a list of the object's own that the static cost estimate counts as one. */
function longTask(count: number): string {
  const steps = Array.from({ length: count }, (_, i) => `    - Process: { Script: Step ${i}, Run: per-file }`);
  return ['apiVersion: mftops/v1', 'kind: Task', 'metadata:', '  name: Long task', 'spec:', '  Active: false', '  steps:', ...steps, ''].join('\n');
}

const NESTED = 'object.spec.steps.all(a, object.spec.steps.all(b, object.spec.steps.all(c, a != b || b != c || true)))';
const BACKTRACKING = "'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!'.matches('^(a+)+$')";
/** The same, as a policy that reads the change: plan (and apply) evaluate it, validate does not. */
const BACKTRACKING_ON_CHANGE = `${BACKTRACKING} && change.action != 'none'`;

describe('the time budget of one policy evaluation', () => {
  it(
    "validate stops comprehensions nested over a manifest's own list: MF312 at the task, the expression's FILE:LINE:COL, exit 1",
    async () => {
      const dir = testdir({ 'manifests/long.yaml': longTask(1000), 'manifests/policy.yaml': denyPolicy(NESTED) });
      const r = await runCli(['validate', 'manifests'], { cwd: dir, timeoutMs: HANG_MS });
      expect(r.code).toBe(1);
      expect(hasStackTrace(r.stdout + r.stderr)).toBe(false);
      const out = r.stdout + r.stderr;
      expect(out).toContain('MF312');
      expect(out).toContain('manifests/long.yaml:1:1');
      expect(out).toContain('manifests/policy.yaml:8:19');
      expect(out).toContain('ran over its time budget of 1000 ms');
    },
    HANG_MS + 30_000,
  );

  it(
    'validate stops a backtracking regular expression in matches(), as an error of that policy on each task',
    async () => {
      const dir = testdir({
        'manifests/long.yaml': longTask(2),
        'manifests/other.yaml': longTask(1).replace('Long task', 'Other task'),
        'manifests/policy.yaml': denyPolicy(BACKTRACKING),
      });
      const r = await runCli(['validate', 'manifests', '--format', 'json'], { cwd: dir, timeoutMs: HANG_MS });
      expect(r.code).toBe(1);
      const report = JSON.parse(r.stdout) as { diagnostics: { code: string; message: string; file?: string; line?: number }[] };
      const budget = report.diagnostics.filter((d) => d.code === 'MF312');
      // One budget is spent; the second task is refused without running the expression again.
      expect(budget.map((d) => d.message)).toEqual([
        expect.stringContaining('ran over its time budget of 1000 ms'),
        expect.stringContaining('ran over its time budget (1000 ms) on an earlier object'),
      ]);
    },
    HANG_MS + 30_000,
  );

  describe('plan and drift against the emulator', () => {
    let emulator: RunningEmulator;
    beforeAll(async () => {
      emulator = await startSeededEmulator();
    });
    afterAll(() => emulator.close());

    const workdir = (policy: string): string => exampleWorkdir(emulator, policy, 'audit-share-budget-test');

    it(
      'plan refuses on a backtracking regular expression: exit 1, the error at the expression, no plan file',
      async () => {
        const dir = workdir(denyPolicy(BACKTRACKING_ON_CHANGE));
        const r = await runCli(['plan', '--out', 'plan.json', '--format', 'json'], { cwd: dir, env: ENV, timeoutMs: HANG_MS });
        expect(hasStackTrace(r.stdout + r.stderr)).toBe(false);
        expect(r.code).toBe(1);
        const doc = JSON.parse(r.stdout) as { policy?: { violations: { outcome: string; message: string; expressionSource: unknown }[] } };
        const errors = doc.policy?.violations.filter((v) => v.outcome === 'error') ?? [];
        expect(errors[0]).toMatchObject({
          message: expect.stringContaining('ran over its time budget of 1000 ms'),
          expressionSource: { file: 'manifests/policies/policy.yaml', line: 8, col: 19 },
        });
        expect(errors.slice(1).every((v) => v.message.includes('on an earlier object'))).toBe(true);
        expect(existsSync(join(dir, 'plan.json'))).toBe(false);
      },
      HANG_MS + 30_000,
    );

    it(
      'drift stops a backtracking regular expression on the live tasks: an error of the deny policy, counted as drift',
      async () => {
        // Validate would stop at the same policy (MF312), so drift is run on a policy limited to live names alone.
        const dir = workdir(denyPolicy(BACKTRACKING).replace('match: { kinds: [Task] }', 'match: { kinds: [Task], names: ["Bank statements*"] }'));
        const r = await runCli(['drift', '--format', 'json'], { cwd: dir, env: ENV, timeoutMs: HANG_MS });
        expect(hasStackTrace(r.stdout + r.stderr)).toBe(false);
        expect(r.code).toBe(2);
        const doc = JSON.parse(r.stdout) as { policy?: { violations: { outcome: string; message: string; address: string }[] } };
        expect(doc.policy?.violations).toEqual([
          expect.objectContaining({
            outcome: 'error',
            address: 'Task/Bank statements in',
            message: expect.stringContaining('ran over its time budget of 1000 ms'),
          }),
        ]);
      },
      HANG_MS + 30_000,
    );
  });
});
