import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../src/errors.js';
import { Secret, formatSecretRef, parseSecretRef, resolveSecretRef } from '../src/secret.js';

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
    const ctx = { env: { PW: 'from-env' }, baseDir: dir, where: 'mftops.yaml: x' };
    expect(resolveSecretRef({ kind: 'env', name: 'PW' }, ctx).reveal()).toBe('from-env');
    expect(resolveSecretRef({ kind: 'file', path: 'pw.txt' }, ctx).reveal()).toBe('s3cret');
  });

  it('names the missing variable or file instead of using an empty string', () => {
    const ctx = { env: { EMPTY: '' }, baseDir: tmpdir(), where: 'mftops.yaml: environments.prod.transfer.password' };
    expect(() => resolveSecretRef({ kind: 'env', name: 'NOPE' }, ctx)).toThrow(
      new ConfigError('mftops.yaml: environments.prod.transfer.password: environment variable NOPE is not set'),
    );
    expect(() => resolveSecretRef({ kind: 'env', name: 'EMPTY' }, ctx)).toThrow(/EMPTY is not set/);
    expect(() => resolveSecretRef({ kind: 'file', path: 'missing.txt' }, ctx)).toThrow(/cannot read secret file missing.txt \(ENOENT\)/);
  });
});
