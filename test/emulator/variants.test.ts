import { afterEach, describe, expect, it } from 'vitest';
import type { Profile, RunningEmulator, Variants, VariantSwitch } from '../../src/emulator/index.js';
import { PROFILES, VARIANT_NAMES, VARIANT_SWITCHES, parseVariantAssignments, startEmulator } from '../../src/emulator/index.js';
import { readAclById, readAcls, readFolders, readTask, readTransferUsers } from '../helpers/emulator-test-api.js';
import type { Api, Reply } from './helpers.js';
import { ADMIN, XFER_ADMIN, automationBase, form, login, raw, taskBody, transferBase, withEmulator } from './helpers.js';

let emu: RunningEmulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

/** An emulator with the example seed and these switches; the automation API as admin. */
async function automation(variants: Partial<Variants>, profile?: Profile): Promise<Api> {
  emu = await withEmulator({ variants, ...(profile ? { profile } : {}) });
  return login(automationBase(emu), ADMIN);
}

async function transfer(variants: Partial<Variants>): Promise<Api> {
  emu = await withEmulator({ variants });
  return login(transferBase(emu), XFER_ADMIN);
}

function stored(id: string): Record<string, any> {
  return readTask(emu!, { id })!;
}

function storedByName(name: string): Record<string, any> {
  return readTask(emu!, { name })!;
}

const fieldsOf = (r: Reply): string[] => (r.body?.errors ?? []).map((e: { field: string }) => e.field);

/** A 422 that names `field`. */
function expectRefused(r: Reply, field: string): void {
  expect(r.status).toBe(422);
  expect(fieldsOf(r)).toContain(field);
}

/** A task body with one schedule built from `schedule`. */
function scheduled(name: string, schedule: Record<string, unknown>): Record<string, unknown> {
  return taskBody(name, { Schedules: { Schedule: [{ Frequency: { Interval: [{ StartTime: '09:05', EndTime: '09:05' }] }, ...schedule }] } });
}

const put = (api: Api, id: string, body: unknown): Promise<Reply> => api.call('PUT', `/tasks/${id}`, body);
const post = (api: Api, body: unknown): Promise<Reply> => api.call('POST', '/tasks', body);

describe('the input rule and the named sets', () => {
  it('rule 104: on every profile a task read is taken back unchanged; the documented input forms are taken too; a third form is a 422 naming the field', async () => {
    for (const profile of PROFILES) {
      const api = await automation({}, profile);
      for (const id of ['401001', '401002', '401003', '401004', '401005', '401006', '401007']) {
        const before = structuredClone(stored(id));
        const read = await api.get(`/tasks/${id}`);
        expect(read.status).toBe(200);
        expect((await put(api, id, read.body)).status).toBeLessThan(300);
        expect(stored(id)).toEqual(before);
      }
      for (const before of readAcls(emu!)) {
        const read = await api.get(`/resourcegroups/acls/${before.ACLID}`);
        expect((await api.call('PUT', `/resourcegroups/acls/${before.ACLID}`, read.body)).status).toBe(200);
        expect(readAclById(emu!, before.ACLID)).toEqual(before);
      }
      await emu!.close();
    }
    // divergent: the documented forms (0/1, numbers, a Group list, HH:mm, short step keys, map Parameters)
    // beside the forms that exist only as answered (day names, DateListRef).
    const api = await automation({}, 'divergent');
    const documented = scheduled('Documented forms', {
      Days: { DayOfWeek: ['Mon'] },
      DateListRef: ['303001'],
    });
    Object.assign(documented, { Active: 0, Parameters: { Mode: { value: 'fast', DisplayValue: 'fast' } } });
    (documented.steps as any)[0].Source.RetryCount = 4;
    const ok = await post(api, documented);
    expect(ok.status).toBe(201);
    expect(storedByName('Documented forms')).toMatchObject({
      Group: ['Partners'],
      Active: 0,
      Schedules: {
        Schedule: [{ Days: { DayOfWeek: ['Monday'] }, Frequency: { Interval: [{ StartTime: '09:05' }] }, DateListRef: [{ DateListID: '303001' }] }],
      },
      steps: [{ Source: { RetryCount: 4 } }, { Destination: {} }],
    });
    const third = await post(api, { ...documented, Name: 'Third form', Active: true });
    expectRefused(third, 'Active');
  });

  it('rule 105: profiles are named sets of switches, variants win over them, GET /_emulator/health reports the resolved switches', async () => {
    emu = await startEmulator();
    const health = (await raw(`${emu.url}/_emulator/health`)).body;
    expect(health.profile).toBe('current');
    expect(Object.keys(health.variants).sort()).toEqual([...VARIANT_NAMES].sort());
    for (const name of VARIANT_NAMES) expect(health.variants[name]).toBe(VARIANT_SWITCHES[name].values[0]);
    await emu.close();

    emu = await startEmulator({ profile: 'legacy', variants: { 'transfer.envelope': 'paging', 'automation.days': 'short' } });
    const legacy = (await raw(`${emu.url}/_emulator/health`)).body.variants;
    expect(legacy).toMatchObject({
      'automation.basePath': 'webadmin',
      'automation.parameters': 'list',
      'automation.hostType': 'xferLock',
      'automation.hostGet': 'wrapped',
      'automation.scheduler': 'Enabled',
      'transfer.ids': 'string',
      'transfer.envelope': 'paging',
      'transfer.pastLastPage': '404',
      'transfer.userName': 'realname',
      'automation.days': 'short',
      'automation.ids': 'string',
    });
    const t = await login(transferBase(emu), XFER_ADMIN);
    expect((await t.get('/folders')).body.paging).toBeDefined();
    await emu.close();

    emu = await startEmulator({ profile: 'divergent' });
    const divergent = (await raw(`${emu.url}/_emulator/health`)).body.variants;
    // Hostile readings (a broken export…) are no server's form: never in a named set.
    for (const name of VARIANT_NAMES) {
      const s: VariantSwitch = VARIANT_SWITCHES[name];
      if (s.hostile) expect(divergent[name], name).toBe(s.values[0]);
      else expect(divergent[name], name).not.toBe(s.values[0]);
    }
    expect(divergent).toMatchObject({
      'automation.flags': 'string',
      'automation.times': 'seconds',
      'automation.dateListRef': 'string',
      'transfer.aclName': 'fullName',
      'transfer.pathFilter': 'ignored',
    });
  });

  it('rule 105: an unknown profile, switch or reading is a ConfigError that names the known ones and a close match', async () => {
    await expect(startEmulator({ variants: { 'automation.dayz': 'short' } as Partial<Variants> })).rejects.toThrow(
      /unknown variant automation\.dayz; did you mean automation\.days\? \(known: automation\.basePath, .*transfer\.groupMembers\)/,
    );
    await expect(startEmulator({ variants: { 'automation.days': 'shrot' } as unknown as Partial<Variants> })).rejects.toThrow(
      'variant automation.days must be long, short, not "shrot"; did you mean short?',
    );
    await expect(startEmulator({ profile: 'legasy' as Profile })).rejects.toThrow(
      'unknown profile legasy; did you mean legacy? (known: current, legacy, divergent)',
    );
    expect(() => parseVariantAssignments(['automation.days'])).toThrow('--variant takes NAME=VALUE, like automation.days=short, not "automation.days"');
    expect(() => parseVariantAssignments(['tokens.accessTtl=3'])).toThrow(/--access-ttl/);
    expect(parseVariantAssignments(['automation.days=short', 'transfer.ids=string'])).toEqual({ 'automation.days': 'short', 'transfer.ids': 'string' });
  });
});

describe('automation switches', () => {
  it('rule 106: automation.basePath=api serves /automation/api/v1; /automation/webadmin/api/v1 answers 404', async () => {
    emu = await withEmulator({ variants: { 'automation.basePath': 'api' } });
    expect((await form(`${emu.automationUrl}/api/v1/token`, { grant_type: 'password', ...ADMIN })).status).toBe(200);
    expect((await form(`${emu.automationUrl}/webadmin/api/v1/token`, { grant_type: 'password', ...ADMIN })).status).toBe(404);
  });

  it('rule 106: automation.basePath=webadmin serves /automation/webadmin/api/v1; /automation/api/v1 answers 404', async () => {
    emu = await withEmulator({ variants: { 'automation.basePath': 'webadmin' } });
    expect((await form(`${emu.automationUrl}/webadmin/api/v1/token`, { grant_type: 'password', ...ADMIN })).status).toBe(200);
    expect((await form(`${emu.automationUrl}/api/v1/token`, { grant_type: 'password', ...ADMIN })).status).toBe(404);
  });

  it('rule 107: automation.ids=string answers ids as strings and refuses numbers', async () => {
    const api = await automation({ 'automation.ids': 'string' });
    const t = (await api.get('/tasks/401001')).body;
    expect(t).toMatchObject({
      ID: '401001',
      NextEID: expect.any(Number),
      steps: [{ Source: { ID: expect.any(String), HostID: '201001' } }, { Process: { ScriptID: '301001' } }, {}],
    });
    expect(t.Schedules.Schedule[0]).toMatchObject({ ID: expect.any(String), DateListRef: [{ DateListID: '303001' }] });
    expect((await api.get('/resourcegroups/acls/501001')).body.ACLID).toBe('501001');
    expect((await post(api, taskBody('String ids'))).status).toBe(201);
    const numbers = taskBody('Number ids');
    (numbers.steps as any)[0].Source.HostID = 201004;
    expectRefused(await post(api, numbers), 'steps[0].Source.HostID');
  });

  it('rule 107: automation.ids=number answers every automation id as a JSON number and takes strings or numbers', async () => {
    const api = await automation({ 'automation.ids': 'number' });
    const t = (await api.get('/tasks/401001')).body;
    expect(t).toMatchObject({
      ID: 401001,
      NextEID: expect.any(Number),
      steps: [
        { Source: { ID: expect.any(Number), HostID: 201001 } },
        { Process: { ID: expect.any(Number), ScriptID: 301001 } },
        { Destination: { HostID: 201002 } },
      ],
    });
    expect(t.Schedules.Schedule[0]).toMatchObject({ ID: expect.any(Number), DateListRef: [{ DateListID: 303001 }] });
    expect((await api.get('/hosts/201001')).body.ID).toBe(201001);
    expect((await api.get('/hosts')).body.items.map((h: object) => typeof (Object.values(h)[0] as { ID: unknown }).ID)).toEqual(Array(8).fill('number'));
    expect((await api.get('/customscripts')).body.items.map((s: { ID: unknown }) => typeof s.ID)).toEqual(['number', 'number', 'number', 'number']);
    expect((await api.get('/datelists/303001')).body.ID).toBe(303001);
    expect((await api.get('/globalparameters/304001')).body.ID).toBe(304001);
    expect((await api.get('/resourcegroups/Finance')).body.members[0]).toMatchObject({ t: 'Task', ID: 401001 });
    await api.call('POST', '/tasks/401001/start');
    expect((await api.get('/tasks/running')).body.items[0].TaskID).toBe(401001);
    const acl = (await api.get('/resourcegroups/acls/501001')).body;
    expect(acl.ACLID).toBe(501001);
    expect((await api.call('PUT', '/resourcegroups/acls/501001', { ACLID: 501001, Permissions: { TaskRun: 0 } })).status).toBe(200);
    const numbers = taskBody('Number ids');
    (numbers.steps as any)[0].Source.HostID = 201004;
    (numbers.steps as any[]).push({ RunTask: { TaskID: 401001 } });
    const created = await post(api, numbers);
    expect(created.status).toBe(201);
    expect(typeof created.body.ID).toBe('number');
    expect(created.body.steps[2].RunTask).toEqual({ ID: expect.any(Number), TaskID: 401001 });
    expect(storedByName('Number ids').steps[0].Source.HostID).toBe('201004');
    expect((await post(api, taskBody('String ids'))).status).toBe(201);
    const third = taskBody('Boolean id');
    (third.steps as any)[0].Source.HostID = true;
    expectRefused(await post(api, third), 'steps[0].Source.HostID');
  });

  it('rule 108: automation.flags=number answers 0/1 and refuses true/false', async () => {
    const api = await automation({ 'automation.flags': 'number' });
    const t = (await api.get('/tasks/401001')).body;
    expect(t.Active).toBe(1);
    expect(t.steps[2].Destination.OverwriteOrig).toBe(1);
    expect((await api.get('/resourcegroups/acls/501001')).body.Permissions.TaskRun).toBe(1);
    expectRefused(await post(api, taskBody('Boolean flag', { Active: true })), 'Active');
  });

  it('rule 108: automation.flags=boolean answers true/false and takes 0/1 or true/false, not "0"/"1"', async () => {
    const api = await automation({ 'automation.flags': 'boolean' });
    const t = (await api.get('/tasks/401001')).body;
    expect(t).toMatchObject({ Active: true, UseDefStateCaching: false, steps: [{}, {}, { Destination: { OverwriteOrig: true } }] });
    expect((await api.get('/resourcegroups/acls/501001')).body.Permissions).toMatchObject({ TaskRun: true, TaskAddEditDelete: false });
    expect((await post(api, taskBody('Own form', { Active: false }))).status).toBe(201);
    expect(storedByName('Own form').Active).toBe(0);
    expect((await post(api, taskBody('Documented form', { Active: 0 }))).status).toBe(201);
    expectRefused(await post(api, taskBody('Third form', { Active: '0' })), 'Active');
    expect((await api.call('PUT', '/resourcegroups/acls/501001', { Permissions: { TaskRun: false } })).status).toBe(200);
    expect(readAclById(emu!, '501001')!.Permissions.TaskRun).toBe(0);
    expectRefused(await api.call('PUT', '/resourcegroups/acls/501001', { Permissions: { TaskRun: '1' } }), 'Permissions.TaskRun');
  });

  it('rule 108: automation.flags=string answers "0"/"1" and takes 0/1 or "0"/"1", not true/false', async () => {
    const api = await automation({ 'automation.flags': 'string' });
    const t = (await api.get('/tasks/401001')).body;
    expect(t).toMatchObject({ Active: '1', AR: '0', steps: [{}, {}, { Destination: { OverwriteOrig: '1' } }] });
    expect((await api.get('/resourcegroups/acls')).body.items[0].Permissions.TaskRun).toBe('1');
    expect((await post(api, taskBody('Own form', { Active: '0' }))).status).toBe(201);
    expect(storedByName('Own form').Active).toBe(0);
    expect((await post(api, taskBody('Documented form', { Active: 1 }))).status).toBe(201);
    expectRefused(await post(api, taskBody('Third form', { Active: true })), 'Active');
    expectRefused(
      await api.call('POST', '/resourcegroups/acls', { ResourceGroupName: 'Operations', UserGroupName: 'Finance Operators', Permissions: { TaskRun: true } }),
      'Permissions.TaskRun',
    );
  });

  it('rule 109: automation.integers=number answers numbers and refuses digit strings', async () => {
    const api = await automation({ 'automation.integers': 'number' });
    expect((await api.get('/tasks/401001')).body.steps[0].Source).toMatchObject({ DeleteOrig: 0, RetryCount: 3 });
    const body = taskBody('String integer');
    (body.steps as any)[0].Source.RetryCount = '5';
    expectRefused(await post(api, body), 'steps[0].Source.RetryCount');
  });

  it('rule 109: automation.integers=string answers digit strings (RetryCount, DeleteOrig, Multi) and takes numbers or digit strings', async () => {
    const api = await automation({ 'automation.integers': 'string' });
    expect((await api.get('/tasks/401001')).body.steps[0].Source).toMatchObject({ DeleteOrig: '0', RetryCount: '3' });
    const own = scheduled('Own form', { Multi: '1' });
    (own.steps as any)[0].Source.RetryCount = '5';
    const created = await post(api, own);
    expect(created.status).toBe(201);
    expect(created.body.Schedules.Schedule[0].Multi).toBe('1');
    expect(storedByName('Own form')).toMatchObject({ Schedules: { Schedule: [{ Multi: 1 }] }, steps: [{ Source: { RetryCount: 5 } }, {}] });
    const documented = taskBody('Documented form');
    (documented.steps as any)[0].Source.RetryCount = 5;
    expect((await post(api, documented)).status).toBe(201);
    const third = taskBody('Third form');
    (third.steps as any)[0].Source.RetryCount = 'five';
    expectRefused(await post(api, third), 'steps[0].Source.RetryCount');
  });

  it('rule 110: automation.group=list answers Group as a list and refuses a string', async () => {
    const api = await automation({ 'automation.group': 'list' });
    expect((await api.get('/tasks/401001')).body.Group).toEqual(['Finance']);
    expectRefused(await post(api, taskBody('String group', { Group: 'Partners' })), 'Group');
  });

  it('rule 110: automation.group=string answers one group as a string (several stay a list, none is left out) and takes a list or a string', async () => {
    const api = await automation({ 'automation.group': 'string' });
    expect((await api.get('/tasks/401001')).body.Group).toBe('Finance');
    const own = await post(api, taskBody('Own form', { Group: 'Partners' }));
    expect(own.status).toBe(201);
    expect(own.body.Group).toBe('Partners');
    expect(storedByName('Own form').Group).toEqual(['Partners']);
    const two = await post(api, taskBody('Two groups', { Group: ['Partners', 'Finance'] }));
    expect(two.body.Group).toEqual(['Partners', 'Finance']);
    const none = await post(api, taskBody('No group', { Group: [] }));
    expect(none.status).toBe(201);
    expect('Group' in none.body).toBe(false);
    expectRefused(await post(api, taskBody('Third form', { Group: { Name: 'Partners' } })), 'Group');
  });

  it('rule 111: automation.empty=present answers empty lists, objects and strings', async () => {
    const api = await automation({ 'automation.empty': 'present' });
    const r = await post(api, taskBody('Empty fields', { Group: [] }));
    expect(r.body).toMatchObject({ Group: [], TT: '', Info: { Description: '', Notes: '' }, Schedules: { Schedule: [] }, Parameters: {}, NextActions: {} });
  });

  it('rule 111: automation.empty=absent leaves empty lists, objects and strings out of task answers and takes them back absent', async () => {
    const api = await automation({ 'automation.empty': 'absent' });
    const body = taskBody('Empty fields', {
      Group: [],
      Parameters: { Blank: { value: '' } },
      Schedules: { Schedule: [{ Frequency: {} }] },
    });
    (body.steps as any[]).push({ Email: {} });
    const r = await post(api, body);
    expect(r.status).toBe(201);
    for (const key of ['Group', 'TT', 'Info', 'NextActions']) expect(key in r.body, key).toBe(false);
    // A parameter keeps its name, a step its kind, a schedule its place.
    expect(r.body.Parameters).toEqual({ Blank: {} });
    expect(r.body.steps[2]).toEqual({ Email: { ID: expect.any(String) } });
    expect(r.body.Schedules.Schedule).toEqual([{ ID: expect.any(String) }]);
    const before = structuredClone(storedByName('Empty fields'));
    expect((await put(api, r.body.ID, r.body)).status).toBe(200);
    expect(storedByName('Empty fields')).toEqual(before);
    const bare = await post(api, { Name: 'Nothing else', steps: [] });
    expect(bare.status).toBe(201);
    expect(Object.keys(bare.body).sort()).toEqual([
      'AR',
      'Active',
      'CacheNames',
      'ID',
      'Name',
      'NextEID',
      'Renamed',
      'Scheduled',
      'UseDefStateCaching',
      'Watched',
      'xAddEditDelete',
      'xAlter',
      'xRun',
    ]);
  });

  it('rule 112: automation.days=long answers Monday…Sunday and refuses Mon…Sun', async () => {
    const api = await automation({ 'automation.days': 'long' });
    expect((await api.get('/tasks/401001')).body.Schedules.Schedule[0].Days.DayOfWeek).toEqual(['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday']);
    expect((await post(api, scheduled('Own form', { Days: { DayOfWeek: ['Sunday'] } }))).status).toBe(201);
    expectRefused(await post(api, scheduled('Short', { Days: { DayOfWeek: ['Sun'] } })), 'Schedules.Schedule[0].Days.DayOfWeek[0]');
  });

  it('rule 112: automation.days=short answers Mon…Sun and takes only Mon…Sun', async () => {
    const api = await automation({ 'automation.days': 'short' });
    expect((await api.get('/tasks/401005')).body.Schedules.Schedule[0].Days.DayOfWeek).toEqual(['Mon', 'Wed', 'Fri']);
    expect((await post(api, scheduled('Own form', { Days: { DayOfWeek: ['Sun', 'Sat'] } }))).status).toBe(201);
    expect(storedByName('Own form').Schedules.Schedule[0].Days.DayOfWeek).toEqual(['Sunday', 'Saturday']);
    expectRefused(await post(api, scheduled('Long', { Days: { DayOfWeek: ['Sunday'] } })), 'Schedules.Schedule[0].Days.DayOfWeek[0]');
  });

  it('rule 113: automation.times=padded answers HH:mm and refuses H:mm', async () => {
    const api = await automation({ 'automation.times': 'padded' });
    expect((await api.get('/tasks/401001')).body.Schedules.Schedule[0].Frequency.Interval[0]).toEqual({ StartTime: '02:00', EndTime: '02:00' });
    expectRefused(
      await post(api, scheduled('Unpadded', { Frequency: { Interval: [{ StartTime: '9:05' }] } })),
      'Schedules.Schedule[0].Frequency.Interval[0].StartTime',
    );
  });

  it('rule 113: automation.times=unpadded answers H:mm and takes HH:mm or H:mm, not HH:mm:ss', async () => {
    const api = await automation({ 'automation.times': 'unpadded' });
    expect((await api.get('/tasks/401001')).body.Schedules.Schedule[0].Frequency.Interval[0]).toEqual({ StartTime: '2:00', EndTime: '2:00' });
    expect((await api.get('/tasks/401005')).body.Schedules.Schedule[0].Frequency.Interval[0].StartTime).toBe('20:00');
    expect((await post(api, scheduled('Own form', { Frequency: { Interval: [{ StartTime: '9:05', EndTime: '10:15' }] } }))).status).toBe(201);
    expect(storedByName('Own form').Schedules.Schedule[0].Frequency.Interval[0]).toEqual({ StartTime: '09:05', EndTime: '10:15' });
    expect((await post(api, scheduled('Documented form', {}))).status).toBe(201);
    expectRefused(
      await post(api, scheduled('Seconds', { Frequency: { Interval: [{ StartTime: '09:05:00' }] } })),
      'Schedules.Schedule[0].Frequency.Interval[0].StartTime',
    );
  });

  it('rule 113: automation.times=seconds answers HH:mm:00 and takes HH:mm or HH:mm:00, not H:mm', async () => {
    const api = await automation({ 'automation.times': 'seconds' });
    expect((await api.get('/tasks/401001')).body.Schedules.Schedule[0].Frequency.Interval[0]).toEqual({ StartTime: '02:00:00', EndTime: '02:00:00' });
    expect((await post(api, scheduled('Own form', { Frequency: { Interval: [{ StartTime: '09:05:00' }] } }))).status).toBe(201);
    expect(storedByName('Own form').Schedules.Schedule[0].Frequency.Interval[0]).toEqual({ StartTime: '09:05' });
    expect((await post(api, scheduled('Documented form', {}))).status).toBe(201);
    expectRefused(
      await post(api, scheduled('Unpadded', { Frequency: { Interval: [{ StartTime: '9:05' }] } })),
      'Schedules.Schedule[0].Frequency.Interval[0].StartTime',
    );
    expectRefused(
      await post(api, scheduled('Real seconds', { Frequency: { Interval: [{ StartTime: '09:05:30' }] } })),
      'Schedules.Schedule[0].Frequency.Interval[0].StartTime',
    );
  });

  it('rule 114: automation.dateListRef=datelistid answers {DateListID} and takes only that', async () => {
    const api = await automation({ 'automation.dateListRef': 'datelistid' });
    expect((await api.get('/tasks/401001')).body.Schedules.Schedule[0].DateListRef).toEqual([{ DateListID: '303001' }]);
    expect((await post(api, scheduled('Own form', { DateListRef: [{ DateListID: '303001' }] }))).status).toBe(201);
    expectRefused(await post(api, scheduled('Other form', { DateListRef: [{ ID: '303001' }] })), 'Schedules.Schedule[0].DateListRef[0]');
  });

  it('rule 114: automation.dateListRef=id answers {ID: date list id} and takes only that', async () => {
    const api = await automation({ 'automation.dateListRef': 'id' });
    expect((await api.get('/tasks/401001')).body.Schedules.Schedule[0].DateListRef).toEqual([{ ID: '303001' }]);
    expect((await post(api, scheduled('Own form', { DateListRef: [{ ID: '303001' }] }))).status).toBe(201);
    expect(storedByName('Own form').Schedules.Schedule[0].DateListRef).toEqual([{ DateListID: '303001' }]);
    expectRefused(await post(api, scheduled('Other form', { DateListRef: [{ DateListID: '303001' }] })), 'Schedules.Schedule[0].DateListRef[0]');
  });

  it("rule 114: automation.dateListRef=both answers {ID: the reference's own number, DateListID}, numbers new references and takes only that", async () => {
    const api = await automation({ 'automation.dateListRef': 'both' });
    const t = (await api.get('/tasks/401001')).body;
    const ref = t.Schedules.Schedule[0].DateListRef[0];
    expect(ref).toEqual({ ID: expect.stringMatching(/^[0-9]+$/), DateListID: '303001' });
    const elementIds = [t.Schedules.Schedule[0].ID, ...t.steps.map((s: Record<string, { ID: string }>) => Object.values(s)[0]!.ID)];
    expect(elementIds).not.toContain(ref.ID);
    expect(Number(ref.ID)).toBeLessThan(t.NextEID);
    // Sent back with its ID it keeps it; a new reference without one gets the next number.
    t.Schedules.Schedule[0].DateListRef.push({ DateListID: '303001' });
    const r = await put(api, '401001', t);
    expect(r.status).toBe(200);
    const refs = r.body.Schedules.Schedule[0].DateListRef;
    expect(refs[0]).toEqual(ref);
    expect(refs[1]).toEqual({ ID: String(t.NextEID), DateListID: '303001' });
    expectRefused(await post(api, scheduled('Other form', { DateListRef: ['303001'] })), 'Schedules.Schedule[0].DateListRef[0]');
  });

  it('rule 114: automation.dateListRef=string answers the bare date list id and takes only that', async () => {
    const api = await automation({ 'automation.dateListRef': 'string' });
    expect((await api.get('/tasks/401001')).body.Schedules.Schedule[0].DateListRef).toEqual(['303001']);
    expect((await post(api, scheduled('Own form', { DateListRef: ['303001'] }))).status).toBe(201);
    expect(storedByName('Own form').Schedules.Schedule[0].DateListRef).toEqual([{ DateListID: '303001' }]);
    expectRefused(await post(api, scheduled('Other form', { DateListRef: [{ DateListID: '303001' }] })), 'Schedules.Schedule[0].DateListRef[0]');
  });

  it('rule 115: automation.parameters=map answers {name: {value, DisplayValue}} and refuses the list form', async () => {
    const api = await automation({ 'automation.parameters': 'map' });
    expect((await api.get('/tasks/401001')).body.Parameters).toEqual({
      Recipient: { value: 'bank-payments@bank.example.com', DisplayValue: 'bank-payments@bank.example.com' },
      ApiKey: { value: '', DisplayValue: '(suppressed)' },
    });
    expect((await post(api, taskBody('Own form', { Parameters: { Mode: { value: 'fast', DisplayValue: 'fast' } } }))).status).toBe(201);
    expectRefused(await post(api, taskBody('List form', { Parameters: { Parameter: [{ Name: 'Mode', value: 'fast' }] } })), 'Parameters');
  });

  it('rule 115: automation.parameters=list answers {Parameter: [{Name, value}]} and takes the list or the map, not a single {Parameter: {…}}', async () => {
    const api = await automation({ 'automation.parameters': 'list' });
    expect((await api.get('/tasks/401001')).body.Parameters).toEqual({
      Parameter: [
        { Name: 'Recipient', value: 'bank-payments@bank.example.com' },
        { Name: 'ApiKey', value: '', DisplayValue: '(suppressed)' },
      ],
    });
    const own = await post(api, taskBody('Own form', { Parameters: { Parameter: [{ Name: 'Mode', value: 'fast' }] } }));
    expect(own.body.Parameters).toEqual({ Parameter: [{ Name: 'Mode', value: 'fast' }] });
    expect((await post(api, taskBody('Documented form', { Parameters: { Mode: { value: 'fast', DisplayValue: 'fast' } } }))).status).toBe(201);
    expectRefused(await post(api, taskBody('Single form', { Parameters: { Parameter: { Name: 'Mode', value: 'fast' } } })), 'Parameters.Parameter.Name');
  });

  it('rule 116: automation.stepKeys=short answers Source, Process, Destination… and refuses the Mic names', async () => {
    const api = await automation({ 'automation.stepKeys': 'short' });
    expect((await api.get('/tasks/401001')).body.steps.map((s: object) => Object.keys(s)[0])).toEqual(['Source', 'Process', 'Destination']);
    expectRefused(await post(api, taskBody('Mic keys', { steps: [{ MicSourceType: { HostID: '201004' } }] })), 'steps[0].MicSourceType');
  });

  it('rule 116: automation.stepKeys=mic answers MicSourceType, MicProcessType… at every depth and takes either name', async () => {
    const api = await automation({ 'automation.stepKeys': 'mic' });
    expect((await api.get('/tasks/401001')).body.steps.map((s: object) => Object.keys(s)[0])).toEqual([
      'MicSourceType',
      'MicProcessType',
      'MicDestinationType',
    ]);
    const cos = (await api.get('/tasks/401008')).body;
    expect(cos.steps[1].MicForType.steps.map((s: object) => Object.keys(s)[0])).toEqual(['MicProcessType', 'MicDestinationType']);
    const own = await post(
      api,
      taskBody('Own form', { steps: [{ MicSourceType: { HostID: '201004' } }, { MicForType: { steps: [{ MicDestinationType: { HostID: '201007' } }] } }] }),
    );
    expect(own.status).toBe(201);
    expect(storedByName('Own form').steps).toMatchObject([
      { Source: { HostID: '201004', Type: 'SSHFTP' } },
      { For: { steps: [{ Destination: { Type: 'FileSystem' } }] } },
    ]);
    expect((await post(api, taskBody('Documented form'))).status).toBe(201);
    expectRefused(await post(api, taskBody('Third form', { steps: [{ SourceStep: { HostID: '201004' } }] })), 'steps[0].SourceStep');
  });

  /** Give a seeded task's Source step a password; answers the task as read afterwards. */
  async function withStepPassword(api: Api): Promise<Record<string, any>> {
    const t = (await api.get('/tasks/401003')).body;
    t.steps[0].Source.Password = 'step-SEEDSECRET-116';
    expect((await put(api, '401003', t)).status).toBe(200);
    return (await api.get('/tasks/401003')).body;
  }

  it('rule 117: automation.stepPasswords=suppressed answers (suppressed); a PUT that echoes it or leaves the password out keeps the stored one', async () => {
    const api = await automation({ 'automation.stepPasswords': 'suppressed' });
    const read = await withStepPassword(api);
    expect(read.steps[0].Source.Password).toBe('(suppressed)');
    expect((await put(api, '401003', read)).status).toBe(200);
    expect(stored('401003').steps[0].Source.Password).toBe('step-SEEDSECRET-116');
    delete read.steps[0].Source.Password;
    expect((await put(api, '401003', read)).status).toBe(200);
    expect(stored('401003').steps[0].Source.Password).toBe('step-SEEDSECRET-116');
  });

  it('rule 117: automation.stepPasswords=omitted leaves a stored step password out; a PUT without it keeps the stored one', async () => {
    const api = await automation({ 'automation.stepPasswords': 'omitted' });
    const read = await withStepPassword(api);
    expect('Password' in read.steps[0].Source).toBe(false);
    expect(JSON.stringify(read)).not.toContain('SEEDSECRET');
    expect((await put(api, '401003', read)).status).toBe(200);
    expect(stored('401003').steps[0].Source.Password).toBe('step-SEEDSECRET-116');
  });

  it('rule 118: automation.hostType=siLock spells the transfer-server host siLock and refuses xferLock', async () => {
    const api = await automation({ 'automation.hostType': 'siLock' });
    expect((await api.get('/hosts?type=siLock')).body.items).toEqual([{ siLock: expect.objectContaining({ ID: '201008' }) }]);
    expect((await post(api, taskBody('Own form', { steps: [{ Source: { HostID: '201008', Type: 'siLock' } }] }))).status).toBe(201);
    expectRefused(await post(api, taskBody('Other spelling', { steps: [{ Source: { HostID: '201008', Type: 'xferLock' } }] })), 'steps[0].Source.Type');
  });

  it('rule 118: automation.hostType=xferLock spells the transfer-server host xferLock and refuses siLock', async () => {
    const api = await automation({ 'automation.hostType': 'xferLock' });
    expect((await api.get('/hosts?type=xferLock')).body.items).toEqual([{ xferLock: expect.objectContaining({ ID: '201008' }) }]);
    expect((await post(api, taskBody('Own form', { steps: [{ Source: { HostID: '201008', Type: 'xferLock' } }] }))).status).toBe(201);
    expectRefused(await post(api, taskBody('Other spelling', { steps: [{ Source: { HostID: '201008', Type: 'siLock' } }] })), 'steps[0].Source.Type');
  });

  it('rule 119: automation.hostGet=flat answers GET /hosts/{id} flat', async () => {
    const api = await automation({ 'automation.hostGet': 'flat' });
    expect((await api.get('/hosts/201001')).body).toMatchObject({ ID: '201001', Name: 'payroll-sftp' });
  });

  it('rule 119: automation.hostGet=wrapped answers GET /hosts/{id} as {"<type>": {…}}', async () => {
    const api = await automation({ 'automation.hostGet': 'wrapped' });
    const r = (await api.get('/hosts/201001')).body;
    expect(Object.keys(r)).toEqual(['SSHFTP']);
    expect(r.SSHFTP).toMatchObject({ ID: '201001', Name: 'payroll-sftp' });
  });

  it('rule 120: automation.scheduler=enabled answers {enabled}', async () => {
    const api = await automation({ 'automation.scheduler': 'enabled' });
    expect((await api.get('/tasks/scheduler')).body).toEqual({ enabled: true });
  });

  it('rule 120: automation.scheduler=Enabled answers {Enabled}', async () => {
    const api = await automation({ 'automation.scheduler': 'Enabled' });
    expect((await api.get('/tasks/scheduler')).body).toEqual({ Enabled: true });
  });

  it('rule 120: automation.scheduler=status answers {status: running|stopped}', async () => {
    const api = await automation({ 'automation.scheduler': 'status' });
    expect((await api.get('/tasks/scheduler')).body).toEqual({ status: 'running' });
    expect((await api.call('PUT', '/tasks/scheduler/stop')).status).toBe(204);
    expect((await api.get('/tasks/scheduler')).body).toEqual({ status: 'stopped' });
  });

  it('rule 121: automation.taskAnswer=task answers POST (201) and PUT (200) with the task', async () => {
    const api = await automation({ 'automation.taskAnswer': 'task' });
    const created = await post(api, taskBody('Answered'));
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ ID: expect.any(String), Name: 'Answered', steps: [{ Source: {} }, { Destination: {} }] });
    const updated = await put(api, created.body.ID, { ...created.body, Active: 0 });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ ID: created.body.ID, Active: 0 });
  });

  it('rule 121: automation.taskAnswer=id answers POST (201) and PUT (200) with {ID} only', async () => {
    const api = await automation({ 'automation.taskAnswer': 'id' });
    const created = await post(api, taskBody('Answered'));
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ ID: storedByName('Answered').ID });
    const updated = await put(api, created.body.ID, taskBody('Answered', { Active: 0 }));
    expect(updated.status).toBe(200);
    expect(updated.body).toEqual({ ID: created.body.ID });
    expect(storedByName('Answered').Active).toBe(0);
  });

  it('rule 121: automation.taskAnswer=empty answers POST 201 and PUT 204 with no body', async () => {
    const api = await automation({ 'automation.taskAnswer': 'empty' });
    const created = await post(api, taskBody('Answered'));
    expect(created.status).toBe(201);
    expect(created.text).toBe('');
    const id = String(storedByName('Answered').ID);
    const updated = await put(api, id, taskBody('Answered', { Active: 0 }));
    expect(updated.status).toBe(204);
    expect(updated.text).toBe('');
    expect(storedByName('Answered').Active).toBe(0);
  });

  it('rule 122: automation.envelope=paging answers lists and the audit report in an envelope', async () => {
    const api = await automation({ 'automation.envelope': 'paging' });
    expect((await api.get('/tasks?perPage=2')).body).toMatchObject({ items: [{}, {}], paging: { page: 1, perPage: 2, totalItems: 8, totalPages: 4 } });
    expect((await api.get('/resourcegroups/acls')).body.items).toHaveLength(3);
    await put(api, '401003', (await api.get('/tasks/401003')).body);
    expect((await api.call('POST', '/reports/audit', {})).body).toMatchObject({ items: [{ Action: 'Edit' }], sorting: expect.any(Array) });
  });

  it("rule 122: automation.envelope=bare answers lists and the audit report as a bare array of the page's items", async () => {
    const api = await automation({ 'automation.envelope': 'bare' });
    const page = (await api.get('/tasks?perPage=2&page=2')).body;
    expect(Array.isArray(page)).toBe(true);
    expect(page.map((t: { Name: string }) => t.Name)).toEqual(['Bank statements in', 'Globex outbound']);
    expect((await api.get('/tasks')).body).toHaveLength(8);
    expect((await api.get('/hosts')).body).toHaveLength(8);
    expect((await api.get('/resourcegroups/acls')).body).toHaveLength(3);
    await put(api, '401003', (await api.get('/tasks/401003')).body);
    expect((await api.call('POST', '/reports/audit', {})).body).toEqual([expect.objectContaining({ Action: 'Edit', TargetID: '401003' })]);
  });
});

describe('token switches', () => {
  /** The password grant of both services. */
  async function tokens(variants: Partial<Variants>): Promise<Reply[]> {
    emu = await withEmulator({ variants });
    return [
      await form(`${automationBase(emu)}/token`, { grant_type: 'password', ...ADMIN }),
      await form(`${transferBase(emu)}/token`, { grant_type: 'password', ...XFER_ADMIN }),
    ];
  }

  it('rule 123: tokens.type=bearer answers token_type "bearer" on both services', async () => {
    for (const r of await tokens({ 'tokens.type': 'bearer' })) expect(r.body.token_type).toBe('bearer');
  });

  it('rule 123: tokens.type=Bearer answers token_type "Bearer" on both services', async () => {
    for (const r of await tokens({ 'tokens.type': 'Bearer' })) expect(r.body.token_type).toBe('Bearer');
  });

  it('rule 123: tokens.type=absent answers no token_type on either service', async () => {
    for (const r of await tokens({ 'tokens.type': 'absent' })) {
      expect(r.status).toBe(200);
      expect('token_type' in r.body).toBe(false);
    }
  });

  it('rule 124: tokens.expiresIn=number answers expires_in as a number', async () => {
    for (const r of await tokens({ 'tokens.expiresIn': 'number' })) expect(r.body.expires_in).toBe(300);
  });

  it('rule 124: tokens.expiresIn=string answers expires_in as a digit string', async () => {
    for (const r of await tokens({ 'tokens.expiresIn': 'string' })) expect(r.body.expires_in).toBe('300');
  });

  it('rule 124: tokens.expiresIn=absent answers no expires_in', async () => {
    for (const r of await tokens({ 'tokens.expiresIn': 'absent' })) expect('expires_in' in r.body).toBe(false);
  });

  it('rule 125: tokens.refresh=rotate answers a refresh token that is rotated on every refresh', async () => {
    const [a, t] = await tokens({ 'tokens.refresh': 'rotate' });
    for (const [r, url] of [
      [a!, automationBase(emu!)],
      [t!, transferBase(emu!)],
    ] as const) {
      const next = await form(`${url}/token`, { grant_type: 'refresh_token', refresh_token: r.body.refresh_token });
      expect(next.status).toBe(200);
      expect(next.body.refresh_token).toEqual(expect.any(String));
      expect(next.body.refresh_token).not.toBe(r.body.refresh_token);
    }
  });

  it('rule 125: tokens.refresh=none answers no refresh token; the access token works until it expires', async () => {
    const [a, t] = await tokens({ 'tokens.refresh': 'none' });
    for (const r of [a!, t!]) {
      expect(r.body.access_token).toEqual(expect.any(String));
      expect('refresh_token' in r.body).toBe(false);
    }
    expect((await raw(`${automationBase(emu!)}/info`, { headers: { authorization: `Bearer ${a!.body.access_token}` } })).status).toBe(200);
  });
});

describe('transfer switches', () => {
  it('rule 126: transfer.ids=number answers folder ids, parentId and group ids as numbers', async () => {
    const api = await transfer({ 'transfer.ids': 'number' });
    const f = (await api.get('/folders?path=/Distribution/Acme')).body.items[0];
    expect(f).toMatchObject({ id: expect.any(Number), parentId: expect.any(Number) });
    expect((await api.get(`/folders/${f.id}`)).body.path).toBe('/Distribution/Acme');
    expect(typeof (await api.get('/groups')).body.items[0].id).toBe('number');
  });

  it('rule 126: transfer.ids=string answers folder ids, parentId and group ids as strings', async () => {
    const api = await transfer({ 'transfer.ids': 'string' });
    const f = (await api.get('/folders?path=/Distribution/Acme')).body.items[0];
    expect(f).toMatchObject({ id: expect.stringMatching(/^[0-9]+$/), parentId: expect.stringMatching(/^[0-9]+$/) });
    expect((await api.get(`/folders/${f.id}`)).body.path).toBe('/Distribution/Acme');
    expect((await api.get('/groups')).body.items[0].id).toEqual(expect.stringMatching(/^[0-9]+$/));
  });

  it('rule 127: transfer.envelope=paging answers {items, paging, sorting}', async () => {
    const api = await transfer({ 'transfer.envelope': 'paging' });
    expect((await api.get('/folders?perPage=2')).body).toEqual({
      items: [expect.any(Object), expect.any(Object)],
      paging: { page: 1, perPage: 2, totalItems: expect.any(Number), totalPages: expect.any(Number) },
      sorting: [{ sortField: 'Path', sortDirection: 'asc' }],
    });
  });

  it('rule 127: transfer.envelope=flat answers {items, currentPage, totalItems, itemsPerPage, sorting}, independently of pastLastPage', async () => {
    const api = await transfer({ 'transfer.envelope': 'flat' });
    const r = (await api.get('/folders?perPage=2')).body;
    expect(r).toEqual({
      items: [expect.any(Object), expect.any(Object)],
      currentPage: 1,
      totalItems: expect.any(Number),
      itemsPerPage: 2,
      sorting: [{ sortField: 'Path', sortDirection: 'asc' }],
    });
    const past = await api.get(`/folders?perPage=2&page=${Math.ceil(r.totalItems / 2) + 1}`);
    expect(past.status).toBe(200);
    expect(past.body.items).toEqual([]);
  });

  it('rule 128: transfer.pastLastPage=empty answers a page past the last with 200 and no items', async () => {
    const api = await transfer({ 'transfer.pastLastPage': 'empty' });
    const r = await api.get('/groups?perPage=10&page=2');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ items: [], paging: { page: 2, totalItems: 4, totalPages: 1 } });
  });

  it('rule 128: transfer.pastLastPage=404 answers a page past the last with 404, independently of the envelope', async () => {
    const api = await transfer({ 'transfer.pastLastPage': '404' });
    expect((await api.get('/groups?perPage=2&page=2')).body.paging).toMatchObject({ page: 2, totalPages: 2 });
    expect((await api.get('/groups?perPage=2&page=3')).status).toBe(404);
  });

  /** The folder /Distribution/Acme/Inbound (alice, automation-svc) with entries for admin and initech-svc added: their usernames and full names sort in opposite orders. */
  async function folderWithEntries(api: Api): Promise<string> {
    const f = (await api.get('/folders?path=/Distribution/Acme/Inbound')).body.items[0];
    const users = (await api.get('/users?perPage=100')).body.items as { id: string; username: string }[];
    for (const name of ['admin', 'initech-svc']) {
      const r = await api.call('PUT', `/folders/${f.id}/acls`, {
        type: 'User',
        id: users.find((u) => u.username === name)!.id,
        permissions: { listFiles: true },
      });
      expect(r.status).toBe(200);
    }
    return String(f.id);
  }

  it('rule 129: transfer.aclName=username names entries by username (groups by name) and sorts by it', async () => {
    const api = await transfer({ 'transfer.aclName': 'username' });
    const id = await folderWithEntries(api);
    expect((await api.get(`/folders/${id}/acls`)).body.items.map((e: { name: string }) => e.name)).toEqual([
      'Acme Partners',
      'admin',
      'alice',
      'automation-svc',
      'initech-svc',
    ]);
  });

  it("rule 129: transfer.aclName=fullName names user entries by the user's full name (groups by name) and sorts by it", async () => {
    const api = await transfer({ 'transfer.aclName': 'fullName' });
    const id = await folderWithEntries(api);
    expect((await api.get(`/folders/${id}/acls`)).body.items.map((e: { name: string }) => e.name)).toEqual([
      'Acme Partners',
      'Alice Martin',
      'Automation server (host xfer)',
      'Initech service account',
      'Transfer Administrator',
    ]);
  });

  it('rule 129: transfer.aclName=absent answers entries without a name', async () => {
    const api = await transfer({ 'transfer.aclName': 'absent' });
    const id = await folderWithEntries(api);
    const items = (await api.get(`/folders/${id}/acls`)).body.items as object[];
    expect(items).toHaveLength(5);
    for (const e of items) expect('name' in e).toBe(false);
  });

  async function acmeInbound(api: Api): Promise<{ id: string; alice: string; group: number }> {
    const f = (await api.get('/folders?path=/Distribution/Acme/Inbound')).body.items[0];
    const users = (await api.get('/users?username=alice&isExactMatch=true')).body.items;
    const groups = (await api.get('/groups?name=Acme Partners')).body.items;
    return { id: String(f.id), alice: users[0].id, group: Number(groups[0].id) };
  }

  it('rule 130: transfer.entryType=exact answers User/Group and refuses user/group', async () => {
    const api = await transfer({ 'transfer.entryType': 'exact' });
    const { id, alice } = await acmeInbound(api);
    expect((await api.get(`/folders/${id}/acls`)).body.items.map((e: { type: string }) => e.type)).toEqual(['Group', 'User', 'User']);
    expectRefused(await api.call('PUT', `/folders/${id}/acls`, { type: 'user', id: alice, permissions: { listFiles: true } }), 'type');
  });

  it('rule 130: transfer.entryType=lower answers user/group and takes User/Group or user/group', async () => {
    const api = await transfer({ 'transfer.entryType': 'lower' });
    const { id, alice, group } = await acmeInbound(api);
    expect((await api.get(`/folders/${id}/acls`)).body.items.map((e: { type: string }) => e.type)).toEqual(['group', 'user', 'user']);
    expect((await api.call('PUT', `/folders/${id}/acls`, { type: 'user', id: alice, permissions: { listFiles: true } })).status).toBe(200);
    expect((await api.call('PUT', `/folders/${id}/acls`, { type: 'Group', id: group, permissions: { listFiles: true } })).status).toBe(200);
    expect((await api.call('DELETE', `/folders/${id}/acls`, { type: 'group', id: group })).status).toBe(204);
    expectRefused(await api.call('PUT', `/folders/${id}/acls`, { type: 'USER', id: alice, permissions: {} }), 'type');
  });

  it('rule 131: transfer.permissions=boolean answers booleans and refuses 0/1', async () => {
    const api = await transfer({ 'transfer.permissions': 'boolean' });
    const { id, alice } = await acmeInbound(api);
    const entry = (await api.get(`/folders/${id}/acls`)).body.items[1];
    expect(entry.permissions).toMatchObject({ listFiles: true, admin: false, sharePermissions: { readFiles: false } });
    expectRefused(await api.call('PUT', `/folders/${id}/acls`, { type: 'User', id: alice, permissions: { listFiles: 1 } }), 'permissions.listFiles');
  });

  it('rule 131: transfer.permissions=number answers 0/1 (sharePermissions too) and takes booleans or 0/1', async () => {
    const api = await transfer({ 'transfer.permissions': 'number' });
    const { id, alice } = await acmeInbound(api);
    const entry = (await api.get(`/folders/${id}/acls`)).body.items[1];
    expect(entry.permissions).toMatchObject({ listFiles: 1, admin: 0, sharePermissions: { readFiles: 0 } });
    expect(
      (
        await api.call('PUT', `/folders/${id}/acls`, {
          type: 'User',
          id: alice,
          permissions: { listFiles: 1, readFiles: true, sharePermissions: { notify: 1 } },
        })
      ).status,
    ).toBe(200);
    const [folder] = readFolders(emu!, (f) => String(f.id) === id);
    const written = folder!.acl.find((e) => e.id === alice)!.permissions;
    expect(written).toMatchObject({ listFiles: true, readFiles: true, writeFiles: false, sharePermissions: { notify: true } });
    expectRefused(await api.call('PUT', `/folders/${id}/acls`, { type: 'User', id: alice, permissions: { listFiles: '1' } }), 'permissions.listFiles');
  });

  it('rule 132: transfer.entryFlags=present answers isEditable and isDeletable', async () => {
    const api = await transfer({ 'transfer.entryFlags': 'present' });
    const home = (await api.get('/folders?path=/Home/alice')).body.items[0];
    expect((await api.get(`/folders/${home.id}/acls`)).body.items[0]).toMatchObject({ isEditable: false, isDeletable: false });
  });

  it('rule 132: transfer.entryFlags=absent leaves isEditable and isDeletable out; the owner entry still refuses changes (403)', async () => {
    const api = await transfer({ 'transfer.entryFlags': 'absent' });
    const home = (await api.get('/folders?path=/Home/alice')).body.items[0];
    const owner = (await api.get(`/folders/${home.id}/acls`)).body.items[0];
    expect('isEditable' in owner || 'isDeletable' in owner).toBe(false);
    expect((await api.call('PUT', `/folders/${home.id}/acls`, { type: 'User', id: owner.id, permissions: {} })).status).toBe(403);
  });

  it('rule 133: transfer.pathStyle=plain answers /A/B', async () => {
    const api = await transfer({ 'transfer.pathStyle': 'plain' });
    const items = (await api.get('/folders?perPage=100')).body.items as { path: string }[];
    expect(items.map((f) => f.path)).toContain('/Distribution/Acme');
    expect(items.map((f) => f.path)).toContain('/');
  });

  it('rule 133: transfer.pathStyle=trailing answers /A/B/ (the root stays /) and finds a folder by either spelling', async () => {
    const api = await transfer({ 'transfer.pathStyle': 'trailing' });
    const paths = ((await api.get('/folders?perPage=100')).body.items as { path: string }[]).map((f) => f.path);
    expect(paths).toContain('/Distribution/Acme/');
    expect(paths).toContain('/');
    expect(paths.filter((p) => p !== '/' && !p.endsWith('/'))).toEqual([]);
    for (const q of ['/Distribution/Acme', '/Distribution/Acme/'])
      expect((await api.get(`/folders?path=${encodeURIComponent(q)}`)).body.items.map((f: { path: string }) => f.path)).toEqual(['/Distribution/Acme/']);
    const acme = (await api.get('/folders?path=/Distribution/Acme')).body.items[0];
    expect((await api.call('POST', `/folders/${acme.id}/subfolders`, { name: 'Archive' })).body.path).toBe('/Distribution/Acme/Archive/');
  });

  it('rule 134: transfer.pathFilter=insensitive matches ?path= case-insensitively', async () => {
    const api = await transfer({ 'transfer.pathFilter': 'insensitive' });
    expect((await api.get('/folders?path=/distribution/ACME')).body.items.map((f: { path: string }) => f.path)).toEqual(['/Distribution/Acme']);
  });

  it('rule 134: transfer.pathFilter=exact matches ?path= exactly, case included', async () => {
    const api = await transfer({ 'transfer.pathFilter': 'exact' });
    expect((await api.get('/folders?path=/distribution/ACME')).body.items).toEqual([]);
    expect((await api.get('/folders?path=/Distribution/Acme')).body.items.map((f: { path: string }) => f.path)).toEqual(['/Distribution/Acme']);
  });

  it('rule 134: transfer.pathFilter=ignored answers every visible folder, paged, whatever ?path= says', async () => {
    const api = await transfer({ 'transfer.pathFilter': 'ignored' });
    const all = (await api.get('/folders')).body.paging.totalItems;
    expect(all).toBeGreaterThan(10);
    expect((await api.get('/folders?path=/Distribution/Acme')).body.paging.totalItems).toBe(all);
  });

  it('rule 135: transfer.folderAnswer=folder answers a new subfolder with 201 and the folder', async () => {
    const api = await transfer({ 'transfer.folderAnswer': 'folder' });
    const acme = (await api.get('/folders?path=/Distribution/Acme')).body.items[0];
    const r = await api.call('POST', `/folders/${acme.id}/subfolders`, { name: 'Archive' });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ id: expect.any(Number), path: '/Distribution/Acme/Archive' });
  });

  it('rule 135: transfer.folderAnswer=empty answers a new subfolder with 201 and no body', async () => {
    const api = await transfer({ 'transfer.folderAnswer': 'empty' });
    const acme = (await api.get('/folders?path=/Distribution/Acme')).body.items[0];
    const r = await api.call('POST', `/folders/${acme.id}/subfolders`, { name: 'Archive' });
    expect(r.status).toBe(201);
    expect(r.text).toBe('');
    expect((await api.get('/folders?path=/Distribution/Acme/Archive')).body.items).toHaveLength(1);
  });

  it('rule 136: transfer.aclAnswer=list answers an entry write with the whole list', async () => {
    const api = await transfer({ 'transfer.aclAnswer': 'list' });
    const { id, alice } = await acmeInbound(api);
    const r = await api.call('POST', `/folders/${id}/acls`, { type: 'User', id: alice, permissions: { listFiles: true } });
    expect(r.status).toBe(200);
    expect(r.body.items.map((e: { name: string }) => e.name)).toEqual(['Acme Partners', 'alice', 'automation-svc']);
  });

  it('rule 136: transfer.aclAnswer=entry answers an entry write with the entry written', async () => {
    const api = await transfer({ 'transfer.aclAnswer': 'entry' });
    const { id, alice } = await acmeInbound(api);
    const r = await api.call('PUT', `/folders/${id}/acls`, { type: 'User', id: alice, permissions: { readFiles: true } });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      type: 'User',
      id: alice,
      name: 'alice',
      permissions: expect.objectContaining({ readFiles: true, listFiles: false }),
      isEditable: true,
      isDeletable: true,
    });
  });

  it('rule 136: transfer.aclAnswer=empty answers an entry write with 200 and no body; the entry is written', async () => {
    const api = await transfer({ 'transfer.aclAnswer': 'empty' });
    const { id, alice } = await acmeInbound(api);
    const r = await api.call('POST', `/folders/${id}/acls`, { type: 'User', id: alice, permissions: { writeFiles: true } });
    expect(r.status).toBe(200);
    expect(r.text).toBe('');
    expect((await api.get(`/folders/${id}/acls`)).body.items[1].permissions.writeFiles).toBe(true);
  });
  async function acmePartners(api: Api): Promise<string> {
    return String((await api.get('/groups?name=Acme Partners')).body.items[0].id);
  }
  const usernames = (r: Reply): string[] => r.body.items.map((u: { username: string }) => u.username).sort();

  it("rule 137: transfer.groupMembers=members lists a group's members at /groups/{id}/members; /users ignores groupId", async () => {
    const api = await transfer({ 'transfer.groupMembers': 'members' });
    const group = await acmePartners(api);
    expect(usernames(await api.get(`/groups/${group}/members`))).toEqual(['acme-svc', 'bob']);
    expect((await api.get('/users?groupId=' + group)).body.items.length).toBe(readTransferUsers(emu!).length);
    expect((await api.get('/users')).body.items[0].groupIds).toBeUndefined();
  });

  it('rule 137: transfer.groupMembers=userField puts groupIds on user records; the members path answers 404', async () => {
    const api = await transfer({ 'transfer.groupMembers': 'userField' });
    const group = await acmePartners(api);
    const bob = (await api.get('/users?username=bob&isExactMatch=true')).body.items[0];
    expect(bob.groupIds.map(String)).toEqual([group]);
    expect((await api.get(`/groups/${group}/members`)).status).toBe(404);
  });

  it('rule 137: transfer.groupMembers=usersFilter filters /users by groupId; the members path answers 404', async () => {
    const api = await transfer({ 'transfer.groupMembers': 'usersFilter' });
    const group = await acmePartners(api);
    expect(usernames(await api.get('/users?groupId=' + group))).toEqual(['acme-svc', 'bob']);
    expect((await api.get('/users?groupId=999999')).status).toBe(404);
    expect((await api.get(`/groups/${group}/members`)).status).toBe(404);
  });

  it('rule 137: transfer.groupMembers=none offers no form: 404 on the members path, groupId ignored, no groupIds field', async () => {
    const api = await transfer({ 'transfer.groupMembers': 'none' });
    const group = await acmePartners(api);
    expect((await api.get(`/groups/${group}/members`)).status).toBe(404);
    const all = (await api.get('/users?groupId=' + group)).body.items;
    expect(all.length).toBe(readTransferUsers(emu!).length);
    expect(all.every((u: object) => !('groupIds' in u))).toBe(true);
  });
});

describe('rule 141: automation.export, the hostile exports', () => {
  it('GET /config answers the whole configuration, an empty AutomationConfig, or the configuration behind a DOCTYPE with an entity bomb or an external entity', async () => {
    const full = (await (await automation({})).get('/config')).text;
    await emu!.close();
    expect(full).toMatch(/^<\?xml[^>]*>\n<Config /);
    expect((await (await automation({ 'automation.export': 'empty' })).get('/config')).text).toBe('<AutomationConfig></AutomationConfig>');
    await emu!.close();
    const bomb = (await (await automation({ 'automation.export': 'entityBomb' })).get('/config')).text;
    await emu!.close();
    expect(bomb).toMatch(/<!DOCTYPE Config \[\n {2}<!ENTITY lol "lol">\n(?: {2}<!ENTITY lol\d ".*">\n){9}\]>/);
    expect(bomb).toContain('<Note>&lol9;</Note>');
    // The configuration itself is whole: only the DOCTYPE gives it away.
    expect(bomb.match(/<Task /g)).toHaveLength(full.match(/<Task /g)!.length);
    const external = (await (await automation({ 'automation.export': 'externalEntity' })).get('/config')).text;
    expect(external).toContain('<!ENTITY secret SYSTEM "file:///etc/passwd">');
    expect(external).toContain('<Note>&secret;</Note>');
  });
});
