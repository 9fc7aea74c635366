import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { ConfigError, systemError } from '../errors.js';
import type { Json, JsonObject } from './json.js';
import { cloneJson, dropNulls, isJsonObject } from './json.js';
import type {
  AclPermission,
  AclRecord,
  AutomationState,
  AutomationUser,
  EmulatorState,
  FolderAclEntry,
  HostRecord,
  HostType,
  Profile,
  TransferFolder,
  TransferGroup,
  TransferPermission,
  TransferState,
  TransferUser,
  Variants,
} from './state.js';
import {
  ACL_PERMISSION_KEYS,
  FOLDER_PERMISSION_KEYS,
  HOST_TYPES,
  SHARE_PERMISSION_KEYS,
  TRANSFER_PERMISSIONS,
  newTransferUser,
  xferHostType,
} from './state.js';
import type { AuthMethod, EmailFormat, ReceivesNotification, UserStatus } from './vocabulary.js';
import { AUTH_METHODS, EMAIL_FORMATS, RECEIVES_NOTIFICATION, USER_STATUSES } from './vocabulary.js';
import { folderDetailDefaults } from './transfer-context.js';
import { forEachStep, normalizeTask, orderTaskKeys } from './validate-task.js';
import { resolveVariants } from './variants.js';
import { seedCredentials } from './credentials.js';
import { addRun } from './task-runs.js';

/** A login of the automation service in a seed. */
export interface AutomationUserSeed {
  username: string;
  password: string;
  /** Member of the administrators user group: admin-only calls, every task. */
  isAdmin?: boolean;
  /** User groups whose resource-group ACLs apply to this user. */
  userGroups?: string[];
}

/** The automation service in a seed; objects are in API shape, ids optional. */
export interface AutomationSeed {
  users?: AutomationUserSeed[];
  /** `{Name, Type?: local|remote, Description?}` */
  userGroups?: JsonObject[];
  /** `{Name, Notes?}` */
  resourceGroups?: JsonObject[];
  /** `{ACLID?, ResourceGroupName, UserGroupName, Permissions?}`; missing permissions are 0. */
  acls?: JsonObject[];
  /** The hosts list shape: `{"SSHFTP": {ID?, Name, Desc, …, DefPassword}}`; `siLock`/`xferLock` both mean the transfer server. */
  hosts?: JsonObject[];
  customScripts?: JsonObject[];
  standardScripts?: JsonObject[];
  dateLists?: JsonObject[];
  globalParameters?: JsonObject[];
  /** Task bodies as POST /tasks takes them; a parameter `{value, Secret: 1}` is secret; `TT: "COS"` allowed. */
  tasks?: JsonObject[];
  schedulerEnabled?: boolean;
  /** `{ID?, Name, KeyID?, Fingerprint?, ExpirationDate?: ISO instant}`: public metadata only (credentials.ts). */
  pgpKeys?: JsonObject[];
  /** `{ID?, Name, fingerprint, publicKeyOpenSSH, publicKeySSH, ExpirationDate?}` */
  sshKeys?: JsonObject[];
  /** `{Sha1Thumbprint, Name, Issuer, IssuedTo, ExpDate, ValidFromDate, SerialNum?, Store?}` */
  sslCerts?: JsonObject[];
  /**
   * Runs going on when the emulator starts, by task name: `scheduled` (default false) makes it the
   * scheduler's (`Scheduled: 1`); it lasts `seconds` of the emulator clock, else the `runSeconds`
   * option, else until stopped.
   */
  runningTasks?: { task: string; scheduled?: boolean; seconds?: number }[];
}

/** A folder ACL entry in a seed: the principal by `name` (or `id`); missing permissions are false. */
export interface FolderAclSeed {
  type: 'User' | 'Group';
  name?: string;
  id?: string;
  permissions?: JsonObject;
}

/**
 * A transfer user in a seed: `username` and `password`, and any UserDetailsModel field (absent:
 * the default of a new account, see `newTransferUser`). `lastLoginStamp` absent: the user signed on
 * when the emulator started; `""`: never signed on.
 */
export interface TransferUserSeed {
  id?: string;
  username: string;
  password: string;
  fullName?: string;
  email?: string;
  permission?: TransferPermission;
  status?: UserStatus;
  orgID?: number;
  lastLoginStamp?: string;
  emailFormat?: EmailFormat;
  notes?: string;
  statusNote?: string;
  passwordChangeStamp?: string;
  receivesNotification?: ReceivesNotification;
  forceChangePassword?: boolean;
  folderQuota?: number;
  totalFileSize?: number;
  authMethod?: AuthMethod;
  language?: string;
  expirationPolicyID?: number;
}

/** The seed's enum fields of a user and the values each takes. */
const USER_SEED_ENUMS = {
  permission: TRANSFER_PERMISSIONS,
  status: USER_STATUSES,
  emailFormat: EMAIL_FORMATS,
  receivesNotification: RECEIVES_NOTIFICATION,
  authMethod: AUTH_METHODS,
} as const;
const USER_SEED_TEXTS = ['fullName', 'email', 'lastLoginStamp', 'notes', 'statusNote', 'passwordChangeStamp', 'language'] as const;
const USER_SEED_COUNTS = ['orgID', 'folderQuota', 'totalFileSize', 'expirationPolicyID'] as const;

/** A seed user as stored; a field of the wrong type or value is a ConfigError naming the user. */
function seedUser(u: TransferUserSeed, i: number, signedOnAt: string): TransferUser {
  if (typeof u.username !== 'string' || u.username === '' || typeof u.password !== 'string') fail(`transfer.users[${i}] needs username and password`);
  const where = `transfer user ${u.username}`;
  for (const [key, values] of Object.entries(USER_SEED_ENUMS)) {
    const value = (u as unknown as Record<string, unknown>)[key];
    if (value !== undefined && !(values as readonly unknown[]).includes(value)) fail(`${where}: ${key} must be one of ${values.join(', ')}`);
  }
  for (const key of USER_SEED_TEXTS) if (u[key] !== undefined && typeof u[key] !== 'string') fail(`${where}: ${key} must be a string`);
  for (const key of USER_SEED_COUNTS)
    if (u[key] !== undefined && !(Number.isInteger(u[key]) && u[key] >= 0)) fail(`${where}: ${key} must be a whole number, 0 or more`);
  if (u.forceChangePassword !== undefined && typeof u.forceChangePassword !== 'boolean') fail(`${where}: forceChangePassword must be true or false`);
  const known = new Set<string>([
    'id',
    'username',
    'password',
    ...Object.keys(USER_SEED_ENUMS),
    ...USER_SEED_TEXTS,
    ...USER_SEED_COUNTS,
    'forceChangePassword',
  ]);
  for (const key of Object.keys(u)) if (!known.has(key)) fail(`${where}: unknown field ${key}`);
  const { id, ...fields } = u;
  return newTransferUser({
    ...fields,
    id: id ?? userIdFor(u.username),
    email: u.email ?? `${u.username}@example.com`,
    lastLoginStamp: u.lastLoginStamp ?? signedOnAt,
  });
}

export interface TransferGroupSeed {
  id?: number;
  name: string;
  description?: string;
  /** Usernames. */
  members?: string[];
}

/**
 * A folder in a seed, by path; missing ancestors are created. `owner` makes it that user's home
 * folder: the owner gets a full, non-editable ACL entry. Other members are FolderDetailsModel settings.
 */
export interface FolderSeed {
  id?: number;
  path: string;
  owner?: string;
  folderType?: string;
  acl?: FolderAclSeed[];
  [setting: string]: unknown;
}

export interface TransferSeed {
  users?: TransferUserSeed[];
  groups?: TransferGroupSeed[];
  folders?: FolderSeed[];
}

/** The JSON seed of both services (see SPEC.md "Seed format"). */
export interface EmulatorSeed {
  automation?: AutomationSeed;
  transfer?: TransferSeed;
}

/** Credentials of the admin users every empty state has. */
export const DEFAULT_AUTOMATION_ADMIN = { username: 'admin', password: 'admin-Pa55!seed' } as const;
export const DEFAULT_TRANSFER_ADMIN = { username: 'admin', password: 'xfer-admin-Pa55!seed' } as const;

/**
 * The accounts mftops signs in with on an emulator started from this seed (absent: the empty
 * state's): the first automation user in the administrators group and the first transfer user
 * with `SysAdmin` (else `Admin`); a service whose seed has neither has none.
 */
export function seedAdmins(seed: EmulatorSeed | undefined): {
  readonly automation?: { readonly username: string; readonly password: string };
  readonly transfer?: { readonly username: string; readonly password: string };
} {
  const automation = seed?.automation?.users === undefined ? DEFAULT_AUTOMATION_ADMIN : seed.automation.users.find((u) => u.isAdmin === true);
  const transferUsers = seed?.transfer?.users;
  const transfer =
    transferUsers === undefined
      ? DEFAULT_TRANSFER_ADMIN
      : (transferUsers.find((u) => u.permission === 'SysAdmin') ?? transferUsers.find((u) => u.permission === 'Admin'));
  return {
    ...(automation ? { automation: { username: automation.username, password: automation.password } } : {}),
    ...(transfer ? { transfer: { username: transfer.username, password: transfer.password } } : {}),
  };
}

function fail(message: string): never {
  throw new ConfigError(`emulator seed: ${message}`);
}

/** Read a seed file; unreadable files and bad JSON are a ConfigError naming the file. */
export function loadSeedFile(path: string): EmulatorSeed {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new ConfigError(systemError(`emulator seed ${path}: cannot read the file`, e).message);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new ConfigError(`emulator seed ${path}: not valid JSON (${(e as Error).message})`);
  }
  if (!isJsonObject(value)) throw new ConfigError(`emulator seed ${path}: the top level must be an object {automation, transfer}`);
  for (const k of Object.keys(value)) {
    if (k !== 'automation' && k !== 'transfer' && !k.startsWith('$') && k !== 'description')
      throw new ConfigError(`emulator seed ${path}: unknown top-level key ${k} (automation, transfer)`);
    if ((k === 'automation' || k === 'transfer') && !isJsonObject(value[k])) throw new ConfigError(`emulator seed ${path}: ${k} must be an object`);
  }
  return value as EmulatorSeed;
}

// ---------------------------------------------------------------------------------------------
// Automation

function seedIds(a: AutomationSeed): number {
  let max = 0;
  const note = (v: unknown): void => {
    if (typeof v === 'string' && /^[0-9]+$/.test(v)) max = Math.max(max, Number(v));
  };
  for (const list of [a.customScripts, a.standardScripts, a.dateLists, a.globalParameters, a.tasks]) for (const o of list ?? []) note(o.ID);
  for (const h of a.hosts ?? []) for (const v of Object.values(h)) if (isJsonObject(v)) note(v.ID);
  for (const acl of a.acls ?? []) note(acl.ACLID);
  return max;
}

function named(list: JsonObject[] | undefined, what: string): JsonObject[] {
  return (list ?? []).map((o, i) => {
    if (!isJsonObject(o) || typeof o.Name !== 'string' || o.Name === '') fail(`${what}[${i}] needs a Name`);
    return dropNulls(o) as JsonObject;
  });
}

function withId(a: AutomationState, o: JsonObject, what: string, seen: Set<string>): JsonObject {
  const id = o.ID ?? String(a.nextId++);
  if (typeof id !== 'string') fail(`${what} ${String(o.Name)}: ID must be a string`);
  if (seen.has(id)) fail(`${what} ${String(o.Name)}: duplicate ID ${id}`);
  seen.add(id);
  return { ID: id, ...o };
}

/** Seeds may spell the transfer-server host type either way; the state uses `automation.hostType`'s. */
function storedHostType(type: string, variants: Variants): string {
  return type === 'siLock' || type === 'xferLock' ? xferHostType(variants) : type;
}

function buildAutomation(seed: AutomationSeed | undefined, variants: Variants): AutomationState {
  const s = seed ?? {};
  const a: AutomationState = {
    users: [],
    userGroups: [],
    resourceGroups: [],
    acls: [],
    hosts: [],
    customScripts: [],
    standardScripts: [],
    dateLists: [],
    globalParameters: [],
    tasks: [],
    schedulerEnabled: s.schedulerEnabled ?? true,
    nextId: 0,
    tokens: new Map(),
    audit: [],
    runs: [],
  };
  a.nextId = Math.max(seedIds(s) + 1, 10001);

  a.userGroups = named(s.userGroups, 'automation.userGroups').map((g) => {
    if (g.Type !== undefined && g.Type !== 'local' && g.Type !== 'remote') fail(`user group ${String(g.Name)}: Type must be local or remote`);
    return { Name: g.Name!, Type: g.Type ?? 'local', Description: g.Description ?? '' };
  });
  if (!a.userGroups.some((g) => g.Name === 'Administrators'))
    a.userGroups.unshift({ Name: 'Administrators', Type: 'local', Description: 'Administrators of the automation server' });
  a.resourceGroups = named(s.resourceGroups, 'automation.resourceGroups').map((g) => ({ Name: g.Name!, Notes: g.Notes ?? '' }));

  const users = s.users ?? [
    { username: DEFAULT_AUTOMATION_ADMIN.username, password: DEFAULT_AUTOMATION_ADMIN.password, isAdmin: true, userGroups: ['Administrators'] },
  ];
  a.users = users.map((u, i): AutomationUser => {
    if (typeof u.username !== 'string' || u.username === '' || typeof u.password !== 'string') fail(`automation.users[${i}] needs username and password`);
    const memberOf = u.userGroups ?? (u.isAdmin ? ['Administrators'] : []);
    for (const g of memberOf) if (!a.userGroups.some((x) => x.Name === g)) fail(`automation user ${u.username}: unknown user group ${g}`);
    return { Username: u.username, Password: u.password, IsAdmin: u.isAdmin === true, MemberOf: [...memberOf] };
  });

  const aclIds = new Set<string>();
  // First of each name wins, as a search of the list would find it (30,000 ACLs searched 3,000 groups each).
  const firstByName = (list: readonly JsonObject[]): Map<unknown, JsonObject> => {
    const m = new Map<unknown, JsonObject>();
    for (const x of list) if (!m.has(x.Name)) m.set(x.Name, x);
    return m;
  };
  const rgByName = firstByName(a.resourceGroups);
  const ugByName = firstByName(a.userGroups);
  a.acls = (s.acls ?? []).map((raw, i): AclRecord => {
    const rg = rgByName.get(raw.ResourceGroupName);
    const ug = ugByName.get(raw.UserGroupName);
    if (!rg || !ug) fail(`automation.acls[${i}]: unknown resource group or user group (${String(raw.ResourceGroupName)} / ${String(raw.UserGroupName)})`);
    const perms = Object.fromEntries(ACL_PERMISSION_KEYS.map((k) => [k, 0])) as Record<AclPermission, 0 | 1>;
    const given = isJsonObject(raw.Permissions) ? raw.Permissions : {};
    for (const [k, v] of Object.entries(given)) {
      if (!(ACL_PERMISSION_KEYS as readonly string[]).includes(k) || (v !== 0 && v !== 1))
        fail(`automation.acls[${i}]: bad permission ${k}=${JSON.stringify(v)}`);
      perms[k as AclPermission] = v as 0 | 1;
    }
    if (perms.TaskAddEditDelete === 1 && perms.TaskEditExisting === 0) fail(`automation.acls[${i}]: TaskEditExisting cannot be 0 while TaskAddEditDelete is 1`);
    const id = typeof raw.ACLID === 'string' ? raw.ACLID : String(a.nextId++);
    if (aclIds.has(id)) fail(`automation.acls[${i}]: duplicate ACLID ${id}`);
    aclIds.add(id);
    return { ACLID: id, ResourceGroupName: String(rg.Name), UserGroupName: String(ug.Name), Permissions: perms };
  });

  const hostIds = new Set<string>();
  a.hosts = (s.hosts ?? []).map((wrapped, i): HostRecord => {
    const keys = Object.keys(wrapped);
    const type = keys.length === 1 ? storedHostType(keys[0]!, variants) : '';
    const body = keys.length === 1 ? wrapped[keys[0]!] : undefined;
    if (!(HOST_TYPES as readonly string[]).includes(type) || !isJsonObject(body))
      fail(`automation.hosts[${i}] must be {"<host type>": {...}} with a type of ${HOST_TYPES.join(', ')}`);
    if (typeof body.Name !== 'string' || body.Name === '') fail(`automation.hosts[${i}] needs a Name`);
    const fields = withId(a, dropNulls(body) as JsonObject, 'host', hostIds);
    const { ID, Name, Desc, Group, ...rest } = fields;
    return { type: type as HostType, fields: { ID: ID!, Name: Name!, Desc: Desc ?? '', Group: Group ?? [], ...rest } };
  });

  const scriptIds = new Set<string>();
  a.customScripts = named(s.customScripts, 'automation.customScripts').map((o) => {
    if (o.Lang !== undefined && o.Lang !== 'PS1' && o.Lang !== 'VBScript') fail(`custom script ${String(o.Name)}: Lang must be PS1 or VBScript`);
    const { ID, Name, Description, Lang, Source, Group, ...rest } = withId(a, o, 'custom script', scriptIds);
    return { ID: ID!, Name: Name!, Description: Description ?? '', Lang: Lang ?? 'PS1', Group: Group ?? [], ...rest, Source: Source ?? '' };
  });
  a.standardScripts = named(s.standardScripts, 'automation.standardScripts').map((o) => {
    const { ID, Name, Description, ...rest } = withId(a, o, 'standard script', scriptIds);
    return { ID: ID!, Name: Name!, Description: Description ?? '', ...rest };
  });
  const dlIds = new Set<string>();
  a.dateLists = named(s.dateLists, 'automation.dateLists').map((o) => {
    const entries = o.Entries ?? [];
    if (
      !Array.isArray(entries) ||
      !entries.every(
        (e) =>
          isJsonObject(e) && Object.keys(e).length === 1 && (typeof e.C === 'string' || (typeof e.Date === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(e.Date))),
      )
    ) {
      fail(`date list ${String(o.Name)}: Entries are {"C": comment} or {"Date": "yyyy-mm-dd"}`);
    }
    const { ID, Name, Description, Group, ...rest } = withId(a, o, 'date list', dlIds);
    return { ID: ID!, Name: Name!, Description: Description ?? '', Group: Group ?? [], ...rest, Entries: entries };
  });
  const gpIds = new Set<string>();
  a.globalParameters = named(s.globalParameters, 'automation.globalParameters').map((o) => {
    const { ID, Name, Value, ...rest } = withId(a, o, 'global parameter', gpIds);
    return { ID: ID!, Name: Name!, Value: Value ?? '', ...rest };
  });

  // Tasks may reference each other (RunTask), so give every seeded task its ID first.
  const taskIds = new Set<string>();
  const seeded = named(s.tasks, 'automation.tasks').map((o) => withId(a, o, 'task', taskIds));
  a.tasks = seeded.map((t) => ({ ID: t.ID!, Name: t.Name! }));
  a.tasks = seeded.map((raw) => {
    const body = cloneJson(raw);
    forEachStep(body, (b) => {
      if (typeof b.Type === 'string') b.Type = storedHostType(b.Type, variants);
    });
    const checked = normalizeTask(body, { state: a, variants, mode: 'seed' });
    if (!checked.ok)
      fail(`task ${String(raw.Name)}: ${checked.errors.map((e) => `${e.field}: ${e.message}${e.rejected ? ` (${e.rejected})` : ''}`).join('; ')}`);
    return orderTaskKeys({ ...checked.task, ID: raw.ID! });
  });
  const names = new Set<string>();
  for (const t of a.tasks) {
    const n = String(t.Name).toLowerCase();
    if (names.has(n)) fail(`two tasks are named ${String(t.Name)}`);
    names.add(n);
  }
  a.credentials = seedCredentials(s, () => String(a.nextId++));
  return a;
}

// ---------------------------------------------------------------------------------------------
// Transfer

/** A stable 16-character id in the style of the transfer service's user ids. */
export function userIdFor(username: string): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  return [...createHash('sha256').update(`user:${username}`).digest().subarray(0, 16)].map((b) => alphabet[b % alphabet.length]).join('');
}

function readFolderPermissions(raw: unknown, where: string): FolderAclEntry['permissions'] {
  const perms = Object.fromEntries(FOLDER_PERMISSION_KEYS.map((k) => [k, false])) as Record<(typeof FOLDER_PERMISSION_KEYS)[number], boolean>;
  const share = Object.fromEntries(SHARE_PERMISSION_KEYS.map((k) => [k, false])) as FolderAclEntry['permissions']['sharePermissions'];
  const given = raw === undefined ? {} : raw;
  if (!isJsonObject(given)) fail(`${where}: permissions must be an object of booleans`);
  for (const [k, v] of Object.entries(given)) {
    if (k === 'sharePermissions') {
      if (!isJsonObject(v)) fail(`${where}: sharePermissions must be an object of booleans`);
      for (const [sk, sv] of Object.entries(v)) {
        if (!(SHARE_PERMISSION_KEYS as readonly string[]).includes(sk) || typeof sv !== 'boolean') fail(`${where}: bad share permission ${sk}`);
        share[sk as keyof typeof share] = sv;
      }
    } else {
      if (!(FOLDER_PERMISSION_KEYS as readonly string[]).includes(k) || typeof v !== 'boolean') fail(`${where}: bad permission ${k}`);
      perms[k as keyof typeof perms] = v;
    }
  }
  return { ...perms, sharePermissions: share };
}

/** The home-folder owner's entry: every permission but `admin`, every share permission. */
export function ownerPermissions(): FolderAclEntry['permissions'] {
  const perms = Object.fromEntries(FOLDER_PERMISSION_KEYS.map((k) => [k, k !== 'admin'])) as Record<(typeof FOLDER_PERMISSION_KEYS)[number], boolean>;
  const share = Object.fromEntries(SHARE_PERMISSION_KEYS.map((k) => [k, true])) as FolderAclEntry['permissions']['sharePermissions'];
  return { ...perms, sharePermissions: share };
}

function buildTransfer(seed: TransferSeed | undefined): TransferState {
  const s = seed ?? {};
  const users = s.users ?? [
    { username: DEFAULT_TRANSFER_ADMIN.username, password: DEFAULT_TRANSFER_ADMIN.password, fullName: 'Administrator', permission: 'SysAdmin' as const },
  ];
  const t: TransferState = { users: [], groups: [], folders: [], nextFolderId: 0, nextGroupId: 0, tokens: new Map(), audit: [] };
  const signedOnAt = new Date().toISOString();
  t.users = users.map((u, i) => seedUser(u, i, signedOnAt));
  const userByName = (name: string, where: string): TransferUser => t.users.find((u) => u.username === name) ?? fail(`${where}: unknown user ${name}`);

  const givenGroupIds = (s.groups ?? []).map((g) => g.id).filter((id): id is number => typeof id === 'number');
  t.nextGroupId = Math.max(1000, ...givenGroupIds) + 1;
  t.groups = (s.groups ?? []).map((g, i): TransferGroup => {
    if (typeof g.name !== 'string' || g.name === '') fail(`transfer.groups[${i}] needs a name`);
    return {
      id: g.id ?? t.nextGroupId++,
      name: g.name,
      description: g.description ?? '',
      members: (g.members ?? []).map((m) => userByName(m, `group ${g.name}`).id),
    };
  });

  const givenFolderIds = (s.folders ?? []).map((f) => f.id).filter((id): id is number => typeof id === 'number');
  t.nextFolderId = Math.max(1000, ...givenFolderIds) + 1;
  const rootSeed = (s.folders ?? []).find((f) => f.path === '/');
  // Folders by lower-case path: a search of the list per seeded folder made a 46,000-folder seed quadratic.
  const byPath = new Map<string, TransferFolder>();
  const add = (folder: TransferFolder): void => {
    t.folders.push(folder);
    if (!byPath.has(folder.path.toLowerCase())) byPath.set(folder.path.toLowerCase(), folder);
  };
  add(newFolder(rootSeed?.id ?? 1000, 0, '/', '/', 'Root'));
  const ensure = (path: string): TransferFolder => {
    const existing = byPath.get(path.toLowerCase());
    if (existing) return existing;
    const cut = path.lastIndexOf('/');
    const parent = ensure(cut === 0 ? '/' : path.slice(0, cut));
    const folder = newFolder(t.nextFolderId++, parent.id, path.slice(cut + 1), path, 'Normal');
    add(folder);
    return folder;
  };
  for (const [i, f] of (s.folders ?? []).entries()) {
    const where = `transfer.folders[${i}] (${String(f.path)})`;
    if (typeof f.path !== 'string' || !f.path.startsWith('/') || (f.path !== '/' && (f.path.endsWith('/') || f.path.includes('//'))))
      fail(`${where}: path must be absolute, like /Distribution/Acme`);
    let folder = byPath.get(f.path.toLowerCase());
    if (!folder) {
      const cut = f.path.lastIndexOf('/');
      const parent = ensure(cut === 0 ? '/' : f.path.slice(0, cut));
      folder = newFolder(f.id ?? t.nextFolderId++, parent.id, f.path.slice(cut + 1), f.path, 'Normal');
      add(folder);
    }
    const { id: _id, path: _path, owner, folderType, acl, ...settings } = f;
    if (typeof folderType === 'string') folder.folderType = folderType;
    Object.assign(folder.details, dropNulls(settings as Json) as JsonObject);
    if (owner !== undefined) {
      const u = userByName(owner, where);
      folder.owner = u.username;
      u.homeFolderID = folder.id;
      u.defaultFolderID = folder.id;
      folder.acl.push({ type: 'User', id: u.id, permissions: ownerPermissions(), isEditable: false, isDeletable: false });
    }
    for (const [j, e] of (acl ?? []).entries()) {
      const w = `${where}.acl[${j}]`;
      if (e.type !== 'User' && e.type !== 'Group') fail(`${w}: type must be User or Group`);
      const id =
        e.type === 'User'
          ? (e.id ?? (e.name !== undefined ? userByName(e.name, w).id : fail(`${w}: needs name or id`)))
          : (e.id ?? String(t.groups.find((g) => g.name === e.name)?.id ?? fail(`${w}: unknown group ${String(e.name)}`)));
      if (folder.acl.some((x) => x.type === e.type && x.id === id)) fail(`${w}: duplicate entry`);
      folder.acl.push({ type: e.type, id, permissions: readFolderPermissions(e.permissions, w), isEditable: true, isDeletable: true });
    }
  }
  const ids = new Set<number>();
  for (const f of t.folders) {
    if (ids.has(f.id)) fail(`two folders have id ${f.id}`);
    ids.add(f.id);
  }
  t.nextFolderId = Math.max(t.nextFolderId, ...t.folders.map((f) => f.id + 1));
  return t;
}

function newFolder(id: number, parentId: number, name: string, path: string, folderType: string): TransferFolder {
  return { id, parentId, name, path, folderType, owner: '', parentInheritRights: 0, details: folderDetailDefaults(), acl: [] };
}

/** A fresh state from a seed (or the empty state with the admin users); a bad seed is a ConfigError. */
export function createState(
  seed: EmulatorSeed | undefined,
  profile: Profile,
  variants: Variants = resolveVariants(profile),
  runSeconds?: number,
): EmulatorState {
  const state: EmulatorState = {
    profile,
    variants,
    clockOffsetMs: 0,
    ...(runSeconds !== undefined ? { runMs: runSeconds * 1000 } : {}),
    automation: buildAutomation(seed?.automation, variants),
    transfer: buildTransfer(seed?.transfer),
  };
  seedRuns(state, seed?.automation?.runningTasks);
  return state;
}

/** The seed's `runningTasks`, started when the emulator starts; a task no seed task is named is a ConfigError. */
function seedRuns(state: EmulatorState, runs: AutomationSeed['runningTasks']): void {
  for (const [i, r] of (runs ?? []).entries()) {
    const task = state.automation.tasks.find((t) => typeof r?.task === 'string' && String(t.Name).toLowerCase() === r.task.toLowerCase());
    if (task === undefined) fail(`automation.runningTasks[${i}]: no seeded task is named ${JSON.stringify(r?.task)}`);
    if (r.seconds !== undefined && !(typeof r.seconds === 'number' && r.seconds > 0)) fail(`automation.runningTasks[${i}]: seconds must be a positive number`);
    addRun(state, task, { scheduled: r.scheduled === true, ...(r.seconds !== undefined ? { seconds: r.seconds } : {}) });
  }
}
