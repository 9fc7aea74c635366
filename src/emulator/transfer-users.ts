import type { ApiResponse, FieldError, Params, Route } from './http.js';
import { emptyResponse, jsonResponse } from './http.js';
import type { Json, JsonObject } from './json.js';
import { isJsonObject, showRejected } from './json.js';
import { churnUsers } from './list-churn.js';
import type { TransferListQuery } from './paging.js';
import { matchesGlob, transferPage } from './paging.js';
import { ownerPermissions, userIdFor } from './seed.js';
import type { TransferAuditRecord, TransferFolder, TransferGroup, TransferState, TransferUser } from './state.js';
import { newTransferUser, nowMs } from './state.js';
import type { Ctx } from './transfer-context.js';
import { badQuery, err, folderDetailDefaults, invalid, isUserAdmin, jsonBody, listResponse, sortItems } from './transfer-context.js';
import { encodeGroupId, fullNameInputKeys, fullNameKey } from './transfer-wire.js';
import type { UserPermission } from './vocabulary.js';
import {
  AUTH_METHODS,
  EMAIL_FORMATS,
  HOME_FOLDER_IN_USE,
  RECEIVES_NOTIFICATION,
  USER_PERMISSIONS,
  USER_PERMISSION_FILTERS,
  USER_STATUSES,
  USER_STATUS_FILTERS,
} from './vocabulary.js';

/*
 * Users, groups and memberships of the transfer service (transfer-users-groups.md; SPEC rules
 * 79–81, 142–159). Every write needs Admin or SysAdmin; only a SysAdmin creates, changes or
 * deletes a SysAdmin. No read ever answers a password.
 */

// ---------------------------------------------------------------------------------------------
// Records

/** The keys of `T` that may be undefined become optional without undefined. */
type WithoutUndefined<T> = { [K in keyof T as undefined extends T[K] ? never : K]: T[K] } & {
  [K in keyof T as undefined extends T[K] ? K : never]?: Exclude<T[K], undefined>;
};

/** `fields` without its undefined members (the emulator takes no product code, so not `withDefined`). */
function withoutUndefined<T extends Record<string, unknown>>(fields: T): WithoutUndefined<T> {
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as WithoutUndefined<T>;
}

/** SimpleUserModel; the full name under `fullName` or `realname` (`transfer.userName`). */
function renderSimpleUser(c: Ctx, u: TransferUser): JsonObject {
  const record: JsonObject = {
    id: u.id,
    orgID: u.orgID,
    username: u.username,
    [fullNameKey(c.v)]: u.fullName,
    permission: u.permission,
    email: u.email,
    status: u.status,
    lastLoginStamp: u.lastLoginStamp,
  };
  if (c.v['transfer.groupMembers'] === 'userField') record.groupIds = c.t.groups.filter((g) => g.members.includes(u.id)).map((g) => encodeGroupId(g.id, c.v));
  return record;
}

/** UserDetailsModel: the SimpleUserModel fields and the account's settings. */
function renderUserDetails(c: Ctx, u: TransferUser): JsonObject {
  return {
    ...renderSimpleUser(c, u),
    emailFormat: u.emailFormat,
    notes: u.notes,
    statusNote: u.statusNote,
    passwordChangeStamp: u.passwordChangeStamp,
    receivesNotification: u.receivesNotification,
    forceChangePassword: u.forceChangePassword,
    folderQuota: u.folderQuota,
    totalFileSize: u.totalFileSize,
    authMethod: u.authMethod,
    language: u.language,
    homeFolderID: u.homeFolderID,
    defaultFolderID: u.defaultFolderID,
    expirationPolicyID: u.expirationPolicyID,
    displaySettings: { fileListPageSize: 25, liveViewPageSize: 25, userListPageSize: 25 },
  };
}

function renderGroup(c: Ctx, g: TransferGroup): JsonObject {
  return { id: encodeGroupId(g.id, c.v), name: g.name, description: g.description, membersCount: g.members.length };
}

/** Whether the account may sign on (and keep using its tokens): Active, with a password set. */
export function canSignOn(u: TransferUser): boolean {
  return u.status === 'Active' && u.password !== '';
}

/** Admin may manage every account but a SysAdmin; SysAdmin every account. */
function mayManage(caller: TransferUser, target: { readonly permission: UserPermission }): boolean {
  return caller.permission === 'SysAdmin' || (caller.permission === 'Admin' && target.permission !== 'SysAdmin');
}

function findUser(t: TransferState, id: string | undefined): TransferUser | undefined {
  return t.users.find((u) => u.id === id);
}

function findGroup(t: TransferState, id: string | undefined): TransferGroup | undefined {
  return id !== undefined && /^[0-9]+$/.test(id) ? t.groups.find((g) => g.id === Number(id)) : undefined;
}

function record(c: Ctx, entry: Omit<TransferAuditRecord, 'id' | 'time' | 'username' | 'ip'>): void {
  const last = c.t.audit[c.t.audit.length - 1];
  c.t.audit.push({
    id: (last?.id ?? 0) + 1,
    time: new Date(nowMs(c.rt.state)).toISOString(),
    username: c.caller.username,
    ip: c.req.remoteAddress,
    ...entry,
  });
}

/** A user id no user holds or held (a deleted user's id is never given again): ids are never reused. */
function freshUserId(t: TransferState, username: string): string {
  const taken = new Set([...t.users.map((u) => u.id), ...t.audit.filter((a) => a.targetType === 'User').map((a) => a.targetId)]);
  let id = userIdFor(username);
  for (let n = 1; taken.has(id); n++) id = userIdFor(`${username}#${n}`);
  return id;
}

// ---------------------------------------------------------------------------------------------
// Body fields

/** Reads one body's fields into typed values, collecting one error per bad field. */
class BodyReader {
  readonly errors: FieldError[] = [];
  readonly body: JsonObject;
  readonly #model: string;
  constructor(body: JsonObject, model: string) {
    this.body = body;
    this.#model = model;
  }

  /** Refuse keys outside `allowed` (and `refused`, each with its own reason). */
  only(allowed: readonly string[], refused: Readonly<Record<string, string>> = {}): void {
    for (const k of Object.keys(this.body)) {
      const reason = refused[k];
      if (reason !== undefined) this.errors.push({ field: k, rejected: showRejected(this.body[k]), message: reason });
      else if (!allowed.includes(k))
        this.errors.push({ field: k, rejected: showRejected(this.body[k]), message: `is not a field of ${this.#model} (${allowed.join(', ')})` });
    }
  }

  /** The value of `key`; `null` counts as not given. */
  #value(key: string): Json | undefined {
    const v = this.body[key];
    return v === null ? undefined : v;
  }

  #bad(key: string, message: string): undefined {
    this.errors.push({ field: key, rejected: showRejected(this.body[key]), message });
    return undefined;
  }

  text(key: string): string | undefined {
    const v = this.#value(key);
    if (v === undefined) return undefined;
    return typeof v === 'string' ? v : this.#bad(key, 'must be a string');
  }

  oneOf<T extends string>(key: string, values: readonly T[]): T | undefined {
    const v = this.#value(key);
    if (v === undefined) return undefined;
    return (values as readonly Json[]).includes(v) ? (v as T) : this.#bad(key, `must be one of ${values.join(', ')}`);
  }

  flag(key: string): boolean | undefined {
    const v = this.#value(key);
    if (v === undefined) return undefined;
    return typeof v === 'boolean' ? v : this.#bad(key, 'must be true or false');
  }

  /** A whole number ≥ 0, as a JSON number or a digit string (int64 fields). */
  count(key: string): number | undefined {
    const v = this.#value(key);
    if (v === undefined) return undefined;
    if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return v;
    if (typeof v === 'string' && /^[0-9]{1,15}$/.test(v)) return Number(v);
    return this.#bad(key, 'must be a whole number, 0 or more');
  }

  /** The full name under any of `keys`; two that disagree are an error. */
  fullName(keys: readonly string[]): string | undefined {
    const given = keys.filter((k) => this.#value(k) !== undefined);
    const values = given.map((k) => this.text(k));
    if (values.some((v) => v === undefined)) return undefined;
    if (new Set(values).size > 1) return this.#bad(given[1]!, `disagrees with ${given[0]}: give the full name once`);
    return values[0];
  }
}

function readBody(c: Ctx, model: string): { ok: true; reader: BodyReader } | { ok: false; response: ApiResponse } {
  const body = jsonBody(c);
  if (!body.ok) return body;
  const b = body.value;
  if (!isJsonObject(b))
    return { ok: false, response: invalid([{ field: '', rejected: showRejected(b), message: `the body must be a JSON object (${model})` }]) };
  return { ok: true, reader: new BodyReader(b, model) };
}

// ---------------------------------------------------------------------------------------------
// Users

function userSelf(c: Ctx): ApiResponse {
  return jsonResponse(200, renderUserDetails(c, c.caller));
}

const USER_SORTS = ['username', 'fullName', 'email', 'permission', 'status', 'lastLoginStamp'] as const;

function userSortValue(u: TransferUser, field: string): string {
  switch (field) {
    case 'fullName':
      return u.fullName;
    case 'email':
      return u.email;
    case 'permission':
      return u.permission;
    case 'status':
      return u.status;
    case 'lastLoginStamp':
      return u.lastLoginStamp;
    default:
      return u.username;
  }
}

/** A text filter of `GET /users`: exact (case-insensitive) with `isExactMatch=true`, else contains. */
function textFilter(raw: string | null, exact: boolean): (value: string) => boolean {
  if (raw === null || raw === '') return () => true;
  const wanted = raw.toLowerCase();
  return (value) => (exact ? value.toLowerCase() === wanted : value.toLowerCase().includes(wanted));
}

function statusMatches(u: TransferUser, filter: (typeof USER_STATUS_FILTERS)[number]): boolean {
  switch (filter) {
    case 'AllUsers':
      return true;
    case 'ActiveUsers':
      return u.status === 'Active';
    case 'InactiveUsers':
      return u.status === 'Suspended';
    case 'NeverSignedOnUsers':
      return u.lastLoginStamp === '';
    case 'TemplateUsers':
      return u.status === 'Template';
    default: {
      const never: never = filter;
      throw new Error(`unknown status filter ${String(never)}`);
    }
  }
}

function listUsers(c: Ctx): ApiResponse {
  if (!isUserAdmin(c.caller)) return err(403, 'listing users requires the Admin or SysAdmin permission');
  const q = c.req.query;
  const errors: FieldError[] = [];
  const exactRaw = q.get('isExactMatch');
  if (exactRaw !== null && !/^(true|false)$/i.test(exactRaw))
    errors.push({ field: 'isExactMatch', rejected: exactRaw, message: 'isExactMatch must be true or false' });
  const exact = (exactRaw ?? '').toLowerCase() === 'true';
  const permissionRaw = q.get('permission') ?? 'AllUsers';
  const permissionKey = Object.keys(USER_PERMISSION_FILTERS).find((k) => k.toLowerCase() === permissionRaw.toLowerCase()) as
    | keyof typeof USER_PERMISSION_FILTERS
    | undefined;
  if (!permissionKey)
    errors.push({ field: 'permission', rejected: permissionRaw, message: `permission must be one of ${Object.keys(USER_PERMISSION_FILTERS).join(', ')}` });
  const statusRaw = q.get('status') ?? (c.v['transfer.userFilters'] === 'active' ? 'ActiveUsers' : 'AllUsers');
  const status = USER_STATUS_FILTERS.find((s) => s.toLowerCase() === statusRaw.toLowerCase());
  if (!status) errors.push({ field: 'status', rejected: statusRaw, message: `status must be one of ${USER_STATUS_FILTERS.join(', ')}` });
  const orgRaw = q.get('orgId');
  if (orgRaw !== null && orgRaw !== '' && !/^[0-9]+$/.test(orgRaw)) errors.push({ field: 'orgId', rejected: orgRaw, message: 'orgId must be a whole number' });
  if (errors.length > 0 || !permissionKey || !status) return badQuery(errors);
  const permissions: readonly string[] = USER_PERMISSION_FILTERS[permissionKey];
  const username = textFilter(q.get('username'), exact);
  const fullName = textFilter(q.get('fullName'), exact);
  const email = textFilter(q.get('email'), exact);
  // `groupId` is a filter only where the server lists members that way; elsewhere it is ignored, as unknown query parameters are.
  const groupId = c.v['transfer.groupMembers'] === 'usersFilter' ? q.get('groupId') : null;
  const group = groupId === null ? undefined : c.t.groups.find((g) => String(g.id) === groupId);
  if (groupId !== null && !group) return err(404, `no group has id ${groupId}`);
  churnUsers(c.rt.churn, c.t);
  const users = c.t.users.filter(
    (u) =>
      permissions.includes(u.permission) &&
      statusMatches(u, status) &&
      username(u.username) &&
      fullName(u.fullName) &&
      email(u.email) &&
      (orgRaw === null || orgRaw === '' || u.orgID === Number(orgRaw)) &&
      (!group || group.members.includes(u.id)),
  );
  return listResponse(c, users, USER_SORTS, 'username', userSortValue, (u) => renderSimpleUser(c, u));
}

/** The user a path names, for a caller who may read it: admins any user, others themselves (403 otherwise; 404 for an admin when none). */
function readableUser(c: Ctx, id: string | undefined): { ok: true; user: TransferUser } | { ok: false; response: ApiResponse } {
  const user = findUser(c.t, id);
  if (user && user.id === c.caller.id) return { ok: true, user };
  if (!isUserAdmin(c.caller)) return { ok: false, response: err(403, "reading another user's record requires the Admin or SysAdmin permission") };
  return user ? { ok: true, user } : { ok: false, response: err(404, `no user has id ${String(id)}`) };
}

function getUser(c: Ctx, p: Params): ApiResponse {
  const found = readableUser(c, p.id);
  return found.ok ? jsonResponse(200, renderUserDetails(c, found.user)) : found.response;
}

function listUserGroups(c: Ctx, p: Params): ApiResponse {
  const found = readableUser(c, p.id);
  if (!found.ok) return found.response;
  const groups = c.t.groups.filter((g) => g.members.includes(found.user.id));
  return listResponse(
    c,
    groups,
    ['name'],
    'name',
    (g) => g.name,
    (g) => ({ relationship: 'Member', name: g.name, description: g.description }),
  );
}

const ADD_USER_FIELDS = [
  'username',
  'fullName',
  'realName',
  'password',
  'email',
  'permission',
  'forceChangePassword',
  'orgID',
  'notes',
  'homeFolderPath',
  'homeFolderInUseOption',
  'sourceUserId',
] as const;

/** What a user's new home folder is: an existing folder taken over, or one to create under `parent`. */
type HomeFolder =
  | { readonly kind: 'existing'; readonly folder: TransferFolder }
  | { readonly kind: 'new'; readonly parent: TransferFolder; readonly name: string; readonly path: string };

/** Where `homeFolderPath` puts the home folder, or the refusal (422 bad path or missing parent, 409 in use). */
function planHomeFolder(
  c: Ctx,
  path: string,
  inUse: (typeof HOME_FOLDER_IN_USE)[number],
): { ok: true; home: HomeFolder } | { ok: false; response: ApiResponse } {
  if (!path.startsWith('/') || path === '/' || path.endsWith('/') || path.includes('//') || path.includes('\\'))
    return { ok: false, response: invalid([{ field: 'homeFolderPath', rejected: path, message: 'must be an absolute folder path like /Home/bob' }]) };
  const existing = c.t.folders.find((f) => f.path.toLowerCase() === path.toLowerCase());
  if (existing) {
    if (inUse === 'DenyIfExists') return { ok: false, response: err(409, `the folder ${existing.path} exists and homeFolderInUseOption is DenyIfExists`) };
    if (existing.owner !== '') return { ok: false, response: err(409, `the folder ${existing.path} is already the home folder of ${existing.owner}`) };
    if (existing.folderType === 'Root') return { ok: false, response: err(409, 'the root folder cannot be a home folder') };
    return { ok: true, home: { kind: 'existing', folder: existing } };
  }
  const cut = path.lastIndexOf('/');
  const parentPath = cut === 0 ? '/' : path.slice(0, cut);
  const parent = c.t.folders.find((f) => f.path.toLowerCase() === parentPath.toLowerCase());
  if (!parent)
    return { ok: false, response: invalid([{ field: 'homeFolderPath', rejected: path, message: `the parent folder ${parentPath} does not exist` }]) };
  return {
    ok: true,
    home: { kind: 'new', parent, name: path.slice(cut + 1), path: parent.path === '/' ? path.slice(cut) : `${parent.path}${path.slice(cut)}` },
  };
}

/** Make `home` the user's home folder: the owner gets the full, non-editable entry. */
function giveHomeFolder(c: Ctx, user: TransferUser, home: HomeFolder): void {
  let folder: TransferFolder;
  if (home.kind === 'existing') folder = home.folder;
  else {
    folder = {
      id: c.t.nextFolderId++,
      parentId: home.parent.id,
      name: home.name,
      path: home.path,
      folderType: 'Normal',
      owner: '',
      parentInheritRights: 0,
      details: { ...folderDetailDefaults(), lastContentChangeTime: new Date(nowMs(c.rt.state)).toISOString() },
      acl: [],
    };
    c.t.folders.push(folder);
  }
  folder.owner = user.username;
  folder.acl = folder.acl.filter((e) => !(e.type === 'User' && e.id === user.id));
  folder.acl.push({ type: 'User', id: user.id, permissions: ownerPermissions(), isEditable: false, isDeletable: false });
  user.homeFolderID = folder.id;
  user.defaultFolderID = folder.id;
}

/** POST /users (AddUserModel) → 201 UserDetailsModel. */
function createUser(c: Ctx): ApiResponse {
  if (!isUserAdmin(c.caller)) return err(403, 'creating users requires the Admin or SysAdmin permission');
  const read = readBody(c, 'AddUserModel');
  if (!read.ok) return read.response;
  const r = read.reader;
  r.only([...ADD_USER_FIELDS, ...fullNameInputKeys(c.v).filter((k) => !(ADD_USER_FIELDS as readonly string[]).includes(k))]);
  const username = r.text('username');
  if (username === undefined || username.trim() === '' || /[\u0000-\u001f/\\]/.test(username))
    r.errors.push({ field: 'username', rejected: showRejected(username), message: 'username is required and cannot contain / or \\ or control characters' });
  const fields = {
    fullName: r.fullName(fullNameInputKeys(c.v)),
    password: r.text('password'),
    email: r.text('email'),
    permission: r.oneOf('permission', USER_PERMISSIONS),
    forceChangePassword: r.flag('forceChangePassword'),
    orgID: r.count('orgID'),
    notes: r.text('notes'),
  };
  const homeFolderPath = r.text('homeFolderPath');
  const inUse = r.oneOf('homeFolderInUseOption', HOME_FOLDER_IN_USE) ?? 'AllowIfExists';
  const sourceId = r.text('sourceUserId');
  const source = sourceId === undefined || sourceId === '' ? undefined : findUser(c.t, sourceId);
  if (sourceId !== undefined && sourceId !== '' && !source) r.errors.push({ field: 'sourceUserId', rejected: sourceId, message: `no user has id ${sourceId}` });
  if (r.errors.length > 0 || username === undefined) return invalid(r.errors);
  if (c.t.users.some((u) => u.username.toLowerCase() === username.toLowerCase())) return err(409, `a user named ${username} already exists`);
  // The clone takes the source's settings, never its identity, password, notes or home folder.
  const cloned = source
    ? {
        permission: source.permission,
        emailFormat: source.emailFormat,
        receivesNotification: source.receivesNotification,
        authMethod: source.authMethod,
        language: source.language,
        folderQuota: source.folderQuota,
        expirationPolicyID: source.expirationPolicyID,
      }
    : {};
  const permission = fields.permission ?? cloned.permission ?? 'User';
  if (!mayManage(c.caller, { permission })) return err(403, 'only a SysAdmin may create a SysAdmin account');
  const home = homeFolderPath === undefined || homeFolderPath === '' ? undefined : planHomeFolder(c, homeFolderPath, inUse);
  if (home && !home.ok) return home.response;
  const now = new Date(nowMs(c.rt.state)).toISOString();
  const user = newTransferUser({
    ...cloned,
    ...withoutUndefined({ fullName: fields.fullName, email: fields.email, forceChangePassword: fields.forceChangePassword, notes: fields.notes }),
    id: freshUserId(c.t, username),
    username,
    password: fields.password ?? '',
    permission,
    // orgID is taken from a SysAdmin only; other callers create users in their own organisation.
    orgID: c.caller.permission === 'SysAdmin' ? (fields.orgID ?? c.caller.orgID) : c.caller.orgID,
    passwordChangeStamp: now,
  });
  if (home) giveHomeFolder(c, user, home.home);
  c.t.users.push(user);
  record(c, { action: 'user.create', targetType: 'User', targetId: user.id, targetName: user.username });
  return jsonResponse(201, renderUserDetails(c, user));
}

const PATCH_USER_FIELDS = [
  'fullName',
  'email',
  'emailFormat',
  'notes',
  'permission',
  'status',
  'statusNote',
  'authMethod',
  'language',
  'receivesNotification',
  'folderQuota',
  'defaultFolderId',
  'forceChangePassword',
  'password',
  'currentPassword',
  'sendPasswordChangeNotification',
] as const;

/** What a user without Admin may change of their own record. */
const SELF_SERVICE_FIELDS: ReadonlySet<string> = new Set(['password', 'currentPassword', 'sendPasswordChangeNotification']);

/** PATCH /users/{id} (UserPatchModel): a partial update; `username` cannot change. */
function patchUser(c: Ctx, p: Params): ApiResponse {
  const found = readableUser(c, p.id);
  if (!found.ok) return found.response;
  const user = found.user;
  const read = readBody(c, 'UserPatchModel');
  if (!read.ok) return read.response;
  const r = read.reader;
  const nameKeys = fullNameInputKeys(c.v);
  r.only([...PATCH_USER_FIELDS, ...nameKeys.filter((k) => !(PATCH_USER_FIELDS as readonly string[]).includes(k))], {
    username: 'a user cannot be renamed: UserPatchModel has no username',
    id: 'the id is the path, not the body',
  });
  const sent = Object.keys(read.reader.body);
  if (!isUserAdmin(c.caller) && sent.some((k) => !SELF_SERVICE_FIELDS.has(k)))
    return err(403, 'changing a user record requires the Admin or SysAdmin permission (you may change your own password)');
  const fields = withoutUndefined({
    fullName: r.fullName(nameKeys),
    email: r.text('email'),
    emailFormat: r.oneOf('emailFormat', EMAIL_FORMATS),
    notes: r.text('notes'),
    permission: r.oneOf('permission', USER_PERMISSIONS),
    status: r.oneOf('status', USER_STATUSES),
    statusNote: r.text('statusNote'),
    authMethod: r.oneOf('authMethod', AUTH_METHODS),
    language: r.text('language'),
    receivesNotification: r.oneOf('receivesNotification', RECEIVES_NOTIFICATION),
    folderQuota: r.count('folderQuota'),
    forceChangePassword: r.flag('forceChangePassword'),
  });
  const defaultFolderId = r.count('defaultFolderId');
  if (defaultFolderId !== undefined && defaultFolderId !== 0 && !c.t.folders.some((f) => f.id === defaultFolderId))
    r.errors.push({ field: 'defaultFolderId', rejected: String(defaultFolderId), message: `no folder has id ${defaultFolderId}` });
  const password = r.text('password');
  const currentPassword = r.text('currentPassword');
  r.flag('sendPasswordChangeNotification');
  if (password === '') r.errors.push({ field: 'password', rejected: '', message: 'a password cannot be empty' });
  const self = user.id === c.caller.id;
  if (password !== undefined && self && !isUserAdmin(c.caller) && currentPassword === undefined)
    r.errors.push({ field: 'currentPassword', rejected: '', message: 'changing your own password needs currentPassword' });
  // The value is never echoed: `rejected` stays empty for a wrong current password.
  if (currentPassword !== undefined && currentPassword !== user.password)
    r.errors.push({ field: 'currentPassword', rejected: '', message: 'currentPassword is not the current password' });
  if (r.errors.length > 0) return invalid(r.errors);
  if (!self || isUserAdmin(c.caller)) {
    if (!mayManage(c.caller, user)) return err(403, 'only a SysAdmin may change a SysAdmin account');
    if (fields.permission !== undefined && !mayManage(c.caller, { permission: fields.permission }))
      return err(403, 'only a SysAdmin may give the SysAdmin permission');
  }
  Object.assign(user, fields);
  if (defaultFolderId !== undefined) user.defaultFolderID = defaultFolderId;
  if (password !== undefined) {
    user.password = password;
    user.passwordChangeStamp = new Date(nowMs(c.rt.state)).toISOString();
  }
  const changed = sent.filter((k) => k !== 'currentPassword' && k !== 'sendPasswordChangeNotification').sort();
  if (changed.length > 0) record(c, { action: 'user.update', targetType: 'User', targetId: user.id, targetName: user.username, fields: changed });
  return jsonResponse(200, renderUserDetails(c, user));
}

/**
 * DELETE /users/{id} → 204. As a real server does, the user leaves every group and every folder
 * entry naming them goes (the home-folder owner entry too); the home folder stays, without owner;
 * the user's tokens stop working.
 */
function deleteUser(c: Ctx, p: Params): ApiResponse {
  if (!isUserAdmin(c.caller)) return err(403, 'deleting users requires the Admin or SysAdmin permission');
  const user = findUser(c.t, p.id);
  if (!user) return err(404, `no user has id ${String(p.id)}`);
  if (user.id === c.caller.id) return err(403, 'you cannot delete your own account');
  if (!mayManage(c.caller, user)) return err(403, 'only a SysAdmin may delete a SysAdmin account');
  for (const g of c.t.groups) g.members = g.members.filter((m) => m !== user.id);
  for (const f of c.t.folders) {
    f.acl = f.acl.filter((e) => !(e.type === 'User' && e.id === user.id));
    if (f.owner === user.username) f.owner = '';
  }
  for (const token of c.t.tokens.values()) if (token.username === user.username) token.revoked = true;
  c.t.users = c.t.users.filter((u) => u.id !== user.id);
  record(c, { action: 'user.delete', targetType: 'User', targetId: user.id, targetName: user.username });
  return emptyResponse(204);
}

// ---------------------------------------------------------------------------------------------
// Groups and memberships

function listGroups(c: Ctx): ApiResponse {
  if (!isUserAdmin(c.caller)) return err(403, 'listing groups requires the Admin or SysAdmin permission');
  const mask = c.req.query.get('name');
  const groups = c.t.groups.filter((g) => mask === null || matchesGlob(g.name, mask));
  return listResponse(
    c,
    groups,
    ['name', 'id'],
    'name',
    (g, f) => (f === 'id' ? String(g.id).padStart(12, '0') : g.name),
    (g) => renderGroup(c, g),
  );
}

/** POST /groups (BaseGroupModel) → 201 GroupModel. */
function createGroup(c: Ctx): ApiResponse {
  if (!isUserAdmin(c.caller)) return err(403, 'creating groups requires the Admin or SysAdmin permission');
  const read = readBody(c, 'BaseGroupModel');
  if (!read.ok) return read.response;
  const r = read.reader;
  // BaseGroupModel has an `id` (transfer-api.md); the server numbers groups, so it is ignored.
  r.only(['name', 'description', 'id']);
  const name = r.text('name');
  if (name === undefined || name.trim() === '') r.errors.push({ field: 'name', rejected: showRejected(name), message: 'name is required' });
  const description = r.text('description') ?? '';
  if (r.errors.length > 0 || name === undefined) return invalid(r.errors);
  if (c.t.groups.some((g) => g.name.toLowerCase() === name.toLowerCase())) return err(409, `a group named ${name} already exists`);
  const group: TransferGroup = { id: c.t.nextGroupId++, name, description, members: [] };
  c.t.groups.push(group);
  record(c, { action: 'group.create', targetType: 'Group', targetId: String(group.id), targetName: group.name });
  return jsonResponse(201, renderGroup(c, group));
}

/** The group a path names, for an admin: 403 for others, 404 when there is none. */
function managedGroup(c: Ctx, id: string | undefined, what: string): { ok: true; group: TransferGroup } | { ok: false; response: ApiResponse } {
  if (!isUserAdmin(c.caller)) return { ok: false, response: err(403, `${what} requires the Admin or SysAdmin permission`) };
  const group = findGroup(c.t, id);
  return group ? { ok: true, group } : { ok: false, response: err(404, `no group has id ${String(id)}`) };
}

/** GET /groups/{id}/members: only where the server lists members that way (`transfer.groupMembers=members`). */
function listGroupMembers(c: Ctx, p: Params): ApiResponse {
  if (c.v['transfer.groupMembers'] !== 'members') return err(404, 'not found');
  const found = managedGroup(c, p.id, 'listing group members');
  if (!found.ok) return found.response;
  const users = c.t.users.filter((u) => found.group.members.includes(u.id));
  return listResponse(
    c,
    users,
    ['username'],
    'username',
    (u) => u.username,
    (u) => renderSimpleUser(c, u),
  );
}

/** The answer to a membership write: every member on one page, by username. */
function membersAnswer(c: Ctx, group: TransferGroup): ApiResponse {
  const members = c.t.users.filter((u) => group.members.includes(u.id));
  const q: TransferListQuery = { page: 1, perPage: Math.max(25, members.length), sortField: 'username', sortDirection: 'asc' };
  return jsonResponse(200, transferPage(sortItems(members, q, userSortValue), q, c.v, (u) => renderSimpleUser(c, u)) ?? {});
}

/** POST /groups/{id}/members (GroupAddMemberRequest `{id, userIds}`): all or nothing; members already in stay. */
function addGroupMembers(c: Ctx, p: Params): ApiResponse {
  const found = managedGroup(c, p.id, 'changing group members');
  if (!found.ok) return found.response;
  const group = found.group;
  const read = readBody(c, 'GroupAddMemberRequest');
  if (!read.ok) return read.response;
  const r = read.reader;
  r.only(['id', 'userIds']);
  const body = read.reader.body;
  const bodyId = body.id;
  if (bodyId !== undefined && bodyId !== null && String(bodyId) !== String(group.id))
    r.errors.push({ field: 'id', rejected: showRejected(bodyId), message: `the body's group id must be the path's (${group.id}) or left out` });
  const userIds = body.userIds;
  const users: TransferUser[] = [];
  if (!Array.isArray(userIds) || userIds.length === 0)
    r.errors.push({ field: 'userIds', rejected: showRejected(userIds), message: 'userIds must be a non-empty list of user ids' });
  else
    for (const [i, id] of userIds.entries()) {
      const user = typeof id === 'string' ? findUser(c.t, id) : undefined;
      if (user) users.push(user);
      else
        r.errors.push({
          field: `userIds[${i}]`,
          rejected: showRejected(id),
          message: typeof id === 'string' ? `no user has id ${id}` : 'a user id is a string',
        });
    }
  if (r.errors.length > 0) return invalid(r.errors);
  for (const user of users) {
    if (group.members.includes(user.id)) continue;
    group.members.push(user.id);
    record(c, { action: 'group.addMember', targetType: 'Group', targetId: String(group.id), targetName: group.name, member: user.username });
  }
  return membersAnswer(c, group);
}

/** DELETE /groups/{id}/members/{userId}: a user who is not a member answers 404. */
function removeGroupMember(c: Ctx, p: Params): ApiResponse {
  const found = managedGroup(c, p.id, 'changing group members');
  if (!found.ok) return found.response;
  const group = found.group;
  const user = findUser(c.t, p.userId);
  if (!user || !group.members.includes(user.id)) return err(404, `user ${String(p.userId)} is not a member of ${group.name}`);
  group.members = group.members.filter((m) => m !== user.id);
  record(c, { action: 'group.removeMember', targetType: 'Group', targetId: String(group.id), targetName: group.name, member: user.username });
  return membersAnswer(c, group);
}

/** The user and group routes; literal paths (`/users/self`) before parameters. */
export const USER_ROUTES: readonly Route<Ctx>[] = [
  { method: 'GET', pattern: '/users/self', handle: userSelf },
  { method: 'GET', pattern: '/users', handle: listUsers },
  { method: 'POST', pattern: '/users', handle: createUser },
  { method: 'GET', pattern: '/users/:id', handle: getUser },
  { method: 'PATCH', pattern: '/users/:id', handle: patchUser },
  { method: 'DELETE', pattern: '/users/:id', handle: deleteUser },
  { method: 'GET', pattern: '/users/:id/groups', handle: listUserGroups },
  { method: 'GET', pattern: '/groups', handle: listGroups },
  { method: 'POST', pattern: '/groups', handle: createGroup },
  { method: 'GET', pattern: '/groups/:id/members', handle: listGroupMembers },
  { method: 'POST', pattern: '/groups/:id/members', handle: addGroupMembers },
  { method: 'DELETE', pattern: '/groups/:id/members/:userId', handle: removeGroupMember },
];
