import { copyFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { emulatorConfigYaml } from '../../src/emulator/config-for.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { startSeededEmulator } from '../integration/helpers.js';
import { hasStackTrace, runCli, type CliResult } from '../helpers/run-cli.js';
import { testdir } from '../helpers/testdir.js';
import { readAcl, readFolder } from '../helpers/emulator-test-api.js';
import { APPLY_ENV, APPLY_MANIFESTS, applyWorkdir, writesOf } from '../apply/helpers.js';

let emulator: RunningEmulator;
beforeEach(async () => {
  emulator = await startSeededEmulator();
});
afterEach(() => emulator.close());

/**
 * A configuration with two environments on the emulator, `staging` and `prod`, that manage the
 * ACL and folder manifests of the apply tests (creates and updates: nothing to delete or replace),
 * with no prune.
 */
function twoEnvironments(): string {
  const one = (name: string) =>
    emulatorConfigYaml({ environment: name, automationUrl: emulator.automationUrl, transferUrl: emulator.transferUrl, manifests: ['manifests'] })
      .split('\n')
      .slice(3)
      .join('\n');
  return [
    'apiVersion: mftops/v1',
    'kind: Config',
    'environments:',
    one('staging').trimEnd(),
    one('prod').trimEnd(),
    'snapshots: { dir: .mftops/snapshots, keep: 10 }',
    '',
  ].join('\n');
}

const MANIFESTS = { 'manifests/acls.yaml': APPLY_MANIFESTS['manifests/acls.yaml']!, 'manifests/folders.yaml': APPLY_MANIFESTS['manifests/folders.yaml']! };

/** The words of the command `plan --out` says applies the plan, as a shell splits them (plain words or single quotes). */
function hintedCommand(stderr: string): string[] {
  const hint = /apply it exactly with: (.+)$/m.exec(stderr)?.[1];
  expect(hint, stderr).toBeDefined();
  const words = [...hint!.matchAll(/'((?:[^']|'\\'')*)'|(\S+)/g)].map((m) => (m[1] !== undefined ? m[1].replace(/'\\''/g, "'") : m[2]!));
  expect(words[0]).toBe('mftops');
  return words.slice(1);
}

function transcriptOf(steps: readonly { args: readonly string[]; result: CliResult }[]): string {
  return steps
    .map(({ args, result }) =>
      [
        `$ mftops ${args.map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a}'`)).join(' ')}`,
        result.stdout.trimEnd(),
        result.stderr.trimEnd(),
        `(exit ${result.code})`,
      ]
        .filter((l) => l !== '')
        .join('\n'),
    )
    .join('\n\n');
}

describe('a saved plan, as in Terraform', () => {
  it('plan --out tfplan prints a hint that, run verbatim from the same folder, applies the plan (the configuration elsewhere, two environments)', async () => {
    const work = testdir({ 'infra/mftops.yaml': twoEnvironments(), ...Object.fromEntries(Object.entries(MANIFESTS).map(([p, c]) => [`infra/${p}`, c])) });
    const planArgs = ['--config', 'infra/mftops.yaml', '--env', 'staging', 'plan', '--out', 'tfplan'];
    const plan = await runCli(planArgs, { cwd: work, env: APPLY_ENV });
    expect(plan.code).toBe(0);
    expect(plan.stdout).toContain('Plan: 2 to create, 3 to update, 0 to replace, 0 to delete, 0 blocked.');
    const applyArgs = hintedCommand(plan.stderr);
    expect(applyArgs).toEqual(['apply', 'tfplan']);

    emulator.resetRequestLog();
    const apply = await runCli(applyArgs, { cwd: work, env: APPLY_ENV });
    expect(apply.stderr).not.toMatch(/error/i);
    expect(apply.code).toBe(0);
    expect(apply.stdout).toContain('Apply complete for environment "staging": 5 applied, 0 failed, 0 skipped.');
    expect(readAcl(emulator, 'Finance', 'Auditors')).toBeDefined();
    expect(readFolder(emulator, '/Finance/Reports')).toBeDefined();
    expect(existsSync(join(work, 'infra/.mftops/snapshots/staging'))).toBe(true);
    const again = await runCli(['--config', 'infra/mftops.yaml', '--env', 'staging', 'plan', '--detailed-exitcode'], { cwd: work, env: APPLY_ENV });
    expect(again.code).toBe(0);

    const transcript = transcriptOf([
      { args: planArgs, result: plan },
      { args: applyArgs, result: apply },
    ]);
    if (process.env['MFTOPS_PRINT_TRANSCRIPT'] === '1') console.log(transcript);
    expect(hasStackTrace(transcript)).toBe(false);
  });

  it('applies a plan file of another name with two environments and no --env: the file names its environment', async () => {
    const dir = testdir({ 'mftops.yaml': twoEnvironments(), ...MANIFESTS });
    expect((await runCli(['--env', 'staging', 'plan', '--out', 'staging.json'], { cwd: dir, env: APPLY_ENV })).code).toBe(0);
    const r = await runCli(['apply', 'staging.json'], { cwd: dir, env: APPLY_ENV });
    expect(r.stderr).not.toContain('--env');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Apply complete for environment "staging": 5 applied');
  });

  it('takes an explicit --config and --env that name what the plan file records, and refuses another --config before any request', async () => {
    const dir = testdir({ 'mftops.yaml': twoEnvironments(), ...MANIFESTS });
    expect((await runCli(['--env', 'staging', 'plan', '--out', 'plan.json'], { cwd: dir, env: APPLY_ENV })).code).toBe(0);
    copyFileSync(join(dir, 'mftops.yaml'), join(dir, 'other.yaml'));
    emulator.resetRequestLog();
    const other = await runCli(['--config', 'other.yaml', 'apply', 'plan.json'], { cwd: dir, env: APPLY_ENV });
    expect(other.code).toBe(1);
    expect(other.stdout).toContain(
      `the plan was made with the configuration ${join(dir, 'mftops.yaml')}, not ${join(dir, 'other.yaml')} (--config): apply it without --config, or plan again with this configuration`,
    );
    expect(emulator.requestLog()).toEqual([]);

    const same = await runCli(['--config', './mftops.yaml', '--env', 'staging', 'apply', 'plan.json'], { cwd: join(dir, '.'), env: APPLY_ENV });
    expect(same.code).toBe(0);
    expect(same.stdout).toContain('Apply complete for environment "staging": 5 applied');
  });

  it('says what needs a flag after the hint, without adding the flag to it', async () => {
    const dir = applyWorkdir(emulator);
    const r = await runCli(['plan', '--out', 'my plan'], { cwd: dir, env: APPLY_ENV });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(
      "Saved the plan to my plan; apply it exactly with: mftops apply 'my plan'\nApply refuses it without --allow-delete (it deletes 4 objects), --allow-replace (it replaces 1 object).\n",
    );
    expect(hintedCommand(r.stderr)).toEqual(['apply', 'my plan']);
    const applied = await runCli([...hintedCommand(r.stderr), '--allow-delete', '--allow-replace'], { cwd: dir, env: APPLY_ENV });
    expect(applied.code).toBe(0);
  });
});

describe('apply --target', () => {
  it('plans and applies only the objects named', async () => {
    const dir = applyWorkdir(emulator);
    emulator.resetRequestLog();
    const r = await runCli(['apply', '--auto-approve', '--target', 'ResourceGroupAcl/finance-auditors', 'FolderPermissions/Finance/Reports'], {
      cwd: dir,
      env: APPLY_ENV,
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Limited to --target "ResourceGroupAcl/finance-auditors", "FolderPermissions/Finance/Reports".');
    expect(r.stdout).toContain('Apply complete for environment "lab": 2 applied, 0 failed, 0 skipped.');
    const reports = readFolder(emulator, '/Finance/Reports')!;
    expect(writesOf(emulator).sort()).toEqual([
      'POST /automation/api/v1/resourcegroups/acls',
      'POST /transfer/api/v1/folders/1011/subfolders',
      `PUT /transfer/api/v1/folders/${reports.id}/acls`,
    ]);
  });

  it('is refused with a saved plan, as Terraform refuses -target with one, before any request', async () => {
    const dir = applyWorkdir(emulator);
    expect((await runCli(['plan', '--out', 'tfplan'], { cwd: dir, env: APPLY_ENV })).code).toBe(0);
    emulator.resetRequestLog();
    const r = await runCli(['apply', 'tfplan', '--target', 'Task/Payroll to bank'], { cwd: dir, env: APPLY_ENV });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      'mftops: error: --target cannot be used with a saved plan, which is applied exactly as it was made: plan again with --target and --out, or apply the manifests with --target\n',
    );
    expect(emulator.requestLog()).toEqual([]);
    const pruned = await runCli(['apply', 'tfplan', '--no-prune'], { cwd: dir, env: APPLY_ENV });
    expect(pruned.stderr).toBe('mftops: error: --no-prune cannot be used with a saved plan: what it prunes was decided when it was made\n');
  });
});

describe('mftops show PLANFILE', () => {
  it('prints a saved plan as plan printed it, in text, markdown and json, reading only the file', async () => {
    const dir = applyWorkdir(emulator);
    for (const format of ['text', 'markdown', 'json']) {
      const planned = await runCli(['--format', format, 'plan', '--out', `saved-${format}`], { cwd: dir, env: APPLY_ENV });
      expect(planned.code).toBe(0);
      emulator.resetRequestLog();
      // No configuration, no credentials, another folder: only the file.
      const shown = await runCli(['--format', format, 'show', join(dir, `saved-${format}`)], { cwd: testdir({}) });
      expect(shown.code, shown.stderr).toBe(0);
      expect(shown.stdout).toBe(planned.stdout);
      expect(emulator.requestLog()).toEqual([]);
    }
  });

  it('refuses a file that is not a plan apply would run, in one line', async () => {
    const dir = applyWorkdir(emulator);
    const r = await runCli(['show', 'manifests/acls.yaml'], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`mftops: error: ${join(dir, 'manifests/acls.yaml')} is not a plan file: it is not JSON (was it written by mftops plan --out?)\n`);
  });
});
