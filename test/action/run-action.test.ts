import { copyFileSync, cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { runAction } from '../../src/action/run-action.js';
import { createFileRunner } from '../../src/action/workflow-commands.js';
import { readPlanFile } from '../../src/app/plan-file.js';
import { emulatorEnvironmentsYaml } from '../../src/emulator/config-for.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { startSeededEmulator } from '../integration/helpers.js';
import { APPLY_ENV, applyWorkdir } from '../apply/helpers.js';
import { testdir } from '../helpers/testdir.js';
import { startFakeGithub } from './fake-github.js';
import { pullRequestEvent, REPO_ROOT } from './harness.js';

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
    ...Object.fromEntries(Object.entries(inputs).map(([k, v]) => (k.startsWith('GITHUB_') ? [k, v] : [`INPUT_${k.toUpperCase()}`, v]))),
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

describe('the Action planning every environment of a pull request (a matrix)', () => {
  it('keeps one sticky comment per environment: a job of one environment never replaces the comment of another', async () => {
    const examples = join(REPO_ROOT, 'examples');
    const servers = {
      production: await startSeededEmulator(),
      staging: await startSeededEmulator({ estate: 'staging' }),
    };
    const github = await startFakeGithub();
    onTestFinished(async () => {
      await Promise.all([servers.production.close(), servers.staging.close(), github.close()]);
    });
    github.addPullRequest(7, 'Partners: test endpoints');
    const dir = testdir({ 'event.json': pullRequestEvent(7, 'ab12cd34ef56ab12cd34ef56ab12cd34ef56ab12') });
    for (const folder of ['manifests', 'staging']) cpSync(join(examples, folder), join(dir, folder), { recursive: true });
    const scope = { taskGroups: ['Finance', 'Partners', 'Operations'], folders: ['/Distribution'] };
    writeFileSync(
      join(dir, 'mftops.yaml'),
      emulatorEnvironmentsYaml([
        {
          environment: 'production',
          automationUrl: servers.production.automationUrl,
          transferUrl: servers.production.transferUrl,
          manifests: ['manifests'],
          scope,
        },
        {
          environment: 'staging',
          automationUrl: servers.staging.automationUrl,
          transferUrl: servers.staging.transferUrl,
          manifests: ['manifests', 'staging'],
          scope,
        },
      ]),
    );
    const job = (environment: string) =>
      planStep(dir, {
        environment,
        comment: 'true',
        'github-token': github.token,
        GITHUB_EVENT_NAME: 'pull_request',
        GITHUB_EVENT_PATH: join(dir, 'event.json'),
        GITHUB_REPOSITORY: 'acme-corp/mft-config',
        GITHUB_API_URL: github.apiUrl,
      });
    const planComments = () => [...github.comments.values()].filter((c) => c.body.includes('<!-- mftops:plan:'));

    const first = await job('production');
    expect(first.code, first.log).toBe(2);
    expect((await job('staging')).code).toBe(2);
    const [production, staging] = planComments();
    expect(planComments()).toHaveLength(2);
    expect(production!.body.split('\n')[0]).toBe('<!-- mftops:plan:production -->');
    expect(production!.body).toContain('production');
    expect(staging!.body.split('\n')[0]).toBe('<!-- mftops:plan:staging -->');
    // Staging's own plan: its folder, which production does not have.
    expect(staging!.body).toContain('/Distribution/Acme/Test');
    expect(production!.body).not.toContain('/Distribution/Acme/Test');

    // The next push: production's job updates production's comment, staging's stays as it was.
    const stagingBody = staging!.body;
    github.resetCalls();
    expect((await job('production')).code).toBe(2);
    expect(planComments().map((c) => c.id)).toEqual([production!.id, staging!.id]);
    expect(github.writes()).toEqual([`PATCH /repos/acme-corp/mft-config/issues/comments/${production!.id}`]);
    expect(github.comments.get(staging!.id)!.body).toBe(stagingBody);
  });
});
