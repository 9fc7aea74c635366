import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ImportedManifest, ImportKind } from '../../src/import/model.js';
import { openImportStage, writeStagedImportFiles } from '../../src/import/stage-files.js';
import { planImportFiles as planFiles } from '../../src/import/write-files.js';
import { openWriteThread } from '../../src/import/write-thread.js';
import type { WriteThread } from '../../src/import/write-thread.js';
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
  it('removes what it staged and the folders it made, and says interrupted, when its signal is aborted before the files are moved', async () => {
    // Ctrl-C while file 300 of 2,000 is rendered: some files are staged and none is in place yet.
    // (The exit code is the caller's: src/app/import.ts; test/cli/import-interrupt.test.ts.)
    const out = join(testdir({}), 'manifests');
    const stop = new AbortController();
    const files = Array.from({ length: 2000 }, (_, i) => ({
      relPath: `tasks/t${i}.yaml`,
      path: join(out, 'tasks', `t${i}.yaml`),
      render: () => {
        if (i === 300) stop.abort();
        return `x: ${i}\n`;
      },
    }));
    expect(await writeStagedImportFiles(files, out, { force: false, signal: stop.signal })).toBe('interrupted');
    expect(existsSync(out)).toBe(false);
  });

  it('removes what it staged when discarded while writes are in flight, and never creates a folder it was not given files for', async () => {
    const root = testdir({});
    const out = join(root, 'manifests');
    const stage = openImportStage(out, { force: false });
    stage.add(
      planImportFiles(
        Array.from({ length: 200 }, (_, i) => manifest('Task', `n${i}`)),
        out,
      ),
    );
    await stage.discard();
    expect(existsSync(out)).toBe(false);
    const unused = openImportStage(join(root, 'other'), { force: false });
    await unused.discard();
    expect(readdirSync(root)).toEqual([]);
  });

  it('takes no more files once discarded: drafting that was still under way when a read failed writes nothing and fails nothing', async () => {
    const root = testdir({});
    const out = join(root, 'manifests');
    const stage = openImportStage(out, { force: false });
    stage.add(planImportFiles([manifest('Task', 'first')], out));
    const discarding = stage.discard();
    // The drafter's next part, staged while the discard was under way and after it ended.
    expect(() => stage.add(planImportFiles([manifest('Task', 'second')], out))).not.toThrow();
    await discarding;
    expect(() => stage.add(planImportFiles([manifest('Task', 'third')], out))).not.toThrow();
    expect(readdirSync(root)).toEqual([]);
  });

  it('says which file could not be written, with the system error, and leaves nothing when a write fails mid-way', async () => {
    // The same file twice: the second creation fails (files are created with wx, never replaced).
    const out = join(testdir({}), 'manifests');
    const files = planImportFiles(
      Array.from({ length: 300 }, (_, i) => manifest('Task', `n${i}`)),
      out,
    );
    await expect(writeStagedImportFiles([...files, files[200]!, ...files.slice(0, 10)], out, { force: false })).rejects.toThrow(
      `cannot write ${files[200]!.path}; nothing was written (EEXIST)`,
    );
    expect(existsSync(out)).toBe(false);
  });

  it('keeps a write failure for finish: files added later are not written, and nothing is left', async () => {
    // The output folder is a file: staging cannot start; the failure is said by finish, naming the first file.
    const root = testdir({ manifests: 'a file\n' });
    const out = join(root, 'manifests');
    const stage = openImportStage(out, { force: false });
    const files = planImportFiles([manifest('Task', 'a'), manifest('Task', 'b')], out);
    stage.add(files.slice(0, 1));
    stage.add(files.slice(1));
    await expect(stage.finish()).rejects.toThrow(/cannot write .*tasks.a\.yaml; nothing was written/);
    expect(tree(root)).toEqual(['manifests']);
  });
});

describe('an import stage on a disk that stalls', () => {
  /** The real writer thread, each batch answered `delayMs` late, or never (a disk that hangs). */
  const slowWriter = (delayMs: number | 'never') => (): WriteThread => {
    const real = openWriteThread();
    return {
      write: (items, done) =>
        real.write(items, (err, at) => {
          if (delayMs !== 'never') setTimeout(() => done(err, at), delayMs);
        }),
      close: () => real.close(),
    };
  };
  const manyFiles = (out: string, count: number) =>
    planImportFiles(
      Array.from({ length: count }, (_, i) => manifest('Task', `t${i}`)),
      out,
    );

  it('gives up at the stall deadline with one line, placing nothing', async () => {
    const out = testdir({});
    const stage = openImportStage(out, { force: false, stallMs: 1000, openWriter: slowWriter('never') });
    stage.add(manyFiles(out, 200));
    await expect(stage.finish()).rejects.toThrow(
      /^cannot write .*t\d+\.yaml: the disk finished no write in 1 s; nothing was written \(the hidden folder .*\.mftops-import-\w+ may be left behind\)$/,
    );
    expect(tree(out).filter((p) => !p.startsWith('.mftops-import-'))).toEqual([]);
  });

  it('waits for a slow disk that finishes each batch within the deadline, however long the whole takes', { timeout: 30_000 }, async () => {
    const out = testdir({});
    // Eight batches of 64, two at a time, each answered a third of the deadline late (the rest is
    // slack for the thread's start on a loaded machine): more than the deadline in all.
    const stage = openImportStage(out, { force: false, stallMs: 3000, openWriter: slowWriter(1000) });
    stage.add(manyFiles(out, 512));
    expect(await stage.finish()).toBe('written');
    expect(tree(join(out, 'tasks'))).toHaveLength(512);
  });
});
