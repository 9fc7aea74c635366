import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { SEED_LOGINS } from '../integration/helpers.js';
import { addTransferUser, listWrites, readTransferUser, startSeededEmulator } from '../helpers/emulator-test-api.js';
import type { CliResult } from '../helpers/run-cli.js';
import { runCli } from '../helpers/run-cli.js';
import { testdir } from '../helpers/testdir.js';

/*
 * Users end to end against the emulator, through the built CLI (npm run build first): import →
 * plan empty; a manifest that creates a privileged user with a `${env:}` password → plan (flagged)
 * → apply → re-plan empty; a rotation only when asked. Every output and the plan file are scanned
 * for the passwords' values, which must appear nowhere.
 */

const FIRST_SECRET = 'Seeded-Pa55word-Value-7731';
const ROTATED_SECRET = 'Rotated-Pa55word-Value-8842';

let emulator: RunningEmulator;
beforeAll(async () => {
  emulator = await startSeededEmulator();
});
afterAll(() => emulator.close());

/** A working folder whose one environment has only the transfer service, managing users named `e2e-*` and the seed's. */
function workdir(): string {
  const config = {
    apiVersion: 'mftops/v1',
    kind: 'Config',
    environments: {
      lab: {
        transfer: { url: `${emulator.url}/transfer`, username: 'admin', password: '${env:MFT_TRANSFER_PASSWORD}' },
        manifests: ['manifests'],
        scope: { users: ['*'] },
        prune: [],
      },
    },
  };
  return testdir({ 'mftops.yaml': stringify(config) });
}

const outputs: string[] = [];

async function mftops(dir: string, args: readonly string[], secret = FIRST_SECRET): Promise<CliResult> {
  const r = await runCli(args, { cwd: dir, env: { MFT_TRANSFER_PASSWORD: SEED_LOGINS.transferAdmin.password, E2E_BOB_PASSWORD: secret } });
  outputs.push(r.stdout, r.stderr);
  return r;
}

function expectNoSecret(texts: readonly string[]): void {
  for (const text of texts) {
    expect(text).not.toContain(FIRST_SECRET);
    expect(text).not.toContain(ROTATED_SECRET);
  }
}

describe('users end to end', () => {
  it('imports users as minimal manifests that plan to nothing, creates a user with a referenced password, and never shows a password', async () => {
    const dir = workdir();
    const imported = await mftops(dir, ['import', '--kind', 'User']);
    expect(imported.stderr).toBe('');
    expect(imported.code).toBe(0);
    const files = readdirSync(join(dir, 'manifests', 'users')).sort();
    expect(files).toContain('alice.yaml');
    const alice = readFileSync(join(dir, 'manifests', 'users', 'alice.yaml'), 'utf8');
    expect(alice).toContain('kind: User');
    expect(alice).toContain('fullName: Alice Martin');
    expect(alice).not.toMatch(/password/i);
    expect(alice).not.toContain('homeFolderPath');

    const empty = await mftops(dir, ['plan', '--detailed-exitcode']);
    expect(empty.stderr).toBe('');
    expect(empty.code).toBe(0);

    writeFileSync(
      join(dir, 'manifests', 'users', 'e2e-bob.yaml'),
      'apiVersion: mftops/v1\nkind: User\nmetadata:\n  name: e2e-bob\nspec:\n  fullName: Bob Ops\n  email: bob.ops@example.com\n  permission: Admin\n  notes: on call\n  forceChangePassword: true\n  password: ${env:E2E_BOB_PASSWORD}\n',
    );
    const planned = await mftops(dir, ['plan', '--detailed-exitcode', '--out', 'plan.json']);
    expect(planned.code).toBe(2);
    expect(planned.stdout).toContain('User/e2e-bob');
    expect(planned.stdout).toContain('(sensitive)');
    expect(planned.stdout).toMatch(/! e2e-bob gains Admin on the transfer server \(permission level\) \[grants Admin\]/);
    const planFile = readFileSync(join(dir, 'plan.json'), 'utf8');
    expect(planFile).toContain('${env:E2E_BOB_PASSWORD}');
    outputs.push(planFile);

    const applied = await mftops(dir, ['apply', 'plan.json']);
    expect(applied.code).toBe(0);
    const bob = readTransferUser(emulator, 'e2e-bob');
    expect(bob).toMatchObject({ fullName: 'Bob Ops', permission: 'Admin', notes: 'on call', forceChangePassword: true, password: FIRST_SECRET });

    const again = await mftops(dir, ['plan', '--detailed-exitcode']);
    expect(again.code).toBe(0);

    // A changed reference (the same manifest, another value) is no change without --rotate-passwords.
    const unchanged = await mftops(dir, ['plan', '--detailed-exitcode'], ROTATED_SECRET);
    expect(unchanged.code).toBe(0);
    emulator.resetRequestLog();
    const rotated = await mftops(dir, ['apply', '--auto-approve', '--rotate-passwords', '--target', 'User/e2e-bob'], ROTATED_SECRET);
    expect(rotated.code).toBe(0);
    expect(listWrites(emulator)).toEqual([`PATCH /transfer/api/v1/users/${bob!.id}`]);
    expect(readTransferUser(emulator, 'e2e-bob')?.password).toBe(ROTATED_SECRET);

    // An account created out of band, in scope and in no manifest: drift lists it with its permission and sign-on.
    addTransferUser(emulator, { id: 'u-rogue', username: 'rogue', password: 'rogue-Pa55-out-of-band', permission: 'Admin', lastLoginStamp: '' });
    const drift = await mftops(dir, ['drift']);
    expect(drift.code).toBe(2);
    expect(drift.stdout).toContain('User/rogue');
    expect(drift.stdout).toContain('user, permission Admin, never signed on');
    expect(drift.stdout).not.toContain('rogue-Pa55-out-of-band');

    expectNoSecret(outputs);
  });
});
