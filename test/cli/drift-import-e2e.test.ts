import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emulatorConfigYaml } from '../../src/emulator/config-for.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { SEED_LOGINS, automationClientFor, startSeededEmulator } from '../integration/helpers.js';
import { runCli } from '../helpers/run-cli.js';
import { testdir } from '../helpers/testdir.js';

const ENV = { MFT_AUTOMATION_PASSWORD: SEED_LOGINS.automationAdmin.password, MFT_TRANSFER_PASSWORD: SEED_LOGINS.transferAdmin.password };

for (const profile of ['current', 'legacy'] as const) {
  describe(`import, plan and drift through the CLI (${profile} profile)`, () => {
    let emulator: RunningEmulator;
    beforeAll(async () => {
      emulator = await startSeededEmulator({ profile });
    });
    afterAll(() => emulator.close());

    it('imports every kind into the manifests folder as minimal manifests, then plans no change; a change made behind its back is drift with the user who made it', async () => {
      // A task as a server that fills blank fields answers it: options written out, most of them 0.
      const admin = automationClientFor(emulator);
      await admin.createTask({
        Name: 'Filled in by the server',
        Group: ['Partners'],
        Schedules: { Schedule: [{ Multi: 0, RunEvenIfNotif: 0, Frequency: { Interval: [{ StartTime: '05:00', EndTime: '05:00' }] } }] },
        steps: [
          { Source: { HostID: '201004', Path: '/out', NewFilesOnly: 0, Unzip: 0, SearchSubdirs: 0, UseDefRetryCount: 0 } },
          { Destination: { HostID: '201007', Path: '/in' } },
        ],
      });
      await admin.close();
      const config = emulatorConfigYaml({ ...emulator, manifests: ['imported'] }).replace(
        '    manifests:',
        '    scope: { taskGroups: [Finance, Partners, Operations], folders: [/Distribution, /Finance] }\n    manifests:',
      );
      const dir = testdir({ 'mftops.yaml': config });
      // No --out: the environment's manifests folder, which the plan below reads.
      const imported = await runCli(['import', '--kind', 'Task,ResourceGroupAcl,FolderPermissions'], { cwd: dir, env: ENV });
      expect(imported.stderr).not.toMatch(/error|warning/i);
      expect(imported.code).toBe(0);
      expect(readdirSync(join(dir, 'imported', 'tasks')).length).toBe(9);
      const filled = readFileSync(join(dir, 'imported', 'tasks', 'filled-in-by-the-server.yaml'), 'utf8');
      expect(filled).not.toMatch(/Multi|RunEvenIfNotif|NewFilesOnly|Unzip|SearchSubdirs/);
      expect(filled).toContain('UseDefRetryCount: 0');

      const env = { ...ENV, ...placeholderValues(imported.stderr) };
      const plan = await runCli(['plan', '--detailed-exitcode'], { cwd: dir, env });
      expect(plan.stdout).toContain('20 objects compared, 20 unchanged');
      expect(plan.stdout).toContain('No changes.');
      expect(plan.code).toBe(0);
      expect((await runCli(['drift'], { cwd: dir, env })).code).toBe(0);

      // The operator edits a task in the admin UI (here: through the API).
      const operator = automationClientFor(emulator, SEED_LOGINS.automationOperator);
      const task = (await operator.listTasks({ name: 'Payroll to bank' }))[0]!;
      await operator.updateTask(task.ID!, { ...task, Info: { ...task.Info, Description: 'Edited in the admin UI' } });
      await operator.close();

      emulator.resetRequestLog();
      const drift = await runCli(['drift', '--format', 'markdown'], { cwd: dir, env });
      expect(drift.code).toBe(2);
      expect(drift.stdout).toContain('Payroll to bank');
      expect(drift.stdout).toContain('Info.Description');
      expect(drift.stdout).toContain('Edited in the admin UI');
      expect(drift.stdout).toContain('operator');
      const writes = emulator.requestLog().filter((r) => !r.isTokenCall && r.method !== 'GET');
      expect(writes.map((r) => r.path)).toEqual([expect.stringMatching(/\/reports\/audit$/)]);
    });
  });
}

/** The `${env:NAME}` placeholders import lists on stderr, each given a stand-in value. */
function placeholderValues(stderr: string): Record<string, string> {
  return Object.fromEntries([...stderr.matchAll(/\b([A-Z][A-Z0-9_]{2,})\b/g)].map((m) => [m[1]!, 'stand-in-secret']));
}
