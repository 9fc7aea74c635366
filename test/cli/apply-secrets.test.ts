import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { startSeededEmulator } from '../integration/helpers.js';
import { positionOf } from '../helpers/position-of.js';
import { hasStackTrace, runCli } from '../helpers/run-cli.js';
import { ALL_SECRETS, APPLY_ENV, APPLY_MANIFESTS, EXPECTED_ACTIONS, SECRETS, applyWorkdir, writesOf } from '../apply/helpers.js';

/**
 * Nothing is written unless everything can be: every `${env:}`/`${file:}` reference the plan's
 * writes send is checked at plan time (a warning each) and resolved by apply before its first
 * request; one without a value refuses the whole apply, every one named at once.
 */

const ALLOW = ['--allow-delete', '--allow-replace'];
const SECRET_FILE = 'manifests/secrets/acme-password.txt';

let emulator: RunningEmulator;
beforeEach(async () => {
  emulator = await startSeededEmulator();
});
afterEach(() => emulator.close());

/** The apply test estate without its secret file, and an environment without the manifests' two variables. */
function withoutSecrets(): { dir: string; env: Record<string, string> } {
  const { [SECRET_FILE]: _file, ...manifests } = APPLY_MANIFESTS;
  const { PAYROLL_API_KEY: _key, APPLY_TEST_TOKEN: _token, ...env } = APPLY_ENV;
  return { dir: applyWorkdir(emulator, { manifests }), env };
}

/** Snapshot folders saved for the environment (the apply lock's folder may exist, empty). */
function snapshotsTaken(dir: string): string[] {
  try {
    return readdirSync(join(dir, '.mftops/snapshots/lab')).filter((n) => !n.startsWith('.') && n !== 'apply.lock');
  } catch {
    return [];
  }
}

describe('secrets that have no value', () => {
  it('plan warns about each at its field; apply refuses naming all three and writes nothing; with them set, apply writes', async () => {
    const { dir, env } = withoutSecrets();
    const tasks = APPLY_MANIFESTS['manifests/tasks.yaml']!;
    const at = (needle: string) => {
      const p = positionOf(tasks, needle);
      return `manifests/tasks.yaml:${p.line}:${p.col}`;
    };
    const missingFile = join(dir, SECRET_FILE);

    const plan = await runCli(['plan', '--out', 'plan.json', '--detailed-exitcode'], { cwd: dir, env });
    expect(plan.code).toBe(2);
    expect(plan.stderr).toContain(
      `${at('"${env:PAYROLL_API_KEY}"')}: warning MF414: environment variable PAYROLL_API_KEY is not set: apply will refuse this plan`,
    );
    expect(plan.stderr).toContain(
      `${at('"${env:APPLY_TEST_TOKEN}"')}: warning MF414: environment variable APPLY_TEST_TOKEN is not set: apply will refuse this plan`,
    );
    expect(plan.stderr).toContain(
      `${at('${file:secrets/acme-password.txt}')}: warning MF414: secret file ${missingFile} does not exist: apply will refuse this plan`,
    );
    expect(plan.stderr).toContain('3 warnings');

    // The saved plan: refused before a single request, every missing secret named.
    emulator.resetRequestLog();
    const saved = await runCli(['apply', 'plan.json', ...ALLOW], { cwd: dir, env });
    expect(saved.code).toBe(1);
    expect(saved.stdout).toBe(
      [
        'Apply refused; nothing was written:',
        '  - environment variable PAYROLL_API_KEY is not set: needed by Task/Payroll to bank (manifests/tasks.yaml:1)',
        '  - environment variable APPLY_TEST_TOKEN is not set: needed by Task/Apply test upload (manifests/tasks.yaml:18)',
        `  - secret file ${missingFile} does not exist: needed by Task/Apply test upload (manifests/tasks.yaml:18)`,
        '',
      ].join('\n'),
    );
    expect(emulator.requestLog()).toEqual([]);
    expect(snapshotsTaken(dir)).toEqual([]);
    expect(hasStackTrace(saved.stderr)).toBe(false);

    // Plan and apply in one go: the plan is read, then refused before the stale check, the snapshot and any write.
    const fresh = await runCli(['apply', '--auto-approve', ...ALLOW], { cwd: dir, env });
    expect(fresh.code).toBe(1);
    expect(fresh.stderr.match(/warning MF414/g)).toHaveLength(3);
    expect(fresh.stdout).toContain('Apply refused; nothing was written:\n  - environment variable PAYROLL_API_KEY is not set');
    expect(fresh.stdout).toContain(`  - secret file ${missingFile} does not exist`);
    expect(fresh.stderr).not.toMatch(/Checking that nothing|Saving a snapshot|Applying \d+ change/);
    expect(writesOf(emulator)).toEqual([]);
    expect(snapshotsTaken(dir)).toEqual([]);

    // The same plan file, now that they are there: applied in full.
    mkdirSync(dirname(missingFile), { recursive: true });
    writeFileSync(missingFile, `${SECRETS.filePassword}\n`);
    const applied = await runCli(['apply', 'plan.json', ...ALLOW], { cwd: dir, env: APPLY_ENV });
    expect(applied.code).toBe(0);
    expect(applied.stdout).toContain(`Apply complete for environment "lab": ${Object.keys(EXPECTED_ACTIONS).length} applied, 0 failed, 0 skipped.`);
    expect(snapshotsTaken(dir)).toHaveLength(1);

    for (const secret of ALL_SECRETS)
      expect([plan.stdout, plan.stderr, saved.stdout, saved.stderr, fresh.stdout, fresh.stderr, applied.stdout, applied.stderr].join('\n')).not.toContain(
        secret,
      );
  });

  it('checks only what the plan sends: a target without secrets has nothing to warn about', async () => {
    const { dir, env } = withoutSecrets();
    const plan = await runCli(['plan', '--target', 'ResourceGroupAcl/finance-auditors', '--target', 'Task/Apply test upload'], { cwd: dir, env });
    expect(plan.code).toBe(0);
    expect(plan.stderr.match(/warning MF414: .*/g)).toEqual([
      'warning MF414: environment variable APPLY_TEST_TOKEN is not set: apply will refuse this plan',
      `warning MF414: secret file ${join(dir, SECRET_FILE)} does not exist: apply will refuse this plan`,
    ]);
  });
});
