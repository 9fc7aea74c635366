import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openWriteThread } from '../../src/import/write-thread.js';
import type { WriteItem } from '../../src/import/write-thread.js';
import { testdir } from '../helpers/testdir.js';

/** One batch through the thread: the error and the index it reports. */
function writeOne(items: readonly WriteItem[]): Promise<{ err: NodeJS.ErrnoException | undefined; at: number }> {
  const thread = openWriteThread();
  return new Promise<{ err: NodeJS.ErrnoException | undefined; at: number }>((done) => thread.write(items, (err, at) => done({ err, at }))).finally(() =>
    thread.close(),
  );
}

describe('openWriteThread', () => {
  it('writes every file of every batch whole, and reports each batch in the order given', async () => {
    const dir = testdir({});
    const thread = openWriteThread();
    const reported: number[] = [];
    const batches = Array.from({ length: 5 }, (_, b) =>
      Array.from({ length: 40 }, (_, i): WriteItem => [join(dir, `f${b}-${i}.yaml`), `n: ${b * 40 + i}\né\n`]),
    );
    await Promise.all(
      batches.map(
        (items, b) =>
          new Promise<void>((done, fail) =>
            thread.write(items, (err, at) => {
              reported.push(b);
              if (err !== undefined) fail(err);
              else if (at !== items.length) fail(new Error(`at ${at}`));
              else done();
            }),
          ),
      ),
    );
    thread.close();
    expect(reported).toEqual([0, 1, 2, 3, 4]);
    for (const [path, text] of batches.flat()) expect(readFileSync(path, 'utf8')).toBe(text);
  });

  it('stops a batch at the first file it cannot create, and says which with the system error (never replacing a file that is there)', async () => {
    const dir = testdir({ 'b.yaml': 'mine\n' });
    const { err, at } = await writeOne([
      [join(dir, 'a.yaml'), 'a\n'],
      [join(dir, 'b.yaml'), 'b\n'],
      [join(dir, 'c.yaml'), 'c\n'],
    ]);
    expect(at).toBe(1);
    expect(err).toMatchObject({ code: 'EEXIST', syscall: 'open', path: join(dir, 'b.yaml') });
    expect(readFileSync(join(dir, 'b.yaml'), 'utf8')).toBe('mine\n');
    expect(existsSync(join(dir, 'c.yaml'))).toBe(false);
  });

  it('says ENOENT with the path for a folder that is not there', async () => {
    const dir = testdir({});
    const { err, at } = await writeOne([[join(dir, 'missing', 'a.yaml'), 'a\n']]);
    expect(at).toBe(0);
    expect(err).toMatchObject({ code: 'ENOENT', path: join(dir, 'missing', 'a.yaml') });
  });
});
