import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runDrift } from '../../src/cli/commands/drift.js';
import { runImport } from '../../src/cli/commands/import.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { loadManifests } from '../../src/manifest/load.js';
import { SCHEMA_BASE_URL, findSchemasDir } from '../../src/manifest/schemas.js';
import { startSeededEmulator } from '../integration/helpers.js';
import { testdir } from '../helpers/testdir.js';
import { readAcls, readFolders, readTasks } from '../helpers/emulator-test-api.js';
import { configYaml, globals, io, writesAndPosts } from '../drift/helpers.js';

let emulator: RunningEmulator | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.yaml'))
    .map((e) => join(e.parentPath, e.name));
}

describe('import everything, then drift: no difference', () => {
  for (const profile of ['current', 'legacy'] as const) {
    it(`on the ${profile} profile: every kind imported, the files validate, drift exits 0 and sends no write`, async () => {
      emulator = await startSeededEmulator({ profile });
      const dir = testdir({ 'mftops.yaml': configYaml({ url: emulator.url, scope: { folders: ['/'] } }) });
      const imported = io(dir);
      const code = await runImport(globals(), { kind: ['Task', 'ResourceGroupAcl'], out: 'manifests', all: true, force: false }, imported);
      expect(imported.err()).not.toMatch(/error/);
      expect(code).toBe(0);
      const folders = io(dir);
      expect(await runImport(globals(), { kind: ['FolderPermissions'], out: 'manifests', all: true, force: false }, folders)).toBe(0);

      // Every object of the seed is there: 8 tasks, 3 ACLs, and the folders that have entries.
      const foldersWithEntries = readFolders(emulator, (f) => f.acl.length > 0).length;
      const files = filesUnder(join(dir, 'manifests'));
      expect(files.filter((f) => f.includes('/tasks/'))).toHaveLength(readTasks(emulator).length);
      expect(files.filter((f) => f.includes('/access/'))).toHaveLength(readAcls(emulator).length);
      expect(files.filter((f) => f.includes('/folders/'))).toHaveLength(foldersWithEntries);
      for (const f of files) {
        const first = readFileSync(f, 'utf8').split('\n')[0]!;
        const ref = /^# yaml-language-server: \$schema=(\S+\.schema\.json)$/.exec(first)?.[1];
        expect(ref, f).toBeDefined();
        // No mftops in the project's node_modules: the published URL of a schema this package ships.
        expect(ref!.startsWith(SCHEMA_BASE_URL), `${f} points at ${ref}`).toBe(true);
        expect(existsSync(join(findSchemasDir(), ref!.slice(SCHEMA_BASE_URL.length))), `${f} points at ${ref}`).toBe(true);
      }

      const loaded = await loadManifests([join(dir, 'manifests')], { cwd: dir });
      expect(loaded.diagnostics).toEqual([]);
      expect(loaded.manifests).toHaveLength(files.length);

      emulator.resetRequestLog();
      const drift = io(dir);
      const exit = await runDrift(globals(), { paths: [] }, drift);
      expect(drift.err()).toBe('');
      expect(drift.out()).toContain('In sync: the servers match the manifests.');
      expect(exit).toBe(0);
      expect(writesAndPosts(emulator)).toEqual([]);
    });
  }
});
