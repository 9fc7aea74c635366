import { EventEmitter } from 'node:events';
import { existsSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runApply } from '../../src/cli/commands/apply.js';
import { captureIo } from '../../src/cli/io.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { findSchemasDir, SCHEMA_BASE_URL } from '../../src/manifest/schemas.js';
import { startSeededEmulator } from '../integration/helpers.js';
import { positionOf } from '../helpers/position-of.js';
import { runCli } from '../helpers/run-cli.js';
import { APPLY_ENV, APPLY_MANIFESTS, applyWorkdir, testTaskPolicy, writesOf } from '../apply/helpers.js';

/**
 * Issue 17: a `deny` policy stops `mftops apply` before any write (and before the snapshot),
 * whether apply plans itself or applies a plan file saved before the policy existed; a `warn`
 * policy does not. The apply report names the violations, in text and JSON.
 */

const ALLOW = ['--allow-delete', '--allow-replace'];
const POLICY_FILE = 'manifests/policy.yaml';
const TASKS = APPLY_MANIFESTS['manifests/tasks.yaml']!;
/** Where `Task/Apply test upload` (the task the policy refuses) is declared. */
const UPLOAD_AT = positionOf(TASKS, 'apiVersion: mftops/v1\nkind: Task\nmetadata: { name: Apply test upload }');

let emulator: RunningEmulator;
beforeEach(async () => {
  emulator = await startSeededEmulator();
});
afterEach(() => emulator.close());

/** Snapshots saved for the environment (the lock file, a dot file, is not one). */
function snapshots(dir: string): string[] {
  const base = join(dir, '.mftops/snapshots/lab');
  return existsSync(base) ? readdirSync(base).filter((n) => !n.startsWith('.')) : [];
}

function schemaErrors(doc: unknown): unknown {
  const ajv = new Ajv2020({ strict: true, strictRequired: false, allowUnionTypes: true });
  addFormats.default(ajv);
  for (const file of ['kinds.schema.json', 'plan.schema.json', 'output-common.schema.json', 'output-apply.schema.json'])
    ajv.addSchema(JSON.parse(readFileSync(join(findSchemasDir(), file), 'utf8')) as object);
  const validate = ajv.getSchema(`${SCHEMA_BASE_URL}output-apply.schema.json`)!;
  return validate(doc) ? [] : validate.errors;
}

const DENY_LINE = `policy no-test-tasks denies Task/Apply test upload: tasks made by tests stay out of production (manifests/tasks.yaml:${UPLOAD_AT.line}:${UPLOAD_AT.col})`;

describe('policies in mftops apply', () => {
  it('a deny policy stops apply --auto-approve: exit 1, the violation named, no write request, no snapshot', async () => {
    const dir = applyWorkdir(emulator, { files: { [POLICY_FILE]: testTaskPolicy('deny') } });
    const r = await runCli(['apply', '--auto-approve', ...ALLOW], { cwd: dir, env: APPLY_ENV });
    expect(r.code).toBe(1);
    // The plan as plan shows it, its policy section included, then the refusal.
    expect(r.stdout).toContain('Policy checks: 1 violation of 1 policy (1 deny: the plan is refused and not saved).');
    expect(r.stdout).toContain(`Apply refused; nothing was written:\n  - ${DENY_LINE}\n`);
    expect(writesOf(emulator)).toEqual([]);
    expect(snapshots(dir)).toEqual([]);

    const json = await runCli(['apply', '--auto-approve', ...ALLOW, '--format', 'json'], { cwd: dir, env: APPLY_ENV });
    expect(json.code).toBe(1);
    const doc = JSON.parse(json.stdout) as Record<string, unknown>;
    expect(schemaErrors(doc)).toEqual([]);
    expect(doc).toMatchObject({ kind: 'mftops.apply', outcome: 'refused', exitCode: 1, problems: [DENY_LINE], results: [] });
    expect(doc['policy']).toEqual({
      policies: 1,
      violations: [
        {
          policy: 'no-test-tasks',
          severity: 'deny',
          outcome: 'violated',
          message: 'tasks made by tests stay out of production',
          address: 'Task/Apply test upload',
          source: { file: 'manifests/tasks.yaml', ...UPLOAD_AT },
          expressionSource: { file: POLICY_FILE, line: 8, col: 19 },
        },
      ],
    });
    expect(writesOf(emulator)).toEqual([]);
  });

  it('--format github: each violation an annotation at the manifest line, in plan, apply, and apply of a plan file', async () => {
    const dir = applyWorkdir(emulator, { files: { [POLICY_FILE]: testTaskPolicy('deny') } });
    const annotation = (line: number) =>
      `::error file=manifests/tasks.yaml,line=${line},col=${UPLOAD_AT.col},title=policy no-test-tasks::tasks made by tests stay out of production (Task/Apply test upload)`;
    const plan = await runCli(['plan', '--format', 'github'], { cwd: dir, env: APPLY_ENV });
    expect(plan.code).toBe(1);
    expect(plan.stdout.split('\n')[0]).toBe(annotation(UPLOAD_AT.line));
    const apply = await runCli(['apply', '--auto-approve', ...ALLOW, '--format', 'github'], { cwd: dir, env: APPLY_ENV });
    expect(apply.code).toBe(1);
    // Once: the plan printed it; the report that follows does not repeat it.
    expect(apply.stdout.split('\n').filter((l) => l.includes('title=policy'))).toEqual([annotation(UPLOAD_AT.line)]);
    expect(apply.stdout).toContain(`Apply refused; nothing was written:\n  - ${DENY_LINE}\n`);

    // A plan file saved without the policy: the report annotates what the re-check found, as a warning for warn.
    rmSync(join(dir, POLICY_FILE));
    expect((await runCli(['plan', '--out', 'plan.json'], { cwd: dir, env: APPLY_ENV })).code).toBe(0);
    writeFileSync(join(dir, POLICY_FILE), testTaskPolicy('deny'));
    const saved = await runCli(['apply', 'plan.json', ...ALLOW, '--format', 'github'], { cwd: dir, env: APPLY_ENV });
    expect(saved.code).toBe(1);
    expect(saved.stdout.split('\n')[0]).toBe(annotation(UPLOAD_AT.line));
    writeFileSync(join(dir, POLICY_FILE), testTaskPolicy('warn'));
    const warned = await runCli(['apply', 'plan.json', ...ALLOW, '--format', 'github'], { cwd: dir, env: APPLY_ENV });
    expect(warned.code).toBe(0);
    expect(warned.stdout.split('\n')[0]).toBe(annotation(UPLOAD_AT.line).replace('::error', '::warning'));
    expect(writesOf(emulator).length).toBeGreaterThan(0);
  });

  it('on a terminal, a deny refuses before the question: nobody is asked to approve what apply refuses', async () => {
    const dir = applyWorkdir(emulator, { files: { [POLICY_FILE]: testTaskPolicy('deny') } });
    const io = captureIo({ cwd: dir, env: APPLY_ENV, isTty: true });
    const questions: string[] = [];
    const deps = {
      canAsk: true,
      ask: async (q: string) => {
        questions.push(q);
        return 'yes';
      },
      signals: new EventEmitter(),
      exitNow: () => {
        throw new Error('exitNow must not be called');
      },
    };
    const opts = { args: [], autoApprove: false, allowDelete: true, allowReplace: true, maxDeletes: '10', parallelism: '4' };
    expect(await runApply({ format: 'text', color: false, quiet: false, verbose: false }, opts, io, deps)).toBe(1);
    expect(questions).toEqual([]);
    expect(io.out()).toContain(`Apply refused; nothing was written:\n  - ${DENY_LINE}\n`);
    expect(writesOf(emulator)).toEqual([]);
  });

  it('a warn policy lets apply proceed, and the report carries the warning', async () => {
    const dir = applyWorkdir(emulator, { files: { [POLICY_FILE]: testTaskPolicy('warn') } });
    const r = await runCli(['apply', '--auto-approve', ...ALLOW, '--format', 'json'], { cwd: dir, env: APPLY_ENV });
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(schemaErrors(doc)).toEqual([]);
    expect(doc).toMatchObject({ outcome: 'applied', exitCode: 0 });
    expect(doc['policy']).toMatchObject({ policies: 1, violations: [{ policy: 'no-test-tasks', severity: 'warn', address: 'Task/Apply test upload' }] });
    expect(writesOf(emulator).length).toBeGreaterThan(0);
    expect(snapshots(dir)).toHaveLength(1);
  });

  it('a plan file saved before a deny policy came is refused by it at apply, before any write', async () => {
    const dir = applyWorkdir(emulator);
    expect((await runCli(['plan', '--out', 'plan.json'], { cwd: dir, env: APPLY_ENV })).code).toBe(0);
    // The policy is merged after the review, and lines are added above the task: found by address, not line.
    writeFileSync(join(dir, POLICY_FILE), testTaskPolicy('deny'));
    writeFileSync(join(dir, 'manifests/tasks.yaml'), `# reviewed\n# twice\n${TASKS}`);
    const r = await runCli(['apply', 'plan.json', ...ALLOW], { cwd: dir, env: APPLY_ENV });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(
      `Apply refused; nothing was written:\n  - ${DENY_LINE.replace(`tasks.yaml:${UPLOAD_AT.line}:`, `tasks.yaml:${UPLOAD_AT.line + 2}:`)}\n`,
    );
    expect(writesOf(emulator)).toEqual([]);
    expect(snapshots(dir)).toEqual([]);

    // The same policy as a warning: the saved plan is applied, the report says so.
    writeFileSync(join(dir, POLICY_FILE), testTaskPolicy('warn'));
    const warned = await runCli(['apply', 'plan.json', ...ALLOW], { cwd: dir, env: APPLY_ENV });
    expect(warned.code).toBe(0);
    // The plan file is not printed: the report starts with the policy checks it went by.
    expect(warned.stdout.split('\n').slice(0, 2)).toEqual([
      'Policy checks: 1 violation of 1 policy (warnings only).',
      `  ! warn no-test-tasks: Task/Apply test upload — tasks made by tests stay out of production (manifests/tasks.yaml:${UPLOAD_AT.line + 2}:${UPLOAD_AT.col})`,
    ]);
    expect(warned.stdout).toContain('Apply complete for environment "lab"');
  });

  it('a plan file is refused when the manifests no longer load: their policies cannot be checked', async () => {
    const dir = applyWorkdir(emulator);
    expect((await runCli(['plan', '--out', 'plan.json'], { cwd: dir, env: APPLY_ENV })).code).toBe(0);
    writeFileSync(join(dir, POLICY_FILE), testTaskPolicy('deny').replace("contains('apply tests')", "contains('apply tests'"));
    const r = await runCli(['apply', 'plan.json', ...ALLOW], { cwd: dir, env: APPLY_ENV });
    expect(r.code).toBe(1);
    expect(r.stdout + r.stderr).toContain(`${POLICY_FILE}:8:19: error MF311`);
    expect(writesOf(emulator)).toEqual([]);
    rmSync(join(dir, POLICY_FILE));
    expect((await runCli(['apply', 'plan.json', ...ALLOW], { cwd: dir, env: APPLY_ENV })).code).toBe(0);
  });
});
