import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { afterEach, describe, expect, it } from 'vitest';
import { runDrift } from '../../src/cli/commands/drift.js';
import { runImport } from '../../src/cli/commands/import.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { userIdFor } from '../../src/emulator/seed.js';
import { addAutomationUser, addTransferUser, listWrites } from '../helpers/emulator-test-api.js';
import { testdir } from '../helpers/testdir.js';
import { startSeededEmulator } from '../integration/helpers.js';
import { configYaml, globals, io, PASSWORDS } from '../drift/helpers.js';
import { hasStackTrace, runCli } from '../helpers/run-cli.js';

/**
 * The guard on privileged accounts end to end: the example estate, manifests imported from it (so
 * drift starts in sync), then administrators created out of band; users are not managed.
 */
let emulator: RunningEmulator;
let dir: string;
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/** A fresh emulator with the example estate, and a working folder in sync with it. */
async function inSync(options: Parameters<typeof startSeededEmulator>[0] = {}): Promise<void> {
  emulator = await startSeededEmulator(options);
  closers.push(() => emulator.close());
  dir = testdir({ 'mftops.yaml': configYaml({ url: emulator.url }) });
  for (const kind of ['Task,ResourceGroupAcl', 'FolderPermissions']) {
    const out = io(dir);
    expect(await runImport(globals(), { kind: [kind], out: 'manifests', all: false, force: false }, out), out.err()).toBe(0);
  }
  emulator.resetRequestLog();
}

/** Eve (transfer Admin) and mallory (automation administrator), created behind mftops' back. */
function addAdministratorsByHand(): void {
  addTransferUser(emulator, {
    id: userIdFor('eve'),
    username: 'eve',
    password: 'eve-Pa55!word',
    fullName: 'Eve',
    email: 'eve@example.com',
    permission: 'Admin',
    status: 'Active',
    orgID: 0,
    homeFolderID: 0,
  });
  addAutomationUser(emulator, { Username: 'mallory', Password: 'm-Pa55!word', IsAdmin: true, MemberOf: ['Administrators'] });
}

/** mftops.yaml with `privilegedAccounts` set for the environment. */
function setPrivilegedAccounts(settings: Record<string, unknown>): void {
  const config = parse(readFileSync(join(dir, 'mftops.yaml'), 'utf8')) as { environments: { lab: Record<string, unknown> } };
  config.environments.lab.privilegedAccounts = settings;
  writeFileSync(join(dir, 'mftops.yaml'), stringify(config));
}

async function drift(format: 'text' | 'json' = 'text') {
  const out = io(dir);
  const code = await runDrift(globals({ format }), { paths: [] }, out);
  return { code, stdout: out.out(), stderr: out.err() };
}

describe('mftops drift: privileged accounts', () => {
  it('is in sync while the only administrators are the accounts mftops signs in with', async () => {
    await inSync();
    const r = await drift();
    expect(r.stdout).not.toContain('unmanaged privileged account');
    expect(r.stdout).toContain('In sync: the servers match the manifests.');
    expect(r.code).toBe(0);
  });

  it('exits 2 naming an Admin created out of band and an automation administrator, reading with GETs only', async () => {
    await inSync();
    addAdministratorsByHand();
    const r = await drift();
    expect(r.code, r.stderr).toBe(2);
    expect(r.stdout).toContain('! unmanaged privileged account: eve (Admin)');
    expect(r.stdout).toContain('creator unknown: the transfer API shows no audit record');
    expect(r.stdout).toContain('! unmanaged privileged account: mallory (automation administrator)');
    expect(r.stdout).toContain('Drift: 0 objects differ, 0 unmanaged, 2 unmanaged privileged accounts.');
    // Besides token calls, nothing but GETs: no task or ACL drifted, so not even the audit report's POST.
    expect(listWrites(emulator)).toEqual([]);
    expect(r.stdout).not.toContain('eve-Pa55!word');

    const json = JSON.parse((await drift('json')).stdout);
    expect(json.status).toBe('drift');
    expect(json.accounts.privileged.map((a: { username: string }) => a.username)).toEqual(['eve', 'mallory']);
    expect(json.accounts.checks).toEqual({ transfer: { state: 'checked', accounts: 9 }, automation: { state: 'checked', accounts: 2 } });
  });

  it('names a suspended Admin on a server whose user list shows only active users unless asked for all (T-17)', async () => {
    await inSync({ variants: { 'transfer.userFilters': 'active' } });
    addTransferUser(emulator, {
      id: userIdFor('sam'),
      username: 'sam',
      password: 'sam-Pa55!word',
      fullName: 'Sam',
      email: 'sam@example.com',
      permission: 'Admin',
      status: 'Suspended',
      orgID: 0,
      homeFolderID: 0,
    });
    const r = await drift();
    expect(r.code, r.stderr).toBe(2);
    expect(r.stdout).toContain('! unmanaged privileged account: sam (Admin)');
  });

  it('exits 0 once mftops.yaml allows them (names in any case), listing them as allowed', async () => {
    await inSync();
    addAdministratorsByHand();
    setPrivilegedAccounts({ allowUnmanaged: ['EVE', { name: 'mallory', service: 'automation', reason: 'break-glass' }] });
    const r = await drift();
    expect(r.code, r.stdout).toBe(0);
    expect(r.stdout).toContain('eve (transfer user, Admin): allowed at mftops.yaml:');
    expect(r.stdout).toMatch(/mallory \(automation, user group Administrators\): allowed at mftops\.yaml:\d+:\d+ — break-glass/);
    expect(listWrites(emulator)).toEqual([]);
  });

  it('warns (MF420) at its line about an allowed name no server has, and still judges the rest', async () => {
    await inSync();
    addAdministratorsByHand();
    setPrivilegedAccounts({ allowUnmanaged: ['eve', 'mallory', 'svc-gone'] });
    const r = await drift();
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/mftops\.yaml:\d+:\d+.*MF420.*svc-gone|MF420.*mftops\.yaml:\d+:\d+.*svc-gone/s);
    expect(r.stderr).toContain('`svc-gone`, which is no transfer user and no automation administrator');
  });

  it('refuses a malformed privilegedAccounts with FILE:LINE:COL, exit 1, before any request', async () => {
    await inSync();
    setPrivilegedAccounts({ allowUnmanaged: [{ name: 'eve', service: 'ftp' }], staleSignOnDays: -1 });
    const r = await runCli(['drift'], { cwd: dir, env: PASSWORDS });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /mftops\.yaml:\d+:\d+: error MF505: environments\.lab\.privilegedAccounts\.allowUnmanaged\.0\.service: must be one of automation, transfer/,
    );
    expect(r.stderr).toMatch(/mftops\.yaml:\d+:\d+: error MF505: environments\.lab\.privilegedAccounts\.staleSignOnDays: must be at least 0/);
    expect(hasStackTrace(r.stderr)).toBe(false);
    expect(emulator.requestLog()).toEqual([]);
  });

  it("reports, without drift, accounts that never signed on or not for staleSignOnDays, from the server's lastLoginStamp", async () => {
    await inSync();
    addTransferUser(emulator, { id: userIdFor('nina'), username: 'nina', password: 'n-Pa55!word', lastLoginStamp: '' });
    addTransferUser(emulator, { id: userIdFor('olga'), username: 'olga', password: 'o-Pa55!word', lastLoginStamp: '2025-01-02T03:04:05Z' });
    setPrivilegedAccounts({ staleSignOnDays: 30 });
    const r = await drift();
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('In sync: the servers match the manifests.');
    expect(r.stdout).toMatch(/Never signed on[^]*\n\s+nina \(User\)/);
    expect(r.stdout).toMatch(/No sign-on for more than 30 days[^]*\n\s+olga \(User, last 2025-01-02, \d+ days ago\)/);
    // The seeded accounts signed on when the server started: neither list names them.
    expect(r.stdout).not.toMatch(/^\s+(alice|bob|carol) \(/m);
    expect(listWrites(emulator)).toEqual([]);
  });
});
