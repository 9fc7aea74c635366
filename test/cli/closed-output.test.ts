import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emulatorConfigYaml } from '../../src/emulator/config-for.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { hasStackTrace, runCli } from '../helpers/run-cli.js';
import { testdir } from '../helpers/testdir.js';
import { SEED_LOGINS, startSeededEmulator } from '../integration/helpers.js';

/**
 * A reader of mftops's output that goes away early (`mftops apply … | head -5`): the rest of the
 * output is dropped, the command runs to its end with its own exit code. Before, the next write's
 * EPIPE was an "internal error" (exit 1) that cut an apply short between two writes.
 */
const ENV = { MFT_AUTOMATION_PASSWORD: SEED_LOGINS.automationAdmin.password, MFT_TRANSFER_PASSWORD: SEED_LOGINS.transferAdmin.password };
const FOLDERS = ['Acme', 'Globex'];

let emulator: RunningEmulator;
beforeAll(async () => {
  emulator = await startSeededEmulator();
});
afterAll(() => emulator.close());

describe('output whose reader went away', () => {
  it('apply runs to its end: every write sent, exit 0, no internal error', async () => {
    const manifests: Record<string, string> = {};
    for (const name of FOLDERS)
      manifests[`manifests/${name}.yaml`] =
        `apiVersion: mftops/v1\nkind: FolderPermissions\nmetadata: { name: /Distribution/${name} }\nspec:\n  mode: additive\n  entries:\n    - { group: Finance Team, permissions: [listFiles] }\n`;
    const dir = testdir({
      'mftops.yaml': emulatorConfigYaml({ ...emulator, environment: 'lab', manifests: ['manifests'], scope: { folders: ['/Distribution'] } }),
      ...manifests,
    });
    const r = await runCli(['apply', '--auto-approve'], { cwd: dir, env: ENV, readerLeaves: true });
    expect(r.stderr).not.toContain('internal error');
    expect(hasStackTrace(r.stderr)).toBe(false);
    expect(r.code).toBe(0);
    // Every change was written: a plan now finds nothing to do.
    const after = await runCli(['plan', '--detailed-exitcode'], { cwd: dir, env: ENV });
    expect(after.stdout).toContain('No changes.');
    expect(after.code).toBe(0);
  });

  it('validate with a long report: its own exit code (1: the manifests have errors), no internal error', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 1500; i++) files[`m/t${i}.yaml`] = `apiVersion: mftops/v1\nkind: Task\nmetadata: { name: T${i} }\nspec: { NoSuchField: 1 }\n`;
    const dir = testdir(files);
    for (const format of ['text', 'json']) {
      const r = await runCli(['validate', 'm', '--format', format], { cwd: dir, readerLeaves: true });
      expect(r.stderr).not.toContain('internal error');
      expect(r.code).toBe(1);
    }
  });
});
