import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { addAutomationUser, readTask, readTasks } from '../helpers/emulator-test-api.js';
import type { Api } from './helpers.js';
import { ADMIN, OPERATOR, automationBase, login, taskBody, withEmulator } from './helpers.js';

let emu: RunningEmulator;
let api: Api;
beforeEach(async () => {
  emu = await withEmulator();
  api = await login(automationBase(emu), ADMIN);
});
afterEach(() => emu.close());

const fieldsOf = (r: { body: { errors?: { field: string }[] } }): string[] => (r.body.errors ?? []).map((e) => e.field);

describe('automation info and tasks', () => {
  it('rule 31: GET /info answers About Info with appVersion, username and isAdmin', async () => {
    expect((await api.get('/info')).body).toMatchObject({ appVersion: '2025.1.0', username: 'admin', isAdmin: true });
    const op = await login(automationBase(emu), OPERATOR);
    expect((await op.get('/info')).body).toMatchObject({ username: 'operator', isAdmin: false });
  });

  it('rule 32: POST /tasks answers 201 with a new unique ID, defaults for blank fields, numbered elements, NextEID and Type from the host', async () => {
    const r = await api.call(
      'POST',
      '/tasks',
      taskBody('New partner task', { Schedules: { Schedule: [{ Frequency: { Interval: [{ StartTime: '01:00', EndTime: '01:00' }] } }] } }),
    );
    expect(r.status).toBe(201);
    const ids = readTasks(emu).map((t) => t['ID']);
    expect(new Set(ids).size).toBe(ids.length);
    expect(r.body).toMatchObject({
      ID: expect.stringMatching(/^[0-9]+$/),
      Name: 'New partner task',
      Active: 1,
      AR: 0,
      CacheNames: 'random',
      TT: '',
      Info: { Description: '', Notes: '' },
      Parameters: {},
      NextActions: {},
    });
    const elementIds = [r.body.Schedules.Schedule[0].ID, r.body.steps[0].Source.ID, r.body.steps[1].Destination.ID];
    expect(new Set(elementIds).size).toBe(3);
    expect(r.body.NextEID).toBeGreaterThan(Math.max(...elementIds.map(Number)));
    expect(r.body.steps[0].Source.Type).toBe('SSHFTP');
    expect(r.body.steps[1].Destination.Type).toBe('FileSystem');
    expect((await api.get(`/tasks/${r.body.ID}`)).body).toEqual(r.body);
  });

  it('rule 33: GET and DELETE of an unknown task answer 404; DELETE answers 204 and the task is gone', async () => {
    expect((await api.get('/tasks/999999')).status).toBe(404);
    expect((await api.call('DELETE', '/tasks/999999')).status).toBe(404);
    expect((await api.call('DELETE', '/tasks/401007')).status).toBe(204);
    expect((await api.get('/tasks/401007')).status).toBe(404);
  });

  it('rule 34: PUT replaces the task; a body ID is replaced by the path ID and Group is ignored', async () => {
    const before = (await api.get('/tasks/401003')).body;
    const edited = { ...before, ID: '1', Group: ['Finance'], Info: { Description: 'changed' }, Active: 0 };
    delete edited.Schedules;
    const r = await api.call('PUT', '/tasks/401003', edited);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ ID: '401003', Group: ['Partners'], Active: 0, Info: { Description: 'changed', Notes: '' }, Schedules: { Schedule: [] } });
    expect((await api.get('/tasks/1')).status).toBe(404);
    expect((await api.call('PUT', '/tasks/999999', edited)).status).toBe(404);
  });

  it('rule 35: advanced tasks (TT=COS) cannot be added or updated: 422', async () => {
    const add = await api.call('POST', '/tasks', taskBody('Advanced', { TT: 'COS' }));
    expect(add.status).toBe(422);
    expect(fieldsOf(add)).toEqual(['TT']);
    const cos = (await api.get('/tasks/401008')).body;
    const upd = await api.call('PUT', '/tasks/401008', { ...cos, Info: { Description: 'x' } });
    expect(upd.status).toBe(422);
    expect((await api.get('/tasks/401008')).body.Info.Description).toBe(cos.Info.Description);
  });

  it('rule 36: Source enumerations and integer bounds (§2.5) answer 422 naming each field', async () => {
    const bad = {
      HostID: '201004',
      DeleteOrig: 3,
      RetryCount: 32001,
      MxFi: -1,
      RescanSecs: 1000,
      Sort: 'Name,A',
      AB: 'text',
      DLInteg: 'sometimes',
      FolderType: 2,
      ConnTimeoutSecs: 1.5,
    };
    const r = await api.call('POST', '/tasks', taskBody('Bad source', { steps: [{ Source: bad }] }));
    expect(r.status).toBe(422);
    expect(fieldsOf(r).sort()).toEqual(
      ['AB', 'ConnTimeoutSecs', 'DLInteg', 'DeleteOrig', 'FolderType', 'MxFi', 'RescanSecs', 'RetryCount', 'Sort'].map((f) => `steps[0].Source.${f}`).sort(),
    );
    const ok = {
      HostID: '201004',
      DeleteOrig: 2,
      RetryCount: 32000,
      MxFi: 99999,
      RescanSecs: 999,
      Sort: 'Size,D',
      AB: 'binary',
      DLInteg: 'ifsure',
      FolderType: 119,
      MxBy: 1e12,
    };
    expect((await api.call('POST', '/tasks', taskBody('Good source', { steps: [{ Source: ok }] }))).status).toBe(201);
  });

  it('rule 37: Source 0/1 fields take only 0 or 1, and a key that is not a Source field is refused', async () => {
    const r = await api.call(
      'POST',
      '/tasks',
      taskBody('Flags', { steps: [{ Source: { HostID: '201004', SearchSubdirs: true, UseDefRetryCount: 2, Unzip: '1', Colour: 'red' } }] }),
    );
    expect(r.status).toBe(422);
    expect(fieldsOf(r).sort()).toEqual(['Colour', 'SearchSubdirs', 'Unzip', 'UseDefRetryCount'].map((f) => `steps[0].Source.${f}`).sort());
  });

  it('rule 38: referenced hosts, scripts and date lists must exist (422)', async () => {
    const r = await api.call(
      'POST',
      '/tasks',
      taskBody('Dangling', {
        Schedules: { Schedule: [{ Frequency: { Interval: [{ StartTime: '01:00' }] }, DateListRef: [{ DateListID: '404' }] }] },
        steps: [{ Source: { HostID: '404' } }, { Process: { ScriptID: '404' } }, { Destination: { HostID: '405' } }],
      }),
    );
    expect(r.status).toBe(422);
    expect(fieldsOf(r).sort()).toEqual(
      ['Schedules.Schedule[0].DateListRef[0].DateListID', 'steps[0].Source.HostID', 'steps[1].Process.ScriptID', 'steps[2].Destination.HostID'].sort(),
    );
    const std = await api.call(
      'POST',
      '/tasks',
      taskBody('Standard script', { steps: [{ Source: { HostID: '201004' } }, { Process: { ScriptID: '302001' } }] }),
    );
    expect(std.status).toBe(201);
  });

  it('rule 39: a step Type must be the host type; the transfer-server type is siLock on current and xferLock on legacy', async () => {
    const wrong = await api.call('POST', '/tasks', taskBody('Typed wrong', { steps: [{ Source: { HostID: '201004', Type: 'FTP' } }] }));
    expect(fieldsOf(wrong)).toEqual(['steps[0].Source.Type']);
    const legacyName = await api.call('POST', '/tasks', taskBody('Old name', { steps: [{ Source: { HostID: '201008', Type: 'xferLock' } }] }));
    expect(legacyName.status).toBe(422);
    expect((await api.call('POST', '/tasks', taskBody('Right name', { steps: [{ Source: { HostID: '201008', Type: 'siLock' } }] }))).status).toBe(201);
    await emu.close();
    emu = await withEmulator({ profile: 'legacy' });
    const legacy = await login(automationBase(emu), ADMIN);
    expect((await legacy.get('/tasks/401003')).body.steps[0].Source.Type).toBe('xferLock');
    expect((await legacy.call('POST', '/tasks', taskBody('Legacy name', { steps: [{ Source: { HostID: '201008', Type: 'xferLock' } }] }))).status).toBe(201);
    expect((await legacy.call('POST', '/tasks', taskBody('Current name', { steps: [{ Source: { HostID: '201008', Type: 'siLock' } }] }))).status).toBe(422);
  });

  it('rule 40: a task name already in use (case-insensitive) answers 409 Conflict, on create and on rename', async () => {
    const dup = await api.call('POST', '/tasks', taskBody('PAYROLL TO BANK'));
    expect(dup.status).toBe(409);
    expect(dup.body).toMatchObject({ status: 409, title: 'Conflict' });
    const t = (await api.get('/tasks/401003')).body;
    expect((await api.call('PUT', '/tasks/401003', { ...t, Name: 'Acme inbound' })).status).toBe(409);
    expect((await api.call('PUT', '/tasks/401003', { ...t, Name: 'ACME OUTBOUND' })).status).toBe(200);
  });

  it('rule 41: schedules need Frequency, times are HH:mm and days are day names', async () => {
    const r = await api.call(
      'POST',
      '/tasks',
      taskBody('Bad schedule', {
        Schedules: {
          Schedule: [{ Days: { DayOfWeek: ['Mon'] } }, { Frequency: { Interval: [{ StartTime: '2:00', EndTime: '24:00' }] } }],
        },
      }),
    );
    expect(r.status).toBe(422);
    expect(fieldsOf(r).sort()).toEqual(
      [
        'Schedules.Schedule[0].Days.DayOfWeek[0]',
        'Schedules.Schedule[0].Frequency',
        'Schedules.Schedule[1].Frequency.Interval[0].StartTime',
        'Schedules.Schedule[1].Frequency.Interval[0].EndTime',
      ].sort(),
    );
  });

  it('rule 42: a non-admin creator must give Group (422)', async () => {
    addAutomationUser(emu, { Username: 'pm', Password: 'pm', IsAdmin: false, MemberOf: ['Partner Managers'] });
    const pm = await login(automationBase(emu), { username: 'pm', password: 'pm' });
    const r = await pm.call('POST', '/tasks', taskBody('No group', { Group: [] }));
    expect(r.status).toBe(422);
    expect(fieldsOf(r)).toEqual(['Group']);
    expect((await pm.call('POST', '/tasks', taskBody('With group'))).status).toBe(201);
  });

  it('rule 43: a non-admin may create/delete only with TaskAddEditDelete and edit only with TaskEditExisting on the task group (403)', async () => {
    const op = await login(automationBase(emu), OPERATOR);
    expect((await op.call('POST', '/tasks', taskBody('In finance', { Group: ['Finance'] }))).status).toBe(403);
    const payroll = (await op.get('/tasks/401001')).body;
    expect(payroll).toMatchObject({ xAlter: true, xAddEditDelete: false, xRun: true });
    expect((await op.call('PUT', '/tasks/401001', { ...payroll, Active: 0 })).status).toBe(200);
    expect((await op.call('DELETE', '/tasks/401001')).status).toBe(403);
    addAutomationUser(emu, { Username: 'aud', Password: 'aud', IsAdmin: false, MemberOf: ['Auditors'] });
    const aud = await login(automationBase(emu), { username: 'aud', password: 'aud' });
    const cleanup = (await aud.get('/tasks/401007')).body;
    expect((await aud.call('PUT', '/tasks/401007', cleanup)).status).toBe(403);
  });

  it('rule 44: Parameters are a map name → {value, DisplayValue}; secrets come back suppressed and survive a PUT that echoes them', async () => {
    const before = (await api.get('/tasks/401001')).body;
    expect(before.Parameters.ApiKey).toEqual({ value: '', DisplayValue: '(suppressed)' });
    expect(before.Parameters.Recipient).toEqual({ value: 'bank-payments@bank.example.com', DisplayValue: 'bank-payments@bank.example.com' });
    const r = await api.call('PUT', '/tasks/401001', { ...before, Parameters: { ...before.Parameters, Recipient: { value: 'new@bank.example.com' } } });
    expect(r.status).toBe(200);
    const stored = readTask(emu, { id: '401001' })!['Parameters'] as unknown as { Parameter: { Name: string; value: string }[] };
    expect(stored.Parameter.find((p) => p.Name === 'ApiKey')!.value).toBe('bank-api-SEEDSECRET-8');
    expect(r.body.Parameters.Recipient.value).toBe('new@bank.example.com');
    const created = await api.call('POST', '/tasks', taskBody('With secret', { Parameters: { Token: { value: 's3cret', Secret: 1 } } }));
    expect(created.body.Parameters.Token).toEqual({ value: '', DisplayValue: '(suppressed)' });
    expect(created.text).not.toContain('s3cret');
  });

  it('rule 99: step passwords come back suppressed, survive a PUT that echoes them, and cannot be echoed onto a new step', async () => {
    const created = await api.call('POST', '/tasks', taskBody('Step secret'));
    expect(created.status).toBe(201);
    const withPassword = structuredClone(created.body);
    withPassword.steps[0].Source.Password = 'step-SEEDSECRET-99';
    expect((await api.call('PUT', `/tasks/${created.body.ID}`, withPassword)).status).toBe(200);
    const read = await api.get(`/tasks/${created.body.ID}`);
    expect(read.body.steps[0].Source.Password).toBe('(suppressed)');
    expect(read.text).not.toContain('SEEDSECRET');
    const listed = await api.get('/tasks');
    expect(listed.text).not.toContain('SEEDSECRET');
    const echoed = await api.call('PUT', `/tasks/${created.body.ID}`, read.body);
    expect(echoed.status).toBe(200);
    const stored = readTask(emu, { id: created.body.ID })!;
    expect(JSON.stringify(stored)).toContain('step-SEEDSECRET-99');
    const fresh = structuredClone(read.body);
    delete fresh.steps[0].Source.ID;
    const refused = await api.call('PUT', `/tasks/${created.body.ID}`, fresh);
    expect(refused.status).toBe(422);
    expect(fieldsOf(refused)).toContain('steps[0].Source.Password');
  });

  it('rule 45: on legacy, Parameters come out as {Parameter: [{Name, value}]}; both forms are accepted on input', async () => {
    await emu.close();
    emu = await withEmulator({ profile: 'legacy' });
    const legacy = await login(automationBase(emu), ADMIN);
    const t = (await legacy.get('/tasks/401001')).body;
    expect(t.Parameters).toEqual({
      Parameter: [
        { Name: 'Recipient', value: 'bank-payments@bank.example.com' },
        { Name: 'ApiKey', value: '', DisplayValue: '(suppressed)' },
      ],
    });
    const a = await legacy.call('POST', '/tasks', taskBody('Legacy params', { Parameters: { Parameter: [{ Name: 'Mode', value: 'fast' }] } }));
    const b = await legacy.call('POST', '/tasks', taskBody('Map params', { Parameters: { Mode: { value: 'fast', DisplayValue: 'fast' } } }));
    expect(a.body.Parameters).toEqual({ Parameter: [{ Name: 'Mode', value: 'fast' }] });
    expect(b.body.Parameters).toEqual(a.body.Parameters);
    const kept = await legacy.call('PUT', '/tasks/401001', t);
    expect(kept.status).toBe(200);
    const stored = readTask(emu, { id: '401001' })!['Parameters'] as unknown as { Parameter: { Name: string; value: string }[] };
    expect(stored.Parameter.find((p) => p.Name === 'ApiKey')!.value).toBe('bank-api-SEEDSECRET-8');
  });

  it('rule 46: a step has exactly one kind key; Email, For, If, RunTask, UpdOrig are kept as sent and nested For steps are checked', async () => {
    const two = await api.call('POST', '/tasks', taskBody('Two keys', { steps: [{ Source: { HostID: '201004' }, Destination: { HostID: '201007' } }] }));
    expect(fieldsOf(two)).toEqual(['steps[0]']);
    const unknown = await api.call('POST', '/tasks', taskBody('Unknown kind', { steps: [{ Upload: {} }] }));
    expect(fieldsOf(unknown)).toEqual(['steps[0].Upload']);
    const opaque = [
      { Source: { HostID: '201004' } },
      { Email: { To: 'ops@example.com', Subject: 'done' } },
      { RunTask: { TaskID: '401007' } },
      { UpdOrig: { Action: 'delete' } },
      { If: { When: [{ Criteria: { comp: [{ a: '[Size]', b: '0', test: 'NGT' }] }, steps: [{ Destination: { HostID: '201007' } }] }] } },
      { For: { steps: [{ Process: { ScriptID: '302002' } }] } },
    ];
    const ok = await api.call('POST', '/tasks', taskBody('Opaque steps', { steps: opaque }));
    expect(ok.status).toBe(201);
    expect(ok.body.steps[1].Email).toMatchObject({ To: 'ops@example.com', Subject: 'done' });
    expect(ok.body.steps[4].If.When[0].steps[0].Destination.Type).toBe('FileSystem');
    const nested = await api.call('POST', '/tasks', taskBody('Bad nested', { steps: [{ For: { steps: [{ Process: { ScriptID: '404' } }] } }] }));
    expect(fieldsOf(nested)).toEqual(['steps[0].For.steps[0].Process.ScriptID']);
  });

  it('rule 47: read-only fields (Renamed, xAddEditDelete, xAlter, xRun, Scheduled, Watched) are on output and ignored on input', async () => {
    const r = await api.call('POST', '/tasks', taskBody('Read only', { Renamed: true, xRun: false, Scheduled: true, Watched: true }));
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ Renamed: false, xAddEditDelete: true, xAlter: true, xRun: true, Scheduled: false, Watched: false });
    const renamed = await api.call('PUT', `/tasks/${r.body.ID}`, { ...r.body, Name: 'Read only 2' });
    expect(renamed.body.Renamed).toBe(true);
  });

  it('rule 48: POST /tasks/{id}/start answers {nominalStart}; the run is listed as running and stops with that nominalStart', async () => {
    const start = await api.call('POST', '/tasks/401003/start');
    expect(start.status).toBe(200);
    expect(start.body.nominalStart).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{2}$/);
    const running = await api.get('/tasks/running');
    expect(running.body.items).toEqual([expect.objectContaining({ TaskID: '401003', TaskName: 'Acme outbound', NominalStart: start.body.nominalStart })]);
    expect((await api.call('POST', '/tasks/401003/stop', { nominalStart: start.body.nominalStart })).status).toBe(200);
    expect((await api.get('/tasks/running')).body.items).toEqual([]);
    expect((await api.call('POST', '/tasks/999999/start')).status).toBe(404);
  });

  it('rule 49: a top-level key that is not a Task field, or an Info key other than Description/Notes, answers 422', async () => {
    const r = await api.call('POST', '/tasks', taskBody('Extra', { Description: 'belongs in Info', Info: { Owner: 'x' } }));
    expect(r.status).toBe(422);
    expect(fieldsOf(r).sort()).toEqual(['Description', 'Info.Owner']);
  });
});
