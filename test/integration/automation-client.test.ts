import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { ApiError, type AutomationClient } from '../../src/services/index.js';
import { testdir } from '../helpers/testdir.js';
import { SEED_LOGINS, automationClientFor, startSeededEmulator } from './helpers.js';

/**
 * The automation client against the emulator over real loopback HTTP: every endpoint the client
 * has, as DESIGN.md §7 and the issue require. Each test leaves the state as it found it, or works
 * on objects it created.
 */
let emulator: RunningEmulator;
let client: AutomationClient;

beforeAll(async () => {
  emulator = await startSeededEmulator();
  client = automationClientFor(emulator);
});
afterAll(async () => {
  await client.close();
  await emulator.close();
});

describe('automation client ↔ emulator', () => {
  it('reads the server identity', async () => {
    const info = await client.info();
    expect(info.username).toBe('admin');
    expect(info.isAdmin).toBe(true);
    expect(info.appVersion).toMatch(/^\d{4}\.\d+/);
  });

  it('lists tasks in one request and reads each by id', async () => {
    emulator.resetRequestLog();
    const tasks = await client.listTasks();
    expect(tasks.map((t) => t.Name)).toEqual([...tasks.map((t) => t.Name)].sort((a, b) => String(a).localeCompare(String(b))));
    expect(tasks.map((t) => t.Name)).toContain('Payroll to bank');
    expect(emulator.requestLog().filter((r) => r.path.endsWith('/tasks'))).toHaveLength(1);
    const payroll = tasks.find((t) => t.Name === 'Payroll to bank')!;
    const one = await client.getTask(payroll.ID!);
    expect(one.Name).toBe('Payroll to bank');
    expect(one.steps?.length).toBeGreaterThanOrEqual(3);
  });

  it('never receives a secret parameter value, only (suppressed)', async () => {
    const tasks = await client.listTasks({ name: 'Payroll to bank' });
    expect(tasks).toHaveLength(1);
    const apiKey = tasks[0]!.Parameters?.['ApiKey'];
    expect(apiKey?.DisplayValue).toBe('(suppressed)');
    expect(JSON.stringify(tasks)).not.toContain('SEEDSECRET');
  });

  it('filters by name mask, case-insensitively', async () => {
    const acme = await client.listTasks({ name: '*acme*' });
    expect(acme.map((t) => t.Name).sort()).toEqual(['Acme inbound', 'Acme outbound']);
    const fields = await client.listTasks({ name: 'payroll*', fields: ['ID', 'Name'] });
    expect(fields).toHaveLength(1);
    expect(Object.keys(fields[0]!).sort()).toEqual(['ID', 'Name']);
  });

  it('creates, updates, starts and deletes a task', async () => {
    const hosts = await client.listHosts();
    const sftp = hosts.find((h) => h.Name === 'acme-sftp')!;
    const fs = hosts.find((h) => h.Name === 'local-fs')!;
    const created = await client.createTask({
      Name: 'Integration test task',
      Group: ['Partners'],
      Active: 0,
      Info: { Description: 'made by a test' },
      steps: [
        { Source: { HostID: sftp.ID, Type: sftp.type, Path: '/outgoing', FileMask: '*.edi', DeleteOrig: 0 } },
        { Destination: { HostID: fs.ID, Type: fs.type, Path: '/archive', OverwriteOrig: 1 } },
      ],
    });
    const id = created?.ID ?? (await client.listTasks({ name: 'Integration test task' }))[0]!.ID!;
    const read = await client.getTask(id);
    expect(read.Info?.Description).toBe('made by a test');
    await client.updateTask(id, { ...read, Info: { Description: 'changed by a test' } });
    expect((await client.getTask(id)).Info?.Description).toBe('changed by a test');
    const run = await client.startTask(id);
    expect(run.nominalStart).toBeTruthy();
    await client.deleteTask(id);
    const gone = await client.getTask(id).catch((e: unknown) => e);
    expect(gone).toBeInstanceOf(ApiError);
    expect((gone as ApiError).status).toBe(404);
  });

  it('turns a validation 422 into one clear line naming the field', async () => {
    const hosts = await client.listHosts();
    const sftp = hosts.find((h) => h.Name === 'acme-sftp')!;
    const err = await client
      .createTask({ Name: 'Bad retry', Group: ['Partners'], steps: [{ Source: { HostID: sftp.ID, Path: '/x', RetryCount: 40000 } }] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(422);
    expect((err as ApiError).outcome).toBe('rejected');
    expect((err as Error).message).toMatch(/^automation: POST \/automation\/api\/v1\/tasks: 422 .*RetryCount/);
    expect((await client.listTasks({ name: 'Bad retry' })).length).toBe(0);
  });

  it('reads hosts unwrapped from their type key, by list, type filter and id', async () => {
    const hosts = await client.listHosts();
    expect(hosts.map((h) => h.Name).sort()).toEqual(
      ['acme-sftp', 'bank-as2', 'finance-share', 'globex-ftp', 'initech-s3', 'local-fs', 'payroll-sftp', 'xfer'].sort(),
    );
    expect(hosts.find((h) => h.Name === 'xfer')?.type).toBe('siLock');
    const sshOnly = await client.listHosts('SSHFTP');
    expect(sshOnly.map((h) => h.Name).sort()).toEqual(['acme-sftp', 'payroll-sftp']);
    const one = await client.getHost(sshOnly[0]!.ID);
    expect(one.type).toBe('SSHFTP');
    expect(one.Name).toBe(sshOnly[0]!.Name);
    expect(JSON.stringify(hosts)).not.toContain('SEEDSECRET');
  });

  it('reads scripts, date lists and global parameters', async () => {
    const custom = await client.listCustomScripts();
    expect(custom.map((s) => s.Name)).toContain('PGP Encrypt');
    const pgp = await client.getCustomScript(custom.find((s) => s.Name === 'PGP Encrypt')!.ID!);
    expect(typeof pgp['Source']).toBe('string');
    const standard = await client.listStandardScripts();
    expect(standard.map((s) => s.Name).sort()).toEqual(['Checksum', 'Unzip']);
    expect((await client.getStandardScript(standard[0]!.ID!)).Name).toBe(standard[0]!.Name);
    const lists = await client.listDateLists();
    expect(lists.map((d) => d.Name)).toEqual(['Bank Holidays 2026']);
    expect((await client.getDateList(lists[0]!.ID!)).Name).toBe('Bank Holidays 2026');
    const params = await client.listGlobalParameters();
    expect(params.map((p) => p.Name).sort()).toEqual(['ArchiveRoot', 'EnvName']);
  });

  it('reads resource groups and user groups', async () => {
    const groups = await client.listResourceGroups();
    expect(groups.map((g) => g.Name)).toEqual(['Finance', 'Operations', 'Partners']);
    expect((await client.getResourceGroup('Finance')).Name).toBe('Finance');
    expect((await client.getUserGroup('Finance Operators')).Name).toBe('Finance Operators');
  });

  it('lists, creates, updates and deletes resource-group ACLs', async () => {
    const all = await client.listResourceGroupAcls();
    expect(all).toHaveLength(3);
    const finance = await client.listResourceGroupAcls({ resourceGroupName: 'Finance', userGroupName: 'Finance Operators' });
    expect(finance).toHaveLength(1);
    expect(await client.getResourceGroupAcl(finance[0]!.ACLID)).toMatchObject({ ResourceGroupName: 'Finance', UserGroupName: 'Finance Operators' });

    const created = await client.createResourceGroupAcl({
      ResourceGroupName: 'Operations',
      UserGroupName: 'Finance Operators',
      Permissions: { TaskRun: 1 },
    });
    const id = created?.ACLID ?? (await client.listResourceGroupAcls({ resourceGroupName: 'Operations', userGroupName: 'Finance Operators' }))[0]!.ACLID;
    await client.updateResourceGroupAcl(id, { Permissions: { TaskRun: 1, TaskEditExisting: 1 } });
    const updated = await client.getResourceGroupAcl(id);
    expect(updated.Permissions).toMatchObject({ TaskRun: 1, TaskEditExisting: 1 });

    // The reference's rule: TaskEditExisting cannot be 0 while TaskAddEditDelete is 1.
    const bad = await client.updateResourceGroupAcl(id, { Permissions: { TaskAddEditDelete: 1, TaskEditExisting: 0 } }).catch((e: unknown) => e);
    expect((bad as ApiError).status).toBe(422);

    await client.deleteResourceGroupAcl(id);
    expect(await client.listResourceGroupAcls()).toHaveLength(3);
  });

  it('reads and switches the scheduler', async () => {
    expect(await client.getSchedulerStatus()).toBe(true);
    await client.stopScheduler();
    expect(await client.getSchedulerStatus()).toBe(false);
    await client.startScheduler();
    expect(await client.getSchedulerStatus()).toBe(true);
  });

  it('exports the configuration byte for byte to a 0600 file and imports it back', async () => {
    const dir = testdir({});
    const dest = join(dir, 'automation-config.xml');
    const result = await client.exportConfig(dest);
    const bytes = readFileSync(dest);
    expect(result.bytes).toBe(bytes.length);
    expect(result.sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
    expect(statSync(dest).mode & 0o777).toBe(0o600);
    expect(bytes.toString('utf8')).toContain('<Task');
    // The export holds host passwords in clear, which is why the file is 0600.
    expect(bytes.toString('utf8')).toContain('SEEDSECRET');

    const before = await client.listTasks();
    const target = before.find((t) => t.Name === 'Nightly cleanup')!;
    await client.deleteTask(target.ID!);
    expect((await client.listTasks()).length).toBe(before.length - 1);
    await client.importConfig(bytes);
    expect(await client.listTasks()).toEqual(before);
  });

  it('reads the audit report of the changes it made', async () => {
    const records = await client.auditReport({ predicate: 'TargetType=="Task"', orderBy: '!LogTime', maxCount: 50 });
    expect(records.length).toBeGreaterThan(0);
    expect(records[0]).toMatchObject({ Username: 'admin', TargetType: 'Task' });
  });

  it('gives a non-administrator a clear 403 on admin-only calls', async () => {
    const operator = automationClientFor(emulator, SEED_LOGINS.automationOperator);
    try {
      const err = await operator.stopScheduler().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ApiError);
      expect((err as ApiError).status).toBe(403);
      expect((err as Error).message).toMatch(/^automation: PUT \/automation\/api\/v1\/tasks\/scheduler\/stop: 403/);
      expect(await client.getSchedulerStatus()).toBe(true);
    } finally {
      await operator.close();
    }
  });

  it('refuses a wrong password with a message that does not echo it', async () => {
    const wrong = automationClientFor(emulator, { username: 'admin', password: 'Wr0ng-SEEDED-pw' });
    try {
      const err = await wrong.info().catch((e: unknown) => e);
      expect((err as Error).message).toMatch(/^automation: POST \/automation\/api\/v1\/token: 400/);
      expect((err as Error).message).not.toContain('Wr0ng-SEEDED-pw');
    } finally {
      await wrong.close();
    }
  });
});
