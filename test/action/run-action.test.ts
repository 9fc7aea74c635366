import { copyFileSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAction } from '../../src/action/run-action.js';
import { createFileRunner } from '../../src/action/workflow-commands.js';
import { readPlanFile } from '../../src/app/plan-file.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { startSeededEmulator } from '../integration/helpers.js';
import { APPLY_ENV, applyWorkdir } from '../apply/helpers.js';

/**
 * The Action's steps run in this process (the process tests run the committed bundle, rebuilt
 * only after merging): the `paths` and `prune` inputs follow the CLI's rule, from the same use
 * case; a reviewed plan is applied with the step's own configuration.
 */

let emulator: RunningEmulator;
beforeAll(async () => {
  emulator = await startSeededEmulator();
});
afterAll(() => emulator.close());

async function planStep(dir: string, inputs: Record<string, string>): Promise<{ code: number; log: string; outputs: string }> {
  return step(dir, { command: 'plan', ...inputs });
}

async function step(dir: string, inputs: Record<string, string>): Promise<{ code: number; log: string; outputs: string }> {
  const env: NodeJS.ProcessEnv = {
    ...APPLY_ENV,
    GITHUB_WORKSPACE: dir,
    GITHUB_EVENT_NAME: 'push',
    GITHUB_OUTPUT: join(dir, 'github-output'),
    INPUT_COMMENT: 'false',
    ...Object.fromEntries(Object.entries(inputs).map(([k, v]) => [`INPUT_${k.toUpperCase()}`, v])),
  };
  let log = '';
  const code = await runAction({ env, cwd: dir, runner: createFileRunner(env, (t) => (log += t)), log: (t) => (log += t) });
  return { code, log, outputs: readFileSync(join(dir, 'github-output'), 'utf8') };
}

describe('the Action with paths and a configured prune', () => {
  it('plans no delete and says why; prune: true prunes anyway', async () => {
    const dir = applyWorkdir(emulator);
    const partial = await planStep(dir, { paths: 'manifests/acls.yaml' });
    expect(partial.code).toBe(2);
    const plan = readPlanFile(join(dir, 'mftops-plan-lab.json'));
    expect(plan.pruneOff).toEqual({ reason: 'partial-manifests', kinds: ['Task', 'ResourceGroupAcl', 'FolderPermissions'] });
    expect(plan.summary.delete).toBe(0);
    expect(partial.log).toContain('Prune is off: only part of the manifests was given (pass --prune to prune anyway).');

    const forced = await planStep(dir, { paths: 'manifests/acls.yaml', prune: 'true' });
    expect(forced.code).toBe(2);
    const pruned = readPlanFile(join(dir, 'mftops-plan-lab.json'));
    expect(pruned.pruneOff).toBeUndefined();
    expect(pruned.changes.filter((c) => c.action === 'delete').map((c) => c.address)).toContain('Task/Legacy EDI router');
  });

  it('prune: false prunes nothing, even over the whole picture', async () => {
    const dir = applyWorkdir(emulator);
    expect((await planStep(dir, { prune: 'false' })).code).toBe(2);
    const plan = readPlanFile(join(dir, 'mftops-plan-lab.json'));
    expect(plan.pruneOff?.reason).toBe('disabled');
    expect(plan.summary.delete).toBe(0);
  });
});

describe('the Action applying a reviewed plan', () => {
  it('applies it with the configuration of its own checkout, not the path the plan was made in (another runner)', async () => {
    const reviewedIn = applyWorkdir(emulator, { prune: [] });
    expect((await planStep(reviewedIn, { paths: 'manifests/acls.yaml' })).code).toBe(2);
    const checkout = applyWorkdir(emulator, { prune: [] });
    copyFileSync(join(reviewedIn, 'mftops-plan-lab.json'), join(checkout, 'reviewed.json'));
    rmSync(reviewedIn, { recursive: true, force: true });
    const applied = await step(checkout, { command: 'apply', paths: 'manifests/acls.yaml', 'plan-file': 'reviewed.json' });
    expect(applied.log).toContain('The plan made now matches the reviewed plan reviewed.json: applying the reviewed plan.');
    expect(applied.code).toBe(0);
    expect(applied.log).toContain('Apply complete for environment "lab": 2 applied, 0 failed, 0 skipped.');
  });
});
