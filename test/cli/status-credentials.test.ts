import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterEach, describe, expect, it } from 'vitest';
import { emulatorConfigYaml } from '../../src/emulator/config-for.js';
import { loadSeedFile, startEmulator } from '../../src/emulator/index.js';
import type { RunningEmulator, Variants } from '../../src/emulator/index.js';
import { findSchemasDir, SCHEMA_BASE_URL } from '../../src/manifest/schemas.js';
import { listWrites } from '../helpers/emulator-test-api.js';
import { hasStackTrace, runCli } from '../helpers/run-cli.js';
import { testdir } from '../helpers/testdir.js';

// Issue 28 item 5: `mftops status` lists the keys and certificates expired or expiring, with the
// hosts and tasks that use each, on the clock of MFTOPS_NOW; read-only.

const SEED = fileURLToPath(new URL('../fixtures/credentials/seed.json', import.meta.url));
const ENV = { MFT_AUTOMATION_PASSWORD: 'admin-Pa55!keys', MFTOPS_NOW: '2026-11-27T12:00:00Z' };

let emulator: RunningEmulator | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

async function statusDir(variants: Partial<Variants> = {}): Promise<string> {
  emulator = await startEmulator({ seed: loadSeedFile(SEED), variants });
  return testdir({ 'mftops.yaml': emulatorConfigYaml({ automationUrl: emulator.automationUrl }) });
}

interface JsonItem {
  kind: string;
  name: string;
  state: string;
  expires: string | null;
  daysLeft?: number;
  users: { type: string; name: string; field: string }[];
}

describe('mftops status: expiring keys and certificates', () => {
  it('lists the expired PGP key first, then the certificate expiring in 9 days, each with its users; exit 0; no write', async () => {
    const dir = await statusDir();
    emulator!.resetRequestLog();
    const text = await runCli(['status'], { cwd: dir, env: ENV });
    expect(text.code).toBe(0);
    const lines = text.stdout.split('\n');
    const at = lines.findIndex((l) => l.includes('keys and certificates:'));
    expect(lines.slice(at, at + 5)).toEqual([
      '    keys and certificates: 3 PGP keys, 1 SSH key, 2 SSL certificates; expired, expiring within 30 days or unreadable: 2',
      '      EXPIRED    PGP key partner-a-pgp (ID 500001) expired 2026-11-01 (26 days ago)',
      '                 used by task Encrypt and send (Process.Parameters.PGPKey)',
      '      EXPIRING   SSL certificate as2-client (thumbprint ABCDEF0123456789ABCDEF0123456789ABCDEF01) expires 2026-12-07 (in 9 days)',
      '                 used by host bank-as2 (ClientCertSHA1), task Encrypt and send (Destination.HostID (default ClientCertSHA1 of host bank-as2))',
    ]);
    expect(listWrites(emulator!)).toEqual([]);
    // The public key text is not needed by any report: it is not printed.
    expect(text.stdout).not.toContain('ssh-ed25519');

    const json = await runCli(['status', '--format', 'json'], { cwd: dir, env: ENV });
    expect(json.code).toBe(0);
    const ajv = new Ajv2020({ strict: true, strictRequired: false, allowUnionTypes: true, allErrors: true });
    addFormats.default(ajv);
    for (const file of readdirSync(findSchemasDir()).filter((f) => f.startsWith('output-') || f === 'plan.schema.json' || f === 'kinds.schema.json'))
      ajv.addSchema(JSON.parse(readFileSync(join(findSchemasDir(), file), 'utf8')) as object);
    const validate = ajv.getSchema(`${SCHEMA_BASE_URL}output-status.schema.json`)!;
    expect(validate(JSON.parse(json.stdout)) ? [] : validate.errors).toEqual([]);
    const doc = JSON.parse(json.stdout) as { services: { credentials: { withinDays: number; counted: object; items: JsonItem[] } }[] };
    const section = doc.services[0]!.credentials;
    expect(section.withinDays).toBe(30);
    expect(section.counted).toEqual({ pgp: 3, ssh: 1, ssl: 2 });
    expect(section.items.map((i) => [i.kind, i.name, i.state, i.expires, i.daysLeft])).toEqual([
      ['pgp', 'partner-a-pgp', 'expired', '2026-11-01T00:00:00.000Z', -27],
      ['ssl', 'as2-client', 'expiring', '2026-12-07T00:00:00.000Z', 9],
    ]);
    expect(listWrites(emulator!)).toEqual([]);
  });

  it('--expiring-within widens the window (7 days: only the expired key; 200 days: the June key too) and refuses a bad value on one line', async () => {
    const dir = await statusDir();
    const narrow = await runCli(['status', '--format', 'json', '--expiring-within', '7d'], { cwd: dir, env: ENV });
    const names = (out: string) =>
      (JSON.parse(out) as { services: { credentials: { items: JsonItem[] } }[] }).services[0]!.credentials.items.map((i) => i.name);
    expect(names(narrow.stdout)).toEqual(['partner-a-pgp']);
    const wide = await runCli(['status', '--format', 'json', '--expiring-within', '200'], { cwd: dir, env: ENV });
    expect(names(wide.stdout)).toEqual(['partner-a-pgp', 'as2-client', 'partner-b-pgp']);
    const bad = await runCli(['status', '--expiring-within', 'soon'], { cwd: dir, env: ENV });
    expect(bad.code).toBe(1);
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    expect(bad.stderr).toContain('--expiring-within takes whole days');
    expect(hasStackTrace(bad.stderr)).toBe(false);
  });

  it('reads the variant form (automation.keyDates=windows: Expires in epoch seconds, US dates) to the same report', async () => {
    const dir = await statusDir({ 'automation.keyDates': 'windows', 'automation.envelope': 'bare' });
    const json = await runCli(['status', '--format', 'json'], { cwd: dir, env: ENV });
    expect(json.code).toBe(0);
    const items = (JSON.parse(json.stdout) as { services: { credentials: { items: JsonItem[] } }[] }).services[0]!.credentials.items;
    expect(items.map((i) => [i.name, i.state, i.expires, i.daysLeft])).toEqual([
      ['partner-a-pgp', 'expired', '2026-11-01T00:00:00.000Z', -27],
      ['as2-client', 'expiring', '2026-12-07T00:00:00.000Z', 9],
    ]);
  });
});
