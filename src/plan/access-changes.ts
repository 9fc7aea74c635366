import { NO_MEMBERS, computeEffectiveAccess, diffEffectiveAccess, groupMembersFrom } from '../access/effective.js';
import type { AccessEntry } from '../access/effective.js';
import { compareText } from '../order.js';
import type { GroupMemberNames, UserGroupMemberNames } from '../live/model.js';
import { grantedPermissions } from '../kinds/resource-group-acl/plan.js';
import type { ResourceGroupAcl } from '../services/automation/types.js';
import { ACL_PERMISSIONS, PRIVILEGED_USER_PERMISSIONS } from '../vocabulary.js';
import type { AccessChange, AccessReport, Change } from './model.js';
import type { AccessBasis } from '../kinds/kind.js';
import type { EntryView } from '../kinds/folder-permissions/plan.js';

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

/**
 * Who gains or loses what through the write changes of a plan (in their order), or undefined when
 * nobody does. `members` are the transfer group members as read; undefined: none known.
 * `userGroups`: the user-group members, when read; undefined: ACL changes are shown per user group.
 */
export function planAccessChanges(
  changes: readonly Change[],
  bases: ReadonlyMap<string, AccessBasis>,
  members: GroupMemberNames | undefined,
  userGroups?: UserGroupAccess,
): AccessReport | undefined {
  const known = members ? groupMembersFrom(members.members) : NO_MEMBERS;
  const users: AccessChange[] = [];
  const groups: AccessChange[] = [];
  const membersUnknown = new Set<string>();
  const aclChanges: { readonly address: string; readonly basis: AclBasis }[] = [];
  for (const change of changes) {
    if (change.action === 'no-op' || change.action === 'blocked') continue;
    const basis = bases.get(change.address);
    if (!basis) continue;
    switch (basis.kind) {
      case 'folder': {
        const before = computeEffectiveAccess(basis.before.map(accessEntry), known);
        const after = computeEffectiveAccess(basis.after.map(accessEntry), known);
        for (const d of diffEffectiveAccess(before, after)) {
          const flagged = d.gained.filter((p) => FLAGGED_GRANTS.includes(p));
          (d.who.type === 'User' ? users : groups).push({
            address: change.address,
            who: d.who,
            service: 'transfer',
            target: change.name,
            gained: d.gained,
            lost: d.lost,
            via: d.via,
            removed: d.removed,
            flagged,
          });
          if (d.who.type === 'Group') membersUnknown.add(d.who.name);
        }
        break;
      }
      case 'acl':
        aclChanges.push({ address: change.address, basis });
        break;
      case 'account':
        users.push(accountAccess(change.address, basis));
        break;
      case 'membership':
        // What the members gain and lose through the group is issue 26's access review (H5).
        break;
      default: {
        const never: never = basis;
        throw new Error(`unknown access basis ${String(never)}`);
      }
    }
  }
  const userGroupsUnknown = new Set<string>();
  for (const c of planAclAccess(aclChanges, userGroups)) {
    (c.who.type === 'User' ? users : groups).push(c);
    if (c.who.type === 'Group' && userGroups !== undefined) userGroupsUnknown.add(c.who.name);
  }
  if (users.length === 0 && groups.length === 0) return undefined;
  // Grouped by user (the sort is stable: a user's changes stay in plan order).
  const byName = (a: AccessChange, b: AccessChange) => compareText(a.who.name.toLowerCase(), b.who.name.toLowerCase());
  return {
    changes: [...users.sort(byName), ...groups.sort(byName)],
    membersUnknown: [...membersUnknown],
    ...(userGroupsUnknown.size > 0 ? { userGroupsUnknown: [...userGroupsUnknown] } : {}),
  };
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
