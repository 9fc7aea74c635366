import { parse, stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importEnvironment } from '../../src/app/import.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { PASSWORDS, configYaml } from '../drift/helpers.js';
import { testdir } from '../helpers/testdir.js';
import { startSeededEmulator } from '../integration/helpers.js';
import { recordingContext } from './helpers.js';

let emulator: RunningEmulator;
beforeAll(async () => {
  emulator = await startSeededEmulator();
});
afterAll(() => emulator.close());

/** An environment `lab` without `service`. */
function without(service: 'automation' | 'transfer'): string {
  const config = parse(configYaml({ url: emulator.url })) as { environments: { lab: Record<string, unknown> } };
  delete config.environments.lab[service];
  return testdir({ 'mftops.yaml': stringify(config) });
}

// The refusals name the kinds from the registry (each kind's `importer.plural`), not from a list in src/app.
describe('importEnvironment refusals, in the words of the kinds', () => {
  it('names what lives on a missing service', async () => {
    await expect(importEnvironment({ kinds: ['Group'] }, recordingContext(without('transfer'), PASSWORDS))).rejects.toThrow(
      /has no transfer service in .*mftops\.yaml, and folders, users and groups live there$/,
    );
    await expect(importEnvironment({ kinds: ['ResourceGroupAcl'] }, recordingContext(without('automation'), PASSWORDS))).rejects.toThrow(
      /has no automation service in .*mftops\.yaml, and tasks and ACLs live there$/,
    );
  });

  it('says which of the kinds asked for take a --name mask and which a path', async () => {
    const dir = testdir({ 'mftops.yaml': configYaml({ url: emulator.url }) });
    await expect(importEnvironment({ kinds: ['Task', 'ResourceGroupAcl', 'FolderPermissions'], name: 'x' }, recordingContext(dir, PASSWORDS))).rejects.toThrow(
      '--name means a name mask for tasks and ACLs but a path for folders: import FolderPermissions on its own with --name',
    );
  });
});
