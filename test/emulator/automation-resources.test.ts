import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import type { Api } from './helpers.js';
import { ADMIN, OPERATOR, automationBase, exampleSeed, login, withEmulator } from './helpers.js';

let emu: RunningEmulator;
let api: Api;
const seed = exampleSeed();
beforeEach(async () => {
  emu = await withEmulator();
  api = await login(automationBase(emu), ADMIN);
});
afterEach(() => emu.close());

const seedHosts = (seed.automation!.hosts ?? []).map((h) => {
  const [type, body] = Object.entries(h)[0]!;
  return { type, body: body as Record<string, unknown> };
});

describe('automation hosts, scripts, groups, ACLs, scheduler', () => {
  it('rule 50: GET /hosts wraps each host in its type key and takes a type= filter', async () => {
    const all = await api.get('/hosts');
    expect(all.body.items).toHaveLength(seedHosts.length);
    for (const item of all.body.items) expect(Object.keys(item)).toHaveLength(1);
    const byName = new Map(all.body.items.map((i: Record<string, { Name: string }>) => [Object.values(i)[0]!.Name, Object.keys(i)[0]]));
    for (const h of seedHosts) expect(byName.get(String(h.body.Name))).toBe(h.type);
    const sftp = await api.get('/hosts?type=SSHFTP');
    expect(sftp.body.items.map((i: { SSHFTP: { Name: string } }) => i.SSHFTP.Name)).toEqual(['acme-sftp', 'payroll-sftp']);
  });

  it('rule 51: GET /hosts/{id} is flat on current and wrapped on legacy; unknown ids answer 404', async () => {
    const flat = await api.get('/hosts/201001');
    expect(flat.body).toMatchObject({ ID: '201001', Name: 'payroll-sftp', Host: 'sftp.payroll.example.com' });
    expect((await api.get('/hosts/1')).status).toBe(404);
    await emu.close();
    emu = await withEmulator({ profile: 'legacy' });
    const legacy = await login(automationBase(emu), ADMIN);
    expect((await legacy.get('/hosts/201001')).body).toEqual({ SSHFTP: expect.objectContaining({ ID: '201001', Name: 'payroll-sftp' }) });
  });

  it('rule 52: no REST answer ever holds a host password or a secret parameter value', async () => {
    const paths = ['/hosts', ...seedHosts.map((h) => `/hosts/${String(h.body.ID)}`), '/tasks', '/tasks/401001', '/customscripts', '/globalparameters'];
    for (const p of paths) {
      const r = await api.get(p);
      expect(r.status, p).toBe(200);
      expect(r.text, p).not.toContain('SEEDSECRET');
      expect(r.text, p).not.toMatch(/"(Def|Proxy|Firewall|SMTP)?Password"/);
    }
  });

  it('rule 53: the transfer-server host type is siLock on current and xferLock on legacy', async () => {
    expect((await api.get('/hosts?type=siLock')).body.items).toEqual([{ siLock: expect.objectContaining({ Name: 'xfer' }) }]);
    await emu.close();
    emu = await withEmulator({ profile: 'legacy' });
    const legacy = await login(automationBase(emu), ADMIN);
    expect((await legacy.get('/hosts?type=xferLock')).body.items).toEqual([{ xferLock: expect.objectContaining({ Name: 'xfer' }) }]);
    expect((await legacy.get('/hosts?type=siLock')).body.items).toEqual([]);
  });

  it('rule 54: custom scripts (with Source), standard scripts, date lists (Entries) and global parameters list and get by ID', async () => {
    const scripts = await api.get('/customscripts');
    expect(scripts.body.items.map((s: { Name: string }) => s.Name)).toEqual(['PGP Decrypt', 'PGP Encrypt', 'Rename With Date', 'Zip Archive']);
    expect((await api.get('/customscripts/301001')).body).toMatchObject({ Name: 'PGP Encrypt', Lang: 'PS1', Source: expect.stringContaining('gpg') });
    expect((await api.get('/standardscripts')).body.items.map((s: { Name: string }) => s.Name)).toEqual(['Checksum', 'Unzip']);
    const dl = await api.get('/datelists/303001');
    expect(dl.body.Entries).toContainEqual({ Date: '2026-12-25' });
    expect(dl.body.Entries[0]).toEqual({ C: 'TARGET2 closing days' });
    expect((await api.get('/globalparameters?name=env*')).body.items).toEqual([{ ID: '304001', Name: 'EnvName', Value: 'prod' }]);
    for (const p of ['/customscripts/1', '/standardscripts/1', '/datelists/1', '/globalparameters/1']) expect((await api.get(p)).status, p).toBe(404);
  });

  it('rule 55: resource groups list and get by name with their members; a non-admin sees only groups their ACLs name', async () => {
    const list = await api.get('/resourcegroups');
    expect(list.body.items.map((g: { Name: string }) => g.Name)).toEqual(['Finance', 'Operations', 'Partners']);
    const finance = await api.get('/resourcegroups/Finance');
    expect(finance.body).toMatchObject({ Name: 'Finance', Notes: 'Payroll and bank exchanges' });
    expect(finance.body.members).toContainEqual({ t: 'Task', ID: '401001', Name: 'Payroll to bank' });
    expect(finance.body.members).toContainEqual({ t: 'Host', ID: '201001', Name: 'payroll-sftp' });
    expect((await api.get('/resourcegroups/Nowhere')).status).toBe(404);
    const op = await login(automationBase(emu), OPERATOR);
    expect((await op.get('/resourcegroups')).body.items.map((g: { Name: string }) => g.Name)).toEqual(['Finance']);
    expect((await op.get('/resourcegroups/Partners')).status).toBe(404);
  });

  it('rule 56: GET /usergroups/{name} is admin-only, case-sensitive and takes type=local|remote', async () => {
    const g = await api.get('/usergroups/Finance%20Operators');
    expect(g.body).toMatchObject({ Name: 'Finance Operators', Type: 'local', Members: ['operator'] });
    expect((await api.get('/usergroups/finance%20operators')).status).toBe(404);
    expect((await api.get('/usergroups/Finance%20Operators?type=remote')).status).toBe(404);
    expect((await api.get('/usergroups/Finance%20Operators?type=ldap')).status).toBe(422);
    const op = await login(automationBase(emu), OPERATOR);
    expect((await op.get('/usergroups/Finance%20Operators')).status).toBe(403);
  });

  it('rule 57: ACLs list with resourceGroupName/userGroupName filters and get by ACLID, with the 8 permission keys as 0/1', async () => {
    const all = await api.get('/resourcegroups/acls');
    expect(all.body.items).toHaveLength(3);
    const one = await api.get('/resourcegroups/acls?resourceGroupName=Finance');
    expect(one.body.items).toEqual([
      {
        ACLID: '501001',
        ResourceGroupName: 'Finance',
        UserGroupName: 'Finance Operators',
        Permissions: {
          TaskRun: 1,
          TaskEditExisting: 1,
          TaskAddEditDelete: 0,
          HostAddEditDelete: 0,
          ScriptAddEditDelete: 0,
          SSLAddEditDelete: 0,
          SSHAddEditDelete: 0,
          PGPAddEditDelete: 0,
        },
      },
    ]);
    expect((await api.get('/resourcegroups/acls?userGroupName=Auditors')).body.items.map((a: { ACLID: string }) => a.ACLID)).toEqual(['501003']);
    expect((await api.get('/resourcegroups/acls/501002')).body.UserGroupName).toBe('Partner Managers');
    expect((await api.get('/resourcegroups/acls/1')).status).toBe(404);
  });

  it('rule 58: POST /resourcegroups/acls answers 201 with the ACL; 409 when the pair exists; 422 for unknown names', async () => {
    const created = await api.call('POST', '/resourcegroups/acls', { ResourceGroupName: 'Partners', UserGroupName: 'Auditors', Permissions: { TaskRun: 1 } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      ACLID: expect.any(String),
      ResourceGroupName: 'Partners',
      UserGroupName: 'Auditors',
      Permissions: { TaskRun: 1, TaskEditExisting: 0 },
    });
    expect((await api.get(`/resourcegroups/acls/${created.body.ACLID}`)).body).toEqual(created.body);
    expect((await api.call('POST', '/resourcegroups/acls', { ResourceGroupName: 'Partners', UserGroupName: 'Auditors' })).status).toBe(409);
    const unknown = await api.call('POST', '/resourcegroups/acls', { ResourceGroupName: 'Nope', UserGroupName: 'Nobody' });
    expect(unknown.status).toBe(422);
    expect(unknown.body.errors.map((e: { field: string }) => e.field)).toEqual(['ResourceGroupName', 'UserGroupName']);
  });

  it('rule 59: PUT /resourcegroups/acls/{id} changes only supplied fields; ACLID or names that differ answer 422', async () => {
    const r = await api.call('PUT', '/resourcegroups/acls/501001', { Permissions: { ScriptAddEditDelete: 1 } });
    expect(r.status).toBe(200);
    expect(r.body.Permissions).toMatchObject({ TaskRun: 1, TaskEditExisting: 1, ScriptAddEditDelete: 1 });
    expect((await api.call('PUT', '/resourcegroups/acls/501001', { ACLID: '501001', UserGroupName: 'Finance Operators', Permissions: {} })).status).toBe(200);
    for (const body of [{ ACLID: '1' }, { UserGroupName: 'Auditors' }, { ResourceGroupName: 'Partners' }]) {
      expect((await api.call('PUT', '/resourcegroups/acls/501001', body)).status).toBe(422);
    }
    expect((await api.call('PUT', '/resourcegroups/acls/1', {})).status).toBe(404);
  });

  it('rule 60: TaskEditExisting cannot be 0 while TaskAddEditDelete is 1 (422, on POST and PUT)', async () => {
    const post = await api.call('POST', '/resourcegroups/acls', {
      ResourceGroupName: 'Finance',
      UserGroupName: 'Auditors',
      Permissions: { TaskAddEditDelete: 1 },
    });
    expect(post.status).toBe(422);
    expect(post.body.errors[0].field).toBe('Permissions.TaskEditExisting');
    const put = await api.call('PUT', '/resourcegroups/acls/501002', { Permissions: { TaskEditExisting: 0 } });
    expect(put.status).toBe(422);
    expect((await api.get('/resourcegroups/acls/501002')).body.Permissions.TaskEditExisting).toBe(1);
    expect((await api.call('PUT', '/resourcegroups/acls/501001', { Permissions: { TaskRun: 2 } })).status).toBe(422);
  });

  it('rule 61: DELETE /resourcegroups/acls/{id} answers 204 and the ACL is gone', async () => {
    expect((await api.call('DELETE', '/resourcegroups/acls/501003')).status).toBe(204);
    expect((await api.get('/resourcegroups/acls/501003')).status).toBe(404);
    expect((await api.call('DELETE', '/resourcegroups/acls/501003')).status).toBe(404);
  });

  it('rule 62: a non-admin gets 403 on ACL writes and sees only the ACLs of their user groups', async () => {
    const op = await login(automationBase(emu), OPERATOR);
    expect((await op.call('POST', '/resourcegroups/acls', { ResourceGroupName: 'Partners', UserGroupName: 'Finance Operators' })).status).toBe(403);
    expect((await op.call('PUT', '/resourcegroups/acls/501001', { Permissions: { TaskAddEditDelete: 1 } })).status).toBe(403);
    expect((await op.call('DELETE', '/resourcegroups/acls/501001')).status).toBe(403);
    expect((await op.get('/resourcegroups/acls')).body.items.map((a: { ACLID: string }) => a.ACLID)).toEqual(['501001']);
  });

  it('rule 63: the scheduler status is {enabled} ({Enabled} on legacy); start/stop answer 204 and are admin-only', async () => {
    expect((await api.get('/tasks/scheduler')).body).toEqual({ enabled: true });
    expect((await api.call('PUT', '/tasks/scheduler/stop')).status).toBe(204);
    expect((await api.get('/tasks/scheduler')).body).toEqual({ enabled: false });
    const op = await login(automationBase(emu), OPERATOR);
    expect((await op.call('PUT', '/tasks/scheduler/start')).status).toBe(403);
    expect((await api.call('PUT', '/tasks/scheduler/start')).status).toBe(204);
    await emu.close();
    emu = await withEmulator({ profile: 'legacy' });
    const legacy = await login(automationBase(emu), ADMIN);
    expect((await legacy.get('/tasks/scheduler')).body).toEqual({ Enabled: true });
  });
});
