import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import type { DriftReport } from '../../src/drift/model.js';
import type { PlanJsonView } from '../../src/render/plan-json.js';
import { startSeededEmulator } from '../integration/helpers.js';
import { runCli } from '../helpers/run-cli.js';
import { readTask } from '../helpers/emulator-test-api.js';
import { APPLY_ENV, applyWorkdir, writesOf } from '../apply/helpers.js';

/**
 * Prune only over the whole picture. The work folder's environment prunes every kind in scope
 * (task group Operations, folders under /Distribution/Initech) and manages `manifests/`: tasks,
 * resource-group ACLs and folder permissions. Given only `manifests/acls.yaml`, every task in
 * Operations would look unmanaged, `Legacy EDI router` (managed by tasks.yaml) among them.
 */

let emulator: RunningEmulator;
beforeEach(async () => {
  emulator = await startSeededEmulator();
});
afterEach(() => emulator.close());

const OFF = 'Prune is off: only part of the manifests was given (pass --prune to prune anyway).';

describe('plan with part of the manifests', () => {
  it('deletes nothing and says so, unless --prune; the whole folder of manifests prunes as before', async () => {
    const dir = applyWorkdir(emulator);
    const partial = await runCli(['plan', 'manifests/acls.yaml'], { cwd: dir, env: APPLY_ENV });
    expect(partial.code).toBe(0);
    expect(partial.stdout.split('\n')[1]).toBe(OFF);
    expect(partial.stdout).not.toContain('will be deleted');
    expect(partial.stdout).toContain('Plan: 1 to create, 1 to update, 0 to replace, 0 to delete, 0 blocked.');

    const forced = await runCli(['plan', 'manifests/acls.yaml', '--prune'], { cwd: dir, env: APPLY_ENV });
    expect(forced.stdout).toContain('- Task/Legacy EDI router will be deleted');
    expect(forced.stdout).not.toContain('Prune is off');

    const whole = await runCli(['plan', 'manifests/'], { cwd: dir, env: APPLY_ENV });
    expect(whole.stdout).toContain('Plan: 3 to create, 4 to update, 1 to replace, 4 to delete, 0 blocked.');
    expect(whole.stdout).not.toContain('Legacy EDI router will be deleted');
    expect(whole.stdout).not.toContain('Prune is off');
  });

  it('puts why in the JSON plan and in the saved plan', async () => {
    const dir = applyWorkdir(emulator, { prune: ['Task', 'FolderPermissions'] });
    const r = await runCli(['--format', 'json', 'plan', 'manifests/acls.yaml', '--out', 'tfplan'], { cwd: dir, env: APPLY_ENV });
    expect(r.code).toBe(0);
    const view = JSON.parse(r.stdout) as PlanJsonView;
    expect(view.pruneOff).toEqual({ reason: 'partial-manifests', kinds: ['Task', 'FolderPermissions'], text: OFF });
    expect(view.summary.delete).toBe(0);
    const shown = await runCli(['show', 'tfplan'], { cwd: dir });
    expect(shown.stdout.split('\n')[1]).toBe(OFF);
  });

  it('--no-prune turns prune off for a run of the whole picture, and says so', async () => {
    const dir = applyWorkdir(emulator);
    const r = await runCli(['plan', '--no-prune'], { cwd: dir, env: APPLY_ENV });
    expect(r.stdout.split('\n')[1]).toBe('Prune is off for this run (--no-prune).');
    expect(r.stdout).toContain('0 to delete');
  });
});

describe('apply with part of the manifests', () => {
  it('plans without prune, so it neither deletes nor needs --allow-delete', async () => {
    const dir = applyWorkdir(emulator);
    emulator.resetRequestLog();
    const r = await runCli(['apply', 'manifests/acls.yaml', '--auto-approve'], { cwd: dir, env: APPLY_ENV });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(OFF);
    expect(r.stdout).toContain('Apply complete for environment "lab": 2 applied, 0 failed, 0 skipped.');
    expect(writesOf(emulator).filter((w) => w.startsWith('DELETE'))).toEqual([]);
    expect(readTask(emulator, { name: 'Legacy EDI router' })).toBeDefined();
  });
});

describe('drift with part of the manifests', () => {
  it('lists no unmanaged object and says why, unless --prune', async () => {
    const dir = applyWorkdir(emulator);
    const partial = await runCli(['--format', 'json', 'drift', 'manifests/acls.yaml'], { cwd: dir, env: APPLY_ENV });
    const report = JSON.parse(partial.stdout) as DriftReport;
    expect(report).toMatchObject({ unmanaged: [], unmanagedOmitted: 'partial-manifests', summary: { unmanaged: 0, drifted: 2 } });
    const text = await runCli(['drift', 'manifests/acls.yaml'], { cwd: dir, env: APPLY_ENV });
    expect(text.stdout.split('\n')[1]).toBe(
      'Unmanaged objects are not listed: only part of the manifests was given, and the others may manage what these do not name (pass --prune to list them anyway).',
    );

    const forced = JSON.parse(
      (await runCli(['--format', 'json', 'drift', 'manifests/acls.yaml', '--prune'], { cwd: dir, env: APPLY_ENV })).stdout,
    ) as DriftReport;
    expect(forced.unmanagedOmitted).toBeUndefined();
    expect(forced.unmanaged.find((u) => u.address === 'Task/Legacy EDI router')).toMatchObject({ pruned: true });
  });
});
