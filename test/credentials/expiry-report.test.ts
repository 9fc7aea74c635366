import { describe, expect, it } from 'vitest';
import { buildExpiryReport, credentialKey, findCredentialUsers, standingOf } from '../../src/credentials/expiry-report.js';
import type { Credential } from '../../src/credentials/model.js';
import type { Host, Task } from '../../src/services/automation/types.js';

const NOW = new Date('2026-11-27T12:00:00Z');
const at = (iso: string) => ({ kind: 'at' as const, at: new Date(iso) });

const ssh: Credential = { kind: 'ssh', id: '10', name: 'client-key', expiry: at('2026-12-01T00:00:00Z') };
const cert: Credential = { kind: 'ssl', id: 'AB01', name: 'as2', expiry: at('2026-11-20T00:00:00Z'), fingerprint: 'AB01', subject: 'as2.example.com' };
const pgp: Credential = { kind: 'pgp', id: '20', name: 'partner', keyId: '0xA1', expiry: { kind: 'never' } };
const odd: Credential = { kind: 'pgp', id: '21', name: 'odd', expiry: { kind: 'unreadable', field: 'Expires', text: 'soon' } };

const hosts: Host[] = [
  { type: 'SSHFTP', ID: '1', Name: 'sftp', DefClientKeyID: '10' },
  { type: 'AS2', ID: '2', Name: 'as2', DecryptCertSubject: 'CN=AS2.example.com' },
];

describe('findCredentialUsers', () => {
  it("finds a step's own key, a host default a step takes, a certificate by subject, and a PGP key named by a parameter", () => {
    const tasks: Task[] = [
      { ID: '100', Name: 'own key', steps: [{ Source: { HostID: '9', ClientKeyID: '10' } }] },
      { ID: '101', Name: 'host default', steps: [{ For: { steps: [{ Destination: { HostID: '1', UseDefClientKey: 1 } }] } }] },
      { ID: '102', Name: 'own other key', steps: [{ Source: { HostID: '1', ClientKeyID: '11', UseDefClientKey: 0 } }] },
      { ID: '103', Name: 'pgp', steps: [{ Process: { ScriptID: '5', Parameters: { RecipientKey: { value: '0xa1' }, Note: { value: 'partner' } } } }] },
    ];
    const users = findCredentialUsers([ssh, cert, pgp], tasks, hosts);
    expect(users.get(credentialKey(ssh))).toEqual([
      { type: 'host', id: '1', name: 'sftp', field: 'DefClientKeyID' },
      { type: 'task', id: '100', name: 'own key', field: 'Source.ClientKeyID' },
      { type: 'task', id: '101', name: 'host default', field: 'For.Destination.HostID (default DefClientKeyID of host sftp)' },
    ]);
    expect(users.get(credentialKey(cert))).toEqual([{ type: 'host', id: '2', name: 'as2', field: 'DecryptCertSubject' }]);
    // `Note` says nothing of a key: a value equal to the key's name there is not a use.
    expect(users.get(credentialKey(pgp))).toEqual([{ type: 'task', id: '103', name: 'pgp', field: 'Process.Parameters.RecipientKey' }]);
  });
});

describe('buildExpiryReport', () => {
  it('keeps expired, expiring and unreadable ones, expired first, and counts every kind', () => {
    const report = buildExpiryReport([pgp, ssh, odd, cert], new Map(), NOW, 30);
    expect(report.items.map((s) => [s.credential.name, s.state, s.daysLeft])).toEqual([
      ['as2', 'expired', -8],
      ['client-key', 'expiring', 3],
      ['odd', 'unreadable', undefined],
    ]);
    expect(report.counted).toEqual({ pgp: 2, ssh: 1, ssl: 1 });
  });

  it('puts the boundary on the instant: expiring at now is expired, within N days is expiring', () => {
    expect(standingOf({ ...ssh, expiry: at('2026-11-27T12:00:00Z') }, NOW, 30).state).toBe('expired');
    expect(standingOf({ ...ssh, expiry: at('2026-12-27T12:00:00Z') }, NOW, 30).state).toBe('expiring');
    expect(standingOf({ ...ssh, expiry: at('2026-12-27T12:00:01Z') }, NOW, 30).state).toBe('valid');
  });
});
