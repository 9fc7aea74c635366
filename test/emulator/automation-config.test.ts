import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { deleteHostByHand, readHosts, readTask, setClockOffset } from '../helpers/emulator-test-api.js';
import type { Api } from './helpers.js';
import { ADMIN, OPERATOR, automationBase, login, taskBody, withEmulator } from './helpers.js';

let emu: RunningEmulator;
let api: Api;
beforeEach(async () => {
  emu = await withEmulator();
  api = await login(automationBase(emu), ADMIN);
});
afterEach(() => emu.close());

const putXml = (xml: string, type = 'application/xml') => api.call('PUT', '/config', xml, { 'content-type': type });

/** Everything the REST API shows of the automation configuration. */
async function readAll(a: Api): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const p of [
    '/tasks',
    '/hosts',
    '/customscripts',
    '/standardscripts',
    '/datelists',
    '/globalparameters',
    '/resourcegroups',
    '/resourcegroups/acls',
    '/usergroups',
    '/tasks/scheduler',
  ]) {
    out[p] = (await a.get(p)).body;
  }
  for (const t of (out['/tasks'] as { items: { ID: string }[] }).items) out[`/tasks/${t.ID}`] = (await a.get(`/tasks/${t.ID}`)).body;
  for (const h of (out['/hosts'] as { items: Record<string, { ID: string }>[] }).items) {
    const id = Object.values(h)[0]!.ID;
    out[`/hosts/${id}`] = (await a.get(`/hosts/${id}`)).body;
  }
  return out;
}

describe('automation config and audit', () => {
  it('rule 64: GET /config (admin) answers application/xml rooted at <Config>: items as elements, settings as attributes, 1/0 booleans, host passwords in clear', async () => {
    const r = await api.get('/config');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^application\/xml/);
    expect(XMLValidator.validate(r.text)).toBe(true);
    const doc = new XMLParser({
      ignoreAttributes: false,
      attributeNamePrefix: '',
      parseAttributeValue: false,
      isArray: (_n, _p, _leaf, isAttribute) => !isAttribute,
    }).parse(r.text);
    const config = doc.Config[0];
    expect(config.SchedulerEnabled).toBe('1');
    const sftp = config.Hosts[0].SSHFTP.find((h: { Name: string }) => h.Name === 'payroll-sftp');
    expect(sftp).toMatchObject({ ID: '201001', DefPassword: 'payroll-SEEDSECRET-1', Port: '22' });
    const task = config.Tasks[0].Task.find((t: { Name: string }) => t.Name === 'Payroll to bank');
    expect(task).toMatchObject({ ID: '401001', Active: '1', Renamed: '0' });
    expect(task.Source[0]).toMatchObject({ HostID: '201001', DeleteOrig: '0' });
    expect(r.text).toContain('bank-api-SEEDSECRET-8');
  });

  it('rule 65: PUT /config with malformed XML, a foreign root or a wrong media type is refused and changes nothing', async () => {
    const before = await readAll(api);
    const bad = await putXml('<Config><Tasks></Config>');
    expect(bad.status).toBe(422);
    expect(bad.body.errors[0]).toMatchObject({ field: 'xmlConfig', message: expect.stringMatching(/malformed XML/) });
    expect((await putXml('<Other/>')).status).toBe(422);
    expect((await putXml('<Config><Widgets/></Config>')).status).toBe(422);
    expect((await putXml((await api.get('/config')).text, 'text/plain')).status).toBe(415);
    // A numeric entity beyond Unicode is no server error: it was a 500 while the emulator had its own decoder.
    expect((await putXml('<Config Version="&#1114112;"><Widgets/></Config>')).status).toBe(422);
    expect(await readAll(api)).toEqual(before);
  });

  it('rule 66: importing an earlier export restores exactly what the REST API showed, ids included, and ids keep counting after it', async () => {
    const before = await readAll(api);
    const exported = (await api.get('/config')).text;
    // change a bit of everything
    const created = await api.call('POST', '/tasks', taskBody('Made after export'));
    const payroll = (await api.get('/tasks/401001')).body;
    await api.call('PUT', '/tasks/401001', { ...payroll, Name: 'Payroll renamed', Parameters: { ApiKey: { value: 'rotated', Secret: 1 } } });
    await api.call('DELETE', '/tasks/401007');
    await api.call('PUT', '/resourcegroups/acls/501001', { Permissions: { TaskRun: 0 } });
    await api.call('POST', '/resourcegroups/acls', { ResourceGroupName: 'Partners', UserGroupName: 'Auditors' });
    await api.call('PUT', '/tasks/scheduler/stop');
    deleteHostByHand(emu, String(readHosts(emu).at(-1)!.fields['Name']));
    expect(await readAll(api)).not.toEqual(before);

    expect((await putXml(exported)).status).toBe(204);
    expect(await readAll(api)).toEqual(before);
    const reexported = (await api.get('/config')).text;
    expect(reexported.replace(/ NextID="\d+"/, '')).toBe(exported.replace(/ NextID="\d+"/, ''));
    expect(readTask(emu, { id: '401001' })!['Parameters']).toMatchObject({
      Parameter: expect.arrayContaining([{ Name: 'ApiKey', value: 'bank-api-SEEDSECRET-8', Secret: 1 }]),
    });
    const next = await api.call('POST', '/tasks', taskBody('Made after import'));
    expect(Number(next.body.ID)).toBeGreaterThan(Number(created.body.ID));
  });

  it('rule 67: the round trip is exact for odd content: numbers and empty lists under unknown keys, newlines, quotes, keys that are not XML names', async () => {
    const odd = taskBody('Odd <"task"> & co', {
      Info: { Description: 'line 1\nline 2\ttabbed  ', Notes: '' },
      Parameters: { 'Api Key': { value: 'a&b<c>"d"' } },
      NextActions: { NextAction: [{ Email: 'x@example.com', Count: 3, Flags: [], Nested: { deep: [1, [2]] } }] },
      steps: [
        { Source: { HostID: '201004', Path: ' /lead and trail ', XS: '1', MxBy: 5000000000 } },
        { Email: { To: ['a@example.com', 'b@example.com'], Subject: '', 'Reply-To': 'c@example.com', Retry: true, Weird: null } },
        { For: { steps: [] } },
      ],
    });
    const created = await api.call('POST', '/tasks', odd);
    expect(created.status).toBe(201);
    const before = await readAll(api);
    const exported = (await api.get('/config')).text;
    await api.call('DELETE', `/tasks/${created.body.ID}`);
    expect((await putXml(exported)).status).toBe(204);
    expect(await readAll(api)).toEqual(before);
  });

  it('rule 68: GET and PUT /config are admin-only (403)', async () => {
    const op = await login(automationBase(emu), OPERATOR);
    const get = await op.get('/config');
    expect(get.status).toBe(403);
    expect(get.headers.get('content-type')).toMatch(/json/);
    expect((await op.call('PUT', '/config', '<Config/>', { 'content-type': 'application/xml' })).status).toBe(403);
  });

  it('rule 69: every write records an audit entry (LogTime, Username, IPAddress, Action, TargetType, TargetID, TaskName, Status)', async () => {
    const created = await api.call('POST', '/tasks', taskBody('Audited'));
    await api.call('DELETE', `/tasks/${created.body.ID}`);
    await api.call('PUT', '/tasks/scheduler/stop');
    await api.call('POST', '/resourcegroups/acls', { ResourceGroupName: 'Partners', UserGroupName: 'Auditors' });
    await api.call('POST', '/tasks', taskBody('Audited')); // fails? no: the name is free again
    await api.call('POST', '/tasks', { Name: '' }); // refused: no entry
    const r = await api.call('POST', '/reports/audit', {});
    expect(r.status).toBe(200);
    expect(r.body.items.map((i: { Action: string; TargetType: string }) => `${i.Action} ${i.TargetType}`)).toEqual([
      'Add Task',
      'Delete Task',
      'Stop Scheduler',
      'Add ACL',
      'Add Task',
    ]);
    expect(r.body.items[0]).toMatchObject({
      LogTime: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
      Username: 'admin',
      IPAddress: expect.stringContaining('127.0.0.1'),
      TargetID: created.body.ID,
      TaskName: 'Audited',
      Status: 'Success',
    });
  });

  it('rule 70: POST /reports/audit filters with RSQL ==, =ge=, =le= joined by ;, orders by a field (! for descending) and caps at maxCount', async () => {
    for (const n of ['A1', 'A2', 'A3']) await api.call('POST', '/tasks', taskBody(n));
    setClockOffset(emu, 120_000);
    await api.call('PUT', '/tasks/scheduler/stop');
    const all = (await api.call('POST', '/reports/audit', {})).body.items as { LogTime: string; TaskName: string }[];
    const cut = all[3]!.LogTime;
    const tasks = await api.call('POST', '/reports/audit', { predicate: 'TargetType=="Task";Action==Add', orderBy: '!TaskName', maxCount: 2 });
    expect(tasks.body.items.map((i: { TaskName: string }) => i.TaskName)).toEqual(['A3', 'A2']);
    expect(tasks.body.sorting).toEqual([{ sortField: 'TaskName', sortDirection: 'desc' }]);
    const late = await api.call('POST', '/reports/audit', { predicate: `LogTime=ge=${cut}` });
    expect(late.body.items.map((i: { TargetType: string }) => i.TargetType)).toEqual(['Scheduler']);
    const early = await api.call('POST', '/reports/audit', { predicate: `LogTime=le=${all[2]!.LogTime}` });
    expect(early.body.items).toHaveLength(3);
    const bad = await api.call('POST', '/reports/audit', { predicate: 'Colour==red' });
    expect(bad.status).toBe(422);
    expect((await api.call('POST', '/reports/audit', { predicate: 'LogTime=ge=yesterday' })).status).toBe(422);
  });
});
