import { describe, expect, it } from 'vitest';
import { parseExpiry, readCredential } from '../../src/services/automation/normalize-credentials.js';

// Register A-31: every plausible form of a key's or certificate's expiry, read in one place.

const AT = '2026-12-07T00:00:00.000Z';

describe('parseExpiry', () => {
  it('reads the .NET minimum date in every form (and any instant before 1900) as never, not as a date long past nor unreadable', () => {
    for (const text of [
      '0001-01-01T00:00:00.000',
      '0001-01-01 00:00:00',
      '1/1/0001 12:00:00 AM',
      '0001-01-01T00:00:00.0000000Z',
      '1899-12-31',
      '/Date(-62135596800000)/',
    ])
      expect(parseExpiry('ExpDate', text), text).toEqual({ kind: 'never' });
    expect(parseExpiry('ExpDate', '1900-01-01')).toEqual({ kind: 'at', at: new Date('1900-01-01T00:00:00Z') });
  });

  it.each([
    ['ISO instant', '2026-12-07T00:00:00Z'],
    ['ISO instant with fraction', '2026-12-07T00:00:00.000Z'],
    ['ISO with offset', '2026-12-07T01:00:00+01:00'],
    ['ISO with compact offset', '2026-12-07T01:00:00+0100'],
    ['ISO without zone (UTC)', '2026-12-07T00:00:00'],
    ['ISO with a space', '2026-12-07 00:00:00'],
    ['date only (start of day, UTC)', '2026-12-07'],
    ['epoch seconds', 1796601600],
    ['epoch seconds as digits', '1796601600'],
    ['epoch milliseconds', 1796601600000],
    ['.NET JSON date', '/Date(1796601600000)/'],
    ['US date-time', '12/7/2026 12:00:00 AM'],
    ['US date', '12/7/2026'],
    ['US 24-hour', '12/07/2026 00:00'],
  ])('reads %s', (_label, value) => {
    const e = parseExpiry('ExpDate', value);
    expect(e.kind).toBe('at');
    expect(e.kind === 'at' && e.at.toISOString()).toBe(AT);
  });

  it.each(['', 'never', 'Never', 'none', 0, '0', '0001-01-01T00:00:00', '9999-12-31'])('reads %j as no expiry', (value) => {
    expect(parseExpiry('Expires', value)).toEqual({ kind: 'never' });
  });

  it.each(['soon', '31/12/2026', '2/30/2026', '13:00 tomorrow', true, { at: 1 }])('refuses to guess %j: unreadable, with the text', (value) => {
    const e = parseExpiry('ExpDate', value);
    expect(e.kind).toBe('unreadable');
  });
});

describe('readCredential', () => {
  it('finds the expiry under any of the plausible names, case-insensitively, and keeps no key material', () => {
    for (const field of ['ExpirationDate', 'expires', 'expiryDate', 'NotAfter', 'ValidTo', 'EXPDATE']) {
      const c = readCredential('pgp', { ID: 7, Name: 'k', [field]: '2026-12-07', PrivateKey: 'x', publicKeyOpenSSH: 'ssh-ed25519 AAAA' });
      expect(c.expiry, field).toEqual({ kind: 'at', at: new Date(AT) });
      expect(JSON.stringify(c)).not.toMatch(/ssh-ed25519|PrivateKey/);
    }
  });

  it('gives a certificate its thumbprint as id and fingerprint, its subject and issuer; an SSH key without expiry never expires', () => {
    expect(readCredential('ssl', { ID: '', Sha1Thumbprint: 'AB01', IssuedTo: 'as2.example.com', Issuer: 'CA', ExpDate: '12/7/2026 12:00:00 AM' })).toEqual({
      kind: 'ssl',
      id: 'AB01',
      name: 'as2.example.com',
      expiry: { kind: 'at', at: new Date(AT) },
      fingerprint: 'AB01',
      subject: 'as2.example.com',
      issuer: 'CA',
    });
    expect(readCredential('ssh', { ID: '5', Name: 's', fingerprint: 'SHA256:x', publicKeySSH: 'AAAA' })).toEqual({
      kind: 'ssh',
      id: '5',
      name: 's',
      expiry: { kind: 'never' },
      fingerprint: 'SHA256:x',
    });
  });
});
