import { NO_MEMBERS, computeEffectiveAccess, diffEffectiveAccess, groupMembersFrom } from '../access/effective.js';
import type { AccessEntry } from '../access/effective.js';
import { compareText } from '../order.js';
import { folderKey } from '../live/model.js';
import type { LiveFolder, TransferLiveState, UserGroupMemberNames } from '../live/model.js';
import { grantedPermissions } from '../kinds/resource-group-acl/plan.js';
import type { ResourceGroupAcl } from '../services/automation/types.js';
import { ACL_PERMISSIONS, PRIVILEGED_USER_PERMISSIONS } from '../vocabulary.js';
import type { AccessChange, AccessReport, Change } from './model.js';
import type { AccessBasis } from '../kinds/kind.js';
import { viewEntries } from '../kinds/folder-permissions/plan.js';
import type { EntryView } from '../kinds/folder-permissions/plan.js';
import type { Principal } from '../resources/model.js';
import { withDefined } from '../with-defined.js';

/** What each permission change starts from and ends with (moved down to the kinds, which plan them). */
export type { AccessBasis } from '../kinds/kind.js';

/** Folder permissions a grant of which a reviewer must see (issue 16). */
export const FLAGGED_GRANTS: readonly string[] = ['admin', 'deleteFiles', 'share'];

/** Resource-group ACL permissions a grant of which a reviewer must see: they change what runs. */
export const FLAGGED_ACL_GRANTS: readonly string[] = ['TaskAddEditDelete', 'HostAddEditDelete', 'ScriptAddEditDelete'];

/** What the ACL access changes are computed from once user-group members were read. */
export interface UserGroupAccess {
  readonly members: UserGroupMemberNames;
  /** Every live ACL, keyed by `aclKey`: a user's other user groups may grant the same permission. */
  readonly acls: ReadonlyMap<string, ResourceGroupAcl>;
}

type AclBasis = Extract<AccessBasis, { kind: 'acl' }>;

/** What the transfer side of the access report reads of the live state: group members, and the folders the plan read. */
export type TransferAccess = Pick<TransferLiveState, 'groupMembers' | 'folders' | 'stepFolders'>;

/**
 * Who gains or loses what through the write changes of a plan (in their order), or undefined when
 * nobody does and no membership changes. `transfer`: the transfer live state as read (group
 * members, folders); undefined: no member known. `userGroups`: the user-group members, when read;
 * undefined: ACL changes are shown per user group.
 *
 * Folder entries and memberships are combined: on each folder, access before the plan is the live
 * entries with the live members, access after it the entries the plan leaves with the members it
 * leaves. So a member added to a group whose entry the same plan removes gains nothing there.
 * Besides the folders the plan changes, every folder the plan read whose entries name a group
 * whose members change is checked too (the plan reads no other folder: `membershipScope`).
 */
export function planAccessChanges(
  changes: readonly Change[],
  bases: ReadonlyMap<string, AccessBasis>,
  transfer: TransferAccess | undefined,
  userGroups?: UserGroupAccess,
): AccessReport | undefined {
  const live = transfer?.groupMembers?.members ?? new Map<string, readonly string[]>();
  const users: AccessChange[] = [];
  const groups: AccessChange[] = [];
  const membersUnknown = new Set<string>();
  const aclChanges: { readonly address: string; readonly basis: AclBasis }[] = [];
  const folderChanges: { readonly change: Change; readonly basis: FolderBasis }[] = [];
  const memberships: { readonly address: string; readonly basis: MembershipBasis }[] = [];
  for (const change of changes) {
    if (change.action === 'no-op' || change.action === 'blocked') continue;
    const basis = bases.get(change.address);
    if (!basis) continue;
    switch (basis.kind) {
      case 'folder':
        folderChanges.push({ change, basis });
        break;
      case 'acl':
        aclChanges.push({ address: change.address, basis });
        break;
      case 'account':
        users.push(accountAccess(change.address, basis));
        break;
      case 'membership':
        memberships.push({ address: change.address, basis });
        break;
      default: {
        const never: never = basis;
        throw new Error(`unknown access basis ${String(never)}`);
      }
    }
  }
  const moves = membershipMoves(memberships);
  const membersBefore = groupMembersFrom(withMembers(live, memberships, 'before'));
  const membersAfter = groupMembersFrom(withMembers(live, memberships, 'after'));
  const push = (address: string, target: string, before: readonly AccessEntry[], after: readonly AccessEntry[]) => {
    const deltas = diffEffectiveAccess(computeEffectiveAccess(before, membersBefore), computeEffectiveAccess(after, membersAfter));
    for (const d of deltas) {
      const through = d.who.type === 'User' ? moves.of(d.who.name, d.via) : [];
      (d.who.type === 'User' ? users : groups).push({
        address: through[0]?.address ?? address,
        who: d.who,
        service: 'transfer',
        target,
        gained: d.gained,
        lost: d.lost,
        via: d.via,
        removed: d.removed,
        flagged: d.gained.filter((p) => FLAGGED_GRANTS.includes(p)),
        ...withDefined({ memberships: through.length > 0 ? through.map((m) => m.group) : undefined }),
      });
      if (d.who.type === 'Group') membersUnknown.add(d.who.name);
    }
  };
  const planned = new Set<string>();
  for (const { change, basis } of folderChanges) {
    push(change.address, change.name, basis.before.map(accessEntry), basis.after.map(accessEntry));
    for (const key of [change.name, change.previousName]) if (key !== undefined) planned.add(folderKey(key));
    if (change.liveId !== undefined) planned.add(`#${change.liveId}`);
  }
  const read = foldersRead(transfer);
  if (memberships.length > 0) {
    // Folders the plan leaves as they are: their entries stay, the members of their groups may not.
    const changed = new Set(memberships.map((m) => m.basis.group.toLowerCase()));
    for (const folder of read) {
      if (planned.has(folderKey(folder.folder.path)) || planned.has(`#${folder.folder.id}`)) continue;
      const entries = viewEntries(folder.acl).map(accessEntry);
      if (!entries.some((e) => e.type === 'Group' && changed.has(e.name.toLowerCase()))) continue;
      push(memberships[0]!.address, folder.folder.path, entries, entries);
    }
  }
  const userGroupsUnknown = new Set<string>();
  for (const c of planAclAccess(aclChanges, userGroups)) {
    (c.who.type === 'User' ? users : groups).push(c);
    if (c.who.type === 'Group' && userGroups !== undefined) userGroupsUnknown.add(c.who.name);
  }
  if (users.length === 0 && groups.length === 0 && memberships.length === 0) return undefined;
  // Grouped by user (the sort is stable: a user's changes stay in plan order).
  const byName = (a: AccessChange, b: AccessChange) => compareText(a.who.name.toLowerCase(), b.who.name.toLowerCase());
  return {
    changes: [...users.sort(byName), ...groups.sort(byName)],
    membersUnknown: [...membersUnknown],
    ...withDefined({
      userGroupsUnknown: userGroupsUnknown.size > 0 ? [...userGroupsUnknown] : undefined,
      membershipScope: memberships.length > 0 ? { groups: distinctNames(memberships.map((m) => m.basis.group)), foldersRead: read.length } : undefined,
    }),
  };
}

type FolderBasis = Extract<AccessBasis, { kind: 'folder' }>;
type MembershipBasis = Extract<AccessBasis, { kind: 'membership' }>;

/** Live members by lower-cased group name, with each changed group's members as the plan has them before or after. */
function withMembers(
  live: ReadonlyMap<string, readonly string[]>,
  memberships: readonly { readonly basis: MembershipBasis }[],
  side: 'before' | 'after',
): Map<string, readonly string[]> {
  const out = new Map(live);
  for (const { basis } of memberships) out.set(basis.group.toLowerCase(), basis[side]);
  return out;
}

/**
 * Who joins or leaves which group in the plan. `of(user, via)`: the moves of `user` among the
 * groups a change comes through, in plan order (a user's access changes on a folder the plan
 * does not change only through them).
 */
function membershipMoves(memberships: readonly { readonly address: string; readonly basis: MembershipBasis }[]) {
  const byUser = new Map<string, { address: string; group: string }[]>();
  for (const { address, basis } of memberships) {
    const before = new Set(basis.before.map((u) => u.toLowerCase()));
    const after = new Set(basis.after.map((u) => u.toLowerCase()));
    const moved = [...basis.after.filter((u) => !before.has(u.toLowerCase())), ...basis.before.filter((u) => !after.has(u.toLowerCase()))];
    for (const user of moved) {
      const key = user.toLowerCase();
      const list = byUser.get(key) ?? [];
      if (!list.some((m) => m.address === address)) list.push({ address, group: basis.group });
      byUser.set(key, list);
    }
  }
  return {
    of: (user: string, via: readonly Principal[]) =>
      (byUser.get(user.toLowerCase()) ?? []).filter((m) => via.some((v) => v.type === 'Group' && v.name.toLowerCase() === m.group.toLowerCase())),
  };
}

/** Every folder the plan read (for its manifests, its scope, its steps' checks) that exists, by path. */
function foldersRead(transfer: TransferAccess | undefined): LiveFolder[] {
  const byKey = new Map<string, LiveFolder>();
  for (const map of [transfer?.folders, transfer?.stepFolders])
    for (const [key, folder] of map ?? []) if (folder !== null && !byKey.has(key)) byKey.set(key, folder);
  return [...byKey.values()].sort((a, b) => compareText(folderKey(a.folder.path), folderKey(b.folder.path)));
}

function distinctNames(names: readonly string[]): string[] {
  const byKey = new Map<string, string>();
  for (const name of names) if (!byKey.has(name.toLowerCase())) byKey.set(name.toLowerCase(), name);
  return [...byKey.values()];
}

/**
 * The access changes of the ACL changes, per resource group: with user-group members, each
 * member's effective permissions there (the ACLs of all the user's groups) before and after;
 * a user group whose members are unknown, or all of them when none were read, as its own change.
 */
function planAclAccess(aclChanges: readonly { readonly address: string; readonly basis: AclBasis }[], userGroups: UserGroupAccess | undefined): AccessChange[] {
  const out: AccessChange[] = [];
  const known = userGroups ? groupMembersFrom(userGroups.members.members) : NO_MEMBERS;
  const resourceGroups = new Map<string, { address: string; basis: AclBasis }[]>();
  for (const c of aclChanges) {
    const key = c.basis.resourceGroup.toLowerCase();
    resourceGroups.set(key, [...(resourceGroups.get(key) ?? []), c]);
  }
  for (const [key, changed] of resourceGroups) {
    // Before: every live ACL of the resource group (the changed ones as planned from); after: the changed ones replaced.
    const before = new Map<string, AccessEntry>();
    for (const acl of userGroups?.acls.values() ?? []) {
      if (acl.ResourceGroupName.toLowerCase() === key)
        before.set(acl.UserGroupName.toLowerCase(), { type: 'Group', name: acl.UserGroupName, permissions: grantedPermissions(acl) });
    }
    for (const { basis } of changed) before.set(basis.userGroup.toLowerCase(), { type: 'Group', name: basis.userGroup, permissions: basis.before });
    const after = new Map(before);
    for (const { basis } of changed) after.set(basis.userGroup.toLowerCase(), { type: 'Group', name: basis.userGroup, permissions: basis.after });
    const target = changed[0]!.basis.resourceGroup;
    const deltas = diffEffectiveAccess(
      computeEffectiveAccess([...before.values()], known, ACL_PERMISSIONS),
      computeEffectiveAccess([...after.values()], known, ACL_PERMISSIONS),
    );
    for (const d of deltas) {
      // The change it comes from: the first changed ACL of a user group it comes through.
      const from = changed.find((c) => d.via.some((v) => v.name.toLowerCase() === c.basis.userGroup.toLowerCase())) ?? changed[0]!;
      const flagged = d.gained.filter((p) => FLAGGED_ACL_GRANTS.includes(p));
      out.push({ address: from.address, who: d.who, service: 'automation', target, gained: d.gained, lost: d.lost, via: d.via, removed: d.removed, flagged });
    }
  }
  return out;
}

/** Transfer permission levels a grant of which a reviewer must see: they administer the server or every file on it. */
export const FLAGGED_USER_PERMISSIONS: readonly string[] = PRIVILEGED_USER_PERMISSIONS;

/** A user's permission level changing, as an access change on the transfer server itself: the level gained and the one lost. */
function accountAccess(address: string, basis: Extract<AccessBasis, { kind: 'account' }>): AccessChange {
  const gained = basis.after !== undefined ? [basis.after] : [];
  const lost = basis.before !== undefined ? [basis.before] : [];
  return {
    address,
    who: { type: 'User', name: basis.user },
    service: 'transfer',
    target: ACCOUNT_TARGET,
    gained,
    lost,
    via: [],
    removed: basis.after === undefined,
    flagged: gained.filter((p) => FLAGGED_USER_PERMISSIONS.includes(p)),
  };
}

/** The target of a permission-level change: the account on the server, not a folder. */
export const ACCOUNT_TARGET = 'the transfer server (permission level)';

function accessEntry(e: EntryView): AccessEntry {
  return { type: e.type, name: e.name, permissions: e.permissions.permissions };
}
