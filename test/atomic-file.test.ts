import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeFileAtomic, writeFileAtomicSync } from '../src/atomic-file.js';
import { testdir } from './helpers/testdir.js';

describe('writeFileAtomicSync', () => {
  it('replaces the file with the whole new content, with the mode given, and leaves no other file', () => {
    const dir = testdir({ 'plan.json': 'old' });
    const path = join(dir, 'plan.json');
    writeFileAtomicSync(path, 'new\n', { mode: 0o600 });
    expect(readFileSync(path, 'utf8')).toBe('new\n');
    writeFileAtomicSync(join(dir, 'lock'), Buffer.from('x'), { mode: 0o600 });
    expect(statSync(join(dir, 'lock')).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir).sort()).toEqual(['lock', 'plan.json']);
  });

  it('on failure throws the file system error and removes its temporary file', () => {
    const dir = testdir({});
    mkdirSync(join(dir, 'report.json'));
    expect(() => writeFileAtomicSync(join(dir, 'report.json'), '{}', { mode: 0o644 })).toThrow(expect.objectContaining({ code: 'EISDIR' }));
    expect(readdirSync(dir)).toEqual(['report.json']);
    expect(() => writeFileAtomicSync(join(dir, 'missing', 'x'), '{}', { mode: 0o644 })).toThrow(expect.objectContaining({ code: 'ENOENT' }));
  });
});

describe('writeFileAtomic', () => {
  it('writes data, or what a writer puts into the open file, and syncs it into place', async () => {
    const dir = testdir({});
    await writeFileAtomic(join(dir, 'a'), 'text', { mode: 0o600 });
    await writeFileAtomic(join(dir, 'b'), (file) => file.writeFile('by writer'), { mode: 0o600 });
    expect(readFileSync(join(dir, 'a'), 'utf8')).toBe('text');
    expect(readFileSync(join(dir, 'b'), 'utf8')).toBe('by writer');
    expect(statSync(join(dir, 'b')).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir).sort()).toEqual(['a', 'b']);
  });

  it('a writer that fails leaves the old file as it was and no temporary file', async () => {
    const dir = testdir({});
    writeFileSync(join(dir, 'a'), 'old');
    await expect(
      writeFileAtomic(
        join(dir, 'a'),
        async (file) => {
          await file.writeFile('half');
          throw new Error('key gone');
        },
        { mode: 0o600 },
      ),
    ).rejects.toThrow('key gone');
    expect(readFileSync(join(dir, 'a'), 'utf8')).toBe('old');
    expect(readdirSync(dir)).toEqual(['a']);
  });
});
