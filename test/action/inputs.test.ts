import { describe, expect, it } from 'vitest';
import { pullRequestOf, readGithubContext } from '../../src/action/context.js';
import { ActionInputError, readInputs } from '../../src/action/inputs.js';
import { DEFAULTS } from '../../src/app/defaults.js';
import { pullRequestEvent } from './harness.js';
import { testdir } from '../helpers/testdir.js';

/** Inputs as the runner passes them, and the run's context as it describes it. */

const WS = '/home/runner/work/mft-config/mft-config';

describe('inputs', () => {
  it('reads hyphenated inputs under their runner names (INPUT_PLAN-FILE), paths from the working directory', () => {
    const inputs = readInputs(
      {
        INPUT_COMMAND: 'apply',
        'INPUT_PLAN-FILE': 'plans/prod.json',
        'INPUT_WORKING-DIRECTORY': 'infra/mft',
        INPUT_ENVIRONMENT: ' prod ',
        INPUT_PATHS: 'manifests/common\n\n# the folder of this environment\nmanifests/prod with space\n',
        'INPUT_GITHUB-TOKEN': 'ghs_x',
        'INPUT_ALLOW-DELETE': 'true',
      },
      'push',
      WS,
    );
    expect(inputs).toEqual({
      command: 'apply',
      environment: 'prod',
      config: `${WS}/infra/mft/mftops.yaml`,
      paths: [`${WS}/infra/mft/manifests/common`, `${WS}/infra/mft/manifests/prod with space`],
      planFile: `${WS}/infra/mft/plans/prod.json`,
      planFiles: [`${WS}/infra/mft/plans/prod.json`],
      pullRequests: [],
      // apply posts its result to the pull-requests given (none here).
      comment: true,
      githubToken: 'ghs_x',
      workingDirectory: `${WS}/infra/mft`,
      allowDelete: true,
      allowReplace: false,
      maxDeletes: DEFAULTS.maxDeletes,
      rotatePasswords: false,
      onDrift: 'report',
    });
  });

  it('apply: reads several reviewed plans, one per line, and the merged pull requests to post the result to; comments by default', () => {
    const inputs = readInputs(
      { INPUT_COMMAND: 'apply', 'INPUT_PLAN-FILE': '/tmp/r/pr-12/p.json\n\n/tmp/r/pr-14/p.json\n', 'INPUT_PULL-REQUESTS': '12 #14,12' },
      'push',
      WS,
    );
    expect(inputs).toMatchObject({
      planFile: '/tmp/r/pr-12/p.json',
      planFiles: ['/tmp/r/pr-12/p.json', '/tmp/r/pr-14/p.json'],
      pullRequests: [12, 14],
      comment: true,
    });
    const error = (env: NodeJS.ProcessEnv) => {
      try {
        readInputs(env, 'push', WS);
        return '';
      } catch (err) {
        return (err as Error).message;
      }
    };
    expect(error({ INPUT_COMMAND: 'apply', 'INPUT_PULL-REQUESTS': '12 main' })).toBe('input "pull-requests" must list pull request numbers, not "main"');
    expect(error({ INPUT_COMMAND: 'plan', 'INPUT_PLAN-FILE': 'a.json\nb.json' })).toBe(
      'input "plan-file" names 2 files: only apply takes several (the reviewed plans)',
    );
  });

  it('reads max-deletes and parallelism as whole numbers; empty takes the defaults every view shares', () => {
    const given = readInputs({ INPUT_COMMAND: 'apply', 'INPUT_MAX-DELETES': ' 25 ', INPUT_PARALLELISM: '2' }, 'push', WS);
    expect(given).toMatchObject({ maxDeletes: 25, parallelism: 2 });
    expect(readInputs({ INPUT_COMMAND: 'apply', 'INPUT_MAX-DELETES': '0' }, 'push', WS).maxDeletes).toBe(0);
    const defaults = readInputs({ INPUT_COMMAND: 'apply', 'INPUT_MAX-DELETES': '', INPUT_PARALLELISM: '' }, 'push', WS);
    expect(defaults.maxDeletes).toBe(DEFAULTS.maxDeletes);
    // No parallelism: each use case's own (plan and drift read 10 at a time, apply writes 4).
    expect(defaults).not.toHaveProperty('parallelism');
  });

  it('reads rotate-passwords as a boolean, off unless given', () => {
    expect(readInputs({ INPUT_COMMAND: 'plan', 'INPUT_ROTATE-PASSWORDS': 'true' }, 'push', WS).rotatePasswords).toBe(true);
    expect(readInputs({ INPUT_COMMAND: 'plan' }, 'push', WS).rotatePasswords).toBe(false);
    expect(() => readInputs({ INPUT_COMMAND: 'plan', 'INPUT_ROTATE-PASSWORDS': 'sometimes' }, 'push', WS)).toThrow(/rotate-passwords/);
  });

  it('reads on-drift for drift only, report unless given; per-kind lists are refused', () => {
    expect(readInputs({ INPUT_COMMAND: 'drift' }, 'schedule', WS).onDrift).toBe('report');
    expect(readInputs({ INPUT_COMMAND: 'drift', 'INPUT_ON-DRIFT': 'adopt-pr' }, 'schedule', WS).onDrift).toBe('adopt-pr');
    expect(readInputs({ INPUT_COMMAND: 'drift', 'INPUT_ON-DRIFT': 'revert-plan' }, 'schedule', WS).onDrift).toBe('revert-plan');
    expect(() => readInputs({ INPUT_COMMAND: 'plan', 'INPUT_ON-DRIFT': 'adopt-pr' }, 'push', WS)).toThrow(
      'input "on-drift" is for command drift only, not plan',
    );
    expect(() => readInputs({ INPUT_COMMAND: 'drift', 'INPUT_ON-DRIFT': 'Task=adopt-pr,*=report' }, 'schedule', WS)).toThrow(
      'input "on-drift" must be one of report, adopt-pr, revert-plan, not "Task=adopt-pr,*=report"',
    );
  });

  it('comments by default on pull requests and for drift, not on a push', () => {
    expect(readInputs({ INPUT_COMMAND: 'plan' }, 'pull_request', WS).comment).toBe(true);
    expect(readInputs({ INPUT_COMMAND: 'plan' }, 'pull_request_target', WS).comment).toBe(true);
    expect(readInputs({ INPUT_COMMAND: 'plan' }, 'push', WS).comment).toBe(false);
    expect(readInputs({ INPUT_COMMAND: 'drift' }, 'schedule', WS).comment).toBe(true);
    expect(readInputs({ INPUT_COMMAND: 'plan', INPUT_COMMENT: 'False' }, 'pull_request', WS).comment).toBe(false);
    expect(readInputs({ INPUT_COMMAND: 'plan', INPUT_COMMENT: 'TRUE' }, 'push', WS).comment).toBe(true);
  });

  it('refuses a missing or unknown command and a boolean that is not one, naming the input', () => {
    const error = (env: NodeJS.ProcessEnv) => {
      try {
        readInputs(env, 'push', WS);
      } catch (err) {
        expect(err).toBeInstanceOf(ActionInputError);
        return (err as Error).message;
      }
      throw new Error('no error');
    };
    expect(error({})).toBe('input "command" is required: one of validate, plan, apply, drift');
    expect(error({ INPUT_COMMAND: 'destroy' })).toBe('input "command" must be one of validate, plan, apply, drift, not "destroy"');
    expect(error({ INPUT_COMMAND: 'plan', INPUT_COMMENT: 'yes' })).toBe('input "comment" must be true or false, not "yes"');
    expect(error({ INPUT_COMMAND: 'apply', 'INPUT_MAX-DELETES': 'ten' })).toBe('input "max-deletes" must be a whole number from 0 to 1000000, not "ten"');
    expect(error({ INPUT_COMMAND: 'apply', 'INPUT_MAX-DELETES': '-1' })).toBe('input "max-deletes" must be a whole number from 0 to 1000000, not "-1"');
    expect(error({ INPUT_COMMAND: 'plan', INPUT_PARALLELISM: '0' })).toBe('input "parallelism" must be a whole number from 1 to 64, not "0"');
    expect(error({ INPUT_COMMAND: 'plan', INPUT_PARALLELISM: '2.5' })).toBe('input "parallelism" must be a whole number from 1 to 64, not "2.5"');
    expect(error({ INPUT_COMMAND: 'plan', INPUT_PARALLELISM: '65' })).toBe('input "parallelism" must be a whole number from 1 to 64, not "65"');
    expect(error({ INPUT_COMMAND: 'plan', INPUT_PRUNE: 'sometimes' })).toBe('input "prune" must be true or false, not "sometimes"');
  });

  it('reads prune as the CLI reads --prune / --no-prune: true, false, or (empty) neither', () => {
    const prune = (value: string | undefined) =>
      readInputs({ INPUT_COMMAND: 'plan', ...(value !== undefined ? { INPUT_PRUNE: value } : {}) }, 'push', WS).prune;
    expect([prune('true'), prune('False'), prune(''), prune(undefined)]).toEqual([true, false, undefined, undefined]);
  });
});

describe('the run context', () => {
  it('reads the pull request, the repository and the run link from the runner', () => {
    const dir = testdir({ 'event.json': pullRequestEvent(42, '9f8e7d6c') });
    const ctx = readGithubContext(
      {
        GITHUB_EVENT_NAME: 'pull_request',
        GITHUB_EVENT_PATH: `${dir}/event.json`,
        GITHUB_REPOSITORY: 'acme-corp/mft-config',
        GITHUB_SERVER_URL: 'https://github.example.com/',
        GITHUB_API_URL: 'https://github.example.com/api/v3/',
        GITHUB_RUN_ID: '99',
        GITHUB_RUN_ATTEMPT: '2',
        GITHUB_WORKSPACE: WS,
      },
      '/elsewhere',
    );
    expect(ctx).toEqual({
      eventName: 'pull_request',
      repo: { owner: 'acme-corp', name: 'mft-config' },
      apiUrl: 'https://github.example.com/api/v3',
      serverUrl: 'https://github.example.com',
      runUrl: 'https://github.example.com/acme-corp/mft-config/actions/runs/99/attempts/2',
      runId: '99',
      pullRequest: { number: 42, headSha: '9f8e7d6c' },
      workspace: WS,
    });
  });

  it('finds the pull request of an issue_comment on a pull request, and none on a plain issue or a push', () => {
    expect(
      pullRequestOf({ action: 'created', issue: { number: 7, pull_request: { url: 'https://api.github.com/repos/o/r/pulls/7' } }, comment: { id: 1 } }),
    ).toEqual({ number: 7 });
    expect(pullRequestOf({ action: 'created', issue: { number: 8 }, comment: { id: 1 } })).toBeUndefined();
    expect(pullRequestOf({ ref: 'refs/heads/main', after: 'abc' })).toBeUndefined();
  });

  it('works outside a workflow with GitHub.com defaults and no run link', () => {
    expect(readGithubContext({}, '/work')).toEqual({ apiUrl: 'https://api.github.com', serverUrl: 'https://github.com', workspace: '/work' });
  });

  it('says which file it could not read as the event payload', () => {
    const dir = testdir({ 'event.json': '{ not json' });
    expect(() => readGithubContext({ GITHUB_EVENT_PATH: `${dir}/event.json` }, '/w')).toThrow(
      `the event payload GITHUB_EVENT_PATH=${dir}/event.json is not JSON`,
    );
  });
});
