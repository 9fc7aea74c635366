import { FOLDER_PERMISSIONS, SHARE_PERMISSIONS, USER_PERMISSIONS, USER_STATUSES } from '../../vocabulary.js';
import { isRecord } from '../../is-record.js';
import type { Folder, FolderAclEntry, FolderPermissions, TransferGroup, TransferUser, TransferUserDetails } from './types.js';

/**
 * The normalisation boundary of the transfer service (docs/server-variants.md T-1…T-13): every
 * answer the client returns has been read here into the canonical form.
 *
 * Canonical: ids as strings; folder paths `/A/B` (a leading slash, no trailing one); an ACL entry
 * `type` `User`/`Group` whatever its case (other types kept as sent); every permission flag a
 * boolean, a missing one false; `isEditable`/`isDeletable` booleans (absent: true); the entry's
 * `name` the username or group name found by the entry's `id` in the user and group lists, never
 * the server's `name` (which may be a full name, or absent), undefined when the lists cannot tell.
 */

function idString(x: unknown): string {
  return typeof x === 'string' ? x : typeof x === 'number' ? String(x) : '';
}

function str(x: unknown): string {
  return typeof x === 'string' ? x : '';
}

/** Fields about a password that are no secret (the rest of `/password/i` is dropped from user records). */
const PASSWORD_FACTS = new Set(['forcechangepassword', 'passwordchangestamp', 'sendpasswordchangenotification']);

/** Every permission a user record may carry (`Anonymous` besides the settable ones). */
const PERMISSION_WORDS: readonly string[] = ['Anonymous', ...USER_PERMISSIONS];

/**
 * A user record (SimpleUserModel or UserDetailsModel): `fullName` from `realname`/`realName` on an
 * older release; `permission` and `status` in their documented spelling whatever the case (a
 * number as its text: the guard on privileged accounts says it cannot judge it, rather than
 * taking it for an unprivileged one); any field named like a password (`password`, `Password`,
 * `passwordHash`…) dropped: no read should return one, and if one did it must reach neither the
 * live state nor a snapshot.
 */
export function readUser(u: Record<string, unknown>): TransferUser {
  const fullName = [u.fullName, u.realname, u.realName].find((n): n is string => typeof n === 'string' && n !== '');
  const rest = Object.fromEntries(Object.entries(u).filter(([key]) => !/password/i.test(key) || PASSWORD_FACTS.has(key.toLowerCase())));
  delete rest.permission;
  delete rest.status;
  const user = {
    ...rest,
    id: idString(u.id),
    username: str(u.username),
    ...(fullName !== undefined ? { fullName } : {}),
    ...withWord('permission', u.permission, PERMISSION_WORDS),
    ...withWord('status', u.status, USER_STATUSES),
  };
  return 'lastLoginStamp' in u ? { ...user, lastLoginStamp: readSignOnStamp(u.lastLoginStamp) } : user;
}

/** `{[key]: word}` in its documented spelling (case aside), a number as its text, an unknown text as sent; nothing for other values. */
function withWord(key: string, raw: unknown, words: readonly string[]): Record<string, string> {
  if (typeof raw === 'number') return { [key]: String(raw) };
  if (typeof raw !== 'string') return {};
  return { [key]: words.find((w) => w.toLowerCase() === raw.toLowerCase()) ?? raw };
}

/** UserDetailsModel: a user record with `folderQuota` as a number and `forceChangePassword` as a boolean when the server wrote them otherwise. */
export function readUserDetails(u: Record<string, unknown>): TransferUserDetails {
  const out: Record<string, unknown> = { ...readUser(u) };
  const quota = typeof u.folderQuota === 'string' && /^\d+$/.test(u.folderQuota) ? Number(u.folderQuota) : u.folderQuota;
  if (typeof quota === 'number') out.folderQuota = quota;
  const force = readBoolean(u.forceChangePassword);
  if (force !== undefined) out.forceChangePassword = force;
  if (u.homeFolderID !== undefined && u.homeFolderID !== null) out.homeFolderID = idString(u.homeFolderID);
  return out as TransferUserDetails;
}

/** `2026-11-01T10:00:00`, `2026-11-01 10:00:00.1234567`, `2026-11-01T10:00:00+02:00`, `2026-11-01`. */
const STAMP = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?)?\s*(Z|[+-]\d{2}:?\d{2})?$/i;

/**
 * A user's `lastLoginStamp` in canonical form: an ISO 8601 UTC date-time (`2026-11-01T10:00:00.000Z`),
 * read as UTC when the server gives no zone (the API does not say which zone it means); `''` for a
 * user who never signed on: null, empty, or a date before 1970 (.NET servers write
 * `0001-01-01T00:00:00` for "no date"); any other value as sent (a number as its text), which the
 * sign-on report shows as unknown.
 */
export function readSignOnStamp(raw: unknown): string {
  if (raw === null || raw === undefined) return '';
  const text = typeof raw === 'string' ? raw.trim() : typeof raw === 'number' ? String(raw) : JSON.stringify(raw);
  if (text === '') return '';
  const m = STAMP.exec(text);
  if (!m) return text;
  const [year, month, day, hour = 0, minute = 0, second = 0] = m.slice(1, 7).map((x) => (x === undefined ? undefined : Number(x))) as number[];
  const millis = m[7] === undefined ? 0 : Number(`0.${m[7]}`) * 1000;
  if (month! < 1 || month! > 12 || day! < 1 || day! > 31 || hour > 23 || minute > 59 || second > 59) return text;
  const local = Date.UTC(year!, month! - 1, day!, hour, minute, second, Math.floor(millis));
  // Date.UTC rolls 31 April over into 1 May: such a date is not of the calendar.
  if (new Date(local).getUTCDate() !== day) return text;
  const zone = m[8]?.toUpperCase();
  const offset = zone === undefined || zone === 'Z' ? 0 : (zone.startsWith('-') ? -1 : 1) * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(-2)));
  const time = local - offset * 60_000;
  if (year! < 1970) return '';
  return new Date(time).toISOString();
}

export function readGroup(g: Record<string, unknown>): TransferGroup {
  const count =
    typeof g.membersCount === 'number'
      ? g.membersCount
      : typeof g.membersCount === 'string' && /^\d+$/.test(g.membersCount)
        ? Number(g.membersCount)
        : undefined;
  const out: Record<string, unknown> = { ...g, id: idString(g.id), name: str(g.name) };
  if (count === undefined) delete out.membersCount;
  else out.membersCount = count;
  return out as TransferGroup;
}

/** `A/B/`, `/A/B/`, `//A//B` → `/A/B`; `/` stays `/`. The server's spelling (case) is kept. */
export function canonicalFolderPath(path: string): string {
  const parts = path.split('/').filter((p) => p !== '');
  return `/${parts.join('/')}`;
}

export function readFolder(f: Record<string, unknown>): Folder {
  const out: Record<string, unknown> = { ...f, id: idString(f.id), name: str(f.name), path: canonicalFolderPath(str(f.path)) };
  if (f.parentId !== undefined && f.parentId !== null) out.parentId = idString(f.parentId);
  return out as Folder;
}

/** Who an entry's id is: username or group name by id (T-2). */
export interface PrincipalNames {
  user(id: string): string | undefined;
  group(id: string): string | undefined;
}

export function readAclEntry(e: Record<string, unknown>, names: PrincipalNames): FolderAclEntry {
  const type = entryType(e.type);
  const id = idString(e.id);
  // The server's `name` left out by destructuring, not `delete`: a deleted property turns the entry
  // into a dictionary (~470 B instead of ~100 B, one entry per folder in a large estate).
  const { name: _serverName, ...rest } = e;
  const out: Record<string, unknown> = {
    ...rest,
    type,
    id,
    permissions: readPermissions(e.permissions),
    isEditable: readBoolean(e.isEditable) ?? true,
    isDeletable: readBoolean(e.isDeletable) ?? true,
  };
  const name = type === 'User' ? names.user(id) : type === 'Group' ? names.group(id) : undefined;
  if (name !== undefined) out.name = name;
  if (typeof e.name === 'string' && e.name !== '') out.serverName = e.name;
  if (e.entryId !== undefined && e.entryId !== null) out.entryId = idString(e.entryId);
  return out as FolderAclEntry;
}

function entryType(t: unknown): string {
  const text = str(t);
  const lower = text.toLowerCase();
  return lower === 'user' ? 'User' : lower === 'group' ? 'Group' : text;
}

function readBoolean(v: unknown): boolean | undefined {
  if (typeof v === 'boolean') return v;
  if (v === 1 || v === 0) return v === 1;
  if (typeof v === 'string') {
    const t = v.trim().toLowerCase();
    if (t === 'true' || t === '1') return true;
    if (t === 'false' || t === '0') return false;
  }
  return undefined;
}

/** Every permission a boolean (a missing one false), `sharePermissions` likewise; other keys kept. */
export function readPermissions(p: unknown): FolderPermissions {
  const raw = isRecord(p) ? p : {};
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(raw)) if (k !== 'sharePermissions') out[k] = readBoolean(v) ?? v;
  for (const k of FOLDER_PERMISSIONS) out[k] = readBoolean(raw[k]) ?? false;
  const share = isRecord(raw.sharePermissions) ? raw.sharePermissions : {};
  const shareOut: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(share)) shareOut[k] = readBoolean(v) ?? v;
  for (const k of SHARE_PERMISSIONS) shareOut[k] = readBoolean(share[k]) ?? false;
  out.sharePermissions = shareOut;
  return out as FolderPermissions;
}

/**
 * The groups a user record says the user is in (T-16), as group ids: `groupIds` (ids, numbers or
 * strings) or `groups` (ids, group names, or `{id}`/`{name}` objects), a single value for a list.
 * Undefined when the record carries neither field: the server does not tell members this way.
 */
export function readUserGroupIds(u: Record<string, unknown>, groups: readonly TransferGroup[]): string[] | undefined {
  const raw = u.groupIds ?? u.groups;
  if (raw === undefined || raw === null) return undefined;
  const byName = new Map(groups.map((g) => [g.name.toLowerCase(), g.id]));
  const known = new Set(groups.map((g) => g.id));
  const out: string[] = [];
  for (const item of Array.isArray(raw) ? raw : [raw]) {
    const ref = isRecord(item) ? (item.id ?? item.groupId ?? item.name) : item;
    const text = idString(ref);
    const id = known.has(text) ? text : byName.get(text.toLowerCase());
    if (id !== undefined && !out.includes(id)) out.push(id);
  }
  return out;
}

/**
 * The member items of `GET /groups/{id}/members` or `GET /users?groupId=` as user ids: user
 * records (`id`, `userId`), bare ids, or usernames (found through `users`). Items naming no known
 * user are dropped.
 */
export function readMemberIds(items: readonly unknown[], users: readonly TransferUser[]): string[] {
  const ids = new Set(users.map((u) => u.id));
  const byName = new Map(users.map((u) => [u.username.toLowerCase(), u.id]));
  const out: string[] = [];
  for (const item of items) {
    const candidates = isRecord(item) ? [item.id, item.userId, item.username] : [item];
    const id = candidates
      .map(idString)
      .map((c) => (ids.has(c) ? c : byName.get(c.toLowerCase())))
      .find((c) => c !== undefined);
    if (id !== undefined && !out.includes(id)) out.push(id);
  }
  return out;
}
