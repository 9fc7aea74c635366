import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunningEmulator, Variants } from '../../src/emulator/index.js';
import { loadSeedFile, startEmulator } from '../../src/emulator/index.js';
import { automationBase, login } from './helpers.js';

// SPEC rules 190–194: PGP keys, SSH keys, SSL certificates; public metadata only.

const SEED = loadSeedFile(fileURLToPath(new URL('../fixtures/credentials/seed.json', import.meta.url)));
const ADMIN = { username: 'admin', password: 'admin-Pa55!keys' };

let emu: RunningEmulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

async function api(variants: Partial<Variants> = {}) {
  emu = await startEmulator({ seed: SEED, variants });
  return login(automationBase(emu), ADMIN);
}

describe('emulator keys and certificates', () => {
  it('rules 190, 191: lists in the envelope, keys by name, certificates by issuer with the issuer mask; get by id or thumbprint (any case); 404 otherwise', async () => {
    const a = await api();
    const pgp = await a.get('/pgpkeys');
    expect(pgp.status).toBe(200);
    expect(pgp.body.items.map((k: { Name: string }) => k.Name)).toEqual(['internal-pgp', 'partner-a-pgp', 'partner-b-pgp']);
    expect(pgp.body.paging.totalItems).toBe(3);
    const page = await a.get('/pgpkeys?page=2&perPage=1');
    expect(page.body.items.map((k: { Name: string }) => k.Name)).toEqual(['partner-a-pgp']);
    const certs = await a.get('/sslcerts');
    expect(certs.body.items.map((c: { Issuer: string }) => c.Issuer)).toEqual(['Another CA', 'Example Issuing CA']);
    expect(certs.body.sorting).toEqual([{ sortField: 'Issuer', sortDirection: 'asc' }]);
    expect((await a.get('/sslcerts?issuer=example*')).body.items).toHaveLength(1);
    expect((await a.get('/sslcerts/abcdef0123456789abcdef0123456789abcdef01')).body.IssuedTo).toBe('as2.example.com');
    expect((await a.get('/pgpkeys/500001')).body).toMatchObject({ Name: 'partner-a-pgp', ExpirationDate: '2026-11-01T00:00:00Z' });
    expect((await a.get('/pgpkeys/500003')).body.ExpirationDate).toBe('');
    expect((await a.get('/sshkeys/500010')).body.fingerprint).toMatch(/^SHA256:/);
    expect((await a.get('/sshkeys/999')).status).toBe(404);
    expect((await a.call('DELETE', '/pgpkeys/500001')).status).not.toBe(200);
  });

  it('rule 193: automation.keyDates=windows answers Expires in epoch seconds (0 = never) and US certificate dates', async () => {
    const a = await api({ 'automation.keyDates': 'windows' });
    const expired = (await a.get('/pgpkeys/500001')).body;
    expect(expired.Expires).toBe(Date.UTC(2026, 10, 1) / 1000);
    expect(expired.ExpirationDate).toBeUndefined();
    expect((await a.get('/pgpkeys/500003')).body.Expires).toBe(0);
    expect((await a.get('/sslcerts/ABCDEF0123456789ABCDEF0123456789ABCDEF01')).body.ExpDate).toBe('12/7/2026 12:00:00 AM');
  });

  it('rule 192: a seed key with private material, or a date that is not an ISO instant, is refused', async () => {
    await expect(startEmulator({ seed: { automation: { pgpKeys: [{ Name: 'k', PrivateKey: 'xxx' }] } } })).rejects.toThrow(
      /PrivateKey looks like private key material/,
    );
    await expect(startEmulator({ seed: { automation: { sslCerts: [{ Name: 'c', Sha1Thumbprint: 'AA', ExpDate: 'soon' }] } } })).rejects.toThrow(
      /ExpDate must be an ISO instant/,
    );
  });
});
