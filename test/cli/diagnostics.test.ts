import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emulatorConfigYaml } from '../../src/emulator/config-for.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { SEED_LOGINS, startSeededEmulator } from '../integration/helpers.js';
import { runCli } from '../helpers/run-cli.js';
import { testdir } from '../helpers/testdir.js';

/**
 * Problems that are not in a manifest line, end to end: a `--target` that names nothing (at its
 * address, with no file).
 */

describe('a --target that names nothing', () => {
  const EXAMPLES = fileURLToPath(new URL('../../examples/manifests', import.meta.url));
  const ENV = { MFT_AUTOMATION_PASSWORD: SEED_LOGINS.automationAdmin.password, MFT_TRANSFER_PASSWORD: SEED_LOGINS.transferAdmin.password };
  const SUMMARY = '--target names nothing in this plan — did you mean `Task/Month-end report`?';
  let emulator: RunningEmulator;
  beforeAll(async () => {
    emulator = await startSeededEmulator();
  });
  afterAll(() => emulator.close());

  it('is reported at its address, with no file, in text, JSON and GitHub annotations', async () => {
    const dir = testdir({ 'mftops.yaml': emulatorConfigYaml({ ...emulator, manifests: ['manifests'] }) });
    cpSync(EXAMPLES, join(dir, 'manifests'), { recursive: true });
    const plan = (...args: string[]) => runCli(['plan', '--target', 'Task/Month-end reprot', ...args], { cwd: dir, env: ENV });

    const text = await plan();
    expect(text.code).toBe(1);
    expect(text.stderr).toBe(`Task/Month-end reprot: error MF409: ${SUMMARY}\n1 error\n`);

    const json = await plan('--format', 'json');
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stderr)).toEqual([{ severity: 'error', code: 'MF409', message: SUMMARY, address: 'Task/Month-end reprot' }]);

    const github = await plan('--format', 'github');
    expect(github.code).toBe(1);
    expect(github.stdout).toBe(`::error title=MF409::Task/Month-end reprot: ${SUMMARY}\n1 error\n`);
  });
});
