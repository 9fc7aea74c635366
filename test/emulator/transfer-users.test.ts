import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EmulatorSeed, RunningEmulator, Variants } from '../../src/emulator/index.js';
import { startEmulator } from '../../src/emulator/index.js';
import { readFolder, readTransferAudit, readTransferGroup, readTransferUser, setClockOffset } from '../helpers/emulator-test-api.js';
import type { Api, Reply } from './helpers.js';
import { XFER_ADMIN, exampleSeed, form, login, transferBase } from './helpers.js';

/*
 * Users, groups and memberships of the transfer service (transfer-users-groups.md; SPEC rules
 * 79–81 and 142–159), over real HTTP. The example seed plus an Admin, a FileAdmin, an AuditUser,
 * a suspended user, a template and a user who never signed on.
 */

const ADMIN2 = { username: 'dana', password: 'dana-SEEDSECRET-21' };
const FILEADMIN = { username: 'erin', password: 'erin-SEEDSECRET-22' };
const ALICE = { username: 'alice', password: 'alice-SEEDSECRET-11' };
const NEW_PASSWORD = 'frank-NEWSECRET-99';

function seed(): EmulatorSeed {
  const s = exampleSeed();
  s.transfer!.users!.push(
    { ...ADMIN2, fullName: 'Dana Admin', permission: 'Admin' },
    { ...FILEADMIN, fullName: 'Erin Files', permission: 'FileAdmin' },
    { username: 'audrey', password: 'audrey-SEEDSECRET-23', fullName: 'Audrey Audit', permission: 'AuditUser' },
    { username: 'sam', password: 'sam-SEEDSECRET-24', fullName: 'Sam Suspended', status: 'Suspended', statusNote: 'left' },
    { username: 'tpl', password: 'tpl-SEEDSECRET-25', fullName: 'Template', status: 'Template' },
    { username: 'nina', password: 'nina-SEEDSECRET-26', fullName: 'Nina Never', lastLoginStamp: '', notes: 'contractor' },
  );
  return s;
}

let emu: RunningEmulator;
let base: string;
let api: Api;

async function start(variants: Partial<Variants> = {}): Promise<void> {
  emu = await startEmulator({ seed: seed(), variants });
  base = transferBase(emu);
  api = await login(base, XFER_ADMIN);
}

beforeEach(() => start());
afterEach(() => emu.close());

const names = (r: Reply): string[] => r.body.items.map((u: { username?: string; name?: string }) => u.username ?? u.name);
const fieldsOf = (r: Reply): string[] => (r.body?.errors ?? []).map((e: { field: string }) => e.field);
const idOf = (username: string): string => readTransferUser(emu, username)!.id;
const groupId = (name: string): number => readTransferGroup(emu, name)!.id;

function expectError(r: Reply, status: number): void {
  expect(r.status).toBe(status);
  expect(r.body).toMatchObject({ title: expect.any(String), detail: expect.any(String), errorCode: status });
}

async function createFrank(extra: Record<string, unknown> = {}): Promise<Reply> {
  return api.call('POST', '/users', { username: 'frank', fullName: 'Frank New', email: 'frank@example.com', password: NEW_PASSWORD, ...extra });
}

describe('user records and the users list', () => {
  it('rule 142: lists and members answer SimpleUserModel, a user UserDetailsModel; no read ever answers a password', async () => {
    const list = await api.get('/users?username=alice&isExactMatch=true');
    expect(list.body.items).toEqual([
      {
        id: idOf('alice'),
        orgID: 0,
        username: 'alice',
        fullName: 'Alice Martin',
        permission: 'User',
        email: 'alice.martin@example.com',
        status: 'Active',
        lastLoginStamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      },
    ]);
    const one = await api.get(`/users/${idOf('nina')}`);
    expect(one.body).toEqual({
      id: idOf('nina'),
      orgID: 0,
      username: 'nina',
      fullName: 'Nina Never',
      permission: 'User',
      email: 'nina@example.com',
      status: 'Active',
      lastLoginStamp: '',
      emailFormat: 'HTML',
      notes: 'contractor',
      statusNote: '',
      passwordChangeStamp: expect.any(String),
      receivesNotification: 'ReceivesNotifications',
      forceChangePassword: false,
      folderQuota: 0,
      totalFileSize: 0,
      authMethod: 'MOVEitOnly',
      language: 'en',
      homeFolderID: 0,
      defaultFolderID: 0,
      expirationPolicyID: 0,
      displaySettings: { fileListPageSize: 25, liveViewPageSize: 25, userListPageSize: 25 },
    });
    const created = await createFrank({ homeFolderPath: '/Home/frank' });
    const frankId = created.body.id as string;
    await api.call('PATCH', `/users/${frankId}`, { password: `${NEW_PASSWORD}-2` });
    const reads = [
      created,
      await api.get('/users?perPage=100'),
      await api.get(`/users/${frankId}`),
      await api.get(`/users/${idOf('alice')}`),
      await api.get(`/users/${frankId}/groups`),
      await api.get('/users/self'),
      await api.get(`/groups/${groupId('Acme Partners')}/members`),
      await api.call('POST', `/groups/${groupId('Acme Partners')}/members`, { userIds: [frankId] }),
      await api.call('PATCH', `/users/${frankId}`, { notes: 'x' }),
      await api.call('DELETE', `/groups/${groupId('Acme Partners')}/members/${frankId}`),
      await api.get(`/folders/${readFolder(emu, '/Home/frank')!.id}/acls`),
    ];
    for (const r of reads) {
      expect(r.status).toBeLessThan(300);
      expect(r.text).not.toMatch(/"password"|SEEDSECRET|NEWSECRET|xfer-admin-Pa55/);
    }
  });

  it('rule 143: GET /users filters by permission, status, username, fullName and email (isExactMatch: exact, else contains); a bad value answers 400', async () => {
    const by = async (query: string) => names(await api.get(`/users?perPage=100&${query}`));
    expect(await by('permission=Administrators')).toEqual(['dana']);
    expect(await by('permission=SysAdmins')).toEqual(['admin']);
    expect(await by('permission=FileAdmins')).toEqual(['erin']);
    expect(await by('permission=AuditUsers')).toEqual(['audrey']);
    expect(await by('permission=GroupAdmins')).toEqual([]);
    expect(await by('permission=TemporaryUsers')).toEqual([]);
    expect(await by('permission=EndUsers')).toContain('alice');
    expect(await by('permission=EndUsers')).not.toContain('dana');
    expect(await by('status=InactiveUsers')).toEqual(['sam']);
    expect(await by('status=TemplateUsers')).toEqual(['tpl']);
    expect(await by('status=NeverSignedOnUsers')).toEqual(['nina']);
    expect(await by('status=ActiveUsers')).not.toContain('sam');
    expect(await by('fullName=martin')).toEqual(['alice']);
    expect(await by('fullName=martin&isExactMatch=true')).toEqual([]);
    expect(await by('email=ALICE.MARTIN@example.com&isExactMatch=true')).toEqual(['alice']);
    expect(await by('username=svc&permission=EndUsers')).toEqual(['acme-svc', 'automation-svc', 'globex-svc', 'initech-svc']);
    expect(await by('sortField=lastLoginStamp&status=AllUsers&username=nina')).toEqual(['nina']);
    for (const bad of ['permission=Admins', 'status=Gone', 'isExactMatch=yes', 'orgId=x', 'sortField=password']) {
      const r = await api.get(`/users?${bad}`);
      expectError(r, 400);
      expect(fieldsOf(r)).toEqual([bad.split('=')[0]]);
    }
  });
});

describe('creating, reading, changing and deleting users', () => {
  it('rule 144: POST /users (AddUserModel) answers 201 with the UserDetailsModel; a username taken in any case answers 409; bad fields 422', async () => {
    const r = await createFrank({ permission: 'FileAdmin', forceChangePassword: true, notes: 'new' });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      id: expect.any(String),
      username: 'frank',
      fullName: 'Frank New',
      permission: 'FileAdmin',
      status: 'Active',
      lastLoginStamp: '',
      forceChangePassword: true,
      notes: 'new',
      homeFolderID: 0,
    });
    expect((await api.get(`/users/${r.body.id}`)).body).toEqual(r.body);
    expect(readTransferUser(emu, 'frank')!.password).toBe(NEW_PASSWORD);
    expectError(await api.call('POST', '/users', { username: 'FRANK', password: 'x' }), 409);
    const older = await api.call('POST', '/users', { username: 'gina', realName: 'Gina Older', sourceUserId: idOf('erin') });
    expect(older.body).toMatchObject({ fullName: 'Gina Older', permission: 'FileAdmin', email: 'gina@example.com' });
    const bad = await api.call('POST', '/users', { username: '', permission: 'Root', colour: 'red', forceChangePassword: 'yes', sourceUserId: 'nobody' });
    expectError(bad, 422);
    expect(fieldsOf(bad).sort()).toEqual(['colour', 'forceChangePassword', 'permission', 'sourceUserId', 'username']);
    expectError(await api.call('POST', '/users', { username: 'h', fullName: 'A', realName: 'B' }), 422);
    expectError(await api.call('POST', '/users', 'not json', { 'content-type': 'text/plain' }), 415);
    expect(readTransferUser(emu, 'h')).toBeUndefined();
  });

  it('rule 145: homeFolderPath creates the home folder (owner entry full and not editable); an existing one is taken (AllowIfExists) or refused (DenyIfExists); a missing parent answers 422', async () => {
    const r = await createFrank({ homeFolderPath: '/Home/frank' });
    const home = readFolder(emu, '/Home/frank')!;
    expect(r.body).toMatchObject({ homeFolderID: home.id, defaultFolderID: home.id });
    expect(home.owner).toBe('frank');
    expect(home.acl).toEqual([expect.objectContaining({ type: 'User', id: r.body.id, isEditable: false, isDeletable: false })]);
    expect(home.acl[0]!.permissions).toMatchObject({ readFiles: true, writeFiles: true, admin: false });
    expectError(await api.call('POST', '/users', { username: 'g1', homeFolderPath: '/Finance', homeFolderInUseOption: 'DenyIfExists' }), 409);
    expectError(await api.call('POST', '/users', { username: 'g2', homeFolderPath: '/home/FRANK' }), 409);
    const taken = await api.call('POST', '/users', { username: 'g3', homeFolderPath: '/Finance/Payroll' });
    expect(taken.body.homeFolderID).toBe(readFolder(emu, '/Finance/Payroll')!.id);
    const missing = await api.call('POST', '/users', { username: 'g4', homeFolderPath: '/Nowhere/g4' });
    expectError(missing, 422);
    expect(fieldsOf(missing)).toEqual(['homeFolderPath']);
    expect(readTransferUser(emu, 'g1')).toBeUndefined();
    expect(readTransferUser(emu, 'g4')).toBeUndefined();
  });

  it('rule 146: GET /users/{id} answers any user to Admin/SysAdmin, a user their own record; another user 403; an unknown id 404', async () => {
    expect((await api.get(`/users/${idOf('bob')}`)).body.username).toBe('bob');
    const alice = await login(base, ALICE);
    expect((await alice.get(`/users/${idOf('alice')}`)).body.username).toBe('alice');
    expectError(await alice.get(`/users/${idOf('bob')}`), 403);
    expectError(await alice.get('/users/nosuchuser'), 403);
    expectError(await api.get('/users/nosuchuser'), 404);
  });

  it('rule 147: PATCH /users/{id} (UserPatchModel) changes only the fields given; username, unknown fields and bad values answer 422; a password change works at the next sign-on', async () => {
    const bob = idOf('bob');
    const r = await api.call('PATCH', `/users/${bob}`, {
      fullName: 'Robert Chen',
      permission: 'Admin',
      status: 'Suspended',
      statusNote: 'on leave',
      folderQuota: 1024,
      authMethod: 'Both',
      emailFormat: 'Text',
      receivesNotification: 'ReceivesNoNotifications',
      defaultFolderId: readFolder(emu, '/Finance')!.id,
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      username: 'bob',
      fullName: 'Robert Chen',
      email: 'bob.chen@example.com',
      permission: 'Admin',
      status: 'Suspended',
      statusNote: 'on leave',
      folderQuota: 1024,
      authMethod: 'Both',
      emailFormat: 'Text',
      receivesNotification: 'ReceivesNoNotifications',
      defaultFolderID: readFolder(emu, '/Finance')!.id,
    });
    const rename = await api.call('PATCH', `/users/${bob}`, { username: 'robert' });
    expectError(rename, 422);
    expect(rename.body.errors[0]).toMatchObject({ field: 'username', message: expect.stringContaining('cannot be renamed') });
    const bad = await api.call('PATCH', `/users/${bob}`, { colour: 'red', status: 'Gone', folderQuota: -1, defaultFolderId: 999999 });
    expect(fieldsOf(bad).sort()).toEqual(['colour', 'defaultFolderId', 'folderQuota', 'status']);
    expect(readTransferUser(emu, 'bob')!.username).toBe('bob');
    const before = readTransferUser(emu, 'alice')!.passwordChangeStamp;
    setClockOffset(emu, 60_000);
    await api.call('PATCH', `/users/${idOf('alice')}`, { password: NEW_PASSWORD });
    expect(readTransferUser(emu, 'alice')!.passwordChangeStamp).not.toBe(before);
    expect((await form(`${base}/token`, { grant_type: 'password', ...ALICE })).status).toBe(400);
    const alice = await login(base, { username: 'alice', password: NEW_PASSWORD });
    expectError(await alice.call('PATCH', `/users/${idOf('alice')}`, { password: 'p2' }), 422);
    expectError(await alice.call('PATCH', `/users/${idOf('alice')}`, { password: 'p2', currentPassword: 'wrong' }), 422);
    expect((await alice.call('PATCH', `/users/${idOf('alice')}`, { password: 'p2', currentPassword: NEW_PASSWORD })).status).toBe(200);
    expectError(await alice.call('PATCH', `/users/${idOf('alice')}`, { permission: 'Admin' }), 403);
  });

  it('rule 148: DELETE /users/{id} answers 204; the user leaves every group and folder entry (home folder kept, without owner), their tokens stop; own account 403; unknown 404; the id is never given again', async () => {
    const alice = await login(base, ALICE);
    const id = idOf('alice');
    const home = readFolder(emu, '/Home/alice')!;
    expect((await api.call('DELETE', `/users/${id}`)).status).toBe(204);
    expect(readTransferUser(emu, 'alice')).toBeUndefined();
    expect(readTransferGroup(emu, 'Finance Team')!.members).not.toContain(id);
    for (const path of ['/Home/alice', '/Finance', '/Finance/Payroll']) expect(readFolder(emu, path)!.acl.map((e) => e.id)).not.toContain(id);
    expect(readFolder(emu, '/Home/alice')).toMatchObject({ id: home.id, owner: '' });
    expect((await alice.get('/users/self')).status).toBe(401);
    expectError(await api.call('DELETE', `/users/${id}`), 404);
    expectError(await api.call('DELETE', `/users/${idOf('admin')}`), 403);
    const again = await api.call('POST', '/users', { username: 'alice', password: 'x' });
    expect(again.body.id).not.toBe(id);
  });

  it('rule 149: GET /users/{id}/groups pages UserGroupModel {relationship, name, description}', async () => {
    const r = await api.get(`/users/${idOf('bob')}/groups`);
    expect(r.body.items).toEqual([{ relationship: 'Member', name: 'Acme Partners', description: 'Acme Corp people and systems' }]);
    expect(r.body.paging).toMatchObject({ totalItems: 1 });
    const alice = await login(base, ALICE);
    expect(names(await alice.get(`/users/${idOf('alice')}/groups`))).toEqual(['Finance Team']);
    expectError(await alice.get(`/users/${idOf('bob')}/groups`), 403);
  });
});

describe('groups and memberships', () => {
  it('rule 150: POST /groups (BaseGroupModel) answers 201 with the GroupModel; a name taken in any case 409; no name or another field 422', async () => {
    const r = await api.call('POST', '/groups', { name: 'Auditors', description: 'External audit' });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({ id: expect.any(Number), name: 'Auditors', description: 'External audit', membersCount: 0 });
    expect((await api.get('/groups')).body.items).toContainEqual(r.body);
    expectError(await api.call('POST', '/groups', { name: 'auditors' }), 409);
    const bad = await api.call('POST', '/groups', { description: 'x', members: [] });
    expect(fieldsOf(bad).sort()).toEqual(['members', 'name']);
  });

  it('rule 151: POST /groups/{id}/members {id?, userIds} adds members all or nothing and answers the paged members; an unknown user 422, an unknown group 404', async () => {
    const acme = groupId('Acme Partners');
    const r = await api.call('POST', `/groups/${acme}/members`, { id: String(acme), userIds: [idOf('alice'), idOf('bob')] });
    expect(r.status).toBe(200);
    expect(names(r)).toEqual(['acme-svc', 'alice', 'bob']);
    expect(r.body.paging).toMatchObject({ page: 1, totalItems: 3 });
    expect((await api.get('/groups')).body.items.find((g: { name: string }) => g.name === 'Acme Partners').membersCount).toBe(3);
    const unknown = await api.call('POST', `/groups/${acme}/members`, { userIds: [idOf('carol'), 'nosuchuser'] });
    expectError(unknown, 422);
    expect(fieldsOf(unknown)).toEqual(['userIds[1]']);
    expect(readTransferGroup(emu, 'Acme Partners')!.members).not.toContain(idOf('carol'));
    expect(fieldsOf(await api.call('POST', `/groups/${acme}/members`, { id: '1', userIds: [idOf('carol')] }))).toEqual(['id']);
    expect(fieldsOf(await api.call('POST', `/groups/${acme}/members`, { userIds: [] }))).toEqual(['userIds']);
    expectError(await api.call('POST', '/groups/424242/members', { userIds: [idOf('carol')] }), 404);
  });

  it('rule 152: DELETE /groups/{id}/members/{userId} answers the paged members left; a user who is not a member 404', async () => {
    const acme = groupId('Acme Partners');
    const r = await api.call('DELETE', `/groups/${acme}/members/${idOf('bob')}`);
    expect(r.status).toBe(200);
    expect(names(r)).toEqual(['acme-svc']);
    expectError(await api.call('DELETE', `/groups/${acme}/members/${idOf('bob')}`), 404);
    expectError(await api.call('DELETE', `/groups/424242/members/${idOf('bob')}`), 404);
  });

  it('rule 153: there is no group update, delete or get-by-id: those answer 404 and change nothing', async () => {
    const acme = groupId('Acme Partners');
    for (const method of ['GET', 'PATCH', 'PUT', 'DELETE'])
      expectError(await api.call(method, `/groups/${acme}`, method === 'GET' ? undefined : { name: 'x' }), 404);
    expectError(await api.call('PUT', `/groups/${acme}/members`, { userIds: [] }), 405);
    expect(readTransferGroup(emu, 'Acme Partners')).toMatchObject({ id: acme, name: 'Acme Partners' });
  });
});

describe('who may do what', () => {
  it('rule 154: every user and group write needs Admin or SysAdmin (FileAdmin and User get 403); only a SysAdmin creates, changes or deletes a SysAdmin', async () => {
    const acme = groupId('Acme Partners');
    const writes: [string, string, unknown][] = [
      ['POST', '/users', { username: 'zed', password: 'x' }],
      ['PATCH', `/users/${idOf('bob')}`, { notes: 'x' }],
      ['DELETE', `/users/${idOf('bob')}`, undefined],
      ['POST', '/groups', { name: 'Zed' }],
      ['POST', `/groups/${acme}/members`, { userIds: [idOf('carol')] }],
      ['DELETE', `/groups/${acme}/members/${idOf('bob')}`, undefined],
    ];
    for (const who of [ALICE, FILEADMIN]) {
      const caller = await login(base, who);
      for (const [method, path, body] of writes) expectError(await caller.call(method, path, body), 403);
      expectError(await caller.get('/users'), 403);
      expectError(await caller.get('/groups'), 403);
    }
    expect(readTransferUser(emu, 'zed')).toBeUndefined();
    expect(readTransferUser(emu, 'bob')!.notes).toBe('');
    const dana = await login(base, ADMIN2);
    expect((await dana.call('POST', '/users', { username: 'zed', password: 'x', permission: 'Admin' })).status).toBe(201);
    expectError(await dana.call('POST', '/users', { username: 'root2', password: 'x', permission: 'SysAdmin' }), 403);
    expectError(await dana.call('PATCH', `/users/${idOf('bob')}`, { permission: 'SysAdmin' }), 403);
    expectError(await dana.call('PATCH', `/users/${idOf('admin')}`, { notes: 'x' }), 403);
    expectError(await dana.call('DELETE', `/users/${idOf('admin')}`), 403);
    expect((await api.call('PATCH', `/users/${idOf('bob')}`, { permission: 'SysAdmin' })).body.permission).toBe('SysAdmin');
  });

  it('rule 155: a password grant sets lastLoginStamp; Suspended and Template accounts and accounts without a password cannot sign on, and a suspended account’s token stops', async () => {
    expect(readTransferUser(emu, 'nina')!.lastLoginStamp).toBe('');
    await login(base, { username: 'NINA', password: 'nina-SEEDSECRET-26' });
    expect(Date.parse(readTransferUser(emu, 'nina')!.lastLoginStamp)).toBeGreaterThan(Date.now() - 60_000);
    for (const user of [
      { username: 'sam', password: 'sam-SEEDSECRET-24' },
      { username: 'tpl', password: 'tpl-SEEDSECRET-25' },
    ])
      expect((await form(`${base}/token`, { grant_type: 'password', ...user })).body.error).toBe('invalid_grant');
    await api.call('POST', '/users', { username: 'nopass' });
    expect((await form(`${base}/token`, { grant_type: 'password', username: 'nopass', password: '' })).status).toBe(400);
    const bob = await login(base, { username: 'bob', password: 'bob-SEEDSECRET-12' });
    await api.call('PATCH', `/users/${idOf('bob')}`, { status: 'Suspended' });
    expectError(await bob.get('/users/self'), 401);
  });

  it('rule 156: every user and group write is recorded in state (who, what, when; field names, never values); no endpoint answers the records', async () => {
    const created = await createFrank();
    await api.call('PATCH', `/users/${created.body.id}`, { password: 'another-NEWSECRET', notes: 'n' });
    const g = await api.call('POST', '/groups', { name: 'Auditors' });
    await api.call('POST', `/groups/${g.body.id}/members`, { userIds: [created.body.id] });
    await api.call('DELETE', `/groups/${g.body.id}/members/${created.body.id}`);
    await api.call('DELETE', `/users/${created.body.id}`);
    await api.call('POST', '/users', { username: 'frank' }).then((r) => expect(r.status).toBe(201));
    const dana = await login(base, ADMIN2);
    await dana.call('POST', '/users', { username: 'root2', permission: 'SysAdmin' });
    const audit = readTransferAudit(emu);
    expect(audit.map((a) => [a.action, a.username, a.targetName, a.member ?? a.fields?.join(',') ?? ''])).toEqual([
      ['user.create', 'admin', 'frank', ''],
      ['user.update', 'admin', 'frank', 'notes,password'],
      ['group.create', 'admin', 'Auditors', ''],
      ['group.addMember', 'admin', 'Auditors', 'frank'],
      ['group.removeMember', 'admin', 'Auditors', 'frank'],
      ['user.delete', 'admin', 'frank', ''],
      ['user.create', 'admin', 'frank', ''],
    ]);
    expect(audit[0]).toMatchObject({ id: 1, targetType: 'User', targetId: created.body.id, ip: expect.any(String), time: expect.stringMatching(/^\d{4}-/) });
    expect(JSON.stringify(audit)).not.toMatch(/SECRET/);
    expectError(await api.get('/audit'), 404);
  });
});

describe('transfer user switches', () => {
  it('rule 157: transfer.userName=fullName answers fullName on every user record; realName is taken on input too', async () => {
    for (const r of [await api.get('/users'), await api.get('/users/self'), await api.get(`/groups/${groupId('Acme Partners')}/members`)]) {
      const record = r.body.items?.[0] ?? r.body;
      expect(record).toHaveProperty('fullName');
      expect(record).not.toHaveProperty('realname');
    }
    expect((await api.call('POST', '/users', { username: 'o1', realName: 'Old Form' })).body.fullName).toBe('Old Form');
    expect(fieldsOf(await api.call('POST', '/users', { username: 'o2', realname: 'Answer Form' }))).toEqual(['realname']);
  });

  it('rule 157: transfer.userName=realname answers realname (not fullName) on every user record and takes fullName, realName or realname', async () => {
    await emu.close();
    await start({ 'transfer.userName': 'realname' });
    const created = await api.call('POST', '/users', { username: 'o2', realname: 'Answer Form' });
    const patched = await api.call('PATCH', `/users/${created.body.id}`, { fullName: 'Documented Form' });
    for (const r of [created, patched, await api.get('/users'), await api.get('/users/self'), await api.get(`/users/${idOf('bob')}`)]) {
      const record = r.body.items?.[0] ?? r.body;
      expect(record).toHaveProperty('realname');
      expect(record).not.toHaveProperty('fullName');
    }
    expect(created.body.realname).toBe('Answer Form');
    expect(patched.body.realname).toBe('Documented Form');
  });

  it('rule 158: transfer.groupIds=number answers group ids as numbers; =string as strings while folder ids stay numbers; member writes take either', async () => {
    expect(typeof (await api.get('/groups')).body.items[0].id).toBe('number');
    await emu.close();
    await start({ 'transfer.groupIds': 'string' });
    const groups = (await api.get('/groups')).body.items as { id: unknown; name: string }[];
    expect(groups.every((g) => typeof g.id === 'string' && /^[0-9]+$/.test(g.id))).toBe(true);
    expect(typeof (await api.get('/folders?path=/Finance')).body.items[0].id).toBe('number');
    const created = await api.call('POST', '/groups', { name: 'Auditors' });
    expect(created.body.id).toEqual(expect.stringMatching(/^[0-9]+$/));
    expect((await api.call('POST', `/groups/${created.body.id}/members`, { id: created.body.id, userIds: [idOf('bob')] })).status).toBe(200);
    expect((await api.call('POST', `/groups/${created.body.id}/members`, { id: Number(created.body.id), userIds: [idOf('carol')] })).status).toBe(200);
    expect(readTransferGroup(emu, 'Auditors')!.members).toEqual([idOf('bob'), idOf('carol')]);
  });
});

describe('seeds', () => {
  it('rule 159: seed users take any UserDetailsModel field (absent: a new account’s default; lastLoginStamp absent: signed on at start); a bad value is a ConfigError naming the user', async () => {
    expect(readTransferUser(emu, 'sam')).toMatchObject({ status: 'Suspended', statusNote: 'left', emailFormat: 'HTML', authMethod: 'MOVEitOnly' });
    expect(readTransferUser(emu, 'alice')).toMatchObject({
      homeFolderID: readFolder(emu, '/Home/alice')!.id,
      defaultFolderID: readFolder(emu, '/Home/alice')!.id,
    });
    expect(readTransferUser(emu, 'bob')!.lastLoginStamp).not.toBe('');
    const bad = (user: Record<string, unknown>) => startEmulator({ seed: { transfer: { users: [{ username: 'x', password: 'p', ...user }] } } });
    await expect(bad({ status: 'Gone' })).rejects.toThrow(/transfer user x: status must be one of Active, Suspended, Template/);
    await expect(bad({ folderQuota: -1 })).rejects.toThrow(/transfer user x: folderQuota must be a whole number/);
    await expect(bad({ colour: 'red' })).rejects.toThrow(/transfer user x: unknown field colour/);
  });
});
