import { createHash } from 'node:crypto';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { isMftopsError } from '../../src/errors.js';
import { Secret } from '../../src/secret.js';
import { createAutomationClient } from '../../src/services/index.js';
import { listSnapshots, loadSnapshot, SnapshotError, SnapshotIntegrityError, verifySnapshot, type SnapshotManifest } from '../../src/snapshot/index.js';
import { testdir } from '../helpers/testdir.js';
import { SEED_LOGINS, startSeededEmulator } from '../integration/helpers.js';
import { capturingExport, clientsFor, FOLDERS, KEY_HEX, OTHER_KEY_B64, saveFrom, snapshotFolder, treeOf, type Clients } from './helpers.js';

let emulator: RunningEmulator;
let clients: Clients;
beforeAll(async () => {
  emulator = await startSeededEmulator();
  clients = clientsFor(emulator);
});
afterAll(async () => {
  await clients.close();
  await emulator.close();
});

const sha256 = (b: Buffer): string => createHash('sha256').update(b).digest('hex');
const mode = (path: string): number => statSync(path).mode & 0o777;

describe('saveSnapshot against the emulator', () => {
  it('stores the export byte for byte, private, with its sha256, task count and the folder ACLs', async () => {
    const dir = testdir({});
    const received = join(testdir({}), 'as-received.xml');
    const info = await saveFrom(emulator, clients, dir, { automation: capturingExport(clients.automation, received) });

    const folder = snapshotFolder(dir, info.id);
    expect(info.id).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}\.\d{3}Z$/);
    expect(treeOf(folder)).toEqual(['automation-config.xml', 'snapshot.json', 'transfer-accounts.json', 'transfer-folders.json']);
    expect(mode(folder)).toBe(0o700);
    for (const f of treeOf(folder)) expect(mode(join(folder, f)), f).toBe(0o600);

    const stored = readFileSync(join(folder, 'automation-config.xml'));
    expect(stored.equals(readFileSync(received))).toBe(true);
    const manifest = JSON.parse(readFileSync(join(folder, 'snapshot.json'), 'utf8')) as SnapshotManifest;
    expect(manifest.automation!.sha256).toBe(sha256(stored));
    expect(manifest.automation!.bytes).toBe(stored.length);
    expect(manifest.automation!.taskCount).toBe((await clients.automation.listTasks({ fields: ['ID'] })).length);
    expect(manifest).toMatchObject({ environment: 'lab', id: info.id, automation: { url: emulator.automationUrl, serverVersion: '2025.1.0' } });
    expect(manifest.encryption).toBeUndefined();
    expect(JSON.stringify(manifest)).not.toContain('SEEDSECRET');

    const saved = JSON.parse(readFileSync(join(folder, 'transfer-folders.json'), 'utf8')) as {
      folders: Array<{ path: string; id: string | null; entries: unknown[] }>;
    };
    expect(saved.folders.map((f) => f.path)).toEqual(FOLDERS);
    const outbound = (await clients.transfer.findFolderByPath('/Distribution/Acme/Outbound'))!;
    expect(saved.folders[0]).toEqual({ path: '/Distribution/Acme/Outbound', id: outbound.id, entries: await clients.transfer.listFolderAcls(outbound.id) });
    expect(saved.folders[3]).toEqual({ path: '/Distribution/Not/There', id: null, entries: [] });
  });

  it('is what a second GET /config returns while nothing changed', async () => {
    const dir = testdir({});
    const info = await saveFrom(emulator, clients, dir, { transfer: undefined, folders: [] });
    const again = join(testdir({}), 'again.xml');
    await clients.automation.exportConfig(again);
    expect(readFileSync(join(snapshotFolder(dir, info.id), 'automation-config.xml')).equals(readFileSync(again))).toBe(true);
    expect(treeOf(snapshotFolder(dir, info.id))).toEqual(['automation-config.xml', 'snapshot.json']);
  });
});

describe('a snapshot per service (format 2)', () => {
  it('saves a transfer-only snapshot: folders without an export, verified, loaded and listed', async () => {
    const dir = testdir({});
    const info = await saveFrom(emulator, clients, dir, { automation: undefined, automationUrl: undefined, serverVersion: undefined });
    const folder = snapshotFolder(dir, info.id);
    expect(treeOf(folder)).toEqual(['snapshot.json', 'transfer-accounts.json', 'transfer-folders.json']);
    const manifest = JSON.parse(readFileSync(join(folder, 'snapshot.json'), 'utf8')) as SnapshotManifest;
    expect(manifest.formatVersion).toBe(2);
    expect(manifest.automation).toBeUndefined();
    expect(manifest.transfer).toMatchObject({ file: 'transfer-folders.json', folderCount: FOLDERS.length, url: emulator.transferUrl });
    expect(info).toMatchObject({ services: ['transfer'], folderCount: FOLDERS.length, transferUrl: emulator.transferUrl });
    expect(info.taskCount).toBeUndefined();
    expect(info.sha256).toBeUndefined();

    expect((await verifySnapshot(dir, info.id)).files.map((f) => f.file)).toEqual(['transfer-folders.json', 'transfer-accounts.json']);
    const loaded = loadSnapshot(dir, { env: 'lab', id: info.id });
    expect(loaded.automationXml).toBeUndefined();
    expect(loaded.folders.map((f) => f.path)).toEqual(FOLDERS);
    expect(listSnapshots(dir, 'lab').snapshots.map((s) => s.services)).toEqual([['transfer']]);
  });

  it('saves the transfer part whenever the transfer service is given, with the folders the caller read', async () => {
    const dir = testdir({});
    const read = { path: '/Read/Before', id: '77', entries: [{ type: 'User', id: '9', name: 'zed', permissions: { readFiles: true } }] };
    const info = await saveFrom(emulator, clients, dir, { folders: ['/Distribution/Acme/Outbound', '/distribution/acme/outbound/'], foldersRead: [read] });
    const saved = loadSnapshot(dir, { env: 'lab', id: info.id }).folders;
    expect(saved.map((f) => f.path)).toEqual(['/Distribution/Acme/Outbound', '/Read/Before']);
    expect(saved[1]).toEqual(read);

    const none = await saveFrom(emulator, clients, dir, { folders: [] });
    expect(none).toMatchObject({ services: ['automation', 'transfer'], folderCount: 0 });
    const err = await saveFrom(emulator, clients, dir, { automation: undefined, transfer: undefined, folders: [] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SnapshotError);
    expect((err as Error).message).toBe('snapshot not saved: neither the automation nor the transfer service to save');
  });

  it('still reads format 1 snapshots, which always hold the export', async () => {
    const dir = testdir({});
    const info = await saveFrom(emulator, clients, dir);
    const path = join(snapshotFolder(dir, info.id), 'snapshot.json');
    const v2 = JSON.parse(readFileSync(path, 'utf8')) as SnapshotManifest;
    writeFileSync(path, JSON.stringify({ ...v2, formatVersion: 1 }));
    expect((await verifySnapshot(dir, info.id)).files).toHaveLength(3);
    expect(loadSnapshot(dir, { env: 'lab', id: info.id }).automationXml).toBeDefined();
    expect(listSnapshots(dir, 'lab').snapshots.map((s) => [s.id, s.services])).toEqual([[info.id, ['automation', 'transfer']]]);

    const { automation: _dropped, ...withoutExport } = v2;
    writeFileSync(path, JSON.stringify({ ...withoutExport, formatVersion: 1 }));
    await expect(verifySnapshot(dir, info.id)).rejects.toThrow(/snapshot\.json: missing automation$/);
    writeFileSync(path, JSON.stringify({ ...v2, formatVersion: 3 }));
    await expect(verifySnapshot(dir, info.id)).rejects.toThrow(/unsupported formatVersion 3 \(this mftops reads 1 and 2\)/);
    const { transfer: _gone, ...exportOnly } = withoutExport as SnapshotManifest;
    writeFileSync(path, JSON.stringify(exportOnly));
    expect(listSnapshots(dir, 'lab').unreadable.map((u) => u.reason)).toEqual([
      expect.stringMatching(/holds neither an automation export nor transfer folders$/),
    ]);
  });
});

describe('verifySnapshot', () => {
  it('passes on a fresh snapshot and fails naming the file when one byte changed', async () => {
    const dir = testdir({});
    const info = await saveFrom(emulator, clients, dir);
    expect((await verifySnapshot(dir, info.id)).files.map((f) => f.file)).toEqual(['automation-config.xml', 'transfer-folders.json', 'transfer-accounts.json']);

    const xml = join(snapshotFolder(dir, info.id), 'automation-config.xml');
    const bytes = readFileSync(xml);
    const flipped = Buffer.from(bytes);
    const at = bytes.indexOf('Payroll to bank');
    flipped[at] = flipped[at]! ^ 0x20; // "payroll to bank": still well-formed XML, same size
    writeFileSync(xml, flipped);
    const err = await verifySnapshot(dir, info.id).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SnapshotIntegrityError);
    expect((err as SnapshotIntegrityError).file).toBe('automation-config.xml');
    expect((err as Error).message).toMatch(/automation-config\.xml does not match its sha256/);

    writeFileSync(xml, bytes);
    expect((await verifySnapshot(dir, info.id)).snapshot.id).toBe(info.id);
    const folders = join(snapshotFolder(dir, info.id), 'transfer-folders.json');
    writeFileSync(folders, readFileSync(folders, 'utf8').replace('"listFiles": true', '"listFiles": false'));
    await expect(verifySnapshot(dir, info.id)).rejects.toThrow(/transfer-folders\.json has \d+ bytes, snapshot\.json says \d+/);
  });

  it('accepts a unique prefix and latest, and refuses unknown and ambiguous ids', async () => {
    const dir = testdir({});
    const a = await saveFrom(emulator, clients, dir, { folders: [], now: new Date('2026-03-01T10:00:00.000Z') });
    const b = await saveFrom(emulator, clients, dir, { folders: [], now: new Date('2026-03-02T10:00:00.000Z') });
    expect((await verifySnapshot(dir, 'latest')).snapshot.id).toBe(b.id);
    expect((await verifySnapshot(dir, '2026-03-01')).snapshot.id).toBe(a.id);
    expect((await verifySnapshot(dir, `lab/${a.id}`)).snapshot.id).toBe(a.id);
    await expect(verifySnapshot(dir, '2026-03')).rejects.toThrow(/"2026-03" is ambiguous: 2 match/);
    await expect(verifySnapshot(dir, '2025')).rejects.toThrow(/no snapshot "2025"/);
  });
});

describe('encrypted snapshots (MFTOPS_SNAPSHOT_KEY)', () => {
  it('stores only ciphertext, verifies with the key, and refuses a wrong or missing key', async () => {
    const dir = testdir({});
    const received = join(testdir({}), 'as-received.xml');
    const info = await saveFrom(emulator, clients, dir, {
      automation: capturingExport(clients.automation, received),
      processEnv: { MFTOPS_SNAPSHOT_KEY: KEY_HEX },
    });
    const folder = snapshotFolder(dir, info.id);
    expect(info.encrypted).toBe(true);
    expect(treeOf(folder)).toEqual(['automation-config.xml.enc', 'snapshot.json', 'transfer-accounts.json.enc', 'transfer-folders.json.enc']);
    for (const f of treeOf(folder)) expect(mode(join(folder, f)), f).toBe(0o600);
    const enc = readFileSync(join(folder, 'automation-config.xml.enc'));
    expect(enc.includes('SEEDSECRET')).toBe(false);
    expect(enc.includes('<Config')).toBe(false);
    expect(readFileSync(join(folder, 'transfer-folders.json.enc')).includes('Acme')).toBe(false);
    const manifest = JSON.parse(readFileSync(join(folder, 'snapshot.json'), 'utf8')) as SnapshotManifest;
    expect(manifest.encryption?.algorithm).toBe('aes-256-gcm');
    expect(manifest.automation!.sha256).toBe(sha256(readFileSync(received)));

    const keyEnv = { processEnv: { MFTOPS_SNAPSHOT_KEY: KEY_HEX } };
    expect((await verifySnapshot(dir, info.id, keyEnv)).files).toHaveLength(3);
    // The same key in base64 is the same key.
    expect((await verifySnapshot(dir, info.id, { processEnv: { MFTOPS_SNAPSHOT_KEY: Buffer.from(KEY_HEX, 'hex').toString('base64') } })).snapshot.id).toBe(
      info.id,
    );
    expect(loadSnapshot(dir, { env: 'lab', id: info.id }, keyEnv.processEnv).automationXml!.equals(readFileSync(received))).toBe(true);
    await expect(verifySnapshot(dir, info.id, { processEnv: { MFTOPS_SNAPSHOT_KEY: OTHER_KEY_B64 } })).rejects.toThrow(
      /encrypted with another key than MFTOPS_SNAPSHOT_KEY/,
    );
    await expect(verifySnapshot(dir, info.id, { processEnv: {} })).rejects.toThrow(/is encrypted: set MFTOPS_SNAPSHOT_KEY/);

    const flipped = Buffer.from(enc);
    flipped[enc.length - 40] = flipped[enc.length - 40]! ^ 1;
    writeFileSync(join(folder, 'automation-config.xml.enc'), flipped);
    const err = await verifySnapshot(dir, info.id, keyEnv).catch((e: unknown) => e);
    expect((err as SnapshotIntegrityError).file).toBe('automation-config.xml.enc');
    expect((err as Error).message).toMatch(/automation-config\.xml\.enc fails authentication/);
  });

  it('refuses a malformed key before writing anything, without showing it', async () => {
    const dir = testdir({});
    for (const bad of ['abc123', 'zz'.repeat(32), Buffer.alloc(16, 1).toString('base64')]) {
      const err = await saveFrom(emulator, clients, dir, { processEnv: { MFTOPS_SNAPSHOT_KEY: bad } }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SnapshotError);
      expect((err as Error).message).toMatch(/^MFTOPS_SNAPSHOT_KEY (must be 32 bytes|is neither hex nor base64)/);
      expect((err as Error).message).not.toContain(bad);
    }
    expect(treeOf(dir)).toEqual([]);
  });
});

describe('a failed save leaves nothing behind', () => {
  it('on an authentication error (bad password)', async () => {
    const dir = testdir({});
    const wrong = createAutomationClient({ url: emulator.automationUrl, username: 'admin', password: new Secret('Wr0ng-pass'), retry: { maxAttempts: 1 } });
    try {
      const err = await saveFrom(emulator, clients, dir, { automation: wrong }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SnapshotError);
      expect((err as Error).message).toMatch(/^snapshot not saved: automation: POST \/automation\/api\/v1\/token: 400/);
    } finally {
      await wrong.close();
    }
    expect(treeOf(dir)).toEqual(['lab']);
  });

  it('on a 403 from GET /config (not an administrator)', async () => {
    const dir = testdir({});
    const operator = createAutomationClient({
      url: emulator.automationUrl,
      username: 'operator',
      password: new Secret(SEED_LOGINS.automationOperator.password),
      retry: { maxAttempts: 1 },
    });
    try {
      const err = await saveFrom(emulator, clients, dir, { automation: operator }).catch((e: unknown) => e);
      expect((err as Error).message).toMatch(/^snapshot not saved: automation: GET \/automation\/api\/v1\/config: 403/);
    } finally {
      await operator.close();
    }
    expect(treeOf(dir)).toEqual(['lab']);
  });

  it('on a stopped server', async () => {
    const dir = testdir({});
    const gone = await startSeededEmulator();
    const client = createAutomationClient({
      url: gone.automationUrl,
      username: 'admin',
      password: new Secret(SEED_LOGINS.automationAdmin.password),
      retry: { maxAttempts: 1 },
    });
    await gone.close();
    try {
      const err = await saveFrom(emulator, clients, dir, { automation: client }).catch((e: unknown) => e);
      expect(isMftopsError(err)).toBe(true);
      expect((err as Error).message).toMatch(/^snapshot not saved: .*connection refused/);
    } finally {
      await client.close();
    }
    expect(treeOf(dir)).toEqual(['lab']);
  });

  it('on an export that is not well-formed XML, or a write that fails half-way', async () => {
    const dir = testdir({});
    const truncated = {
      exportConfig: async (dest: string) => {
        const body = Buffer.from('<?xml version="1.0"?>\n<Config><Tasks><Task Name="x"/></Tasks>');
        writeFileSync(dest, body, { mode: 0o600 });
        return { bytes: body.length, sha256: sha256(body) };
      },
    };
    const err = await saveFrom(emulator, clients, dir, { automation: truncated }).catch((e: unknown) => e);
    expect((err as Error).message).toMatch(/^snapshot not saved: the export from .* is not well-formed XML: .*line 2/);

    const diskFull = {
      exportConfig: async (dest: string) => {
        writeFileSync(dest, '<Config>', { mode: 0o600 });
        throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC', syscall: 'write' });
      },
    };
    const err2 = await saveFrom(emulator, clients, dir, { automation: diskFull }).catch((e: unknown) => e);
    expect(err2).toBeInstanceOf(SnapshotError);
    expect((err2 as Error).message).toMatch(
      /^snapshot not saved: cannot write snapshot \S+\/automation-config\.xml: no space left on the device \(ENOSPC\): free some space/,
    );
    expect(treeOf(dir)).toEqual(['lab']);
  });

  it('when the transfer service answers a folder with fewer ACL entries than a moment before (issue 23 finding 4, transfer part)', async () => {
    const dir = testdir({});
    const folder = await clients.transfer.findFolderByPath('/Distribution/Acme/Outbound');
    const entries = (await clients.transfer.listFolderAcls(folder!.id)).length;
    expect(entries).toBeGreaterThan(0);
    const t = clients.transfer;
    const emptied = {
      findFolderByPath: t.findFolderByPath.bind(t),
      listFolderAcls: () => Promise.resolve([]),
      listUsers: t.listUsers.bind(t),
      listGroups: t.listGroups.bind(t),
      listGroupMembers: t.listGroupMembers.bind(t),
    };
    const baseline = { folders: [{ path: '/Distribution/Acme/Outbound', id: folder!.id, entries }] };
    const err = await saveFrom(emulator, clients, dir, { transfer: emptied, folders: ['/Distribution/Acme/Outbound'], baseline }).catch((e: unknown) => e);
    expect((err as Error).message).toBe(
      `snapshot not saved: the snapshot holds 0 ACL entries of folder /Distribution/Acme/Outbound but the server listed ${entries}: not a backup of this server`,
    );
    expect(treeOf(dir)).toEqual(['lab']);
    // The same folders read faithfully are saved.
    await saveFrom(emulator, clients, dir, { folders: ['/Distribution/Acme/Outbound'], baseline });
  });

  it('when a transfer folder cannot be read', async () => {
    const dir = testdir({});
    const failing = {
      ...clients.transfer,
      findFolderByPath: clients.transfer.findFolderByPath.bind(clients.transfer),
      listFolderAcls: () => Promise.reject(new SnapshotError('transfer: GET /folders/1/acls: 500')),
    };
    const err = await saveFrom(emulator, clients, dir, { transfer: failing }).catch((e: unknown) => e);
    expect((err as Error).message).toBe('snapshot not saved: transfer: GET /folders/1/acls: 500');
    expect(treeOf(dir)).toEqual(['lab']);
  });
});

describe('retention', () => {
  it('keeps the newest `keep` snapshots of the environment, and leaves other environments alone', async () => {
    const dir = testdir({});
    const times = ['2026-01-01', '2026-01-02', '2026-01-03', '2026-01-04', '2026-01-05'].map((d) => new Date(`${d}T00:00:00.000Z`));
    const other = await saveFrom(emulator, clients, dir, { env: 'other', folders: [], keep: 1, now: times[0]! });
    const ids: string[] = [];
    for (const now of times) ids.push((await saveFrom(emulator, clients, dir, { folders: [], keep: 3, now })).id);
    expect(listSnapshots(dir, 'lab').snapshots.map((s) => s.id)).toEqual(ids.slice(2));
    expect(listSnapshots(dir, 'other').snapshots.map((s) => s.id)).toEqual([other.id]);
    expect(listSnapshots(dir).snapshots).toHaveLength(4);
  });

  it('never deletes a protected snapshot, and two saves in the same millisecond get two ids', async () => {
    const dir = testdir({});
    const now = new Date('2026-02-01T00:00:00.000Z');
    const first = await saveFrom(emulator, clients, dir, { folders: [], keep: 1, now });
    const second = await saveFrom(emulator, clients, dir, { folders: [], keep: 1, now, protect: [first.id] });
    expect(second.id).not.toBe(first.id);
    expect(listSnapshots(dir, 'lab').snapshots.map((s) => s.id)).toEqual([first.id, second.id]);
  });
});
