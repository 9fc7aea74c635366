import { cpSync, existsSync, readFileSync, rmSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { readPlanFile } from '../../src/app/plan-file.js';
import { findSchemasDir, SCHEMA_BASE_URL } from '../../src/manifest/schemas.js';
import { SEED_LOGINS, startSeededEmulator } from '../integration/helpers.js';
import { positionOf } from '../helpers/position-of.js';
import { runCli } from '../helpers/run-cli.js';
import { testdir } from '../helpers/testdir.js';
import { exampleWorkdir } from '../helpers/example-workdir.js';

const EXAMPLE_POLICIES = fileURLToPath(new URL('../../examples/policies', import.meta.url));
const ENV = {
  MFT_AUTOMATION_PASSWORD: SEED_LOGINS.automationAdmin.password,
  MFT_TRANSFER_PASSWORD: SEED_LOGINS.transferAdmin.password,
  ACME_SFTP_PASSWORD: 'acme-sftp-policy-test',
};

let emulator: RunningEmulator;
beforeAll(async () => {
  emulator = await startSeededEmulator();
});
afterAll(() => emulator.close());

/** The example manifests against the seeded emulator, plus one policy file. */
const workdir = (policy: string): string => exampleWorkdir(emulator, policy, 'audit-share-policy-test');

/** A policy on the task the examples create (`Month-end report`): its Description must not mention the archive. */
function policy(severity: 'deny' | 'warn', expression = "!object.spec.Info.Description.contains('archive')"): string {
  return [
    'apiVersion: mftops/v1',
    'kind: Policy',
    'metadata: { name: no-archive-talk }',
    'spec:',
    `  severity: ${severity}`,
    '  match: { kinds: [Task], actions: [create] }',
    '  validations:',
    `    - expression: ${JSON.stringify(expression)}`,
    '      message: descriptions do not mention the archive',
    '',
  ].join('\n');
}

/** The JSON policy report of one policy (its expression at line 8 of the policy file) violated by one object of manifests/tasks/finance.yaml. */
function oneDenyViolation(policy: string, message: string, address: string, line: number) {
  return {
    policies: 1,
    violations: [
      {
        policy,
        severity: 'deny',
        outcome: 'violated',
        message,
        address,
        source: { file: 'manifests/tasks/finance.yaml', line, col: 1 },
        expressionSource: { file: 'manifests/policies/policy.yaml', line: 8, col: 19 },
      },
    ],
  };
}

describe('policies in mftops plan and validate', () => {
  it('a deny policy stops plan: exit 1, the violation shown near the top, no plan file', async () => {
    const dir = workdir(policy('deny'));
    const r = await runCli(['plan', '--out', 'plan.json'], { cwd: dir, env: ENV });
    expect(r.code).toBe(1);
    expect(existsSync(join(dir, 'plan.json'))).toBe(false);
    expect(r.stderr).toContain('mftops: error: a deny policy is violated; the plan is refused and not saved to plan.json.');
    const lines = r.stdout.split('\n');
    const headline = lines.findIndex((l) => l.startsWith('Policy checks: 1 violation of 1 policy (1 deny'));
    expect(headline).toBeGreaterThan(0);
    expect(headline).toBeLessThan(lines.findIndex((l) => l.includes('Task/Month-end report will be created')));
    expect(lines[headline + 1]).toBe(
      '  ✗ deny no-archive-talk: Task/Month-end report — descriptions do not mention the archive (manifests/tasks/finance.yaml:59:1)',
    );
    const json = await runCli(['plan', '--format', 'json'], { cwd: dir, env: ENV });
    expect(json.code).toBe(1);
    // The plan document, violations included, is what its published schema describes.
    const ajv = new Ajv2020({ strict: true, strictRequired: false, allowUnionTypes: true });
    addFormats.default(ajv);
    for (const file of ['kinds.schema.json', 'plan.schema.json', 'output-common.schema.json', 'output-plan.schema.json'])
      ajv.addSchema(JSON.parse(readFileSync(join(findSchemasDir(), file), 'utf8')) as object);
    const validate = ajv.getSchema(`${SCHEMA_BASE_URL}output-plan.schema.json`)!;
    expect(validate(JSON.parse(json.stdout)) ? [] : validate.errors).toEqual([]);
    expect(JSON.parse(json.stdout).policy).toEqual(oneDenyViolation('no-archive-talk', 'descriptions do not mention the archive', 'Task/Month-end report', 59));
    const md = await runCli(['plan', '--format', 'markdown'], { cwd: dir, env: ENV });
    expect(md.code).toBe(1);
    expect(md.stdout).toContain('> [!CAUTION]\n> **Policy checks: 1 violation of 1 policy (1 deny: the plan is refused and not saved).**');
  });

  it('a warn policy is shown, and the plan is saved with it and exits as usual', async () => {
    const dir = workdir(policy('warn'));
    const r = await runCli(['plan', '--out', 'plan.json'], { cwd: dir, env: ENV });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Policy checks: 1 violation of 1 policy (warnings only).');
    expect(r.stdout).toContain('  ! warn no-archive-talk: Task/Month-end report');
    expect(readPlanFile(join(dir, 'plan.json')).policy?.violations.map((v) => v.severity)).toEqual(['warn']);
  });

  it('a policy that keeps passing changes nothing but its headline', async () => {
    const dir = workdir(policy('deny', "object.kind == 'Task' && change.action == 'create' && oldObject == null"));
    const r = await runCli(['plan'], { cwd: dir, env: ENV });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Policy checks: 1 policy, no violations.');
    // validate counts the policy among the valid manifests.
    const count = async (cwd: string) => Number(/^(\d+) manifests valid/m.exec((await runCli(['validate'], { cwd, env: ENV })).stdout)?.[1]);
    const without = testdir({ 'mftops.yaml': readFileSync(join(dir, 'mftops.yaml'), 'utf8') });
    cpSync(join(dir, 'manifests'), join(without, 'manifests'), { recursive: true });
    rmSync(join(without, 'manifests/policies'), { recursive: true });
    expect(await count(dir)).toBe((await count(without)) + 1);
  });

  it('a bad expression is a validate error at its file and line, before any server is asked', async () => {
    const text = policy('deny', 'object.spec.Info.Description.contains(');
    const dir = workdir(text);
    const r = await runCli(['validate'], { cwd: dir, env: ENV });
    expect(r.code).toBe(1);
    const at = positionOf(text, '"object.spec.Info');
    expect(r.stdout).toContain(`manifests/policies/policy.yaml:${at.line}:${at.col}: error MF311: policy expression does not compile: Unexpected token: EOF`);
    const plan = await runCli(['plan'], { cwd: dir, env: ENV });
    expect(plan.code).toBe(1);
    expect(plan.stdout + plan.stderr).toContain('MF311');
  });

  it('validate evaluates the policies that read only object, with no server: a deny at the manifest line exits 1, a warn is a warning', async () => {
    const task = [
      'apiVersion: mftops/v1',
      'kind: Task',
      'metadata: { name: Undescribed }',
      'spec:',
      '  Active: 1',
      '---',
      'apiVersion: mftops/v1',
      'kind: Task',
      'metadata: { name: Described }',
      'spec:',
      '  Info: { Description: Sends the payroll }',
      '',
    ].join('\n');
    const rule = (severity: string, expression: string) =>
      [
        'apiVersion: mftops/v1',
        'kind: Policy',
        `metadata: { name: ${severity}-rule }`,
        'spec:',
        `  severity: ${severity}`,
        '  match: { kinds: [Task] }',
        '  validations:',
        `    - expression: ${JSON.stringify(expression)}`,
        '      message: every task has a description',
        '',
      ].join('\n');
    // No mftops.yaml and so no server to ask: validate works from the files alone.
    const dir = testdir({ 'tasks.yaml': task, 'deny.yaml': rule('deny', 'has(object.spec.Info) && object.spec.Info.Description != ""') });
    const r = await runCli(['validate', '.'], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('tasks.yaml:1:1: error MF312: Task/Undescribed breaks policy `deny-rule`: every task has a description');
    expect(r.stdout).not.toContain('Task/Described breaks');
    const warn = testdir({ 'tasks.yaml': task, 'warn.yaml': rule('warn', 'has(object.spec.Info)') });
    const w = await runCli(['validate', '.'], { cwd: warn });
    expect(w.code).toBe(0);
    expect(w.stdout).toContain('tasks.yaml:1:1: warning MF312: Task/Undescribed breaks policy `warn-rule`: every task has a description');
    // A policy that needs a plan (it reads change) is left to plan.
    const planOnly = testdir({ 'tasks.yaml': task, 'deny.yaml': rule('deny', "change.action == 'delete' || has(object.spec.Info)") });
    const p = await runCli(['validate', '.'], { cwd: planOnly });
    expect(p.code).toBe(0);
    expect(p.stdout).not.toContain('MF312');
  });

  it('drift evaluates the object-only policies on the live state and reports the live objects that break one', async () => {
    // The manifest keeps the originals (DeleteOrig 2); the server's task still deletes them (1).
    const rule = [
      'apiVersion: mftops/v1',
      'kind: Policy',
      'metadata: { name: statements-kept }',
      'spec:',
      '  severity: deny',
      '  match: { kinds: [Task], names: ["Bank statements*"] }',
      '  validations:',
      '    - expression: "!object.spec.steps.exists(s, has(s.Source) && s.Source.DeleteOrig == 1)"',
      '      message: the bank statements are never deleted at the bank',
      '',
    ].join('\n');
    const dir = workdir(rule);
    expect((await runCli(['validate'], { cwd: dir, env: ENV })).code).toBe(0);
    const r = await runCli(['drift'], { cwd: dir, env: ENV });
    expect(r.code).toBe(2);
    expect(r.stdout).toContain('Policy checks of the live objects: 1 violation of 1 policy (1 deny: counted as drift).');
    expect(r.stdout).toContain(
      '  ✗ deny statements-kept: Task/Bank statements in — the bank statements are never deleted at the bank (manifests/tasks/finance.yaml:27:1)',
    );
    const json = await runCli(['drift', '--format', 'json'], { cwd: dir, env: ENV });
    const report = JSON.parse(json.stdout);
    expect(report.policy).toEqual(oneDenyViolation('statements-kept', 'the bank statements are never deleted at the bank', 'Task/Bank statements in', 27));
    const ajv = new Ajv2020({ strict: true, strictRequired: false, allowUnionTypes: true });
    addFormats.default(ajv);
    for (const file of ['kinds.schema.json', 'plan.schema.json', 'output-common.schema.json', 'output-plan.schema.json', 'output-drift.schema.json'])
      ajv.addSchema(JSON.parse(readFileSync(join(findSchemasDir(), file), 'utf8')) as object);
    const validate = ajv.getSchema(`${SCHEMA_BASE_URL}output-drift.schema.json`)!;
    expect(validate(report) ? [] : validate.errors).toEqual([]);
    const github = await runCli(['drift', '--format', 'github'], { cwd: dir, env: ENV });
    expect(github.code).toBe(2);
    expect(github.stdout.split('\n')[0]).toBe(
      '::error file=manifests/tasks/finance.yaml,line=27,col=1,title=policy statements-kept::the bank statements are never deleted at the bank (Task/Bank statements in)',
    );
  });

  it('plan: oldObject of an update is the live task in manifest form (names, not ids)', async () => {
    const expr =
      "change.action != 'update' || change.address != 'Task/Bank statements in' || (oldObject.spec.steps[0].Source.Host == 'bank-as2' && oldObject.spec.steps[0].Source.DeleteOrig == 1 && object.spec.steps[0].Source.DeleteOrig == 2)";
    const text = [
      'apiVersion: mftops/v1',
      'kind: Policy',
      'metadata: { name: old-object }',
      'spec:',
      '  severity: deny',
      '  match: { kinds: [Task] }',
      '  validations:',
      `    - expression: ${JSON.stringify(expr)}`,
      '      message: oldObject is the live task',
      '',
    ].join('\n');
    const r = await runCli(['plan'], { cwd: workdir(text), env: ENV });
    expect(r.stdout).toContain('Policy checks: 1 policy, no violations.');
    expect(r.code).toBe(0);
  });

  it('the example policies load with the example manifests, which keep them all, and catch what they should on the live example estate', async () => {
    const dir = workdir('');
    rmSync(join(dir, 'manifests/policies'), { recursive: true });
    cpSync(EXAMPLE_POLICIES, join(dir, 'manifests/policies'), { recursive: true });
    const v = await runCli(['validate'], { cwd: dir, env: ENV });
    expect(v.code).toBe(0);
    // The example manifests keep every example policy: the demo and "Try it by hand" show no warning.
    expect([...v.stdout.matchAll(/MF312: (\S+ \S+) breaks policy `([^`]+)`/g)]).toEqual([]);
    const plan = await runCli(['plan', '--format', 'json'], { cwd: dir, env: ENV });
    expect(plan.code).toBe(0);
    const violations = JSON.parse(plan.stdout).policy as {
      policies: number;
      violations: { policy: string; severity: string; outcome: string; address: string }[];
    };
    expect(violations.policies).toBe(7);
    expect(violations.violations).toEqual([]);
    // On the live state: the Globex partner group may delete files on the server (deny: drift).
    const drift = await runCli(['drift', '--format', 'json'], { cwd: dir, env: ENV });
    expect(drift.code).toBe(2);
    expect(
      (JSON.parse(drift.stdout).policy.violations as { policy: string; severity: string; address: string }[]).map((x) => [x.policy, x.severity, x.address]),
    ).toEqual([
      ['no-partner-admin', 'deny', 'FolderPermissions/Distribution/Globex/Outbound'],
      ['partner-originals-kept', 'warn', 'Task/Acme inbound'],
    ]);
  });
});
