import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emulatorConfigYaml } from '../../src/emulator/config-for.js';
import { loadSeedFile, startEmulator } from '../../src/emulator/index.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { listWrites } from '../helpers/emulator-test-api.js';
import { runCli } from '../helpers/run-cli.js';
import { testdir } from '../helpers/testdir.js';

// Issue 28 item 5: drift's section on keys and certificates. A report, never drift: an estate in
// sync with an expired key still exits 0.

const SEED = fileURLToPath(new URL('../fixtures/credentials/seed.json', import.meta.url));
const ENV = { MFT_AUTOMATION_PASSWORD: 'admin-Pa55!keys', MFTOPS_NOW: '2026-11-27T12:00:00Z' };

// The seed's two tasks exactly: drift finds them in sync.
const TASKS = `apiVersion: mftops/v1
kind: Task
metadata: { name: Encrypt and send }
spec:
  Active: true
  steps:
    - Source: { Host: partner-sftp, Path: /out, FileMask: "*.csv" }
    - Process: { Script: PGP Encrypt, Run: per-file, Parameters: { PGPKey: "0xA1B2C3D4" } }
    - Destination: { Host: bank-as2, Path: /in }
---
apiVersion: mftops/v1
kind: Task
metadata: { name: Housekeeping }
spec:
  Active: true
  steps:
    - Source: { Host: partner-sftp, Path: /old, ClientKeyID: "", UseDefClientKey: 0 }
`;

let emulator: RunningEmulator;
beforeAll(async () => {
  emulator = await startEmulator({ seed: loadSeedFile(SEED) });
});
afterAll(() => emulator.close());

describe('mftops drift: keys and certificates', () => {
  it('in sync with an expired key: exit 0, the section in text, markdown and JSON, expired first; nothing written', async () => {
    const dir = testdir({
      'mftops.yaml': emulatorConfigYaml({ automationUrl: emulator.automationUrl, manifests: ['manifests'] }),
      'manifests/tasks.yaml': TASKS,
    });
    emulator.resetRequestLog();
    const text = await runCli(['drift'], { cwd: dir, env: ENV });
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('In sync: the servers match the manifests.');
    expect(text.stdout).toContain('Keys and certificates (a report, not drift):');
    expect(text.stdout).toContain('EXPIRED    PGP key partner-a-pgp (ID 500001) expired 2026-11-01 (26 days ago)');
    expect(text.stdout).toContain('used by task Encrypt and send (Process.Parameters.PGPKey)');

    const md = await runCli(['drift', '--format', 'markdown'], { cwd: dir, env: ENV });
    expect(md.code).toBe(0);
    expect(md.stdout).toContain('### Expiring keys and certificates');
    expect(md.stdout).toContain('| expired | PGP key partner-a-pgp (ID 500001) | expired 2026-11-01 (26 days ago) |');

    const json = await runCli(['drift', '--format', 'json'], { cwd: dir, env: ENV });
    expect(json.code).toBe(0);
    const doc = JSON.parse(json.stdout) as { status: string; credentials: { items: { name: string; state: string }[] } };
    expect(doc.status).toBe('in-sync');
    expect(doc.credentials.items.map((i) => [i.name, i.state])).toEqual([
      ['partner-a-pgp', 'expired'],
      ['as2-client', 'expiring'],
    ]);
    expect(listWrites(emulator)).toEqual([]);
  });

  it('--expiring-within DAYS sets the notice (as status does): 0 lists the expired only; a bad value is refused in one line', async () => {
    const dir = testdir({
      'mftops.yaml': emulatorConfigYaml({ automationUrl: emulator.automationUrl, manifests: ['manifests'] }),
      'manifests/tasks.yaml': TASKS,
    });
    const json = await runCli(['drift', '--format', 'json', '--expiring-within', '0d'], { cwd: dir, env: ENV });
    expect(json.code, json.stderr).toBe(0);
    const doc = JSON.parse(json.stdout) as { credentials: { items: { name: string; state: string }[] } };
    expect(doc.credentials.items.map((i) => [i.name, i.state])).toEqual([['partner-a-pgp', 'expired']]);
    const bad = await runCli(['drift', '--expiring-within', 'soon'], { cwd: dir, env: ENV });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('--expiring-within takes whole days from 0 to 3650, like 30 or 30d, not "soon"');
  });
});
