import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { failOnCrash, runAction } from '../../src/action/run-action.js';
import { MftopsError } from '../../src/errors.js';
import { createFileRunner } from '../../src/action/workflow-commands.js';
import { startSeededEmulator } from '../integration/helpers.js';
import { testdir } from '../helpers/testdir.js';
import { hasStackTrace } from '../helpers/run-cli.js';
import { checkout, CREDENTIALS, parseOutputFile } from './harness.js';

/**
 * The Action's failure path words an ordinary operating-system error as the CLI does: one line
 * naming what and where, with a hint; never "this is a bug", never a stack in the log.
 */
describe('the Action on an operating-system error', () => {
  it('an apply report that cannot be written (a folder is in its place) fails the step with one line and a hint', async () => {
    const emulator = await startSeededEmulator();
    onTestFinished(() => emulator.close());
    const ws = checkout(emulator);
    // The report's file name is taken by a folder: writing it fails with EISDIR.
    mkdirSync(join(ws, 'mft', 'mftops-apply-lab.json'));
    const files = testdir({ 'event.json': '{}', output: '', summary: '' });
    const env: NodeJS.ProcessEnv = {
      GITHUB_ACTIONS: 'true',
      GITHUB_WORKSPACE: ws,
      GITHUB_EVENT_NAME: 'push',
      GITHUB_EVENT_PATH: join(files, 'event.json'),
      GITHUB_OUTPUT: join(files, 'output'),
      GITHUB_STEP_SUMMARY: join(files, 'summary'),
      GITHUB_REPOSITORY: 'acme-corp/mft-config',
      GITHUB_API_URL: 'http://127.0.0.1:9',
      RUNNER_TEMP: files,
      INPUT_COMMAND: 'apply',
      'INPUT_WORKING-DIRECTORY': 'mft',
      ...CREDENTIALS,
    };
    let log = '';
    const write = (text: string): void => void (log += text);
    const code = await runAction({ env, cwd: ws, runner: createFileRunner(env, write), log: write });

    expect(code).toBe(1);
    const errors = log.split('\n').filter((l) => l.startsWith('::error'));
    expect(errors).toContainEqual(
      expect.stringMatching(/^::error::cannot write the apply report \S*mft\/mftops-apply-lab\.json: it is a folder \(EISDIR\): give the path of a file$/),
    );
    expect(log).not.toMatch(/internal error|this is a bug/);
    expect(hasStackTrace(log)).toBe(false);
    const outputs = parseOutputFile(readFileSync(join(files, 'output'), 'utf8'));
    expect(outputs['exitcode']).toBe('1');
    expect(outputs['summary']).toMatch(/^mftops apply failed: cannot write the apply report .*: it is a folder \(EISDIR\)/);
  });
});

/** The entry point's crash guard reports through `failOnCrash` (issue 23, finding 8). */
describe('the Action on an error nobody handled', () => {
  const runnerFor = (files: string) => {
    const env: NodeJS.ProcessEnv = { GITHUB_OUTPUT: join(files, 'output'), GITHUB_STEP_SUMMARY: join(files, 'summary') };
    let log = '';
    return {
      runner: createFileRunner(env, (t) => void (log += t)),
      log: () => log,
      outputs: () => parseOutputFile(readFileSync(join(files, 'output'), 'utf8')),
    };
  };

  it('fails the step with one ::error, "a bug in mftops" only for an error that is not ours, never a stack', () => {
    const files = testdir({ output: '', summary: '' });
    const r = runnerFor(files);
    failOnCrash(r.runner, new TypeError('injected: a promise nobody awaited'));
    expect(
      r
        .log()
        .split('\n')
        .filter((l) => l.startsWith('::error')),
    ).toEqual(['::error::internal error: injected: a promise nobody awaited (this is a bug in mftops; please report it)']);
    expect(hasStackTrace(r.log())).toBe(false);
    expect(r.outputs()['exitcode']).toBe('1');

    const ours = runnerFor(testdir({ output: '', summary: '' }));
    failOnCrash(ours.runner, new MftopsError('automation: POST /api/v1/token: 400 invalid_grant'));
    expect(
      ours
        .log()
        .split('\n')
        .filter((l) => l.startsWith('::error')),
    ).toEqual(['::error::automation: POST /api/v1/token: 400 invalid_grant']);
  });

  it('does not annotate again an error the step already failed with', () => {
    const r = runnerFor(testdir({ output: '', summary: '' }));
    failOnCrash(r.runner, new MftopsError('the same error'), new Set(['the same error']));
    expect(r.log()).toBe('');
  });
});
