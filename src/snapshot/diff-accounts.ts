import { compareText } from '../order.js';
import { withDefined } from '../with-defined.js';
import type { AccountsDiff, ChangedGroup, ChangedUser, FieldChange, SavedAccounts, SavedGroup, SavedUser } from './model.js';

/** The user fields a diff compares and a restore patches (`PATCH /users/{id}` takes each). */
export const RESTORABLE_USER_FIELDS = ['fullName', 'email', 'permission', 'status'] as const;
export type RestorableUserField = (typeof RESTORABLE_USER_FIELDS)[number];

/** A username or group name as the server compares it. */
export function accountKey(name: string): string {
  return name.toLowerCase();
}

/**
 * Compare the users and groups of two sides (A → B), pure: users by username and groups by name
 * (case-insensitively), a changed id said as `recreated`; user fields a restore can put back; a
 * group's description and its members by username. Accounts hold no secret.
 */
export function diffSavedAccounts(a: SavedAccounts, b: SavedAccounts): AccountsDiff {
  const usersA = new Map(a.users.map((u) => [accountKey(u.username), u]));
  const usersB = new Map(b.users.map((u) => [accountKey(u.username), u]));
  const groupsA = new Map(a.groups.map((g) => [accountKey(g.name), g]));
  const groupsB = new Map(b.groups.map((g) => [accountKey(g.name), g]));
  const changedUsers: ChangedUser[] = [];
  for (const [key, after] of usersB) {
    const before = usersA.get(key);
    if (!before) continue;
    const fields = userFieldChanges(before, after);
    const recreated = before.id !== after.id ? { before: before.id, after: after.id } : undefined;
    if (fields.length > 0 || recreated) changedUsers.push({ username: after.username, fields, ...withDefined({ recreated }) });
  }
  const changedGroups: ChangedGroup[] = [];
  const membersNotCompared: string[] = [];
  for (const [key, after] of groupsB) {
    const before = groupsA.get(key);
    if (!before) continue;
    if (before.members === null || after.members === null) membersNotCompared.push(after.name);
    const changed = diffGroup(before, after);
    if (changed) changedGroups.push(changed);
  }
  return {
    users: {
      added: onlyIn(usersB, usersA).map((u) => u.username),
      removed: onlyIn(usersA, usersB).map((u) => u.username),
      changed: changedUsers.sort((x, y) => compareText(accountKey(x.username), accountKey(y.username))),
    },
    groups: {
      added: onlyIn(groupsB, groupsA).map((g) => g.name),
      removed: onlyIn(groupsA, groupsB).map((g) => g.name),
      changed: changedGroups.sort((x, y) => compareText(accountKey(x.name), accountKey(y.name))),
    },
    membersNotCompared: membersNotCompared.sort((x, y) => compareText(accountKey(x), accountKey(y))),
  };
}

/** The restorable fields that differ; a field B does not hold is not compared (a restore could not set it). */
export function userFieldChanges(before: SavedUser, after: SavedUser): FieldChange[] {
  return RESTORABLE_USER_FIELDS.filter((f) => after[f] !== undefined && before[f] !== after[f]).map((f) => ({
    path: f,
    ...withDefined({ before: before[f], after: after[f] }),
  }));
}

function diffGroup(a: SavedGroup, b: SavedGroup): ChangedGroup | undefined {
  const fields: FieldChange[] =
    (a.description ?? '') !== (b.description ?? '') ? [{ path: 'description', ...withDefined({ before: a.description, after: b.description }) }] : [];
  const recreated = a.id !== b.id ? { before: a.id, after: b.id } : undefined;
  let membersAdded: string[] = [];
  let membersRemoved: string[] = [];
  if (a.members !== null && b.members !== null) {
    const inA = new Set(a.members.map((m) => accountKey(m.username)));
    const inB = new Set(b.members.map((m) => accountKey(m.username)));
    membersAdded = b.members.filter((m) => !inA.has(accountKey(m.username))).map((m) => m.username);
    membersRemoved = a.members.filter((m) => !inB.has(accountKey(m.username))).map((m) => m.username);
  }
  if (fields.length + membersAdded.length + membersRemoved.length === 0 && !recreated) return undefined;
  return { name: b.name, fields, ...withDefined({ recreated }), membersAdded: sortNames(membersAdded), membersRemoved: sortNames(membersRemoved) };
}

function onlyIn<T extends SavedUser | SavedGroup>(from: ReadonlyMap<string, T>, other: ReadonlyMap<string, unknown>): T[] {
  return [...from]
    .filter(([k]) => !other.has(k))
    .sort(([x], [y]) => compareText(x, y))
    .map(([, v]) => v);
}

function sortNames(names: string[]): string[] {
  return names.sort((x, y) => compareText(accountKey(x), accountKey(y)));
}
