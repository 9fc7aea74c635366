import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAction } from '../../src/action/run-action.js';
import { createFileRunner } from '../../src/action/workflow-commands.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { startSeededEmulator } from '../integration/helpers.js';
import { testdir } from '../helpers/testdir.js';
import { APPLY_ENV, applyWorkdir, writesOf } from '../apply/helpers.js';
import { parseOutputFile, pullRequestEvent } from './harness.js';

/**
 * Issue 28 in the Action (the TypeScript source, in this process): its apply job goes through the
 * same change-window check as the CLI, so an apply outside the windows fails with the next window
 * and writes nothing. The bundle (dist-action/) needs the lead's rebuild to behave the same.
 */

let emulator: RunningEmulator;
beforeAll(async () => {
  emulator = await startSeededEmulator();
});
afterAll(() => emulator.close());

async function applyStep(dir: string, now: string): Promise<{ code: number; log: string; outputs: Record<string, string>; summary: string }> {
  const files = testdir({ 'event.json': pullRequestEvent(7, 'c0ffee07'), output: '', summary: '' });
  const env: NodeJS.ProcessEnv = {
    ...APPLY_ENV,
    MFTOPS_NOW: now,
    GITHUB_WORKSPACE: dir,
    GITHUB_EVENT_NAME: 'push',
    GITHUB_EVENT_PATH: join(files, 'event.json'),
    GITHUB_OUTPUT: join(files, 'output'),
    GITHUB_STEP_SUMMARY: join(files, 'summary'),
    GITHUB_REPOSITORY: 'acme-corp/mft-config',
    INPUT_COMMAND: 'apply',
    INPUT_COMMENT: 'false',
    'INPUT_ALLOW-DELETE': 'true',
    'INPUT_ALLOW-REPLACE': 'true',
  };
  let log = '';
  const code = await runAction({ env, cwd: dir, runner: createFileRunner(env, (t) => (log += t)), log: (t) => (log += t) });
  return { code, log, outputs: parseOutputFile(readFileSync(join(files, 'output'), 'utf8')), summary: readFileSync(join(files, 'summary'), 'utf8') };
}

describe('change windows in the Action', () => {
  it('apply outside the windows fails naming the next window, and writes nothing', async () => {
    const dir = applyWorkdir(emulator);
    const file = join(dir, 'mftops.yaml');
    writeFileSync(
      file,
      readFileSync(file, 'utf8').replace(/^snapshots:/m, '    changeWindows:\n      allow: [{ days: [Sat, Sun], from: "22:00", to: "04:00" }]\nsnapshots:'),
    );
    emulator.resetRequestLog();
    const run = await applyStep(dir, '2026-12-02T10:00:00Z');
    expect(run.code).toBe(1);
    expect(run.outputs['exitcode']).toBe('1');
    expect(run.summary).toContain('the next window opens Sat 2026-12-05 22:00 UTC');
    expect(writesOf(emulator)).toEqual([]);
  });
});
