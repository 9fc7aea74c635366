import { afterEach, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { SEED_LOGINS, startSeededEmulator } from '../integration/helpers.js';
import { runCli } from '../helpers/run-cli.js';
import { emulatorWorkdir } from '../helpers/example-workdir.js';
import { editFolderByHand, listWrites, readFolders } from '../helpers/emulator-test-api.js';

/**
 * End to end, through the CLI, over HTTP: the findings of a server that answers in forms our
 * emulator did not use (issue "Fidelity"; docs/server-variants.md).
 */
const ENV = { MFT_AUTOMATION_PASSWORD: SEED_LOGINS.automationAdmin.password, MFT_TRANSFER_PASSWORD: SEED_LOGINS.transferAdmin.password };

let emulator: RunningEmulator | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

describe('folder identity ignores case (T-6)', () => {
  it('finds /distribution/acme/INBOUND for a manifest of /Distribution/Acme/Inbound: no second folder, no 409', async () => {
    const e = (emulator = await startSeededEmulator());
    for (const { path } of readFolders(e, (f) => f.path.startsWith('/Distribution/Acme'))) {
      editFolderByHand(e, path, (f) => {
        f.path = f.path.replace('/Distribution/Acme', '/distribution/acme').replace(/\/Inbound$/, '/INBOUND');
        f.name = f.path.split('/').pop()!;
      });
    }
    const manifest = [
      'apiVersion: mftops/v1',
      'kind: FolderPermissions',
      'metadata: { name: /Distribution/Acme/Inbound }',
      'spec:',
      '  createIfMissing: { inheritPermissions: None }',
      '  mode: additive',
      '  entries:',
      '    - group: Acme Partners',
      '      permissions: [listFiles, writeFiles, readFiles]',
      '',
    ].join('\n');
    const dir = emulatorWorkdir(e, { 'manifests/inbound.yaml': manifest });
    const plan = await runCli(['plan'], { cwd: dir, env: ENV });
    expect(plan.code).toBe(0);
    expect(plan.stdout).toContain('~ FolderPermissions/Distribution/Acme/Inbound will be updated');
    expect(plan.stdout).not.toContain('will be created');
    const folders = readFolders(e).length;
    e.resetRequestLog();
    const apply = await runCli(['apply', '--auto-approve'], { cwd: dir, env: ENV });
    expect(apply.stderr).not.toMatch(/409|error/);
    expect(apply.code).toBe(0);
    expect(readFolders(e)).toHaveLength(folders);
    expect(listWrites(e).filter((w) => w.includes('/subfolders'))).toEqual([]);
    const again = await runCli(['plan', '--detailed-exitcode'], { cwd: dir, env: ENV });
    expect(again.code).toBe(0);
  });
});
