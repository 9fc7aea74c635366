import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import type { AppContext } from '../../src/app/context.js';
import {
  diffEnvironmentSnapshots,
  listEnvironmentSnapshots,
  restoreEnvironmentSnapshot,
  saveEnvironmentSnapshot,
  verifyEnvironmentSnapshot,
  type RestoreDescription,
} from '../../src/app/snapshot.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { ConfigError } from '../../src/errors.js';
import type { PartsDiff } from '../../src/snapshot/model.js';
import { testdir } from '../helpers/testdir.js';
import { writesOf } from '../apply/helpers.js';
import { automationClientFor, SEED_LOGINS, startSeededEmulator, transferClientFor } from '../integration/helpers.js';
import { messagesOf, recordingContext, type RecordingContext } from './helpers.js';

let emulator: RunningEmulator;
beforeAll(async () => {
  emulator = await startSeededEmulator();
});
afterAll(() => emulator.close());
beforeEach(() => emulator.resetRequestLog());

const ENV = { AUTO_PW: SEED_LOGINS.automationAdmin.password, XFER_PW: SEED_LOGINS.transferAdmin.password };

/** Environments: `lab` (both services, scope /Distribution/Acme), `files` (transfer only, the manifests given, no scope). */
function project(files: Record<string, string> = {}): string {
  const service = (url: string, variable: string) => ({ url, username: 'admin', password: `\${env:${variable}}` });
  const config = {
    apiVersion: 'mftops/v1',
    kind: 'Config',
    environments: {
      lab: {
        automation: service(emulator.automationUrl, 'AUTO_PW'),
        transfer: service(emulator.transferUrl, 'XFER_PW'),
        scope: { folders: ['/Distribution/Acme'] },
      },
      files: { transfer: service(emulator.transferUrl, 'XFER_PW'), ...(Object.keys(files).length > 0 ? { manifests: ['manifests'] } : {}) },
    },
    snapshots: { dir: 'backups', keep: 5 },
  };
  return testdir({ 'mftops.yaml': stringify(config), ...files });
}

/** A context whose clock reads `iso`: the snapshot id is that time. */
function at(dir: string, iso: string): RecordingContext {
  return { ...recordingContext(dir, ENV), now: () => new Date(iso) };
}

function writes(): unknown[] {
  return emulator.requestLog().filter((r) => !r.isTokenCall && r.method !== 'GET');
}

describe('saveEnvironmentSnapshot, listEnvironmentSnapshots, verifyEnvironmentSnapshot, diffEnvironmentSnapshots', () => {
  it('saves the export and every folder under the scope at the context clock, reading only, and lists and verifies it', async () => {
    const dir = project();
    const ctx = at(dir, '2030-01-02T03:04:05.006Z');
    const info = await saveEnvironmentSnapshot({ environment: 'lab' }, ctx);
    expect(info).toMatchObject({
      env: 'lab',
      id: '2030-01-02T03-04-05.006Z',
      path: join(dir, 'backups', 'lab', '2030-01-02T03-04-05.006Z'),
      services: ['automation', 'transfer'],
      taskCount: 8,
      folderCount: 3,
    });
    const saved = JSON.parse(readFileSync(join(info.path, 'transfer-folders.json'), 'utf8')) as { folders: Array<{ path: string }> };
    expect(saved.folders.map((f) => f.path)).toEqual(['/Distribution/Acme', '/Distribution/Acme/Inbound', '/Distribution/Acme/Outbound']);
    expect(writes()).toEqual([]);
    expect(messagesOf(ctx.events)).toEqual([]);

    const list = await listEnvironmentSnapshots({ environment: 'lab' }, ctx);
    expect(list.snapshots.map((s) => [s.env, s.id, s.folderCount])).toEqual([['lab', info.id, 3]]);
    expect(list.unreadable).toEqual([]);

    const verified = await verifyEnvironmentSnapshot({ environment: 'lab', id: '2030-01' }, ctx);
    expect(verified.status === 'verified' && [verified.verified.snapshot.id, verified.verified.files.length]).toEqual([info.id, 3]);
  });

  it('lists the snapshots of every environment when several exist and none is chosen', async () => {
    const dir = project();
    await saveEnvironmentSnapshot({ environment: 'lab' }, at(dir, '2030-01-01T00:00:00.000Z'));
    await saveEnvironmentSnapshot({ environment: 'files' }, at(dir, '2030-01-01T00:00:01.000Z'));
    const all = await listEnvironmentSnapshots({}, recordingContext(dir));
    expect(all.snapshots.map((s) => s.env).sort()).toEqual(['files', 'lab']);
    const files = await listEnvironmentSnapshots({ environment: 'files' }, recordingContext(dir));
    expect(files.snapshots.map((s) => s.env)).toEqual(['files']);
  });

  it('reports an altered snapshot as a result naming the file', async () => {
    const dir = project();
    const info = await saveEnvironmentSnapshot({ environment: 'lab' }, at(dir, '2030-01-01T00:00:00.000Z'));
    const folders = join(info.path, 'transfer-folders.json');
    writeFileSync(folders, readFileSync(folders, 'utf8').replace('"readFiles": true', '"readFiles": false'));
    const result = await verifyEnvironmentSnapshot({ environment: 'lab', id: 'latest' }, recordingContext(dir, ENV));
    expect(result).toMatchObject({ status: 'altered', snapshot: `lab/${info.id}`, file: 'transfer-folders.json' });
    expect(result.status === 'altered' && result.error).toMatch(/transfer-folders\.json has \d+ bytes/);
  });

  it('diffs two snapshots of the environment', async () => {
    const dir = project();
    const a = await saveEnvironmentSnapshot({ environment: 'lab' }, at(dir, '2030-01-01T00:00:00.000Z'));
    const client = automationClientFor(emulator);
    const payroll = (await client.listTasks({ name: 'Payroll to bank' }))[0]!;
    try {
      await client.updateTask(payroll.ID!, { ...payroll, Info: { ...payroll.Info, Description: 'Diffed by the app test' } });
      const b = await saveEnvironmentSnapshot({ environment: 'lab' }, at(dir, '2030-01-01T00:00:01.000Z'));
      const diff = await diffEnvironmentSnapshots({ environment: 'lab', a: a.id, b: b.id }, recordingContext(dir, ENV));
      expect(diff.kinds?.find((k) => k.kind === 'task')?.changed.map((c) => c.name)).toEqual(['Payroll to bank']);
      expect(diff.kinds?.find((k) => k.kind === 'host')?.changed).toEqual([]);
    } finally {
      await client.updateTask(payroll.ID!, payroll);
      await client.close();
    }
  });

  it('warns, and saves no folder, when no manifest manages a folder and the scope names none', async () => {
    const dir = project();
    const ctx = recordingContext(dir, ENV);
    const info = await saveEnvironmentSnapshot({ environment: 'files' }, ctx);
    expect(info).toMatchObject({ services: ['transfer'], folderCount: 0 });
    expect(messagesOf(ctx.events)).toEqual([
      `warning: no folder permissions saved: environment "files" has no FolderPermissions manifests and no scope.folders in ${join(dir, 'mftops.yaml')} (name folders with --folder, or set scope.folders)`,
    ]);
  });

  it('warns about manifests with errors and still saves the folders of the valid FolderPermissions manifests', async () => {
    const dir = project({
      'manifests/payroll.yaml':
        'apiVersion: mftops/v1\nkind: FolderPermissions\nmetadata: { name: /Finance/Payroll }\nspec:\n  mode: additive\n  entries: []\n',
      'manifests/broken.yaml': 'apiVersion: mftops/v1\nkind: Task\nmetadata: { name: Broken }\nspec: { Active: banana }\n',
    });
    const ctx = recordingContext(dir, ENV);
    const info = await saveEnvironmentSnapshot({ environment: 'files' }, ctx);
    expect(info.folderCount).toBe(1);
    expect(messagesOf(ctx.events)).toEqual([
      'warning: the manifests of environment "files" have errors (see mftops validate): only the folders of the FolderPermissions manifests without errors are saved',
    ]);
  });

  it('saves the folders named instead, and refuses named folders without a transfer service', async () => {
    const dir = project();
    const info = await saveEnvironmentSnapshot({ environment: 'lab', folders: ['/Finance/Payroll'] }, recordingContext(dir, ENV));
    expect(info.folderCount).toBe(1);
    const automationOnly = testdir({
      'mftops.yaml': `apiVersion: mftops/v1\nkind: Config\nenvironments:\n  a:\n    automation: { url: "${emulator.automationUrl}", username: admin, password: "\${env:AUTO_PW}" }\n`,
    });
    emulator.resetRequestLog();
    await expect(saveEnvironmentSnapshot({ folders: ['/Finance/Payroll'] }, recordingContext(automationOnly, ENV))).rejects.toThrow(ConfigError);
    expect(emulator.requestLog()).toEqual([]);
  });
});

describe('restoreEnvironmentSnapshot', () => {
  /** A snapshot of `lab`, then bob given a right on /Distribution/Acme/Outbound that the snapshot does not have. */
  async function changedSince(dir: string): Promise<{ id: string; before: unknown; outbound: string; close(): Promise<void> }> {
    const info = await saveEnvironmentSnapshot({ environment: 'lab' }, at(dir, '2030-01-01T00:00:00.000Z'));
    const transfer = transferClientFor(emulator);
    const outbound = (await transfer.findFolderByPath('/Distribution/Acme/Outbound'))!;
    const before = await transfer.listFolderAcls(outbound.id);
    const bob = (await transfer.findUser('bob'))!;
    await transfer.setFolderAcl(outbound.id, { type: 'User', id: bob.id, permissions: { listFiles: true } });
    return { id: info.id, before, outbound: outbound.id, close: () => transfer.close() };
  }

  async function aclOf(folderId: string): Promise<unknown> {
    const transfer = transferClientFor(emulator);
    try {
      return await transfer.listFolderAcls(folderId);
    } finally {
      await transfer.close();
    }
  }

  it('describes what it will replace and what differs (live → snapshot) to approve, and writes nothing when it says no', async () => {
    const dir = project();
    const s = await changedSince(dir);
    emulator.resetRequestLog();
    const asked: (RestoreDescription & { readonly diff: PartsDiff })[] = [];
    const checked: RestoreDescription[] = [];
    const result = await restoreEnvironmentSnapshot(
      {
        environment: 'lab',
        id: s.id,
        precheck: (d) => (checked.push(d), expect(emulator.requestLog()).toEqual([])),
        approve: async (d) => (asked.push(d), false),
      },
      recordingContext(dir, ENV),
    );
    expect(result).toEqual({ status: 'cancelled' });
    expect(checked).toHaveLength(1);
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({
      snapshot: { env: 'lab', id: s.id, createdAt: '2030-01-01T00:00:00.000Z' },
      automationUrl: emulator.automationUrl,
      folderCount: 3,
      transferUrl: emulator.transferUrl,
    });
    expect(asked[0]!.diff.kinds?.every((k) => k.added.length + k.removed.length + k.changed.length === 0)).toBe(true);
    expect(asked[0]!.diff.folders.changed.map((f) => [f.path, f.removed.map((e) => e.name)])).toEqual([['/Distribution/Acme/Outbound', ['bob']]]);
    // The servers were read for the diff; nothing was written.
    expect(writesOf(emulator)).toEqual([]);

    // Approved: a snapshot of the current state first, then the folder back as saved.
    const ctx = at(dir, '2030-01-01T00:00:02.000Z');
    const restored = await restoreEnvironmentSnapshot({ environment: 'lab', id: s.id, approve: async () => true }, ctx);
    if (restored.status !== 'restored') throw new Error('expected restored');
    expect(restored.ref).toEqual({ env: 'lab', id: s.id });
    expect(restored.result).toMatchObject({
      complete: true,
      verified: true,
      mismatches: [],
      services: ['automation', 'transfer'],
      restored: { id: s.id },
      preRestore: { id: '2030-01-01T00-00-02.000Z' },
    });
    expect(restored.result.folders.find((f) => f.path === '/Distribution/Acme/Outbound')).toMatchObject({ outcome: 'restored', put: 0, deleted: 1 });
    expect(await aclOf(s.outbound)).toEqual(s.before);
    await s.close();
  });

  it('restores without a question when no approve is given, one part only with service', async () => {
    const dir = project();
    const s = await changedSince(dir);
    emulator.resetRequestLog();
    const restored = await restoreEnvironmentSnapshot({ environment: 'lab', id: s.id, service: 'transfer' }, at(dir, '2030-01-01T00:00:03.000Z'));
    expect(restored.status === 'restored' && restored.result.services).toEqual(['transfer']);
    expect(emulator.requestLog().some((r) => r.path.startsWith('/automation/') && r.method === 'PUT')).toBe(false);
    expect(await aclOf(s.outbound)).toEqual(s.before);
    await s.close();
  });

  it('refuses before the question and any request: a part the snapshot does not hold, a service the environment lacks; a refusing precheck stops it too', async () => {
    const dir = project();
    const info = await saveEnvironmentSnapshot({ environment: 'files' }, recordingContext(dir, ENV));
    const lab = await saveEnvironmentSnapshot({ environment: 'lab' }, at(dir, '2030-01-01T00:00:00.000Z'));
    emulator.resetRequestLog();
    let asked = 0;
    const approve = async (): Promise<boolean> => (asked++, true);
    const ctx: AppContext = recordingContext(dir, ENV);
    await expect(restoreEnvironmentSnapshot({ environment: 'files', id: info.id, service: 'automation', approve }, ctx)).rejects.toThrow(
      `snapshot files/${info.id} holds no automation export (it holds the transfer folder ACLs)`,
    );
    // The same environment, configured later without its automation service.
    const config = parse(readFileSync(join(dir, 'mftops.yaml'), 'utf8')) as { environments: { lab: Record<string, unknown> } };
    delete config.environments.lab['automation'];
    writeFileSync(join(dir, 'transfer-only.yaml'), stringify(config));
    await expect(restoreEnvironmentSnapshot({ configFile: 'transfer-only.yaml', environment: 'lab', id: lab.id, approve }, ctx)).rejects.toThrow(
      `snapshot lab/${lab.id} holds the automation export, but environment "lab" has no automation service (restore its folder ACLs alone with --service transfer)`,
    );
    expect(asked).toBe(0);
    const refusal = new ConfigError('no one to ask');
    await expect(
      restoreEnvironmentSnapshot(
        {
          environment: 'lab',
          id: lab.id,
          precheck: () => {
            throw refusal;
          },
          approve,
        },
        ctx,
      ),
    ).rejects.toBe(refusal);
    expect(asked).toBe(0);
    expect(emulator.requestLog()).toEqual([]);
  });
});
