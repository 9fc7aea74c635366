import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emulatorConfigYaml } from '../../src/emulator/config-for.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { SEED_LOGINS, automationClientFor, startSeededEmulator } from '../integration/helpers.js';
import { runCli } from '../helpers/run-cli.js';
import { testdir } from '../helpers/testdir.js';

const ENV = { MFT_AUTOMATION_PASSWORD: SEED_LOGINS.automationAdmin.password, MFT_TRANSFER_PASSWORD: SEED_LOGINS.transferAdmin.password };

let emulator: RunningEmulator;
beforeAll(async () => {
  emulator = await startSeededEmulator();
});
afterAll(() => emulator.close());

describe('mftops snapshot through the CLI', () => {
  it('saves, lists, verifies, diffs and restores, with 0600 files and no secret in any output', async () => {
    const dir = testdir({
      'mftops.yaml': `${emulatorConfigYaml({ ...emulator, environment: 'lab' })}snapshots: { dir: snaps, keep: 5 }\n`,
    });
    const outputs: string[] = [];
    const cli = async (...args: string[]) => {
      const r = await runCli(args, { cwd: dir, env: ENV });
      outputs.push(r.stdout, r.stderr);
      return r;
    };
    const first = await cli('snapshot', 'save');
    expect(first.code).toBe(0);
    const envDir = join(dir, 'snaps', 'lab');
    const [id1] = readdirSync(envDir);
    expect(statSync(join(envDir, id1!)).mode & 0o777).toBe(0o700);
    for (const f of readdirSync(join(envDir, id1!))) expect(statSync(join(envDir, id1!, f)).mode & 0o777).toBe(0o600);

    // A change behind the snapshot's back: delete a task through the API.
    const client = automationClientFor(emulator);
    const before = await client.listTasks();
    await client.deleteTask(before.find((t) => t.Name === 'Nightly cleanup')!.ID!);
    const second = await cli('snapshot', 'save');
    expect(second.code).toBe(0);

    const list = await cli('snapshot', 'list');
    expect(list.code).toBe(0);
    expect(list.stdout).toContain(id1!);
    expect((await cli('snapshot', 'verify', id1!)).code).toBe(0);
    const diff = await cli('snapshot', 'diff', id1!, 'latest');
    expect(diff.code).toBe(0);
    expect(diff.stdout).toContain('Nightly cleanup');

    const refused = await cli('snapshot', 'restore', id1!);
    expect(refused.code).toBe(1);
    expect(await client.listTasks()).toHaveLength(before.length - 1);
    const restored = await cli('snapshot', 'restore', id1!, '--auto-approve');
    expect(restored.code).toBe(0);
    expect(await client.listTasks()).toEqual(before);
    await client.close();

    for (const secret of ['SEEDSECRET', SEED_LOGINS.automationAdmin.password, SEED_LOGINS.transferAdmin.password]) {
      for (const text of outputs) expect(text).not.toContain(secret);
    }
  });
});
