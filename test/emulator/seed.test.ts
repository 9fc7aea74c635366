import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isMftopsError } from '../../src/errors.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { loadSeedFile, startEmulator } from '../../src/emulator/index.js';
import { ADMIN, SEED_PATH, XFER_ADMIN, automationBase, exampleSeed, login, transferBase } from './helpers.js';

let emu: RunningEmulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

function tempFile(text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'mftops-seed-'));
  const path = join(dir, 'seed.json');
  writeFileSync(path, text);
  return path;
}

async function startError(seed: unknown): Promise<Error> {
  try {
    emu = await startEmulator({ seed: seed as never });
  } catch (e) {
    return e as Error;
  }
  throw new Error('startEmulator accepted the seed');
}

describe('emulator seed', () => {
  it('rule 94: loadSeedFile names the file on unreadable files and bad JSON (a ConfigError)', () => {
    const bad = tempFile('{ "automation": { ');
    expect(() => loadSeedFile(bad)).toThrow(bad);
    try {
      loadSeedFile(bad);
    } catch (e) {
      expect(isMftopsError(e)).toBe(true);
      expect((e as Error).message).toMatch(/not valid JSON/);
    }
    expect(() => loadSeedFile('/nonexistent/seed.json')).toThrow(/\/nonexistent\/seed\.json: cannot read/);
    expect(() => loadSeedFile(tempFile('[1]'))).toThrow(/top level must be an object/);
  });

  it('rule 95: without a seed the state holds only the admin user of each service, the Administrators group and the root folder', async () => {
    emu = await startEmulator();
    const a = await login(automationBase(emu), ADMIN);
    expect((await a.get('/info')).body).toMatchObject({ username: 'admin', isAdmin: true });
    for (const p of ['/tasks', '/hosts', '/customscripts', '/resourcegroups', '/resourcegroups/acls']) expect((await a.get(p)).body.items, p).toEqual([]);
    expect((await a.get('/usergroups')).body.items.map((g: { Name: string }) => g.Name)).toEqual(['Administrators']);
    const t = await login(transferBase(emu), XFER_ADMIN);
    expect((await t.get('/users/self')).body.permission).toBe('SysAdmin');
    expect((await t.get('/users')).body.items).toHaveLength(1);
    expect((await t.get('/folders')).body.items.map((f: { path: string; folderType: string }) => `${f.path} ${f.folderType}`)).toEqual(['/ Root']);
  });

  it('rule 96: a seed with a broken reference or an invalid task is refused with a ConfigError that names the object', async () => {
    const s1 = exampleSeed();
    s1.automation!.tasks![0]!.steps = [{ Source: { HostID: '999' } }];
    const e1 = await startError(s1);
    expect(isMftopsError(e1)).toBe(true);
    expect(e1.message).toMatch(/task Payroll to bank: steps\[0\]\.Source\.HostID: no host has this ID/);
    const s2 = exampleSeed();
    s2.automation!.acls![0]!.UserGroupName = 'Nobody';
    expect((await startError(s2)).message).toMatch(/acls\[0\].*Nobody/);
    const s3 = exampleSeed();
    s3.transfer!.folders![2]!.acl = [{ type: 'Group', name: 'Ghosts', permissions: {} }];
    expect((await startError(s3)).message).toMatch(/unknown group Ghosts/);
  });

  it('rule 97: the example seed holds the shared names of both services', async () => {
    emu = await startEmulator({ seed: loadSeedFile(SEED_PATH) });
    const a = await login(automationBase(emu), ADMIN);
    const hosts = (await a.get('/hosts')).body.items.map((h: Record<string, { Name: string }>) => `${Object.values(h)[0]!.Name}:${Object.keys(h)[0]}`);
    expect(hosts.sort()).toEqual([
      'acme-sftp:SSHFTP',
      'bank-as2:AS2',
      'finance-share:Share',
      'globex-ftp:FTP',
      'initech-s3:S3',
      'local-fs:FileSystem',
      'payroll-sftp:SSHFTP',
      'xfer:siLock',
    ]);
    expect((await a.get('/tasks')).body.items.map((t: { Name: string }) => t.Name).sort()).toEqual([
      'Acme inbound',
      'Acme outbound',
      'Bank statements in',
      'Globex outbound',
      'Initech archive to S3',
      'Legacy EDI router',
      'Nightly cleanup',
      'Payroll to bank',
    ]);
    expect((await a.get('/tasks/401008')).body.TT).toBe('COS');
    expect((await a.get('/datelists')).body.items.map((d: { Name: string }) => d.Name)).toEqual(['Bank Holidays 2026']);
    expect((await a.get('/globalparameters')).body.items.map((d: { Name: string }) => d.Name)).toEqual(['ArchiveRoot', 'EnvName']);
    expect((await a.get('/usergroups')).body.items.map((g: { Name: string }) => g.Name)).toEqual([
      'Administrators',
      'Auditors',
      'Finance Operators',
      'Partner Managers',
    ]);
    const t = await login(transferBase(emu), XFER_ADMIN);
    const paths = (await t.get('/folders?perPage=100')).body.items.map((f: { path: string }) => f.path);
    for (const p of [
      '/',
      '/Distribution',
      '/Distribution/Acme/Inbound',
      '/Distribution/Globex/Outbound',
      '/Distribution/Initech/Inbound',
      '/Finance/Payroll',
      '/Home/alice',
    ])
      expect(paths).toContain(p);
    expect((await t.get('/users?perPage=100')).body.items.map((u: { username: string }) => u.username)).toEqual([
      'acme-svc',
      'admin',
      'alice',
      'automation-svc',
      'bob',
      'carol',
      'globex-svc',
      'initech-svc',
    ]);
  });

  it('rule 98: seed ids are optional (assigned), the transfer-server host type may be spelled siLock or xferLock, and options are checked', async () => {
    emu = await startEmulator({
      profile: 'legacy',
      seed: {
        automation: {
          resourceGroups: [{ Name: 'G' }],
          hosts: [{ siLock: { Name: 'x1' } }, { xferLock: { Name: 'x2' } }],
          tasks: [{ Name: 'T', Group: ['G'], steps: [{ Source: { HostID: '10001', Type: 'siLock' } }] }],
        },
      },
    });
    const a = await login(automationBase(emu), ADMIN);
    const hosts = (await a.get('/hosts')).body.items;
    expect(hosts).toEqual([
      { xferLock: expect.objectContaining({ ID: '10001', Name: 'x1' }) },
      { xferLock: expect.objectContaining({ ID: '10002', Name: 'x2' }) },
    ]);
    expect((await a.get('/tasks')).body.items[0]).toMatchObject({ ID: '10003', steps: [{ Source: { Type: 'xferLock' } }] });
    await expect(startEmulator({ faultRate: 2 })).rejects.toThrow(/fault rate/);
    await expect(startEmulator({ port: -1 })).rejects.toThrow(/port/);
  });
});
