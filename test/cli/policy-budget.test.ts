import { describe, expect, it } from 'vitest';
import { nestedComprehension } from '../helpers/nested-comprehension.js';
import { positionOf } from '../helpers/position-of.js';
import { hasStackTrace, runCli } from '../helpers/run-cli.js';
import { testdir } from '../helpers/testdir.js';

const TASK = ['apiVersion: mftops/v1', 'kind: Task', 'metadata: { name: Payroll }', 'spec:', '  Active: 1', ''].join('\n');

describe('a policy whose work is exponential in its text', () => {
  it('validate refuses comprehensions nested 6 deep over list literals as MF311 at the expression, instead of running for hours', async () => {
    const expression = nestedComprehension(6, 40);
    const policy = ['apiVersion: mftops/v1', 'kind: Policy', 'metadata: { name: nested }', 'spec:', '  severity: deny', '  validations:', `    - expression: ${JSON.stringify(expression)}`, '      message: never', ''].join('\n');
    const dir = testdir({ 'policy.yaml': policy, 'task.yaml': TASK });
    // vitest's timeout is the hang detector: the old code evaluated 40^6 steps on the task.
    const r = await runCli(['validate', '.'], { cwd: dir });
    const at = positionOf(policy, JSON.stringify(expression));
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(new RegExp(`policy\\.yaml:${at.line}:${at.col}: error MF311: .*estimated cost is [\\d,]+ steps, over the limit of 1,000,000`));
    expect(hasStackTrace(r.stdout + r.stderr)).toBe(false);
  }, 60_000);
});
