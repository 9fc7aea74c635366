import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { startSeededEmulator } from '../integration/helpers.js';
import { positionOf } from '../helpers/position-of.js';
import { addFolderByHand, readFolder, readFolders } from '../helpers/emulator-test-api.js';
import { hasStackTrace, runCli } from '../helpers/run-cli.js';
import { APPLY_ENV, applyWorkdir, writesOf } from '../apply/helpers.js';

/**
 * Issue 23, finding 3: `FolderPermissions` for `/Distribution/..` with `createIfMissing`
 * validated, and apply created a folder literally named `..`. A path whose names are not one real
 * folder per level is MF324 at the path, before any request; import skips a live folder whose
 * path would not validate, with a warning naming it.
 */

let emulator: RunningEmulator;
beforeEach(async () => {
  emulator = await startSeededEmulator();
});
afterEach(() => emulator.close());

function folderManifest(path: string): string {
  return [
    'apiVersion: mftops/v1',
    'kind: FolderPermissions',
    `metadata: { name: "${path}" }`,
    'spec:',
    '  createIfMissing: { inheritPermissions: None }',
    '  mode: additive',
    '  entries:',
    '    - { user: alice, permissions: [listFiles] }',
    '',
  ].join('\n');
}

/** Folders of the emulator whose name is this (any parent). */
function foldersNamed(name: string): string[] {
  return readFolders(emulator, (f) => f.name === name).map((f) => f.path);
}

describe('folder paths that do not name one folder per level', () => {
  it.each([
    ['/Distribution/..', 'it has a folder named `..`'],
    ['/Distribution/./Acme', 'it has a folder named `.`'],
    ['/Distribution/a:b', 'holds `:`'],
    ['/Distribution/a|b', 'holds `|`'],
    ['/Distribution/a\\u0001b', 'holds a control character (U+0001)'],
  ])('%s: validate exit 1 with MF324 at the path; plan and apply send nothing', { timeout: 60_000 }, async (path, says) => {
    const text = folderManifest(path);
    const dir = applyWorkdir(emulator, { manifests: { 'manifests/folders.yaml': text }, prune: [] });
    const p = positionOf(text, `"${path}"`);
    const at = `manifests/folders.yaml:${p.line}:${p.col}`;

    const validate = await runCli(['validate'], { cwd: dir, env: APPLY_ENV });
    expect(validate.code).toBe(1);
    expect(validate.stdout).toContain(`${at}: error MF324: folder path`);
    expect(validate.stdout).toContain(says);

    emulator.resetRequestLog();
    const plan = await runCli(['plan'], { cwd: dir, env: APPLY_ENV });
    expect(plan.code).toBe(1);
    expect(`${plan.stdout}${plan.stderr}`).toContain(`${at}: error MF324`);
    expect(emulator.requestLog()).toEqual([]);

    const apply = await runCli(['apply', '--auto-approve'], { cwd: dir, env: APPLY_ENV });
    expect(apply.code).toBe(1);
    expect(writesOf(emulator)).toEqual([]);
    expect(foldersNamed('..')).toEqual([]);
    for (const r of [validate, plan, apply]) expect(hasStackTrace(r.stderr)).toBe(false);
  });

  it('import skips a live folder whose path would not validate, with a warning naming it, and writes the others', { timeout: 60_000 }, async () => {
    const parent = readFolder(emulator, '/Distribution')!;
    const [model] = readFolders(emulator, (f) => f.acl.length > 0 && f.path.startsWith('/Distribution/'));
    addFolderByHand(emulator, { ...model!, id: 990001, parentId: parent.id, name: '..', path: '/Distribution/..' });
    const dir = applyWorkdir(emulator, { manifests: {}, prune: [] });

    const r = await runCli(['import', '--kind', 'FolderPermissions', '--name', '/Distribution/**', '--out', 'imported'], { cwd: dir, env: APPLY_ENV });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('warning: folder "/Distribution/.." not imported (MF324): it has a folder named `..`');
    expect(r.stdout).not.toContain('/Distribution/..');
    const written = readdirSync(join(dir, 'imported'), { recursive: true }).map(String);
    expect(written.length).toBeGreaterThan(0);
    expect(written.some((f) => f.includes('..'))).toBe(false);
    // What it wrote validates.
    const validate = await runCli(['validate', 'imported'], { cwd: dir });
    expect(validate.code).toBe(0);
    expect(existsSync(join(dir, 'imported'))).toBe(true);
  });
});
