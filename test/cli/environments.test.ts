import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { SEED_LOGINS, startSeededEmulator } from '../integration/helpers.js';
import { positionOf } from '../helpers/position-of.js';
import { runCli } from '../helpers/run-cli.js';
import { testdir } from '../helpers/testdir.js';

const ENV = { MFT_AUTOMATION_PASSWORD: SEED_LOGINS.automationAdmin.password, MFT_TRANSFER_PASSWORD: SEED_LOGINS.transferAdmin.password };

let emulator: RunningEmulator;
beforeAll(async () => {
  emulator = await startSeededEmulator();
});
afterAll(() => emulator.close());
beforeEach(() => emulator.resetRequestLog());

/** mftops.yaml with two environments on the one emulator, each with its variables. */
function config(vars: Record<string, string>): string {
  const service = (url: string, password: string) => `{ url: ${JSON.stringify(url)}, username: admin, password: "\${env:${password}}" }`;
  return [
    'apiVersion: mftops/v1',
    'kind: Config',
    'environments:',
    ...Object.entries(vars).flatMap(([name, v]) => [
      `  ${name}:`,
      `    automation: ${service(emulator.automationUrl, 'MFT_AUTOMATION_PASSWORD')}`,
      `    transfer: ${service(emulator.transferUrl, 'MFT_TRANSFER_PASSWORD')}`,
      '    manifests: [manifests]',
      `    vars: ${v}`,
    ]),
    '',
  ].join('\n');
}

const TASK = [
  'apiVersion: mftops/v1',
  'kind: Task',
  'metadata: { name: "Env test ${var:partner}" }',
  'spec:',
  '  Active: 1',
  '  Group: ${var:groups}',
  '  Info: { Description: "Files for ${var:partner}" }',
  '  steps:',
  '    - Source: { Host: local-fs, Path: /env-test, FileMask: "*", DeleteOrig: 0, UseDefRetryCount: 0, RetryCount: "${var:retries}" }',
  '',
].join('\n');

describe('environments end to end', () => {
  it('a typed variable: the plan sends a number, apply makes it so, and the next plan is empty; the plan file records the variables', async () => {
    const dir = testdir({
      'mftops.yaml': config({
        staging: '{ retries: 4, partner: Acme, groups: [Operations] }',
        production: '{ retries: 7, partner: Acme, groups: [Operations] }',
      }),
      'manifests/task.yaml': TASK,
    });
    const json = await runCli(['plan', '--env', 'staging', '--format', 'json', '--out', 'plan.json'], { cwd: dir, env: ENV });
    expect(json.code, json.stderr).toBe(0);
    const change = JSON.parse(json.stdout).changes.find((c: { address: string }) => c.address === 'Task/Env test Acme');
    expect(change.action).toBe('create');
    expect(JSON.stringify(change.fields)).toContain('"RetryCount":4');
    expect(JSON.parse(json.stdout).variables).toEqual({ groups: ['Operations'], partner: 'Acme', retries: 4 });
    const file = JSON.parse(readFileSync(join(dir, 'plan.json'), 'utf8'));
    expect(file.plan.variables).toEqual({ groups: ['Operations'], partner: 'Acme', retries: 4 });
    const show = await runCli(['show', 'plan.json'], { cwd: dir, env: ENV });
    expect(show.stdout).toContain('Variables: groups = ["Operations"], partner = "Acme", retries = 4.');

    const apply = await runCli(['apply', 'plan.json'], { cwd: dir, env: ENV });
    expect(apply.code, apply.stderr).toBe(0);
    // Verified by a re-plan of the same manifests, read for the same environment.
    expect(apply.stdout + apply.stderr).not.toContain('no longer load');
    const again = await runCli(['plan', '--env', 'staging', '--detailed-exitcode'], { cwd: dir, env: ENV });
    expect(again.stdout).toContain('No changes');
    expect(again.code).toBe(0);
    // The other environment's value differs: its plan updates the one field.
    const production = await runCli(['plan', '--env', 'production'], { cwd: dir, env: ENV });
    expect(production.stdout).toMatch(/RetryCount: 4 → 7/);
  });

  it('a plan file of manifests with variables is re-checked against the policies for its environment, and diff-env --offline compares the values', async () => {
    const policy = [
      'apiVersion: mftops/v1',
      'kind: Policy',
      'metadata: { name: few-retries }',
      'spec:',
      '  severity: deny',
      '  match: { kinds: [Task] }',
      '  validations:',
      '    - expression: object == null || object.spec.steps.all(s, !has(s.Source) || !has(s.Source.RetryCount) || s.Source.RetryCount <= 5)',
      '      message: at most 5 retries',
      '',
    ].join('\n');
    const dir = testdir({
      'mftops.yaml': config({
        staging: '{ retries: 4, partner: Globex, groups: [Operations] }',
        production: '{ retries: 7, partner: Globex, groups: [Operations] }',
      }),
      'manifests/task.yaml': TASK,
      'manifests/policy.yaml': policy,
    });
    const plan = await runCli(['plan', '--env', 'staging', '--out', 'plan.json'], { cwd: dir, env: ENV });
    expect(plan.code, plan.stderr).toBe(0);
    const apply = await runCli(['apply', 'plan.json'], { cwd: dir, env: ENV });
    expect(apply.stderr).not.toMatch(/MF320/);
    expect(apply.code, apply.stderr).toBe(0);
    // The same manifests for production break the policy (7 retries): plan is refused there.
    const production = await runCli(['plan', '--env', 'production'], { cwd: dir, env: ENV });
    expect(production.code).toBe(1);
    expect(production.stdout).toContain('deny few-retries: Task/Env test Globex');
    emulator.resetRequestLog();
    const diff = await runCli(['diff-env', 'staging', 'production', '--offline'], { cwd: dir, env: {} });
    expect(diff.code, diff.stderr).toBe(2);
    expect(diff.stdout).toContain(['    steps[0].Source.RetryCount', '      staging:    4', '      production: 7'].join('\n'));
    expect(emulator.requestLog()).toEqual([]);
  });

  it('an undefined variable stops plan at FILE:LINE:COL, naming it, before any request', async () => {
    const text = TASK.replace('${var:retries}', '${var:retrys}');
    const dir = testdir({ 'mftops.yaml': config({ staging: '{ retries: 4, partner: Acme, groups: [Operations] }' }), 'manifests/task.yaml': text });
    const r = await runCli(['plan', '--env', 'staging'], { cwd: dir, env: ENV });
    expect(r.code).toBe(1);
    const at = positionOf(text, '${var:retrys}');
    expect(r.stdout + r.stderr).toContain(`manifests/task.yaml:${at.line}:${at.col}`);
    expect(r.stdout + r.stderr).toMatch(/MF320.*variable `retrys` is not defined for environment `staging` — did you mean `retries`\?/);
    expect(emulator.requestLog()).toEqual([]);
  });

  it('validate without --env checks every environment and says which one a problem is in', async () => {
    const dir = testdir({
      'mftops.yaml': config({ staging: '{ retries: 4, partner: Acme, groups: [Operations] }', production: '{ partner: Acme, groups: [Operations] }' }),
      'manifests/task.yaml': TASK,
    });
    const r = await runCli(['validate'], { cwd: dir, env: ENV });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/MF320.*variable `retries` is not defined for environment `production` \(environment production\)/);
    expect(r.stdout).not.toMatch(/environment `staging`/);
    const staging = await runCli(['validate', '--env', 'staging'], { cwd: dir, env: ENV });
    expect(staging.code).toBe(0);
    expect(emulator.requestLog()).toEqual([]);
  });

  it('validate PATH without a configuration: a variable needs an environment', async () => {
    const dir = testdir({ 'manifests/task.yaml': TASK });
    const r = await runCli(['validate', 'manifests'], { cwd: dir, env: ENV });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('variable `partner` needs an environment');
  });

  it('an environment-limited manifest is planned only in its environment, and MF301 only when both are for one', async () => {
    const only = (env: string, active: number) =>
      `apiVersion: mftops/v1\nkind: Task\nmetadata: { name: Env limited, environments: [${env}] }\nspec:\n  Active: ${active}\n  Group: [Operations]\n`;
    const dir = testdir({
      'mftops.yaml': config({ staging: '{ partner: Acme }', production: '{ partner: Acme }' }),
      'manifests/staging.yaml': only('staging', 1),
      'manifests/production.yaml': only('production', 0),
    });
    const staging = await runCli(['plan', '--env', 'staging', '--format', 'json'], { cwd: dir, env: ENV });
    expect(staging.stderr).toBe('');
    const created = JSON.parse(staging.stdout).changes.filter((c: { address: string }) => c.address === 'Task/Env limited');
    expect(created).toHaveLength(1);
    expect(created[0].source.file).toBe('manifests/staging.yaml');
    const production = await runCli(['plan', '--env', 'production', '--format', 'json'], { cwd: dir, env: ENV });
    expect(JSON.parse(production.stdout).changes.find((c: { address: string }) => c.address === 'Task/Env limited').source.file).toBe(
      'manifests/production.yaml',
    );

    const clash = testdir({
      'mftops.yaml': config({ staging: '{ partner: Acme }', production: '{ partner: Acme }' }),
      'manifests/staging.yaml': only('staging', 1),
      'manifests/both.yaml': only('staging, production', 0),
    });
    const v = await runCli(['validate'], { cwd: clash, env: ENV });
    expect(v.code).toBe(1);
    expect(v.stdout.match(/MF301/g)).toHaveLength(1);
    expect(v.stdout).toContain('(environment staging)');
  });

  it('an overlay: plan shows the merged value with the FILE:LINE of the patch that gave it', async () => {
    const patch = [
      'apiVersion: mftops/v1',
      'kind: Patch',
      'metadata: { name: production notes, environments: [production] }',
      'spec:',
      '  target: { kind: Task, name: Payroll to bank }',
      '  patch:',
      '    Info:',
      '      Notes: "Owner: production-ops@example.com"',
      '',
    ].join('\n');
    const base = readFileSync(join(import.meta.dirname, '../../examples/manifests/tasks/finance.yaml'), 'utf8').split('\n---\n')[0]!;
    const dir = testdir({
      'mftops.yaml': config({ staging: '{ partner: Acme }', production: '{ partner: Acme }' }),
      'manifests/payroll.yaml': base.replace('${env:PAYROLL_API_KEY}', '${env:PAYROLL_API_KEY}'),
      'manifests/patches/production.yaml': patch,
    });
    const env = { ...ENV, PAYROLL_API_KEY: 'payroll-env-test' };
    const line = positionOf(patch, '"Owner: production-ops').line;
    const text = await runCli(['plan', '--env', 'production'], { cwd: dir, env });
    expect(text.stderr).toBe('');
    expect(text.stdout).toContain(
      `~ Info.Notes: "Owner: finance-it@example.com" → "Owner: production-ops@example.com" # from manifests/patches/production.yaml:${line}`,
    );
    const md = await runCli(['plan', '--env', 'production', '--format', 'markdown'], { cwd: dir, env });
    expect(md.stdout).toContain(`+ Info.Notes: "Owner: production-ops@example.com" # from manifests/patches/production.yaml:${line}`);
    const json = await runCli(['plan', '--env', 'production', '--format', 'json'], { cwd: dir, env });
    const fields = JSON.parse(json.stdout).changes.find((c: { address: string }) => c.address === 'Task/Payroll to bank').fields;
    expect(fields.find((f: { path: string }) => f.path === 'Info.Notes').origin).toEqual({
      file: 'manifests/patches/production.yaml',
      line,
      col: positionOf(patch, '"Owner: production-ops').col,
    });
    // Staging has no patch: the task is as the base says.
    const staging = await runCli(['plan', '--env', 'staging'], { cwd: dir, env });
    expect(staging.stdout).not.toContain('Info.Notes');
  });

  it("an overlay of folder entries: merged by principal, each patched entry shown with the patch's FILE:LINE", async () => {
    const base = readFileSync(join(import.meta.dirname, '../../examples/manifests/folders/partner-folders.yaml'), 'utf8').split('\n---\n')[0]!;
    const patch = [
      'apiVersion: mftops/v1',
      'kind: Patch',
      'metadata: { name: alice reads only, environments: [production] }',
      'spec:',
      '  target: { kind: FolderPermissions, name: /Distribution/Acme/Outbound }',
      '  patch:',
      '    entries:',
      '      - user: alice',
      '        permissions: [listFiles, readFiles]',
      '',
    ].join('\n');
    const dir = testdir({
      'mftops.yaml': config({ staging: '{ partner: Acme }', production: '{ partner: Acme }' }),
      'manifests/folders.yaml': base,
      'manifests/patch.yaml': patch,
    });
    const at = positionOf(patch, '- user: alice');
    const text = await runCli(['plan', '--env', 'production'], { cwd: dir, env: ENV });
    expect(text.stderr).toBe('');
    expect(text.stdout).toMatch(new RegExp(`~ User "alice": .*# from manifests/patch\\.yaml:${at.line}$`, 'm'));
    // The other entries are the base's: no origin, and not changed.
    expect(text.stdout).not.toMatch(/acme-svc.*# from/);
    const json = await runCli(['plan', '--env', 'production', '--format', 'json'], { cwd: dir, env: ENV });
    const entries = JSON.parse(json.stdout).changes.find((c: { address: string }) => c.address === 'FolderPermissions/Distribution/Acme/Outbound').entries;
    expect(entries.find((e: { principal: { name: string } }) => e.principal.name === 'alice').origin).toEqual({
      file: 'manifests/patch.yaml',
      line: at.line,
      col: at.col + 2,
    });
    const md = await runCli(['plan', '--env', 'production', '--format', 'markdown'], { cwd: dir, env: ENV });
    expect(md.stdout).toContain(`| User alice | update (from manifests/patch.yaml:${at.line}) |`);
    // The plan file keeps the origins (its schema allows them) and show prints them.
    expect((await runCli(['plan', '--env', 'production', '--out', 'plan.json'], { cwd: dir, env: ENV })).code).toBe(0);
    const show = await runCli(['show', 'plan.json'], { cwd: dir, env: ENV });
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).toContain(`# from manifests/patch.yaml:${at.line}`);
  });
});
