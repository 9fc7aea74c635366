import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTOMATION_READ_METHODS } from '../../src/services/automation/client.js';
import type { AutomationClient } from '../../src/services/automation/client.js';
import { ApiError } from '../../src/services/errors.js';
import { toReadonly } from '../../src/services/index.js';
import { AUTOMATION, JSON_HEADERS, automationClient, createMock, instantRetry, replyToken } from './helpers.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mftops-services-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('base path', () => {
  it('probes /api/v1 then /webadmin/api/v1 and uses the one that answers', async () => {
    const { agent, pool, calls } = createMock();
    const a = pool(AUTOMATION);
    a.intercept({ path: '/api/v1/token', method: 'POST' }).reply(404, 'Not Found', { headers: { 'content-type': 'text/html' } });
    replyToken(a, { base: '/webadmin/api/v1', access: 'tok' });
    a.intercept({ path: '/webadmin/api/v1/info' }).reply(200, { appVersion: '2019.2' }, { headers: JSON_HEADERS });
    a.intercept({ path: '/webadmin/api/v1/tasks/3' }).reply(200, { ID: '3', Name: 't' }, { headers: JSON_HEADERS });
    const client = automationClient(agent);
    await expect(client.info()).resolves.toMatchObject({ appVersion: '2019.2' });
    await expect(client.getTask('3')).resolves.toMatchObject({ ID: '3' });
    expect(calls().map((c) => `${c.method} ${c.path}`)).toEqual([
      'POST /api/v1/token',
      'POST /webadmin/api/v1/token',
      'GET /webadmin/api/v1/info',
      'GET /webadmin/api/v1/tasks/3',
    ]);
  });

  it('makes no extra request when /api/v1 works', async () => {
    const { agent, pool } = createMock();
    const a = pool(AUTOMATION);
    replyToken(a, { access: 'tok' });
    a.intercept({ path: '/api/v1/info' }).reply(200, {}, { headers: JSON_HEADERS });
    const client = automationClient(agent);
    await client.info();
    expect(client.requestCount).toBe(2);
  });

  it('does not probe when the configured URL already names the API, and keeps a path prefix', async () => {
    const { agent, pool, calls } = createMock();
    const a = pool(AUTOMATION);
    a.intercept({ path: '/mft/webadmin/api/v1/token', method: 'POST' }).reply(404, {}, { headers: JSON_HEADERS });
    const err = await automationClient(agent, { url: `${AUTOMATION}/mft/webadmin/api/v1/` })
      .info()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(calls().map((c) => c.path)).toEqual(['/mft/webadmin/api/v1/token']);
  });

  it('refuses plain http for anything but loopback', () => {
    const { agent } = createMock();
    expect(() => automationClient(agent, { url: 'http://automation.example.com' })).toThrow(/plain http:\/\/ is refused/);
    expect(() => automationClient(agent, { url: 'http://127.0.0.1:8080' })).not.toThrow();
  });
});

describe('requests carry the expected headers', () => {
  it('sends User-Agent mftops/<version>, JSON bodies and form-encoded token calls', async () => {
    const { agent, pool, calls } = createMock();
    const a = pool(AUTOMATION);
    replyToken(a, { access: 'tok' });
    a.intercept({ path: '/api/v1/tasks', method: 'POST' }).reply(201, { ID: '10', Name: 'n' }, { headers: JSON_HEADERS });
    const pkg = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    await automationClient(agent).createTask({ Name: 'n' });
    const [token, post] = calls();
    expect(token?.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(new URLSearchParams(token?.body).get('grant_type')).toBe('password');
    expect(new URLSearchParams(token?.body).get('username')).toBe('admin');
    expect(token?.headers.authorization).toBeUndefined();
    expect(post?.headers['user-agent']).toBe(`mftops/${pkg.version}`);
    expect(post?.headers['content-type']).toBe('application/json');
    expect(JSON.parse(post?.body ?? '')).toEqual({ Name: 'n' });
  });
});

describe('hosts', () => {
  it('unwraps the type key of list items, keeping siLock and xferLock as sent', async () => {
    const { agent, pool } = createMock();
    const a = pool(AUTOMATION);
    replyToken(a, { access: 'tok' });
    a.intercept({ path: '/api/v1/hosts' }).reply(
      200,
      {
        items: [
          { SSHFTP: { ID: '69230956', Name: 'partner-sftp', Host: 'sftp.partner.example' } },
          { siLock: { ID: '2', Name: 'transfer-prod' } },
          { xferLock: { ID: '3', Name: 'transfer-old' } },
        ],
        paging: { page: 1, perPage: 3, totalItems: 3, totalPages: 1 },
      },
      { headers: JSON_HEADERS },
    );
    const hosts = await automationClient(agent).listHosts();
    expect(hosts).toEqual([
      { type: 'SSHFTP', ID: '69230956', Name: 'partner-sftp', Host: 'sftp.partner.example' },
      { type: 'siLock', ID: '2', Name: 'transfer-prod' },
      { type: 'xferLock', ID: '3', Name: 'transfer-old' },
    ]);
  });

  it('accepts a single host wrapped or flat, and passes type= to the list', async () => {
    const { agent, pool, calls } = createMock();
    const a = pool(AUTOMATION);
    replyToken(a, { access: 'tok' });
    a.intercept({ path: '/api/v1/hosts/5' }).reply(200, { FileSystem: { ID: '5', Name: 'share' } }, { headers: JSON_HEADERS });
    a.intercept({ path: '/api/v1/hosts/6' }).reply(200, { ID: 6, Name: 'flat', Type: 'FTP', Host: 'ftp.example' }, { headers: JSON_HEADERS });
    a.intercept({ path: '/api/v1/hosts', query: { type: 'SSHFTP' } }).reply(200, [{ ID: '7', Name: 'flat-in-list' }], { headers: JSON_HEADERS });
    const client = automationClient(agent);
    await expect(client.getHost('5')).resolves.toEqual({ type: 'FileSystem', ID: '5', Name: 'share' });
    await expect(client.getHost('6')).resolves.toEqual({ type: 'FTP', ID: '6', Name: 'flat', Type: 'FTP', Host: 'ftp.example' });
    await expect(client.listHosts('SSHFTP')).resolves.toEqual([{ type: 'SSHFTP', ID: '7', Name: 'flat-in-list' }]);
    expect(calls().at(-1)?.query).toEqual({ type: 'SSHFTP' });
  });
});

describe('task parameters', () => {
  const listForm = {
    ID: '42',
    Name: 'Payroll',
    Parameters: {
      Parameter: [
        { Name: 'Region', value: 'EU' },
        { Name: 'Key', value: '', DisplayValue: '(suppressed)' },
      ],
    },
    steps: [
      { Process: { ScriptID: 's1', Parameters: { Parameter: { Name: 'Mode', value: 'fast' } } } },
      { For: { steps: [{ Process: { Parameters: { Parameter: [{ Name: 'Inner', value: 1 }] } } }] } },
    ],
  };

  it('normalises {Parameter: [{Name, value}]} to the map form at every depth', async () => {
    const { agent, pool } = createMock();
    const a = pool(AUTOMATION);
    replyToken(a, { access: 'tok' });
    a.intercept({ path: '/api/v1/tasks/42' }).reply(200, listForm, { headers: JSON_HEADERS });
    const task = await automationClient(agent).getTask('42');
    expect(task.Parameters).toEqual({ Region: { value: 'EU' }, Key: { value: '', DisplayValue: '(suppressed)' } });
    expect(task.steps?.[0]?.Process?.Parameters).toEqual({ Mode: { value: 'fast' } });
    expect(task.steps?.[1]?.For?.steps).toEqual([{ Process: { Parameters: { Inner: { value: 1 } } } }]);
  });

  it('keeps the map form as it is, including a parameter named "Parameter"', async () => {
    const { agent, pool } = createMock();
    const a = pool(AUTOMATION);
    replyToken(a, { access: 'tok' });
    const mapForm = { ID: '1', Parameters: { Region: { value: 'EU', DisplayValue: 'EU' }, Parameter: { value: 'odd' } } };
    a.intercept({ path: '/api/v1/tasks' }).reply(
      200,
      { items: [mapForm], paging: { page: 1, perPage: 1, totalItems: 1, totalPages: 1 } },
      { headers: JSON_HEADERS },
    );
    await expect(automationClient(agent).listTasks()).resolves.toEqual([mapForm]);
  });

  it('sends parameters in the map form, and in the list form once the server answered with it', async () => {
    const { agent, pool, calls } = createMock();
    const a = pool(AUTOMATION);
    replyToken(a, { access: 'tok' });
    const canonical = { ID: '42', Name: 'Payroll', Parameters: { Region: { value: 'EU' }, Key: { value: '', DisplayValue: '(suppressed)' } } };
    a.intercept({ path: '/api/v1/tasks/42', method: 'PUT' }).reply(200, listForm, { headers: JSON_HEADERS }).times(2);
    const client = automationClient(agent);
    await client.updateTask('42', canonical);
    expect((JSON.parse(calls().at(-1)?.body ?? '') as { Parameters: unknown }).Parameters).toEqual(canonical.Parameters);
    // That answer was in the list form: the server's own form is what it gets from now on.
    await client.updateTask('42', canonical);
    expect((JSON.parse(calls().at(-1)?.body ?? '') as { Parameters: unknown }).Parameters).toEqual({
      Parameter: [
        { Name: 'Region', value: 'EU' },
        { Name: 'Key', value: '', DisplayValue: '(suppressed)' },
      ],
    });
    // The caller's task is left as it was.
    expect(canonical.Parameters).toEqual({ Region: { value: 'EU' }, Key: { value: '', DisplayValue: '(suppressed)' } });
  });

  it('normalises every task of a list at every depth', async () => {
    const { agent, pool } = createMock();
    const a = pool(AUTOMATION);
    replyToken(a, { access: 'tok' });
    const other = { ID: '43', Name: 'Plain', Parameters: { Region: { value: 'US' } } };
    a.intercept({ path: '/api/v1/tasks' }).reply(
      200,
      { items: [listForm, other], paging: { page: 1, perPage: 2, totalItems: 2, totalPages: 1 } },
      { headers: JSON_HEADERS },
    );
    const [first, second] = await automationClient(agent).listTasks();
    expect(first?.Parameters).toEqual({ Region: { value: 'EU' }, Key: { value: '', DisplayValue: '(suppressed)' } });
    expect(first?.steps?.[0]?.Process?.Parameters).toEqual({ Mode: { value: 'fast' } });
    expect(first?.steps?.[1]?.For?.steps).toEqual([{ Process: { Parameters: { Inner: { value: 1 } } } }]);
    expect(second).toEqual(other);
  });
});

describe('configuration export and import', () => {
  it('writes the exact bytes (CRLF, non-UTF-8) to a 0600 file and returns size and sha256', async () => {
    const { agent, pool } = createMock();
    const a = pool(AUTOMATION);
    replyToken(a, { access: 'tok' });
    const xml = Buffer.concat([
      Buffer.from('<?xml version="1.0" encoding="ISO-8859-1"?>\r\n<Config>\r\n  <Host Name="M'),
      Buffer.from([0xfc, 0x6c, 0x6c, 0x65, 0x72, 0xff, 0xfe]),
      Buffer.from('" Pwd="plain"/>\r\n</Config>\r\n'),
    ]);
    a.intercept({ path: '/api/v1/config', headers: { accept: /application\/xml/ } }).reply(200, xml, { headers: { 'content-type': 'application/xml' } });
    const dest = join(dir, 'automation-config.xml');
    const result = await automationClient(agent).exportConfig(dest);
    const written = await readFile(dest);
    expect(written.equals(xml)).toBe(true);
    expect(result).toEqual({ bytes: xml.length, sha256: createHash('sha256').update(xml).digest('hex') });
    expect((await stat(dest)).mode & 0o777).toBe(0o600);
  });

  it('rewrites the file from the start when a read of it is retried', async () => {
    const { agent, pool } = createMock();
    const a = pool(AUTOMATION);
    replyToken(a, { access: 'tok' });
    a.intercept({ path: '/api/v1/config' }).reply(503, { status: 503, title: 'Service Unavailable', detail: 'busy' }, { headers: JSON_HEADERS });
    a.intercept({ path: '/api/v1/config' }).reply(200, '<Config/>', { headers: { 'content-type': 'application/xml' } });
    const dest = join(dir, 'retried.xml');
    await automationClient(agent).exportConfig(dest);
    expect(await readFile(dest, 'utf8')).toBe('<Config/>');
  });

  it('turns a JSON error of the export into an ApiError', async () => {
    const { agent, pool } = createMock();
    const a = pool(AUTOMATION);
    replyToken(a, { access: 'tok' });
    a.intercept({ path: '/api/v1/config' }).reply(403, { status: 403, title: 'Forbidden', detail: 'administrators only' }, { headers: JSON_HEADERS });
    await expect(automationClient(agent).exportConfig(join(dir, 'forbidden.xml'))).rejects.toThrow(
      'automation: GET /api/v1/config: 403 Forbidden: administrators only',
    );
  });

  it('imports with PUT and Content-Type application/xml, bytes as given', async () => {
    const { agent, pool, calls } = createMock();
    const a = pool(AUTOMATION);
    replyToken(a, { access: 'tok' });
    a.intercept({ path: '/api/v1/config', method: 'PUT' }).reply(204, '');
    await automationClient(agent).importConfig('<Config>\r\n</Config>');
    const put = calls().at(-1);
    expect(put?.headers['content-type']).toBe('application/xml');
    expect(put?.body).toBe('<Config>\r\n</Config>');
  });

  it('sends the import again after a 503 or a reset (a whole replace is safe to repeat), waiting what Retry-After says', async () => {
    const { agent, pool, calls } = createMock();
    const a = pool(AUTOMATION);
    replyToken(a, { access: 'tok' });
    a.intercept({ path: '/api/v1/config', method: 'PUT' }).reply(
      503,
      { status: 503, title: 'Service Unavailable', detail: 'busy' },
      { headers: { ...JSON_HEADERS, 'retry-after': '2' } },
    );
    a.intercept({ path: '/api/v1/config', method: 'PUT' }).replyWithError(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }));
    a.intercept({ path: '/api/v1/config', method: 'PUT' }).reply(204, '');
    const { retry, delays } = instantRetry();
    await expect(automationClient(agent, { retry }).importConfig('<Config/>')).resolves.toBeUndefined();
    const puts = calls().filter((c) => c.method === 'PUT');
    expect(puts.map((c) => c.body)).toEqual(['<Config/>', '<Config/>', '<Config/>']);
    expect(delays).toHaveLength(2);
    expect(delays[0]).toBe(2000);
  });

  it('gives up on an import that keeps getting 503 after the attempt limit', async () => {
    const { agent, pool, calls } = createMock();
    const a = pool(AUTOMATION);
    replyToken(a, { access: 'tok' });
    a.intercept({ path: '/api/v1/config', method: 'PUT' })
      .reply(503, { status: 503, title: 'Service Unavailable', detail: 'busy' }, { headers: JSON_HEADERS })
      .persist();
    const err = await automationClient(agent, { retry: instantRetry({ maxAttempts: 3 }).retry })
      .importConfig('<Config/>')
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 503, attempts: 3 });
    expect((err as Error).message).toBe('automation: PUT /api/v1/config: 503 Service Unavailable: busy (gave up after 3 attempts)');
    expect(calls().filter((c) => c.method === 'PUT')).toHaveLength(3);
  });
});

describe('scheduler, ACLs and reports', () => {
  it('reads the scheduler status from enabled, Enabled or status', async () => {
    const { agent, pool } = createMock();
    const a = pool(AUTOMATION);
    replyToken(a, { access: 'tok' });
    a.intercept({ path: '/api/v1/tasks/scheduler' }).reply(200, { enabled: true }, { headers: JSON_HEADERS });
    a.intercept({ path: '/api/v1/tasks/scheduler' }).reply(200, { Enabled: 0 }, { headers: JSON_HEADERS });
    a.intercept({ path: '/api/v1/tasks/scheduler' }).reply(200, { status: 'Running' }, { headers: JSON_HEADERS });
    a.intercept({ path: '/api/v1/tasks/scheduler' }).reply(200, { status: 'maybe' }, { headers: JSON_HEADERS });
    const client = automationClient(agent);
    expect(await client.getSchedulerStatus()).toBe(true);
    expect(await client.getSchedulerStatus()).toBe(false);
    expect(await client.getSchedulerStatus()).toBe(true);
    await expect(client.getSchedulerStatus()).rejects.toThrow('unrecognised scheduler status');
  });

  it('starts and stops the scheduler with PUT', async () => {
    const { agent, pool, calls } = createMock();
    const a = pool(AUTOMATION);
    replyToken(a, { access: 'tok' });
    a.intercept({ path: '/api/v1/tasks/scheduler/start', method: 'PUT' }).reply(204, '');
    a.intercept({ path: '/api/v1/tasks/scheduler/stop', method: 'PUT' }).reply(204, '');
    const client = automationClient(agent);
    await client.startScheduler();
    await client.stopScheduler();
    expect(
      calls()
        .slice(1)
        .map((c) => `${c.method} ${c.path}`),
    ).toEqual(['PUT /api/v1/tasks/scheduler/start', 'PUT /api/v1/tasks/scheduler/stop']);
  });

  it('lists user groups page after page, reading members in each form (A-28)', async () => {
    const { agent, pool, calls } = createMock();
    const a = pool(AUTOMATION);
    replyToken(a, { access: 'tok' });
    const page1 = [
      { Name: 'Finance Operators', Members: ['operator', 'erin'] },
      { Name: 'Auditors', Users: { Username: 'dana' } },
    ];
    const page2 = [{ Name: 'Partner Managers', Type: 'local' }, { Description: 'no name: no group' }];
    a.intercept({ path: '/api/v1/usergroups' }).reply(
      200,
      { items: page1, paging: { page: 1, perPage: 2, totalItems: 4, totalPages: 2 } },
      { headers: JSON_HEADERS },
    );
    a.intercept({ path: '/api/v1/usergroups', query: { page: 2, perPage: 2 } }).reply(
      200,
      { items: page2, paging: { page: 2, perPage: 2, totalItems: 4, totalPages: 2 } },
      { headers: JSON_HEADERS },
    );
    await expect(automationClient(agent).listUserGroups()).resolves.toEqual([
      { name: 'Finance Operators', members: ['operator', 'erin'] },
      { name: 'Auditors', members: ['dana'] },
      { name: 'Partner Managers' },
    ]);
    expect(calls().filter((c) => c.path.startsWith('/api/v1/usergroups'))).toHaveLength(2);
  });

  it('filters ACLs by group names and encodes names in paths', async () => {
    const { agent, pool, calls } = createMock();
    const a = pool(AUTOMATION);
    replyToken(a, { access: 'tok' });
    const acl = { ACLID: '8', ResourceGroupName: 'Finance', UserGroupName: 'Finance Operators', Permissions: { TaskRun: 1 } };
    a.intercept({ path: '/api/v1/resourcegroups/acls', query: { resourceGroupName: 'Finance', userGroupName: 'Finance Operators' } }).reply(
      200,
      { items: [acl], paging: { page: 1, perPage: 1, totalItems: 1, totalPages: 1 } },
      { headers: JSON_HEADERS },
    );
    a.intercept({ path: '/api/v1/usergroups/Finance%20Operators' }).reply(200, { Name: 'Finance Operators' }, { headers: JSON_HEADERS });
    a.intercept({ path: '/api/v1/resourcegroups/acls/8', method: 'PUT' }).reply(200, acl, { headers: JSON_HEADERS });
    a.intercept({ path: '/api/v1/resourcegroups/acls/8', method: 'DELETE' }).reply(204, '');
    const client = automationClient(agent);
    await expect(client.listResourceGroupAcls({ resourceGroupName: 'Finance', userGroupName: 'Finance Operators' })).resolves.toEqual([acl]);
    await expect(client.getUserGroup('Finance Operators')).resolves.toMatchObject({ Name: 'Finance Operators' });
    await expect(client.updateResourceGroupAcl('8', { Permissions: { TaskRun: 1 } })).resolves.toEqual(acl);
    await client.deleteResourceGroupAcl('8');
    expect(JSON.parse(calls().find((c) => c.method === 'PUT')?.body ?? '')).toEqual({ Permissions: { TaskRun: 1 } });
  });

  it('posts the audit query, accepts {items} or a bare array, and retries it like a read', async () => {
    const { agent, pool, calls } = createMock();
    const a = pool(AUTOMATION);
    replyToken(a, { access: 'tok' });
    const record = { LogID: 1, Action: 'TaskEdit', TargetType: 'Task', TaskName: 'Payroll' };
    a.intercept({ path: '/api/v1/reports/audit', method: 'POST' }).reply(503, {}, { headers: JSON_HEADERS });
    a.intercept({ path: '/api/v1/reports/audit', method: 'POST' }).reply(200, { items: [record] }, { headers: JSON_HEADERS });
    a.intercept({ path: '/api/v1/reports/audit', method: 'POST' }).reply(200, [record], { headers: JSON_HEADERS });
    const client = automationClient(agent, { retry: instantRetry().retry });
    const query = { predicate: 'TargetType=="Task"', orderBy: '!LogTime', maxCount: 100 };
    await expect(client.auditReport(query)).resolves.toEqual([record]);
    await expect(client.auditReport(query)).resolves.toEqual([record]);
    expect(JSON.parse(calls().at(-1)?.body ?? '')).toEqual(query);
  });

  it('starts a task with its parameters', async () => {
    const { agent, pool, calls } = createMock();
    const a = pool(AUTOMATION);
    replyToken(a, { access: 'tok' });
    a.intercept({ path: '/api/v1/tasks/42/start', method: 'POST' }).reply(200, { nominalStart: '2026-01-01 02:00:00.00' }, { headers: JSON_HEADERS });
    await expect(automationClient(agent).startTask('42', { Region: 'EU' })).resolves.toEqual({ nominalStart: '2026-01-01 02:00:00.00' });
    expect(JSON.parse(calls().at(-1)?.body ?? '')).toEqual({ Region: 'EU' });
  });
});

describe('read-only client', () => {
  const writes = [
    'createTask',
    'updateTask',
    'deleteTask',
    'startTask',
    'createResourceGroupAcl',
    'updateResourceGroupAcl',
    'deleteResourceGroupAcl',
    'startScheduler',
    'stopScheduler',
    'importConfig',
    'close',
  ] as const satisfies readonly (keyof AutomationClient)[];

  it('has no write methods at runtime, even through a cast', () => {
    const { agent } = createMock();
    const full = automationClient(agent);
    const view = toReadonly(full) as unknown as Record<string, unknown>;
    for (const name of writes) {
      expect(typeof (full as unknown as Record<string, unknown>)[name]).toBe('function');
      expect(view[name]).toBeUndefined();
      expect(name in view).toBe(false);
    }
    expect(Object.isFrozen(view)).toBe(true);
    expect(Object.keys(view).sort()).toEqual([...AUTOMATION_READ_METHODS, 'service', 'requestCount', 'tokenRequestCount'].sort());
  });

  it('reads through to the client and shares its counters', async () => {
    const { agent, pool } = createMock();
    const a = pool(AUTOMATION);
    replyToken(a, { access: 'tok' });
    a.intercept({ path: '/api/v1/info' }).reply(200, { appVersion: 'v' }, { headers: JSON_HEADERS });
    const full = automationClient(agent);
    const view = toReadonly(full);
    await expect(view.info()).resolves.toMatchObject({ appVersion: 'v' });
    expect(view.requestCount).toBe(2);
    expect(view.tokenRequestCount).toBe(1);
    expect(full.requestCount).toBe(2);
  });
});

describe('the normalisation boundary (docs/server-variants.md)', () => {
  /** A task as a server that took the other reading of every open point answers it. */
  const divergent = {
    ID: 42,
    Name: 'Payroll to bank',
    Group: 'Finance',
    Active: true,
    AR: '0',
    CAS: 'EMPTY',
    NextEID: '7',
    Schedules: {
      Schedule: {
        ID: 3,
        Days: { DayOfWeek: ['Mon', 'tue', 'FRIDAY'] },
        Frequency: { Interval: { StartTime: '9:05', EndTime: '17:00' } },
        DateListRef: [{ ID: 303001 }],
        Multi: '0',
        RunEvenIfNotif: false,
      },
    },
    steps: [
      { MicSourceType: { ID: 4, HostID: 69230956, Path: '/out', DeleteOrig: '1', RetryCount: '3', SearchSubdirs: true, Type: 'SSHFTP' } },
      { MicDestinationType: { ID: 5, HostID: 69230957, Path: '/in', OverwriteOrig: 'false', Type: 'siLock' } },
    ],
  };

  const canonical = {
    ID: '42',
    Name: 'Payroll to bank',
    Group: ['Finance'],
    Active: 1,
    AR: 0,
    CAS: '',
    NextEID: 7,
    Schedules: {
      Schedule: [
        {
          ID: '3',
          Days: { DayOfWeek: ['Monday', 'Tuesday', 'Friday'] },
          Frequency: { Interval: [{ StartTime: '09:05', EndTime: '17:00' }] },
          DateListRef: [{ DateListID: '303001' }],
          Multi: 0,
          RunEvenIfNotif: 0,
        },
      ],
    },
    steps: [
      { Source: { ID: '4', HostID: '69230956', Path: '/out', DeleteOrig: 1, RetryCount: 3, SearchSubdirs: 1, Type: 'SSHFTP' } },
      { Destination: { ID: '5', HostID: '69230957', Path: '/in', OverwriteOrig: 0, Type: 'siLock' } },
    ],
  };

  it('reads every form of a task into the canonical one', async () => {
    const { agent, pool } = createMock();
    const a = pool(AUTOMATION);
    replyToken(a, { access: 'tok' });
    a.intercept({ path: '/api/v1/tasks' }).reply(200, [divergent], { headers: JSON_HEADERS });
    await expect(automationClient(agent).listTasks()).resolves.toEqual([canonical]);
  });

  it('writes a canonical task back in the forms the server answered with', async () => {
    const { agent, pool, calls } = createMock();
    const a = pool(AUTOMATION);
    replyToken(a, { access: 'tok' });
    a.intercept({ path: '/api/v1/tasks/42' }).reply(200, divergent, { headers: JSON_HEADERS });
    a.intercept({ path: '/api/v1/tasks/42', method: 'PUT' }).reply(204, '');
    const client = automationClient(agent);
    const task = await client.getTask('42');
    expect(client.wireForms()).toEqual({
      ids: 'number',
      flags: 'boolean',
      integers: 'string',
      days: 'short',
      times: 'unpadded',
      dateListRef: 'id',
      cas: 'EMPTY',
    });
    await client.updateTask('42', task);
    const sent = JSON.parse(calls().at(-1)?.body ?? '') as Record<string, unknown>;
    expect(sent).toEqual({
      ...divergent,
      // Group is sent as the list the reference documents; step keys as the reference's input form.
      Group: ['Finance'],
      AR: false,
      NextEID: '7',
      Schedules: {
        Schedule: [
          { ...divergent.Schedules.Schedule, Days: { DayOfWeek: ['Mon', 'Tue', 'Fri'] }, Frequency: { Interval: [{ StartTime: '9:05', EndTime: '17:00' }] } },
        ],
      },
      steps: [
        { Source: { ...divergent.steps[0]!.MicSourceType, DeleteOrig: '1', RetryCount: '3' } },
        { Destination: { ...divergent.steps[1]!.MicDestinationType, OverwriteOrig: false } },
      ],
    });
  });

  it("sends the reference's forms to a server it has not read yet", async () => {
    const { agent, pool, calls } = createMock();
    const a = pool(AUTOMATION);
    replyToken(a, { access: 'tok' });
    a.intercept({ path: '/api/v1/tasks', method: 'POST' }).reply(201, { ID: 99 }, { headers: JSON_HEADERS });
    const created = await automationClient(agent).createTask({ ...canonical, ID: undefined } as never);
    expect(created?.ID).toBe('99');
    expect(JSON.parse(calls().at(-1)?.body ?? '')).toEqual(JSON.parse(JSON.stringify({ ...canonical, ID: undefined })));
  });

  it('reads the other DateListRef shapes, and writes back the shape it read', async () => {
    const { agent, pool, calls } = createMock();
    const a = pool(AUTOMATION);
    const withRefs = (refs: unknown) => ({
      ID: '1',
      Name: 'T',
      Schedules: { Schedule: [{ Frequency: { Interval: [{ StartTime: '02:00', EndTime: '02:00' }] }, DateListRef: refs }] },
    });
    for (const [refs, read] of [
      [[{ DateListID: '7' }], [{ DateListID: '7' }]],
      [[{ ID: '55', DateListID: '7' }], [{ ID: '55', DateListID: '7' }]],
      [['7'], [{ DateListID: '7' }]],
    ] as const) {
      replyToken(a, { access: 'tok' });
      a.intercept({ path: '/api/v1/tasks/1' }).reply(200, withRefs(refs), { headers: JSON_HEADERS });
      a.intercept({ path: '/api/v1/tasks/1', method: 'PUT' }).reply(204, '');
      const client = automationClient(agent);
      const task = await client.getTask('1');
      expect(task.Schedules?.Schedule?.[0]?.DateListRef).toEqual(read);
      await client.updateTask('1', task);
      const sent = JSON.parse(calls().at(-1)?.body ?? '') as ReturnType<typeof withRefs>;
      expect(sent.Schedules.Schedule[0]!.DateListRef).toEqual(refs);
    }
  });

  it('reads resource-group ACLs with numeric ids and boolean permissions, and writes permissions in the form read', async () => {
    const { agent, pool, calls } = createMock();
    const a = pool(AUTOMATION);
    replyToken(a, { access: 'tok' });
    a.intercept({ path: '/api/v1/resourcegroups/acls' }).reply(
      200,
      [{ ACLID: 5, ResourceGroupName: 'Finance', UserGroupName: 'Ops', Permissions: { TaskRun: true, TaskEditExisting: 'false' } }],
      {
        headers: JSON_HEADERS,
      },
    );
    a.intercept({ path: '/api/v1/resourcegroups/acls/5', method: 'PUT' }).reply(200, '');
    const client = automationClient(agent);
    await expect(client.listResourceGroupAcls()).resolves.toEqual([
      { ACLID: '5', ResourceGroupName: 'Finance', UserGroupName: 'Ops', Permissions: { TaskRun: 1, TaskEditExisting: 0 } },
    ]);
    await client.updateResourceGroupAcl('5', { Permissions: { TaskRun: 1, TaskEditExisting: 1 } });
    expect(JSON.parse(calls().at(-1)?.body ?? '')).toEqual({ Permissions: { TaskRun: true, TaskEditExisting: true } });
  });
});
