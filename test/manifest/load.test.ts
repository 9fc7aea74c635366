import { createHash } from 'node:crypto';
import { closeSync, existsSync, openSync, readdirSync, readFileSync, symlinkSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadManifests, readOpenFile, readSmallFile } from '../../src/manifest/load.js';
import { parseManifestFile } from '../../src/manifest/parse.js';
import type { TaskManifest } from '../../src/manifest/types.js';
import { positionOf } from '../helpers/position-of.js';
import { testdir } from '../helpers/testdir.js';

const ROOT = join(import.meta.dirname, '..', '..');
const EXAMPLES = join(ROOT, 'examples', 'manifests');

const TASK = (name: string, extra = '') => `apiVersion: mftops/v1\nkind: Task\nmetadata:\n  name: ${name}\nspec:\n  Active: 1\n${extra}`;

describe('examples', () => {
  it('are all valid, with the kinds and counts the seed expects', async () => {
    const set = await loadManifests([EXAMPLES]);
    expect(set.diagnostics).toEqual([]);
    const count = (kind: string) => set.manifests.filter((m) => m.kind === kind).length;
    expect(count('Task')).toBeGreaterThanOrEqual(12);
    expect(count('ResourceGroupAcl')).toBeGreaterThanOrEqual(4);
    expect(count('FolderPermissions')).toBeGreaterThanOrEqual(4);
    const folders = set.manifests.filter((m) => m.kind === 'FolderPermissions');
    expect(folders.some((m) => m.kind === 'FolderPermissions' && m.spec.createIfMissing !== undefined)).toBe(true);
  });

  it('each start with a schema comment that points at manifest.schema.json', () => {
    const files = readdirSync(EXAMPLES, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.yaml'));
    expect(files.length).toBeGreaterThan(0);
    for (const f of files) {
      const first = readFileSync(join(EXAMPLES, f), 'utf8').split('\n')[0]!;
      const m = /^# yaml-language-server: \$schema=(\S+)$/.exec(first);
      expect(m, f).not.toBeNull();
      const target = resolve(dirname(join(EXAMPLES, f)), m![1]!);
      expect(target).toBe(join(ROOT, 'schemas', 'manifest.schema.json'));
      expect(existsSync(target)).toBe(true);
    }
  });
});

describe('loading files and folders', () => {
  it('reads *.yaml and *.yml recursively in sorted order, skipping hidden folders and node_modules', async () => {
    const dir = testdir({
      'm/b.yaml': TASK('B'),
      'm/a/z.yml': TASK('Z'),
      'm/a/y.YAML': TASK('Y'),
      'm/notes.txt': 'not yaml',
      'm/.github/workflows/ci.yml': 'on: push\n',
      'm/node_modules/pkg/x.yaml': 'junk: [\n',
      'extra.manifest': TASK('Explicit'),
    });
    const set = await loadManifests(['m', 'extra.manifest'], { cwd: dir });
    expect(set.diagnostics).toEqual([]);
    expect(set.files.map((f) => f.slice(dir.length + 1))).toEqual(['extra.manifest', 'm/a/y.YAML', 'm/a/z.yml', 'm/b.yaml']);
    expect(set.manifests.map((m) => m.name).sort()).toEqual(['B', 'Explicit', 'Y', 'Z']);
  });

  it('with onFile, lets the event loop turn while the set is checked, and checks it as without', async () => {
    // Plan's reads started while loading are served in those turns (src/app/prefetch-reads.ts).
    const dir = testdir({ 'm/a.yaml': TASK('A'), 'm/b.yaml': TASK('B', '  Bogus: 1\n'), 'm/c.yaml': TASK('C') });
    const events: string[] = [];
    let seen = 0;
    const onFile = (): void => {
      if (++seen === 3) setImmediate(() => events.push('turn'));
    };
    const set = await loadManifests(['m'], { cwd: dir, onFile });
    events.push('loaded');
    expect(events).toEqual(['turn', 'loaded']);
    const plain = await loadManifests(['m'], { cwd: dir });
    expect(set.diagnostics).toEqual(plain.diagnostics);
    expect(set.diagnostics.length).toBeGreaterThan(0);
    expect(set.manifests.map((m) => [m.name, m.spec])).toEqual(plain.manifests.map((m) => [m.name, m.spec]));
    expect(set.manifests.map((m) => m.name)).toEqual(['A', 'C']);
  });

  it('reads a file once when two paths reach it', async () => {
    const dir = testdir({ 'm/a.yaml': TASK('A') });
    symlinkSync(join(dir, 'm'), join(dir, 'link'));
    const set = await loadManifests(['m', 'm/a.yaml', 'link'], { cwd: dir });
    expect(set.diagnostics).toEqual([]);
    expect(set.manifests).toHaveLength(1);
  });

  it('reads a file once when a link inside a folder leads to a folder listed beside it, at any depth', async () => {
    const dir = testdir({ 'm/a.yaml': TASK('A'), 'other/deep/b.yaml': TASK('B'), 'other/c.yaml': TASK('C') });
    symlinkSync(join(dir, 'other'), join(dir, 'm', 'link'));
    symlinkSync(join(dir, 'other', 'deep'), join(dir, 'm', 'deeplink'));
    const set = await loadManifests(['m', 'other'], { cwd: dir });
    expect(set.diagnostics).toEqual([]);
    // Each file by the first path that reached it (the folders are walked in name order).
    expect(set.files).toEqual([join(dir, 'm/a.yaml'), join(dir, 'm/deeplink/b.yaml'), join(dir, 'm/link/c.yaml')]);
    expect(set.manifests.map((m) => m.name).sort()).toEqual(['A', 'B', 'C']);
  });

  it('reads multi-document files and ignores empty documents between separators', async () => {
    const text = `---\n${TASK('One')}---\n---\n${TASK('Two')}...\n`;
    const dir = testdir({ 'multi.yaml': text });
    const set = await loadManifests(['multi.yaml'], { cwd: dir });
    expect(set.diagnostics).toEqual([]);
    expect(set.manifests.map((m) => [m.name, m.source.line])).toEqual([
      ['One', positionOf(text, 'apiVersion').line],
      ['Two', positionOf(text, 'apiVersion', text.indexOf('Two') - 60).line],
    ]);
  });

  it('accepts CRLF line endings and a byte order mark', async () => {
    const text = `\ufeff${TASK('Windows', '  Info: { Description: made on Windows }\n').replace(/\n/g, '\r\n')}`;
    const dir = testdir({ 'crlf.yaml': text });
    const set = await loadManifests(['crlf.yaml'], { cwd: dir });
    expect(set.diagnostics).toEqual([]);
    expect(set.manifests[0]?.name).toBe('Windows');
  });

  it('accepts anchors and merge keys, and points errors inside them at the anchor', async () => {
    const text = [
      'apiVersion: mftops/v1',
      'kind: Task',
      'metadata: { name: Anchored }',
      'spec:',
      '  steps:',
      '    - Source: &src',
      '        Host: payroll-sftp',
      '        RetryCount: 40000',
      '    - Destination:',
      '        <<: *src',
      '        Path: /in',
      '',
    ].join('\n');
    const dir = testdir({ 'anchors.yaml': text });
    const set = await loadManifests(['anchors.yaml'], { cwd: dir });
    const errors = set.diagnostics.filter((d) => d.code === 'MF205');
    expect(errors.length).toBeGreaterThan(0);
    for (const e of errors) expect([e.line, e.col]).toEqual(Object.values(positionOf(text, '40000')));
  });

  it('keeps secret references as written and never resolves them', async () => {
    const dir = testdir({
      'secret.yaml': TASK('S', '  steps:\n    - Source: { Host: h, Password: "${env:DEFINITELY_UNSET_VAR}" }\n'),
    });
    const set = await loadManifests(['secret.yaml'], { cwd: dir });
    expect(set.diagnostics).toEqual([]);
    const task = set.manifests[0] as TaskManifest;
    expect(task.spec.steps?.[0]).toEqual({ Source: { Host: 'h', Password: '${env:DEFINITELY_UNSET_VAR}' } });
  });
});

describe('reading files', () => {
  /** A valid task manifest of exactly `size` bytes (padded with a comment). */
  const taskOfSize = (name: string, size: number): Buffer => {
    const text = TASK(name);
    const padding = size - Buffer.byteLength(text) - 2;
    if (padding < 0) throw new Error(`a manifest needs more than ${size} bytes`);
    return Buffer.from(`${text}#${'x'.repeat(padding)}\n`);
  };
  const sha256 = (bytes: Buffer): string => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

  it('reads whole files of every size, found in folders or named, and hashes the bytes read', async () => {
    const sizes = [200, 4096, 65_535, 65_536, 65_537, 300_000];
    const files: Record<string, Buffer> = { 'm/empty.yaml': Buffer.alloc(0) };
    for (const size of sizes) files[`m/s${size}.yaml`] = taskOfSize(`S${size}`, size);
    files['named.yaml'] = taskOfSize('Named', 70_000);
    const dir = testdir(files);
    symlinkSync(join(dir, 'named.yaml'), join(dir, 'm', 'linked.yaml'));
    const set = await loadManifests(['m', 'named.yaml'], { cwd: dir });
    expect(set.diagnostics.map((d) => [d.code, d.file])).toEqual([['MF006', join(dir, 'm/empty.yaml')]]);
    expect(set.manifests.map((m) => m.name).sort()).toEqual([...sizes.map((s) => `S${s}`), 'Named'].sort());
    // The link and the file it points to are one file, read once, by the first path that reached it.
    expect(set.files).toEqual([join(dir, 'm/empty.yaml'), join(dir, 'm/linked.yaml'), ...sizes.map((s) => join(dir, `m/s${s}.yaml`))].sort());
    for (const [path, bytes] of Object.entries(files)) {
      const file = path === 'named.yaml' ? join(dir, 'm/linked.yaml') : join(dir, path);
      expect(set.fileHashes.get(file), path).toBe(sha256(bytes));
    }
  });

  it('applies the size limit to files found in folders, below and above its read buffer', async () => {
    const dir = testdir({
      'small/at.yaml': taskOfSize('At', 500),
      'small/over.yaml': taskOfSize('Over', 501),
      'large/at.yaml': taskOfSize('At', 100_000),
      'large/over.yaml': taskOfSize('Over', 100_001),
    });
    const small = await loadManifests(['small'], { cwd: dir, limits: { maxFileBytes: 500 } });
    expect(small.manifests.map((m) => m.name)).toEqual(['At']);
    expect(small.diagnostics.map((d) => [d.code, d.file, d.summary])).toEqual([
      ['MF004', join(dir, 'small/over.yaml'), 'file is 501 bytes, over the 500 bytes limit for a manifest file'],
    ]);
    expect(small.fileHashes.has(join(dir, 'small/over.yaml'))).toBe(false);
    const large = await loadManifests(['large'], { cwd: dir, limits: { maxFileBytes: 100_000 } });
    expect(large.manifests.map((m) => m.name)).toEqual(['At']);
    expect(large.diagnostics.map((d) => [d.code, d.file])).toEqual([['MF004', join(dir, 'large/over.yaml')]]);
  });

  it('bounds the total of all files of one load: past it, MF008 naming the total and the limit, and nothing parsed or checked', async () => {
    const dir = testdir({
      'm/1.yaml': taskOfSize('One', 600),
      'm/2.yaml': taskOfSize('Two', 600),
      // Broken, and after the limit is passed: never parsed, so no MF001.
      'm/3.yaml': Buffer.from('a: [unclosed\n'),
      'big/1.yaml': taskOfSize('Big one', 100_000),
      'big/2.yaml': taskOfSize('Big two', 100_000),
    });
    const over = await loadManifests(['m'], { cwd: dir, limits: { maxTotalBytes: 1000 } });
    expect(over.manifests).toEqual([]);
    expect(over.diagnostics.map((d) => [d.code, d.severity, d.file, d.summary])).toEqual([
      ['MF008', 'error', join(dir, 'm/2.yaml'), 'the manifests hold 1.2 KB in 3 files, over the 1000 bytes limit for one run; nothing was checked'],
    ]);
    // Loaded without a configuration (validate PATH…, fmt): mftops.yaml's limit does not count, and the hint does not send the user there.
    expect(over.diagnostics[0]!.hint).toBe(
      'checked without a configuration, so the default limit counts: check fewer files at a time, or run mftops validate --config mftops.yaml PATH… to use its limits.manifestMegabytes',
    );
    // At the limit exactly, everything is read.
    const at = await loadManifests(['m/1.yaml', 'm/2.yaml'], { cwd: dir, limits: { maxTotalBytes: 1200 } });
    expect(at.diagnostics).toEqual([]);
    expect(at.manifests.map((m) => m.name)).toEqual(['One', 'Two']);
    // Files above the read buffer, and the limit from the environment (mftops.yaml's limits.manifestMegabytes).
    const big = await loadManifests(['big'], { cwd: dir, environment: { vars: {}, maxManifestBytes: 150_000 } });
    expect(big.diagnostics.map((d) => [d.code, d.summary])).toEqual([
      ['MF008', 'the manifests hold 195.3 KB in 2 files, over the 146.5 KB limit for one run; nothing was checked'],
    ]);
    expect(big.diagnostics[0]!.hint).toBe('raise limits.manifestMegabytes in mftops.yaml, or check fewer files at a time');
  });

  it('names the files of a folder however the folder is spelled', async () => {
    const dir = testdir({ 'm/a.yaml': TASK('A'), 'm/sub/b.yml': TASK('B') });
    for (const spelling of ['m', 'm/', './m', 'm/sub/..', join(dir, 'm')]) {
      const set = await loadManifests([spelling], { cwd: dir });
      expect(set.files, spelling).toEqual([join(dir, 'm', 'a.yaml'), join(dir, 'm', 'sub', 'b.yml')]);
    }
  });

  it('reads an open file up to the size it was given, or to its end when that size is 0', () => {
    const dir = testdir({ 'ten.txt': '0123456789', 'empty.txt': '' });
    const read = (name: string, fn: (fd: number) => Buffer | undefined): string | undefined => {
      const fd = openSync(join(dir, name), 'r');
      try {
        return fn(fd)?.toString();
      } finally {
        closeSync(fd);
      }
    };
    expect(read('ten.txt', (fd) => readOpenFile(fd, 10))).toBe('0123456789');
    expect(read('ten.txt', (fd) => readOpenFile(fd, 4))).toBe('0123');
    // A file that shrank since its size was taken, or one that reports no size.
    expect(read('ten.txt', (fd) => readOpenFile(fd, 20))).toBe('0123456789');
    expect(read('ten.txt', (fd) => readOpenFile(fd, 0))).toBe('0123456789');
    expect(read('empty.txt', (fd) => readOpenFile(fd, 0))).toBe('');
    // The small-file read takes a file under the limit whole and leaves a larger one unread.
    expect(read('ten.txt', (fd) => readSmallFile(fd, 10))).toBe('0123456789');
    expect(read('ten.txt', (fd) => readSmallFile(fd, 9))).toBeUndefined();
    expect(read('ten.txt', (fd) => (readSmallFile(fd, 9), readOpenFile(fd, 10)))).toBe('0123456789');
    expect(read('empty.txt', (fd) => readSmallFile(fd, 0))).toBe('');
  });
});

describe('the desired-state model', () => {
  it('holds 0/1 fields as numbers and parameters as {value, secret}', async () => {
    const dir = testdir({
      't.yaml': TASK(
        'Model',
        [
          '  AR: false',
          '  Parameters:',
          '    Region: eu',
          '    Batch: 25',
          '    ApiKey: { value: "${env:API_KEY}", secret: true }',
          '    Token: ${file:token.txt}',
          '  steps:',
          '    - Source: { Host: h, SearchSubdirs: true, UseDefUser: false, DeleteOrig: 0 }',
          '    - Process: { Script: Unzip, Parameters: { Mode: fast } }',
          '',
        ].join('\n'),
      ).replace('Active: 1', 'Active: true'),
    });
    const set = await loadManifests(['t.yaml'], { cwd: dir });
    expect(set.diagnostics).toEqual([]);
    const task = set.manifests[0] as TaskManifest;
    expect(task.spec.Active).toBe(1);
    expect(task.spec.AR).toBe(0);
    expect(task.spec.Parameters).toEqual({
      Region: { value: 'eu', secret: false },
      Batch: { value: '25', secret: false },
      ApiKey: { value: '${env:API_KEY}', secret: true },
      Token: { value: '${file:token.txt}', secret: true },
    });
    expect(task.spec.steps).toEqual([
      { Source: { Host: 'h', SearchSubdirs: 1, UseDefUser: 0, DeleteOrig: 0 } },
      { Process: { Script: 'Unzip', Parameters: { Mode: { value: 'fast', secret: false } } } },
    ]);
  });

  it('maps any JSON path of a document to its file, line and column', async () => {
    const text = TASK('Mapped', '  steps:\n    - Source: { Host: payroll-sftp, Path: /out }\n    - Process: { Script: PGP Encrypt }\n');
    const dir = testdir({ 'map.yaml': text });
    const set = await loadManifests(['map.yaml'], { cwd: dir });
    const task = set.manifests[0]!;
    const script = positionOf(text, 'PGP Encrypt');
    expect(task.sourceMap.locate('/spec/steps/1/Process/Script')).toMatchObject({ file: join(dir, 'map.yaml'), ...script });
    expect(task.sourceMap.locate(['spec', 'steps', 1, 'Process', 'Script'], 'key')).toMatchObject(positionOf(text, 'Script'));
    // A path that is not in the document falls back to the deepest part that is.
    expect(task.sourceMap.locate(['spec', 'steps', 0, 'Source', 'RetryCount'], 'key')).toMatchObject(positionOf(text, 'Source'));
    expect(task.source).toMatchObject({ line: 1, col: 1 });
  });

  it('leaves out documents with errors but keeps the valid ones of the same run', async () => {
    const dir = testdir({ 'a.yaml': TASK('Good'), 'b.yaml': TASK('Bad', '  Active: 1\n') });
    const set = await loadManifests(['.'], { cwd: dir });
    expect(set.manifests.map((m) => m.name)).toEqual(['Good']);
    expect(set.diagnostics.map((d) => [d.code, d.file])).toEqual([['MF002', join(dir, 'b.yaml')]]);
  });
});

describe('parseManifestFile', () => {
  it('treats text with a NUL character as binary', () => {
    const parsed = parseManifestFile('x.yaml', 'a: 1\u0000\n');
    expect(parsed.diagnostics.map((d) => d.code)).toEqual(['MF005']);
  });

  it('applies the size limit it is given', () => {
    const parsed = parseManifestFile('x.yaml', TASK('A'), { maxFileBytes: 10, maxAliasCount: 100, maxTotalBytes: 1000 });
    expect(parsed.diagnostics.map((d) => d.code)).toEqual(['MF004']);
  });

  it('reports YAML 1.1 style custom tags as warnings, not errors', () => {
    const parsed = parseManifestFile('x.yaml', TASK('A', '  Info: { Description: !Sub text }\n'));
    expect(parsed.diagnostics.map((d) => [d.severity, d.code])).toEqual([['warning', 'MF001']]);
    expect(parsed.documents).toHaveLength(1);
  });
});
