import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { Secret, describeSecretFailure, formatSecretRef, parseSecretRef, readSecretRef } from '../src/secret.js';
import type { SecretRef } from '../src/secret.js';

describe('Secret', () => {
  it('never prints its value through string, JSON or inspect', () => {
    const s = new Secret('hunter2-SEEDED');
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
