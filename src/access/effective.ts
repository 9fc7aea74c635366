import { compareText } from '../order.js';
import { FOLDER_PERMISSIONS } from '../vocabulary.js';
import type { FolderPermission } from '../vocabulary.js';

/**
 * Effective folder permissions (issue 16): what each user may do on a folder, from the user's own
 * entry plus the entries of every group the user is in. Pure: entries and memberships in, access
 * out. Share permissions are left out: they say what the people a folder is shared with may do,
 * not what the user may.
 */

/** One ACL entry as access sees it. */
export interface AccessEntry {
  readonly type: 'User' | 'Group';
  /** Username or group name. */
  readonly name: string;
  /** The folder permissions granted (any order; unknown names ignored). */
  readonly permissions: readonly string[];
}

/**
 * Members (usernames) by group name. A group missing from the map: its members could not be read,
 * so what its entry grants reaches no known user (`EffectiveAccess.unknownGroups`).
 */
export interface GroupMembers {
  membersOf(group: string): readonly string[] | undefined;
}

/** Group members from a plain map; lookups ignore case, as the transfer server does with names. */
export function groupMembersFrom(members: ReadonlyMap<string, readonly string[]> | Readonly<Record<string, readonly string[]>>): GroupMembers {
  const entries = members instanceof Map ? [...members.entries()] : Object.entries(members);
  const byName = new Map(entries.map(([group, users]) => [group.toLowerCase(), users]));
  return { membersOf: (group) => byName.get(group.toLowerCase()) };
}

/** No group's members are known. */
export const NO_MEMBERS: GroupMembers = { membersOf: () => undefined };

/**
 * Where a user's permission comes from: the entries that grant it, the user's own (`User`) and
 * those of the groups the user is in (`Group`), in that order, groups by name.
 */
export interface PermissionSource {
  readonly type: 'User' | 'Group';
  readonly name: string;
}

/**
 * One user's effective permissions on a folder (or, with the resource-group ACL vocabulary, on a
 * resource group), each with the entries that grant it.
 */
export interface UserAccess<P extends string = FolderPermission> {
  /** The username as the entries and member lists spell it. */
  readonly user: string;
  /** Granted permissions, in the canonical order of the vocabulary (`FOLDER_PERMISSIONS` by default). */
  readonly permissions: readonly P[];
  /** Per granted permission, the entries granting it (never empty). */
  readonly via: Readonly<Partial<Record<P, readonly PermissionSource[]>>>;
}

export interface EffectiveAccess<P extends string = FolderPermission> {
  /** Every user some entry reaches (an entry granting nothing still reaches its user), by lower-cased username. */
  readonly users: ReadonlyMap<string, UserAccess<P>>;
  /** The permission names counted, in canonical order. */
  readonly vocabulary: readonly P[];
  /** Groups with an entry whose members could not be read, with what the entry grants. */
  readonly unknownGroups: readonly AccessEntry[];
}

/**
 * The effective permissions of every user the entries reach. `vocabulary`: the permission names
 * that count, in canonical order; resource-group ACLs pass `ACL_PERMISSIONS`, with user groups as
 * `Group` entries.
 */
export function computeEffectiveAccess(entries: readonly AccessEntry[], members: GroupMembers): EffectiveAccess;
export function computeEffectiveAccess<P extends string>(entries: readonly AccessEntry[], members: GroupMembers, vocabulary: readonly P[]): EffectiveAccess<P>;
export function computeEffectiveAccess(
  entries: readonly AccessEntry[],
  members: GroupMembers,
  vocabulary: readonly string[] = FOLDER_PERMISSIONS,
): EffectiveAccess<string> {
  const grants = new Map<string, { user: string; via: Map<string, PermissionSource[]> }>();
  const unknownGroups: AccessEntry[] = [];
  const reach = (user: string, source: PermissionSource, permissions: readonly string[]) => {
    const key = user.toLowerCase();
    let g = grants.get(key);
    if (!g) grants.set(key, (g = { user, via: new Map() }));
    for (const p of vocabulary) {
      if (!permissions.includes(p)) continue;
      const list = g.via.get(p) ?? [];
      if (!list.some((s) => s.type === source.type && s.name.toLowerCase() === source.name.toLowerCase())) list.push(source);
      g.via.set(p, list);
    }
  };
  // Users' own entries first, so a permission lists its direct source before any group.
  for (const e of entries) if (e.type === 'User') reach(e.name, { type: 'User', name: e.name }, e.permissions);
  for (const e of entries) {
    if (e.type !== 'Group') continue;
    const users = members.membersOf(e.name);
    if (users === undefined) unknownGroups.push(e);
    else for (const u of users) reach(u, { type: 'Group', name: e.name }, e.permissions);
  }
  const users = new Map<string, UserAccess<string>>();
  for (const [key, g] of grants) {
    const permissions = vocabulary.filter((p) => g.via.has(p));
    users.set(key, { user: g.user, permissions, via: Object.fromEntries(permissions.map((p) => [p, g.via.get(p)!])) });
  }
  return { users, vocabulary, unknownGroups };
}

/**
 * What `user` may do on a folder with these entries, through its groups too. Members of a group
 * that could not be read do not count: ask `computeEffectiveAccess` for `unknownGroups` to tell
 * "not granted" from "not known".
 */
export function effectivePermissionsOf(user: string, entries: readonly AccessEntry[], members: GroupMembers): readonly FolderPermission[] {
  return computeEffectiveAccess(entries, members).users.get(user.toLowerCase())?.permissions ?? [];
}

/**
 * How one user's (or, when its members are unknown, one group's) effective access to one object
 * changes between two ACLs.
 */
export interface AccessDelta<P extends string = FolderPermission> {
  readonly who: PermissionSource;
  readonly gained: readonly P[];
  readonly lost: readonly P[];
  /** The entries that grant what is gained (after) and granted what is lost (before), users first. */
  readonly via: readonly PermissionSource[];
  /** The principal had some access before and has none after. */
  readonly removed: boolean;
}

/**
 * The users whose effective access differs between `before` and `after`, sorted by username; then
 * every group whose members are unknown and whose own entry differs, as a group-level change.
 */
export function diffEffectiveAccess<P extends string>(before: EffectiveAccess<P>, after: EffectiveAccess<P>): AccessDelta<P>[] {
  const out: AccessDelta<P>[] = [];
  const keys = [...new Set([...before.users.keys(), ...after.users.keys()])];
  for (const key of keys) {
    const b = before.users.get(key);
    const a = after.users.get(key);
    const delta = deltaOf(
      { type: 'User', name: a?.user ?? b!.user },
      b?.permissions ?? [],
      a?.permissions ?? [],
      (p) => a?.via[p] ?? [],
      (p) => b?.via[p] ?? [],
    );
    if (delta) out.push(delta);
  }
  const groupKeys = [...new Set([...before.unknownGroups, ...after.unknownGroups].map((g) => g.name.toLowerCase()))];
  for (const key of groupKeys) {
    const b = before.unknownGroups.find((g) => g.name.toLowerCase() === key);
    const a = after.unknownGroups.find((g) => g.name.toLowerCase() === key);
    const name = a?.name ?? b!.name;
    const self = [{ type: 'Group' as const, name }];
    const delta = deltaOf(
      { type: 'Group', name },
      permissionsIn(b, after.vocabulary),
      permissionsIn(a, after.vocabulary),
      () => self,
      () => self,
    );
    if (delta) out.push(delta);
  }
  return out.sort((x, y) => (x.who.type === y.who.type ? compareNames(x.who.name, y.who.name) : x.who.type === 'User' ? -1 : 1));
}

function permissionsIn<P extends string>(e: AccessEntry | undefined, vocabulary: readonly P[]): P[] {
  return e ? vocabulary.filter((p) => e.permissions.includes(p)) : [];
}

function deltaOf<P extends string>(
  who: PermissionSource,
  before: readonly P[],
  after: readonly P[],
  viaAfter: (p: P) => readonly PermissionSource[],
  viaBefore: (p: P) => readonly PermissionSource[],
): AccessDelta<P> | undefined {
  const gained = after.filter((p) => !before.includes(p));
  const lost = before.filter((p) => !after.includes(p));
  if (gained.length === 0 && lost.length === 0) return undefined;
  const via: PermissionSource[] = [];
  for (const s of [...gained.flatMap(viaAfter), ...lost.flatMap(viaBefore)]) if (!via.some((v) => v.type === s.type && v.name === s.name)) via.push(s);
  via.sort((x, y) => (x.type === y.type ? 0 : x.type === 'User' ? -1 : 1));
  return { who, gained, lost, via, removed: before.length > 0 && after.length === 0 };
}

function compareNames(a: string, b: string): number {
  return compareText(a.toLowerCase(), b.toLowerCase()) || compareText(a, b);
}
