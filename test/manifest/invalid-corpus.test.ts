import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { runValidate } from '../../src/cli/commands/validate.js';
import { captureIo } from '../../src/cli/io.js';
import { loadManifests } from '../../src/manifest/load.js';
import { testdir } from '../helpers/testdir.js';

/** Bytes read from files named `huge.yaml`: the loader's reads, counted where they happen. */
const hugeReads = vi.hoisted(() => ({ open: new Set<number>(), bytes: 0 }));
vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>();
  return {
    ...fs,
    openSync: ((...args: Parameters<typeof fs.openSync>) => {
      const fd = fs.openSync(...args);
      if (String(args[0]).endsWith('huge.yaml')) hugeReads.open.add(fd);
      return fd;
    }) as typeof fs.openSync,
    readSync: ((fd: number, ...rest: unknown[]) => {
      const n = (fs.readSync as (fd: number, ...r: unknown[]) => number)(fd, ...rest);
      if (hugeReads.open.has(fd)) hugeReads.bytes += n;
      return n;
    }) as typeof fs.readSync,
    closeSync: ((fd: number) => {
      hugeReads.open.delete(fd);
      fs.closeSync(fd);
    }) as typeof fs.closeSync,
  };
});

const ROOT = join(import.meta.dirname, '..', '..');
const CORPUS = join(ROOT, 'test', 'fixtures', 'invalid');
const golden = JSON.parse(readFileSync(join(CORPUS, 'expected.json'), 'utf8')) as { cases: Record<string, { code: string; line: number }> };
const cases = Object.entries(golden.cases);

/** A JavaScript stack frame, as a crash would print it. */
const STACK_FRAME = /^\s+at .+(:\d+:\d+\)?|\(native\))$/m;

describe('invalid manifest corpus', () => {
  it('has at least 60 cases and a golden entry for every fixture file', () => {
    const files = readdirSync(CORPUS).filter((f) => f !== 'expected.json');
    expect(cases.length).toBeGreaterThanOrEqual(60);
    expect(files.sort()).toEqual(Object.keys(golden.cases).sort());
  });

  it.each(cases)('%s: reports its code on its line, nothing else, no crash', async (name, want) => {
    const io = captureIo({ cwd: ROOT });
    const code = await runValidate({ paths: [join(CORPUS, name)], format: 'text' }, io);
    const out = io.out();
    expect(code).toBe(1);
    expect(io.err()).toBe('');
    expect(out).not.toMatch(STACK_FRAME);
    const shown = relative(ROOT, join(CORPUS, name));
    const errorLines = out.split('\n').filter((l) => / error MF\d{3}: /.test(l));
    expect(errorLines.length).toBeGreaterThan(0);
    // One mistake, one kind of error: every error names the expected code ...
    for (const line of errorLines) expect(line).toContain(` error ${want.code}: `);
    // ... and one of them is on the expected line of this file.
    expect(errorLines.some((l) => l.startsWith(`${shown}:${want.line}:`))).toBe(true);
  });

  it('reports every problem of every file in one run, sorted by file, line and column', async () => {
    const set = await loadManifests([CORPUS]);
    for (const [name, want] of cases) {
      expect(set.diagnostics.some((d) => d.file === join(CORPUS, name) && d.code === want.code && d.line === want.line)).toBe(true);
    }
    const keys = set.diagnostics.map((d) => [d.file ?? '', d.line ?? 0, d.col ?? 0] as const);
    const sorted = [...keys].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] - b[1] || a[2] - b[2]));
    expect(keys).toEqual(sorted);
  });

  it('leaves Object.prototype alone when a manifest has __proto__ keys', async () => {
    await loadManifests([join(CORPUS, 'root-proto-key.yaml'), join(CORPUS, 'spec-proto-key.yaml')]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(({} as Record<string, unknown>).Active).toBeUndefined();
  });
});

describe('generated hostile inputs', () => {
  it('refuses a 50 MB file without reading it into the parser', async () => {
    const dir = testdir({});
    const file = join(dir, 'huge.yaml');
    const line = Buffer.from('- { a: "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx" }\n');
    writeFileSync(file, Buffer.alloc(50 * 1024 * 1024, line));
    const io = captureIo({ cwd: dir });
    const code = await runValidate({ paths: ['huge.yaml'], format: 'text' }, io);
    expect(code).toBe(1);
    expect(io.out()).toMatch(/^huge\.yaml:1:1: error MF004: file is 50 MB, over the 10 MB limit/m);
    // At most the first 64 KiB (the small-file probe) was read: the size alone refused it.
    expect(hugeReads.bytes).toBeLessThanOrEqual(64 * 1024);
  });

  it('reports a document nested 100,000 levels deep instead of overflowing the stack', async () => {
    const dir = testdir({ 'deep.yaml': `spec: ${'['.repeat(100_000)}${']'.repeat(100_000)}\n` });
    const io = captureIo({ cwd: dir });
    const code = await runValidate({ paths: ['deep.yaml'], format: 'text' }, io);
    expect(code).toBe(1);
    expect(io.out()).toMatch(/^deep\.yaml:1:\d+: error MF003: /m);
    expect(io.out()).not.toMatch(STACK_FRAME);
  });

  it('reports a path that does not exist, and still checks the others', async () => {
    const dir = testdir({ 'ok.yaml': 'apiVersion: mftops/v1\nkind: Task\nmetadata: { name: A }\nspec: { Active: 1 }\n' });
    const io = captureIo({ cwd: dir });
    const code = await runValidate({ paths: ['missing.yaml', 'ok.yaml', 'missing-folder/'], format: 'text' }, io);
    expect(code).toBe(1);
    expect(io.out()).toContain('\nmissing.yaml: error MF007: cannot read missing.yaml: no such file or folder\n');
    expect(io.out()).toMatch(/^missing-folder: error MF007: /m);
    expect(io.out()).toMatch(/2 errors in 2 files\n$/);
  });

  it('reports a folder without manifests', async () => {
    const dir = testdir({ 'docs/readme.md': '# no yaml here\n' });
    const io = captureIo({ cwd: dir });
    expect(await runValidate({ paths: ['docs'], format: 'text' }, io)).toBe(1);
    expect(io.out()).toContain('docs:1:1: error MF006: no *.yaml or *.yml files under docs');
  });
});
