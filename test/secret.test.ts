import { mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { Secret, checkConfinedRef, describeSecretFailure, formatSecretRef, parseSecretRef, readSecretRef } from '../src/secret.js';
import type { SecretRef } from '../src/secret.js';

describe('Secret', () => {
  it('never prints its value through string, JSON or inspect', () => {
    const s = new Secret('hunter2-SEEDED');
    // eslint-disable-next-line @typescript-eslint/restrict-template-expressions -- the point: a Secret in a template literal
    const outputs = [String(s), `${s}`, JSON.stringify({ s }), inspect(s), inspect({ nested: { s } })];
    for (const out of outputs) expect(out).not.toContain('hunter2-SEEDED');
    expect(s.reveal()).toBe('hunter2-SEEDED');
  });
});

describe('secret references', () => {
  it('parses env and file references and leaves literals alone', () => {
    expect(parseSecretRef('${env:MFT_PASSWORD}')).toEqual({ kind: 'env', name: 'MFT_PASSWORD' });
    expect(parseSecretRef('${file:certs/pw.txt}')).toEqual({ kind: 'file', path: 'certs/pw.txt' });
    expect(parseSecretRef('plain-password')).toBeUndefined();
    expect(parseSecretRef('prefix ${env:X}')).toBeUndefined();
    expect(formatSecretRef({ kind: 'env', name: 'A' })).toBe('${env:A}');
  });

  it('resolves env and file values, relative to the base folder', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mftops-secret-'));
    writeFileSync(join(dir, 'pw.txt'), 's3cret\n');
    const ctx = { env: { PW: 'from-env' }, baseDir: dir };
    const value = (ref: SecretRef) => {
      const read = readSecretRef(ref, ctx);
      return read.ok ? read.secret.reveal() : read.failure;
    };
    expect(value({ kind: 'env', name: 'PW' })).toBe('from-env');
    expect(value({ kind: 'file', path: 'pw.txt' })).toBe('s3cret');
    expect(value({ kind: 'file', path: join(dir, 'pw.txt') })).toBe('s3cret');
  });

  it('says why there is no value instead of using an empty string, naming the variable or the path it looked at', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mftops-secret-'));
    writeFileSync(join(dir, 'blank.txt'), '\r\n');
    const ctx = { env: { EMPTY: '' }, baseDir: dir };
    const why = (ref: SecretRef) => {
      const read = readSecretRef(ref, ctx);
      return read.ok ? 'resolved' : describeSecretFailure(read.failure);
    };
    expect(why({ kind: 'env', name: 'NOPE' })).toBe('environment variable NOPE is not set');
    expect(why({ kind: 'env', name: 'EMPTY' })).toBe('environment variable EMPTY is set but empty');
    expect(why({ kind: 'file', path: 'missing.txt' })).toBe(`secret file ${join(dir, 'missing.txt')} does not exist`);
    expect(why({ kind: 'file', path: 'blank.txt' })).toBe(`secret file ${join(dir, 'blank.txt')} is empty`);
    expect(why({ kind: 'file', path: '.' })).toBe(`secret file ${dir} cannot be read (EISDIR)`);
  });
});

describe("checkConfinedRef: where a manifest's reference may point", () => {
  const setup = () => {
    const root = mkdtempSync(join(tmpdir(), 'mftops-confine-'));
    const outside = mkdtempSync(join(tmpdir(), 'mftops-outside-'));
    writeFileSync(join(root, 'pw.txt'), 'in\n');
    writeFileSync(join(outside, 'pw.txt'), 'out\n');
    symlinkSync(join(outside, 'pw.txt'), join(root, 'link.txt'));
    symlinkSync(outside, join(root, 'linked-folder'));
    return { root, outside, c: { fileRoots: [root], credentialVariables: ['MFT_AUTOMATION_PASSWORD'] } };
  };
  const file = (path: string): SecretRef => ({ kind: 'file', path });

  it('allows regular files inside a root, existing or not (reading says it is missing)', () => {
    const { root, c } = setup();
    expect(checkConfinedRef(file('pw.txt'), root, c)).toBeUndefined();
    expect(checkConfinedRef(file(join(root, 'pw.txt')), '/', c)).toBeUndefined();
    expect(checkConfinedRef(file('not-yet.txt'), root, c)).toBeUndefined();
    expect(checkConfinedRef({ kind: 'env', name: 'TASK_PASSWORD' }, root, c)).toBeUndefined();
  });

  it('refuses absolute paths and ../ escapes outside, symlinks (to a file or a folder) that lead outside, system folders, FIFOs and credentials', () => {
    const { root, outside, c } = setup();
    expect(checkConfinedRef(file('/etc/hostname'), root, c)).toMatchObject({ why: 'outside', path: '/etc/hostname' });
    expect(checkConfinedRef(file('../../../../../../etc/hostname'), root, c)).toMatchObject({ why: 'outside', path: '/etc/hostname' });
    expect(checkConfinedRef(file('link.txt'), root, c)).toMatchObject({ why: 'outside', resolved: join(outside, 'pw.txt') });
    expect(checkConfinedRef(file('linked-folder/pw.txt'), root, c)).toMatchObject({ why: 'outside', resolved: join(outside, 'pw.txt') });
    expect(checkConfinedRef(file('linked-folder/missing.txt'), root, c)).toMatchObject({ why: 'outside' });
    expect(checkConfinedRef(file('/proc/self/environ'), root, { ...c, fileRoots: ['/'] })).toMatchObject({ why: 'system' });
    expect(checkConfinedRef(file('/dev/stdin'), root, { ...c, fileRoots: ['/'] })).toMatchObject({ why: 'system' });
    expect(checkConfinedRef(file('.'), root, c)).toMatchObject({ why: 'not-a-file' });
    expect(checkConfinedRef({ kind: 'env', name: 'MFT_AUTOMATION_PASSWORD' }, root, c)).toEqual({
      kind: 'env',
      name: 'MFT_AUTOMATION_PASSWORD',
      why: 'credential',
    });
  });

  it('readSecretRef with a confinement refuses instead of reading, and reads what is allowed', () => {
    const { root, c } = setup();
    const read = (ref: SecretRef) => readSecretRef(ref, { env: { MFT_AUTOMATION_PASSWORD: 'admin-pw' }, baseDir: root, confinement: c });
    expect(read(file('link.txt'))).toMatchObject({ ok: false, failure: { why: 'outside' } });
    expect(read({ kind: 'env', name: 'MFT_AUTOMATION_PASSWORD' })).toMatchObject({ ok: false, failure: { why: 'credential' } });
    const ok = read(file('pw.txt'));
    expect(ok.ok && ok.secret.reveal()).toBe('in');
    // Without one (mftops.yaml's own credentials), any file is read, as before.
    const own = readSecretRef(file('link.txt'), { env: {}, baseDir: root });
    expect(own.ok && own.secret.reveal()).toBe('out');
  });
});
