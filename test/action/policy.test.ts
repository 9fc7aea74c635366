import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runAction } from '../../src/action/run-action.js';
import { createFileRunner } from '../../src/action/workflow-commands.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { startSeededEmulator } from '../integration/helpers.js';
import { positionOf } from '../helpers/position-of.js';
import { testdir } from '../helpers/testdir.js';
import { APPLY_ENV, APPLY_MANIFESTS, applyWorkdir, testTaskPolicy, writesOf } from '../apply/helpers.js';
import { startFakeGithub, type FakeGithub } from './fake-github.js';
import { parseOutputFile, pullRequestEvent } from './harness.js';

/**
 * Issue 17 in the Action (the TypeScript source, in this process): a deny policy fails the plan
 * check run with the violation in the job summary's Policy section, as an annotation on the
 * manifest line and in the pull-request comment; a warn is listed and fails nothing; apply is
 * refused before any write.
 */

const POLICY_FILE = 'manifests/policy.yaml';
const UPLOAD_AT = positionOf(APPLY_MANIFESTS['manifests/tasks.yaml']!, 'apiVersion: mftops/v1\nkind: Task\nmetadata: { name: Apply test upload }');
const PLACE = `manifests/tasks.yaml:${UPLOAD_AT.line}:${UPLOAD_AT.col}`;
const PR = 42;

let emulator: RunningEmulator;
let github: FakeGithub;
beforeAll(async () => {
  [emulator, github] = await Promise.all([startSeededEmulator(), startFakeGithub()]);
  github.addPullRequest(PR, 'Finance: a task made by the apply tests');
});
afterAll(async () => {
  await Promise.all([emulator.close(), github.close()]);
});
beforeEach(() => {
  emulator.resetRequestLog();
  github.comments.clear();
});

interface StepRun {
  readonly code: number;
  readonly log: string;
  readonly outputs: Record<string, string>;
  readonly summary: string;
}

/** One step on a pull request (the plan comment goes to the fake GitHub). */
async function step(dir: string, inputs: Record<string, string>): Promise<StepRun> {
  const files = testdir({ 'event.json': pullRequestEvent(PR, 'c0ffee42'), output: '', summary: '' });
  const env: NodeJS.ProcessEnv = {
    ...APPLY_ENV,
    GITHUB_WORKSPACE: dir,
    GITHUB_EVENT_NAME: 'pull_request',
    GITHUB_EVENT_PATH: join(files, 'event.json'),
    GITHUB_OUTPUT: join(files, 'output'),
    GITHUB_STEP_SUMMARY: join(files, 'summary'),
    GITHUB_REPOSITORY: 'acme-corp/mft-config',
    GITHUB_API_URL: github.apiUrl,
    'INPUT_GITHUB-TOKEN': github.token,
    ...Object.fromEntries(Object.entries(inputs).map(([k, v]) => [`INPUT_${k.toUpperCase()}`, v])),
  };
  let log = '';
  const code = await runAction({ env, cwd: dir, runner: createFileRunner(env, (t) => (log += t)), log: (t) => (log += t) });
  return { code, log, outputs: parseOutputFile(readFileSync(join(files, 'output'), 'utf8')), summary: readFileSync(join(files, 'summary'), 'utf8') };
}

/** The violation as the summaries and the comment list it: grouped by policy, the message given the line's width. */
const ROW = `- **deny** <code>no-test-tasks</code>: <code>Task/Apply test upload</code> — tasks made by tests stay out of production (${PLACE})`;
const ANNOTATION = `::error file=manifests/tasks.yaml,line=${UPLOAD_AT.line},col=${UPLOAD_AT.col},title=policy no-test-tasks::tasks made by tests stay out of production (Task/Apply test upload)`;

describe('policies in the Action', () => {
  it('plan: a deny fails the check run, with the violation in the summary Policy section, on the manifest line and in the PR comment', async () => {
    const dir = applyWorkdir(emulator, { files: { [POLICY_FILE]: testTaskPolicy('deny') } });
    const run = await step(dir, { command: 'plan' });
    expect(run.code).toBe(1);
    expect(run.outputs['exitcode']).toBe('1');
    expect(run.outputs['plan-file']).toBeUndefined();
    expect(run.outputs['summary']).toBe(
      `refused by a deny policy: policy no-test-tasks denies Task/Apply test upload: tasks made by tests stay out of production (${PLACE})`,
    );
    expect(existsSync(join(dir, 'mftops-plan-lab.json'))).toBe(false);
    expect(run.log.split('\n')).toContain(ANNOTATION);
    // The title first, then the verdict; one policy section, before the objects.
    expect(run.summary.startsWith('## mftops plan: lab\n\n> [!CAUTION]\n> **Refused by policy:** 1 `deny` violation, listed below.')).toBe(true);
    expect(run.summary.match(/Policy checks:/g)).toHaveLength(1);
    expect(run.summary).not.toContain('### Policy');
    expect(run.summary.split('\n')).toContain(`> ${ROW}`);
    expect(run.summary.indexOf('### Changed objects')).toBeGreaterThan(run.summary.indexOf(ROW));
    // The comment is the plan with its caution call-out, not a "the plan failed" note.
    expect(run.log.split('\n').filter((l) => l.startsWith('::warning'))).toEqual([]);
    const comment = [...github.comments.values()].find((c) => c.issue_number === PR)!;
    expect(comment.body).toContain('> [!CAUTION]\n> **Policy checks: 1 violation of 1 policy (1 deny: the plan is refused and not saved).**');
    expect(comment.body).toContain('> - **deny** <code>no-test-tasks</code>: <code>Task/Apply test upload</code>');
    expect(comment.body).not.toContain('The plan failed');
    // A reviewer reads that it is refused first, before any count.
    expect(comment.body.split('\n').slice(1, 5)).toEqual([
      '## mftops plan: lab',
      '',
      '> [!CAUTION]',
      '> **Refused by policy:** 1 `deny` violation, listed below. The plan was not saved; it cannot be applied.',
    ]);
  });

  it('plan: a warn is listed (summary, annotation) and the step ends as any plan with changes', async () => {
    const dir = applyWorkdir(emulator, { files: { [POLICY_FILE]: testTaskPolicy('warn') } });
    const run = await step(dir, { command: 'plan', comment: 'false' });
    expect(run.code).toBe(2);
    expect(run.outputs['exitcode']).toBe('2');
    expect(existsSync(join(dir, 'mftops-plan-lab.json'))).toBe(true);
    expect(run.log.split('\n')).toContain(ANNOTATION.replace('::error', '::warning'));
    expect(run.summary.startsWith('## mftops plan: lab\n')).toBe(true);
    expect(run.summary.match(/Policy checks:/g)).toHaveLength(1);
    expect(run.summary).toContain('> [!WARNING]\n> **Policy checks: 1 violation of 1 policy (warnings only).**\n');
    expect(run.summary.split('\n')).toContain(`> ${ROW.replace('**deny**', '**warn**')}`);
  });

  it('apply: a deny merged after the review refuses before any write, with the violation in the summary', async () => {
    const dir = applyWorkdir(emulator);
    expect((await step(dir, { command: 'plan', comment: 'false' })).code).toBe(2);
    writeFileSync(join(dir, POLICY_FILE), testTaskPolicy('deny'));
    emulator.resetRequestLog();
    for (const inputs of [{ 'plan-file': 'mftops-plan-lab.json' }, {}] as Record<string, string>[]) {
      const run = await step(dir, { command: 'apply', comment: 'false', 'allow-delete': 'true', 'allow-replace': 'true', ...inputs });
      expect(run.code).toBe(1);
      expect(run.outputs['exitcode']).toBe('1');
      expect(run.log.split('\n')).toContain(ANNOTATION);
      expect(run.summary).toContain('**Nothing was applied**: a `deny` policy refuses the plan made now.');
      expect(run.summary.split('\n')).toContain(ROW);
      expect(run.summary.startsWith('### mftops apply: lab\n')).toBe(true);
      expect(writesOf(emulator)).toEqual([]);
    }
  });

  it('apply: a warn is listed and the apply goes on', async () => {
    const dir = applyWorkdir(emulator, { files: { [POLICY_FILE]: testTaskPolicy('warn') } });
    const run = await step(dir, { command: 'apply', comment: 'false', 'allow-delete': 'true', 'allow-replace': 'true' });
    expect(run.code).toBe(0);
    expect(run.log.split('\n')).toContain(ANNOTATION.replace('::error', '::warning'));
    expect(run.summary).toContain('✅ Apply complete for environment');
    expect(run.summary.split('\n')).toContain(ROW.replace('**deny**', '**warn**'));
    expect(writesOf(emulator).length).toBeGreaterThan(0);
  });
});
