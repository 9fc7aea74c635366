import { createServer, type Server } from 'node:net';
import { chmodSync, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emulatorConfigYaml } from '../../src/emulator/config-for.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { SEED_LOGINS, startSeededEmulator } from '../integration/helpers.js';
import { hasStackTrace, runCli } from '../helpers/run-cli.js';
import { testdir } from '../helpers/testdir.js';

/**
 * Ordinary operating-system errors (a port in use, a folder that may not be written) are the
 * machine's state, not a bug in mftops: one line that names what and where, with a hint, exit 1,
 * and no stack trace even with -v.
 */
describe('operating-system errors through the CLI', () => {
  let busy: Server;
  let port: number;
  beforeAll(async () => {
    busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    port = (busy.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((resolve) => busy.close(() => resolve())));

  it.each([[[]], [['-v']]])('a port in use is one line with a hint, no "bug" and no stack (%j)', async (flags) => {
    const r = await runCli([...flags, 'emulator', '--port', String(port)]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`mftops: error: port ${port} is in use: pick another with --port or stop the other process\n`);
    expect(hasStackTrace(r.stderr)).toBe(false);
  });
});

describe('a folder mftops may not write into', () => {
  let emulator: RunningEmulator;
  beforeAll(async () => {
    emulator = await startSeededEmulator();
  });
  afterAll(() => emulator.close());

  /** As root every folder is writable: then the CLI runs as `nobody`, and the folder stays root's. */
  const asRoot = process.getuid?.() === 0;
  const user = asRoot ? { uid: 65534, gid: 65534 } : undefined;

  function workspace(): { dir: string; readonly: string } {
    const dir = testdir({
      'mftops.yaml': `${emulatorConfigYaml({ ...emulator, environment: 'lab', manifests: ['manifests'] })}snapshots: { dir: locked/snapshots }\n`,
      'manifests/acl.yaml':
        'apiVersion: mftops/v1\nkind: ResourceGroupAcl\nmetadata: { name: finance-operators }\nspec: { resourceGroup: Finance, userGroup: Finance Operators, permissions: [TaskRun] }\n',
    });
    const readonly = join(dir, 'locked');
    mkdirSync(readonly);
    chmodSync(dir, 0o755);
    chmodSync(join(dir, 'manifests'), 0o755);
    chmodSync(readonly, asRoot ? 0o755 : 0o555);
    return { dir, readonly };
  }
  const env = { MFT_AUTOMATION_PASSWORD: SEED_LOGINS.automationAdmin.password, MFT_TRANSFER_PASSWORD: SEED_LOGINS.transferAdmin.password };

  it.each([
    [
      'plan --out',
      ['plan', '--out', 'locked/plan.json'],
      /^mftops: error: cannot write plan file \S*locked\/plan\.json: permission denied \(EACCES\): check the permissions of the file and its folder, or choose another path\n$/,
    ],
    [
      'drift --report',
      ['drift', '--report', 'locked/drift.json'],
      /^mftops: error: cannot write the drift report to \S*locked\/drift\.json: permission denied \(EACCES\): check the permissions/,
    ],
    [
      'snapshot save',
      ['snapshot', 'save'],
      /^mftops: error: snapshot not saved: cannot create \S*locked\/snapshots\/lab: permission denied \(EACCES\): check the permissions/,
    ],
  ])('%s: one line naming the path, the reason and what to do; no stack with -v', async (_name, args, message) => {
    const { dir, readonly } = workspace();
    const r = await runCli(['-v', ...args], { cwd: dir, env, ...(user ? { user } : {}) });
    expect(r.code, r.stderr).toBe(1);
    const errors = r.stderr.split('\n').filter((l) => l.startsWith('mftops: '));
    expect(errors).toHaveLength(1);
    expect(`${errors[0]}\n`).toMatch(message);
    expect(r.stderr).not.toMatch(/internal error|this is a bug/);
    expect(hasStackTrace(r.stderr)).toBe(false);
    expect(existsSync(join(readonly, 'plan.json')) || existsSync(join(readonly, 'drift.json')) || existsSync(join(readonly, 'snapshots'))).toBe(false);
  });
});
