import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAction } from '../../src/action/run-action.js';
import { createFileRunner } from '../../src/action/workflow-commands.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { startSeededEmulator } from '../integration/helpers.js';
import { testdir } from '../helpers/testdir.js';
import { APPLY_ENV, applyWorkdir } from '../apply/helpers.js';
import { startFakeGithub, type FakeGithub } from './fake-github.js';
import { pullRequestEvent } from './harness.js';

/**
 * Issue 24 in the Action (the TypeScript source, in this process, over HTTP to the emulator): the
 * warnings that say apply will refuse the plan (MF414) reach the pull-request comment and the job
 * summary, in the verdict, not only the log.
 */

const PR = 7;
let emulator: RunningEmulator;
let github: FakeGithub;
beforeAll(async () => {
  [emulator, github] = await Promise.all([startSeededEmulator(), startFakeGithub()]);
  github.addPullRequest(PR, 'Finance: a task whose token is not set here');
});
afterAll(async () => {
  await Promise.all([emulator.close(), github.close()]);
});

describe('the plan comment of the Action', () => {
  it('says first that apply will refuse the plan when a secret it sends has no value (MF414), naming the object and the variable', async () => {
    const dir = applyWorkdir(emulator);
    const files = testdir({ 'event.json': pullRequestEvent(PR, 'c0ffee42'), output: '', summary: '' });
    const { APPLY_TEST_TOKEN: _unset, ...env0 } = APPLY_ENV;
    const env: NodeJS.ProcessEnv = {
      ...env0,
      GITHUB_WORKSPACE: dir,
      GITHUB_EVENT_NAME: 'pull_request',
      GITHUB_EVENT_PATH: join(files, 'event.json'),
      GITHUB_OUTPUT: join(files, 'output'),
      GITHUB_STEP_SUMMARY: join(files, 'summary'),
      GITHUB_REPOSITORY: 'acme-corp/mft-config',
      GITHUB_API_URL: github.apiUrl,
      'INPUT_GITHUB-TOKEN': github.token,
      INPUT_COMMAND: 'plan',
    };
    let log = '';
    const code = await runAction({ env, cwd: dir, runner: createFileRunner(env, (t) => (log += t)), log: (t) => (log += t) });
    expect(code).toBe(2);
    expect(log).toMatch(/::warning [^\n]*MF414/);
    const comment = [...github.comments.values()].find((c) => c.issue_number === PR)!;
    const summary = readFileSync(join(files, 'summary'), 'utf8');
    for (const body of [comment.body, summary]) {
      const verdict = body.indexOf('> [!CAUTION]\n> **Apply will refuse this plan** (MF414): 1 secret reference has no value where the plan ran.');
      expect(verdict).toBeGreaterThan(0);
      expect(verdict).toBeLessThan(body.indexOf('**Plan:**'));
      expect(body).toContain(
        '> - <code>Task/Apply test upload</code>: environment variable APPLY&#95;TEST&#95;TOKEN is not set (set APPLY&#95;TEST&#95;TOKEN where mftops apply runs)',
      );
    }
  });
});
