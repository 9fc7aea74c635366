import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emulatorConfigYaml } from '../../src/emulator/config-for.js';
import { loadSeedFile, startEmulator } from '../../src/emulator/index.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { listWrites } from '../helpers/emulator-test-api.js';
import { runCli } from '../helpers/run-cli.js';
import { testdir } from '../helpers/testdir.js';

// Issue 28 item 5: the policy variables `keys` and `usedKeys`. The example rule
// (examples/policies-keys/expired-keys.yaml) denies a change to a task that uses an expired key.

const SEED = fileURLToPath(new URL('../fixtures/credentials/seed.json', import.meta.url));
const RULES = readFileSync(fileURLToPath(new URL('../../examples/policies-keys/expired-keys.yaml', import.meta.url)), 'utf8');
const ENV = { MFT_AUTOMATION_PASSWORD: 'admin-Pa55!keys', MFTOPS_NOW: '2026-11-27T12:00:00Z' };

const TASKS = `apiVersion: mftops/v1
kind: Task
metadata: { name: Encrypt and send }
spec:
  Active: true
  Info: { Description: Encrypt the csv files and send them to the bank }
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
  Info: { Description: Tidy the old folder on the partner }
  steps:
    - Source: { Host: partner-sftp, Path: /old, ClientKeyID: "", UseDefClientKey: 0 }
`;

let emulator: RunningEmulator;
beforeAll(async () => {
  emulator = await startEmulator({ seed: loadSeedFile(SEED) });
});
afterAll(() => emulator.close());

function project(rules: string | undefined): string {
  return testdir({
    'mftops.yaml': emulatorConfigYaml({ automationUrl: emulator.automationUrl, manifests: ['manifests'] }),
    'manifests/tasks.yaml': TASKS,
    ...(rules === undefined ? {} : { 'manifests/keys.yaml': rules }),
  });
}

describe('policy variables keys and usedKeys', () => {
  it('deny: a plan that changes a task using an expired PGP key is refused; the task that uses none is not named; nothing is written', async () => {
    const dir = project(RULES);
    emulator.resetRequestLog();
    const r = await runCli(['plan', '--format', 'json'], { cwd: dir, env: ENV });
    expect(r.code).toBe(1);
    const plan = JSON.parse(r.stdout) as { policy: { violations: { policy: string; severity: string; address: string; outcome: string }[] } };
    const denied = plan.policy.violations.filter((v) => v.severity === 'deny');
    expect(denied.map((v) => [v.policy, v.address, v.outcome])).toEqual([['no-expired-keys', 'Task/Encrypt and send', 'violated']]);
    expect(plan.policy.violations.some((v) => v.address === 'Task/Housekeeping')).toBe(false);
    expect(listWrites(emulator)).toEqual([]);
    expect(emulator.requestLog().some((q) => q.path.endsWith('/pgpkeys'))).toBe(true);
  });

  it('a plan with no policy naming them does not read the keys at all', async () => {
    const dir = project(undefined);
    emulator.resetRequestLog();
    const r = await runCli(['plan'], { cwd: dir, env: ENV });
    expect(r.code).toBe(0);
    expect(emulator.requestLog().filter((q) => /\/(pgpkeys|sshkeys|sslcerts)$/.test(q.path))).toEqual([]);
  });

  it('validate does not evaluate a rule that needs the server (usedKeys is a plan variable)', async () => {
    const dir = project(RULES);
    const r = await runCli(['validate'], { cwd: dir, env: ENV });
    expect(r.code).toBe(0);
  });
});
