import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { emulatorConfigYaml } from '../../src/emulator/config-for.js';
import type { EmulatorOptions, RunningEmulator } from '../../src/emulator/index.js';
import { userIdFor } from '../../src/emulator/seed.js';
import type { FolderAclEntry } from '../../src/emulator/state.js';
import { FOLDER_PERMISSION_KEYS, SHARE_PERMISSION_KEYS } from '../../src/emulator/vocabulary.js';
import { SEED_LOGINS, startSeededEmulator } from '../integration/helpers.js';
import { hasStackTrace, runCli } from '../helpers/run-cli.js';
import { testdir } from '../helpers/testdir.js';
import { addFolderEntryByHand, addTransferUser, listWrites, readFolder, readTransferUsers } from '../helpers/emulator-test-api.js';

// Findings 2 and 11 of issue 23: a list read while it changes, and a server that caps perPage.

const ENV = { MFT_AUTOMATION_PASSWORD: SEED_LOGINS.automationAdmin.password, MFT_TRANSFER_PASSWORD: SEED_LOGINS.transferAdmin.password };
const FOLDER = '/Distribution';
const ENTRIES = 130;

let emulator: RunningEmulator | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

/**
 * The example estate with 130 more transfer users (`a-user-001`…, sorting before the seed's
 * users, so `bob` is on the user list's second page of 100) and an entry for each in /Distribution.
 */
async function start(options: Omit<EmulatorOptions, 'seed'>): Promise<{ emu: RunningEmulator; dir: string }> {
  const emu = await startSeededEmulator(options);
  emulator = emu;
  const share = Object.fromEntries(SHARE_PERMISSION_KEYS.map((k) => [k, false]));
  const permissions = {
    ...Object.fromEntries(FOLDER_PERMISSION_KEYS.map((k) => [k, k === 'readFiles' || k === 'listFiles'])),
    sharePermissions: share,
  } as FolderAclEntry['permissions'];
  for (let i = 1; i <= ENTRIES; i++) {
    const username = `a-user-${String(i).padStart(3, '0')}`;
    const id = userIdFor(username);
    addTransferUser(emu, {
      id,
      username,
      password: 'x',
      fullName: username,
      email: `${username}@example.com`,
      permission: 'User',
      status: 'Active',
      orgID: 0,
      homeFolderID: 0,
    });
    addFolderEntryByHand(emu, FOLDER, { type: 'User', id, permissions, isEditable: true, isDeletable: true });
  }
  const config = emulatorConfigYaml({ transferUrl: emu.transferUrl, manifests: ['manifests'], scope: { folders: [FOLDER] } });
  return { emu, dir: testdir({ 'mftops.yaml': config }) };
}

/** Usernames of the folder's entries on the server now. */
function serverUsers(emu: RunningEmulator): string[] {
  const users = readTransferUsers(emu);
  return readFolder(emu, FOLDER)!
    .acl.filter((e) => e.type === 'User')
    .map((e) => users.find((u) => u.id === e.id)!.username);
}

/** The one imported FolderPermissions manifest and the users its entries name. */
function imported(dir: string): { file: string; doc: Record<string, unknown>; users: string[] } {
  const folderDir = join(dir, 'manifests', 'folders');
  const files = readdirSync(folderDir, { recursive: true })
    .map(String)
    .filter((f) => f.endsWith('.yaml'));
  const file = join(
    folderDir,
    files.find((f) => (parse(readFileSync(join(folderDir, f), 'utf8')) as { metadata: { name: string } }).metadata.name === FOLDER)!,
  );
  const doc = parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  const entries = (doc.spec as { entries: { user?: string }[] }).entries;
  return { file, doc, users: entries.flatMap((e) => (e.user === undefined ? [] : [e.user])) };
}

describe('a folder ACL list that changes while it is read', () => {
  it('import under churn (an entry added at the front between page reads, twice) writes every entry exactly once, and plan then has nothing to do', async () => {
    const { emu, dir } = await start({ variants: { 'transfer.maxPerPage': 'capped' }, listChurn: { every: 2, times: 2 } });
    const r = await runCli(['import', '--kind', 'FolderPermissions', '--name', FOLDER, '--out', 'manifests'], { cwd: dir, env: ENV });
    expect(r.stderr).not.toContain('error');
    expect(r.code).toBe(0);
    const { users } = imported(dir);
    expect(new Set(users).size).toBe(users.length);
    // Every entry the server held when the read held still: none twice, none skipped.
    expect([...users].sort()).toEqual([...serverUsers(emu)].sort());
    expect(users.length).toBeGreaterThan(ENTRIES);

    const plan = await runCli(['plan', '--detailed-exitcode'], { cwd: dir, env: ENV });
    expect(plan.stderr).toBe('');
    expect(plan.stdout).toContain('No changes.');
    expect(plan.code).toBe(0);
    expect(listWrites(emu)).toEqual([]);
  }, 60_000);

  it('a list that never holds still fails import, plan, apply and drift with one line naming the list, writing nothing', async () => {
    const { emu, dir } = await start({ variants: { 'transfer.maxPerPage': 'capped' }, listChurn: { every: 2 } });
    const r = await runCli(['import', '--kind', 'FolderPermissions', '--name', FOLDER, '--out', 'manifests'], { cwd: dir, env: ENV });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /^mftops: error: transfer: GET \/transfer\/api\/v1\/folders\/\d+\/acls: 200 OK: the list changed while it was read, 3 reads in a row \(last: .+\); paging stopped\n$/,
    );
    expect(hasStackTrace(r.stderr)).toBe(false);
    expect(existsSync(join(dir, 'manifests'))).toBe(false);

    // A manifest of the folder as it is: plan and apply read the same list, and must not act on it.
    const folder = readFolder(emu, FOLDER)!;
    writeFileSync(
      join(dir, 'folder.yaml'),
      stringify({
        apiVersion: 'mftops/v1',
        kind: 'FolderPermissions',
        metadata: { name: FOLDER },
        spec: { mode: 'exact', entries: [{ user: 'bob', permissions: ['readFiles'] }] },
      }),
    );
    const config = readFileSync(join(dir, 'mftops.yaml'), 'utf8').replace('manifests: ["manifests"]', 'manifests: ["folder.yaml"]');
    writeFileSync(join(dir, 'mftops.yaml'), config);
    expect(folder.acl.length).toBeGreaterThan(ENTRIES);
    for (const args of [['plan'], ['apply', '--auto-approve'], ['drift']]) {
      const c = await runCli(args, { cwd: dir, env: ENV });
      expect(c.code, args[0]).toBe(1);
      expect(c.stderr, args[0]).toContain('the list changed while it was read, 3 reads in a row');
      expect(hasStackTrace(c.stderr + c.stdout)).toBe(false);
    }
    expect(listWrites(emu)).toEqual([]);
  }, 120_000);
});

describe('a server that caps perPage at 100', () => {
  it('and echoes the perPage asked (flat envelope): import holds all 130+ entries, and a plan naming bob (on the second page of users) is complete', async () => {
    const { emu, dir } = await start({ profile: 'legacy', variants: { 'transfer.maxPerPage': 'echo' } });
    const r = await runCli(['import', '--kind', 'FolderPermissions', '--name', FOLDER, '--out', 'manifests'], { cwd: dir, env: ENV });
    expect(r.stderr).not.toContain('error');
    expect(r.code).toBe(0);
    const { file, doc, users } = imported(dir);
    expect([...users].sort()).toEqual([...serverUsers(emu)].sort());

    // bob gets an entry: the one change; nobody's entry is removed.
    const spec = doc.spec as { entries: Record<string, unknown>[] };
    expect(users).not.toContain('bob');
    spec.entries.push({ user: 'bob', permissions: ['readFiles', 'listFiles'] });
    writeFileSync(file, stringify(doc));
    const plan = await runCli(['plan', '--format', 'json'], { cwd: dir, env: ENV });
    expect(plan.stderr).toBe('');
    expect(plan.code).toBe(0);
    type Entry = { principal: { type: string; name: string }; action: string };
    const changes = (JSON.parse(plan.stdout) as { changes: { action: string; entries: Entry[] }[] }).changes;
    expect(changes.map((c) => c.action)).toEqual(['update']);
    const moved = changes[0]!.entries.filter((e) => e.action !== 'no-op');
    expect(moved).toEqual([expect.objectContaining({ principal: { type: 'User', name: 'bob' }, action: 'create' })]);
    expect(changes[0]!.entries.length).toBe(serverUsers(emu).length + 1);
  }, 60_000);
});
