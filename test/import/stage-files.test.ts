import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { ImportedManifest, ImportKind } from '../../src/import/model.js';
import { writeStagedImportFiles } from '../../src/import/stage-files.js';
import { planImportFiles as planFiles } from '../../src/import/write-files.js';
import { testdir } from '../helpers/testdir.js';

function manifest(kind: ImportKind, name: string): ImportedManifest {
  return { kind, name, address: `${kind}/${name}`, document: { apiVersion: 'mftops/v1', kind, metadata: { name }, spec: {} }, notes: [] };
}

/** The planned files, each rendering its text when staged. */
function planImportFiles(manifests: readonly ImportedManifest[], out: string) {
  return planFiles(manifests, out).map((f) => ({ ...f, render: () => f.text }));
}

/** Every path below `dir`, `/`-separated, hidden ones included. */
function tree(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((p) => p.split('\\').join('/'))
    .sort();
}

describe('writeStagedImportFiles', () => {
  it('writes every file whole into new folders and leaves nothing else behind (no staging folder, no temporary)', async () => {
    const out = join(testdir({}), 'new', 'manifests');
    const files = planImportFiles(
      [manifest('Task', 'a'), manifest('Task', 'b'), manifest('ResourceGroupAcl', 'g'), manifest('FolderPermissions', '/A/B')],
      out,
    );
    await writeStagedImportFiles(files, out, { force: false });
    for (const f of files) expect(readFileSync(f.path, 'utf8')).toBe(f.text);
    expect(tree(out)).toEqual(['access', 'access/g.yaml', 'folders', 'folders/a-b.yaml', 'tasks', 'tasks/a.yaml', 'tasks/b.yaml']);
  });

  it('adds files to a folder that exists, keeping its other files', async () => {
    const out = testdir({ 'tasks/mine.yaml': 'mine\n' });
    const files = planImportFiles([manifest('Task', 'a')], out);
    await writeStagedImportFiles(files, out, { force: false });
    expect(tree(out)).toEqual(['tasks', 'tasks/a.yaml', 'tasks/mine.yaml']);
    expect(readFileSync(join(out, 'tasks', 'mine.yaml'), 'utf8')).toBe('mine\n');
  });

  it('never replaces a file without force, and then writes nothing at all', async () => {
    const out = testdir({ 'tasks/b.yaml': 'mine\n' });
    const files = planImportFiles([manifest('FolderPermissions', '/X'), manifest('Task', 'a'), manifest('Task', 'b')], out);
    await expect(writeStagedImportFiles(files, out, { force: false })).rejects.toThrow('refusing to overwrite tasks/b.yaml (use --force); nothing was written');
    expect(tree(out)).toEqual(['tasks', 'tasks/b.yaml']);
    expect(readFileSync(join(out, 'tasks', 'b.yaml'), 'utf8')).toBe('mine\n');
  });

  it('replaces with force', async () => {
    const out = testdir({ 'tasks/b.yaml': 'mine\n' });
    const files = planImportFiles([manifest('Task', 'b')], out);
    await writeStagedImportFiles(files, out, { force: true });
    expect(readFileSync(join(out, 'tasks', 'b.yaml'), 'utf8')).toBe(files[0]!.text);
    expect(tree(out)).toEqual(['tasks', 'tasks/b.yaml']);
  });

  it('writes through a kind folder that is a symbolic link, never replacing the link', async () => {
    const root = testdir({ 'elsewhere/keep.yaml': 'keep\n' });
    const out = join(root, 'manifests');
    mkdirSync(out);
    symlinkSync(join(root, 'elsewhere'), join(out, 'tasks'), 'dir');
    await writeStagedImportFiles(planImportFiles([manifest('Task', 'a')], out), out, { force: false });
    expect(tree(join(root, 'elsewhere'))).toEqual(['a.yaml', 'keep.yaml']);
  });

  it('all or none: a folder it cannot write leaves no file, no folder and no staging folder behind', async () => {
    // folders/ is a file here: the tasks folder, moved into place first, must go again.
    const out = testdir({ folders: 'not a folder\n' });
    const files = planImportFiles([manifest('Task', 'a'), manifest('FolderPermissions', '/A/B'), manifest('Task', 'c')], out);
    for (const force of [false, true]) {
      await expect(writeStagedImportFiles(files, out, { force })).rejects.toThrow(/cannot write .*folders.*; nothing was written/);
      expect(tree(out), `force ${force}`).toEqual(['folders']);
    }
  });

  it('gives new folders the mode mkdir gives, not the private mode of the staging folder', async () => {
    const root = testdir({});
    mkdirSync(join(root, 'reference'));
    const out = join(root, 'manifests');
    await writeStagedImportFiles(planImportFiles([manifest('Task', 'a')], out), out, { force: false });
    expect(statSync(join(out, 'tasks')).mode & 0o777).toBe(statSync(join(root, 'reference')).mode & 0o777);
  });

  it('writes thousands of files, each whole', async () => {
    const out = testdir({ 'tasks/existing.yaml': 'x\n' });
    const files = planImportFiles(
      Array.from({ length: 1500 }, (_, i) => manifest(i % 3 === 0 ? 'ResourceGroupAcl' : 'Task', `n${i}`)),
      out,
    );
    await writeStagedImportFiles(files, out, { force: false });
    for (const f of files) expect(readFileSync(f.path, 'utf8')).toBe(f.text);
    expect(tree(out).filter((p) => p.startsWith('.'))).toEqual([]);
  });
});

describe('writeStagedImportFiles and existing folders', () => {
  it('keeps a file that exists in a folder it adds to', async () => {
    const out = testdir({});
    mkdirSync(join(out, 'access'));
    writeFileSync(join(out, 'access', 'g.yaml'), 'mine\n');
    await expect(writeStagedImportFiles(planImportFiles([manifest('ResourceGroupAcl', 'g')], out), out, { force: false })).rejects.toThrow(
      'refusing to overwrite access/g.yaml',
    );
    expect(readFileSync(join(out, 'access', 'g.yaml'), 'utf8')).toBe('mine\n');
  });
});

describe('writeStagedImportFiles and Ctrl-C', () => {
  it('removes what it staged and the folders it made, and exits 130, when interrupted before the files are moved', () => {
    // The built writer (dist/, as the CLI runs it) in a process of its own: Ctrl-C arrives while
    // file 300 of 2,000 is rendered, so some files are staged and none is in place yet.
    const out = join(testdir({}), 'manifests');
    const staged = fileURLToPath(new URL('../../dist/import/stage-files.js', import.meta.url));
    const script = `
      const { writeStagedImportFiles } = await import(${JSON.stringify(staged)});
      const out = ${JSON.stringify(out)};
      const files = Array.from({ length: 2000 }, (_, i) => ({
        relPath: 'tasks/t' + i + '.yaml',
        path: out + '/tasks/t' + i + '.yaml',
        render: () => { if (i === 300) process.kill(process.pid, 'SIGINT'); return 'x: ' + i + '\\n'; },
      }));
      await writeStagedImportFiles(files, out, { force: false });
      console.log('finished');`;
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(run.stdout).not.toContain('finished');
    expect(run.status).toBe(130);
    expect(existsSync(out)).toBe(false);
  });
});
