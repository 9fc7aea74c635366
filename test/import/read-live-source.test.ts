import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { readImportSource } from '../../src/import/read-live-source.js';
import type { ImportKind } from '../../src/import/model.js';
import { toReadonlyAutomationClient } from '../../src/services/automation/client.js';
import { toReadonlyTransferClient } from '../../src/services/transfer/client.js';
import { automationClientFor, startSeededEmulator, transferClientFor } from '../integration/helpers.js';

let emulator: RunningEmulator;
beforeAll(async () => {
  emulator = await startSeededEmulator();
});
afterAll(() => emulator.close());
beforeEach(() => emulator.resetRequestLog());

/** The reads an import of `kinds` sends, as `METHOD /path` without the query and the sign-in. */
async function readsFor(kinds: readonly ImportKind[], name?: string): Promise<string[]> {
  await readImportSource({
    automation: toReadonlyAutomationClient(automationClientFor(emulator)),
    transfer: toReadonlyTransferClient(transferClientFor(emulator)),
    selection: { kinds, all: true, scope: { taskGroups: [], folders: [] }, ...(name !== undefined ? { name } : {}) },
    origin: 'test',
  });
  return emulator
    .requestLog()
    .map((r) => `${r.method} ${r.path.split('?')[0]!}`)
    .filter((r) => !/token|login|auth/i.test(r));
}

describe('readImportSource', () => {
  it('reads for each selected kind only what it needs, and nothing of a service no selected kind lives on', async () => {
    expect(await readsFor(['ResourceGroupAcl'])).toEqual(['GET /automation/api/v1/resourcegroups/acls']);

    emulator.resetRequestLog();
    expect(await readsFor(['Task', 'ResourceGroupAcl'])).toEqual([
      'GET /automation/api/v1/tasks',
      'GET /automation/api/v1/hosts',
      'GET /automation/api/v1/customscripts',
      'GET /automation/api/v1/standardscripts',
      'GET /automation/api/v1/datelists',
      'GET /automation/api/v1/resourcegroups/acls',
    ]);

    emulator.resetRequestLog();
    const groups = await readsFor(['Group']);
    expect(groups.slice(0, 2)).toEqual(['GET /transfer/api/v1/users', 'GET /transfer/api/v1/groups']);
    expect(groups.slice(2).every((r) => /^GET \/transfer\/api\/v1\/groups\/\d+\/members$/.test(r))).toBe(true);
  });

  it('gives a kind not selected its empty part, so the selection sees no object of it', async () => {
    const source = await readImportSource({
      transfer: toReadonlyTransferClient(transferClientFor(emulator)),
      selection: { kinds: ['FolderPermissions'], name: '/Distribution', all: false, scope: { taskGroups: [], folders: [] } },
      origin: 'test',
    });
    expect(source.folders.map((f) => f.folder.path)).toEqual(['/Distribution']);
    expect(source.exactFolders).toEqual(['/distribution']);
    expect([source.tasks, source.hosts, source.scripts, source.dateLists, source.acls]).toEqual([[], [], [], [], []]);
    expect(source.users).toBeUndefined();
    expect(source.groups).toBeUndefined();
  });
});
