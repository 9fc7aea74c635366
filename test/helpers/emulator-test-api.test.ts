import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { ADMIN, XFER_ADMIN, automationBase, login, transferBase } from '../emulator/helpers.js';
import {
  countAuditRecords,
  deleteFolderByHand,
  editAclByHand,
  listWrites,
  readAclById,
  readFolder,
  readFolders,
  readHost,
  readTask,
  readTransferUser,
  startSeededEmulator,
  swapTransferUserNames,
} from './emulator-test-api.js';

/** The emulator test API does what its names say: reads are copies, changes by hand reach the REST API and leave no request or audit record. */
let emulator: RunningEmulator;
beforeEach(async () => {
  emulator = await startSeededEmulator();
});
afterEach(() => emulator.close());

describe('reads', () => {
  it('answer a copy: editing what was read changes nothing on the server', () => {
    const task = readTask(emulator, { name: 'Payroll to bank' })!;
    expect(readTask(emulator, { id: String(task['ID']) })).toEqual(task);
    task['Name'] = 'Edited copy';
    expect(readTask(emulator, { name: 'Payroll to bank' })).toBeDefined();
    expect(readTask(emulator, { name: 'Edited copy' })).toBeUndefined();
  });

  it('hold what the REST API never shows (a secret parameter value)', () => {
    expect(JSON.stringify(readTask(emulator, { id: '401001' }))).toContain('bank-api-SEEDSECRET-8');
  });
});

describe('changes by hand', () => {
  it('are what the REST API answers next, with no request logged and no audit record', async () => {
    const before = countAuditRecords(emulator);
    editAclByHand(emulator, 'Finance', 'Finance Operators', (acl) => {
      acl.Permissions.TaskRun = 0;
    });
    expect(emulator.requestLog()).toEqual([]);
    expect(countAuditRecords(emulator)).toBe(before);
    expect(readAclById(emulator, '501001')).toMatchObject({ ResourceGroupName: 'Finance', UserGroupName: 'Finance Operators' });
    const api = await login(automationBase(emulator), ADMIN);
    expect((await api.get('/resourcegroups/acls/501001')).body.Permissions.TaskRun).toBe(0);
  });

  it('delete a folder with the folders below it, and refuse a path the server does not have', () => {
    expect(readFolders(emulator, (f) => f.path.startsWith('/Distribution/Acme/'))).toHaveLength(2);
    deleteFolderByHand(emulator, '/Distribution/Acme');
    expect(readFolders(emulator, (f) => f.path === '/Distribution/Acme' || f.path.startsWith('/Distribution/Acme/'))).toEqual([]);
    expect(readFolder(emulator, '/Distribution/Globex')).toBeDefined();
    expect(() => deleteFolderByHand(emulator, '/Distribution/Acme')).toThrow('emulator test API: no folder /Distribution/Acme on the server');
  });

  it('swap two usernames, each user keeping its id', () => {
    const bob = readTransferUser(emulator, 'bob')!;
    const carol = readTransferUser(emulator, 'carol')!;
    swapTransferUserNames(emulator, 'bob', 'carol');
    expect(readTransferUser(emulator, 'bob')!.id).toBe(carol.id);
    expect(readTransferUser(emulator, 'carol')!.id).toBe(bob.id);
  });
});

describe('listWrites', () => {
  it('lists the requests that may change something, as METHOD /path: not reads, not token calls', async () => {
    const api = await login(transferBase(emulator), XFER_ADMIN);
    const folder = readFolder(emulator, '/Distribution/Acme/Inbound')!;
    const bob = readTransferUser(emulator, 'bob')!;
    await api.get('/users');
    expect((await api.call('PUT', `/folders/${folder.id}/acls`, { type: 'User', id: bob.id, permissions: { listFiles: true } })).status).toBe(200);
    expect(listWrites(emulator)).toEqual([`PUT /transfer/api/v1/folders/${folder.id}/acls`]);
  });
});

describe('startSeededEmulator', () => {
  it('holds the production example estate, or the staging one when asked', async () => {
    const staging = await startSeededEmulator({ estate: 'staging' });
    try {
      expect(readHost(emulator, 'acme-sftp')).toBeDefined();
      expect(readHost(emulator, 'acme-sftp-test')).toBeUndefined();
      expect(readHost(staging, 'acme-sftp-test')).toBeDefined();
      expect(readHost(staging, 'acme-sftp')).toBeUndefined();
    } finally {
      await staging.close();
    }
  });
});
