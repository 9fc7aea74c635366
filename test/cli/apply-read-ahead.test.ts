import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emulatorConfigYaml } from '../../src/emulator/config-for.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { countTokenCalls, listWrites } from '../helpers/emulator-test-api.js';
import { hasStackTrace, runCli, type CliResult } from '../helpers/run-cli.js';
import { testdir } from '../helpers/testdir.js';
import { SEED_LOGINS, startSeededEmulator } from '../integration/helpers.js';

/**
 * Issue 29: `apply` of manifests starts its plan's reads while they load, as plan does (from the
 * 50th file on), through the clients it writes with: one token per service. Its lock is taken
 * first. A manifest that turns out invalid still ends the run with its one line and exit 1, no
 * write, the tokens revoked, the lock released. The checks after the plan (the stale check, the
 * verification) read the servers anew: they never take a read started before the plan.
 */

const GOOD = { MFT_AUTOMATION_PASSWORD: SEED_LOGINS.automationAdmin.password, MFT_TRANSFER_PASSWORD: SEED_LOGINS.transferAdmin.password };
/** More task files than READ_AHEAD_AFTER_FILES. */
const TASKS = 60;

let emulator: RunningEmulator;
beforeAll(async () => {
  emulator = await startSeededEmulator();
});
afterAll(async () => {
  await emulator.close();
});

/** A project of TASKS new tasks in Finance, then `extra` (sorted last: loaded after the reads started). */
function project(extra: Record<string, string> = {}): string {
  const tasks: Record<string, string> = {};
  for (let i = 0; i < TASKS; i++)
    tasks[`manifests/a-tasks/t${String(i).padStart(2, '0')}.yaml`] =
      `apiVersion: mftops/v1\nkind: Task\nmetadata: { name: Read ahead ${i} }\nspec:\n  Group: [Finance]\n  Info: { Description: read ahead }\n`;
  return testdir({
    'mftops.yaml': emulatorConfigYaml({
      automationUrl: emulator.automationUrl,
      manifests: ['manifests'],
      scope: { taskGroups: ['Finance'], folders: [] },
    }),
    ...tasks,
    ...extra,
  });
}

/** Loaded after the reads started: more tasks, then the last file, with a schema error at line 4. */
const BAD: Record<string, string> = { 'manifests/z-bad.yaml': 'apiVersion: mftops/v1\nkind: Task\nmetadata: { name: Broken }\nspec: { NoSuchField: 1 }\n' };
for (let i = 0; i < 300; i++)
  BAD[`manifests/c-more/m${String(i).padStart(3, '0')}.yaml`] =
    `apiVersion: mftops/v1\nkind: Task\nmetadata: { name: Later ${i} }\nspec:\n  Group: [Finance]\n  Info: { Description: later }\n`;

function expectNoCrash(r: CliResult): void {
  for (const text of [r.stdout, r.stderr]) {
    expect(hasStackTrace(text)).toBe(false);
    expect(text).not.toContain('Node.js v');
    expect(text).not.toContain('Unhandled');
  }
}

describe('apply reads while the manifests load', () => {
  it('an invalid manifest loaded after the reads started: its one line, exit 1, no write, the token revoked, the lock released', async () => {
    emulator.resetRequestLog();
    const dir = project(BAD);
    const r = await runCli(['apply', '--auto-approve'], { cwd: dir, env: GOOD });
    expectNoCrash(r);
    expect(r.code).toBe(1);
    expect(r.stderr.split('\n').filter((l) => /z-bad\.yaml:\d+:\d+/.test(l))).toHaveLength(1);
    expect(r.stderr).toMatch(/z-bad\.yaml:4:\d+/);
    expect(listWrites(emulator)).toEqual([]);
    // The reads had started (a token granted), and the token was given back.
    const calls = countTokenCalls(emulator);
    expect(calls['automation']?.granted).toBeGreaterThan(0);
    expect(calls['automation']?.revoked).toBeGreaterThanOrEqual(calls['automation']?.granted ?? 0);
    expect(existsSync(join(dir, '.mftops/snapshots/lab/apply.lock'))).toBe(false);
  });

  it('valid manifests: one sign-in serves the plan and the writes; the stale check and the verification read the tasks anew', async () => {
    emulator.resetRequestLog();
    const r = await runCli(['apply', '--auto-approve', '--format', 'json'], { cwd: project(), env: GOOD });
    expectNoCrash(r);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout) as { outcome: string; counts: { ok: number }; verification: { mode: string; unconverged: unknown[] } };
    expect(report.outcome).toBe('applied');
    expect(report.counts.ok).toBe(TASKS);
    expect(report.verification.mode).toBe('replan');
    expect(report.verification.unconverged).toEqual([]);
    expect(countTokenCalls(emulator)['automation']?.granted).toBe(1);
    const log = emulator.requestLog();
    const firstWrite = log.findIndex((x) => !x.isTokenCall && x.method === 'POST');
    const taskLists = (upTo: number) => log.slice(0, upTo).filter((x) => x.method === 'GET' && x.path.endsWith('/tasks')).length;
    // The plan's list, then the stale check's, before the first write; the verification's after.
    expect(taskLists(firstWrite)).toBe(2);
    expect(taskLists(log.length)).toBe(3);
  });
});
