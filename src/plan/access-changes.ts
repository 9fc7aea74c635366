import { NO_MEMBERS, computeEffectiveAccess, diffEffectiveAccess, groupMembersFrom } from '../access/effective.js';
import type { AccessEntry } from '../access/effective.js';
import { compareText } from '../order.js';
import type { GroupMemberNames } from '../live/model.js';
import type { EntryView } from '../resources/folder-permissions.js';
import type { AccessChange, AccessReport, Change } from './model.js';

/**
 * The entries or permissions one change starts from and ends with, kept by the planner for the
 * access report (the change itself lists only the entries the manifest names).
 */
export type AccessBasis =
  | { readonly kind: 'folder'; readonly before: readonly EntryView[]; readonly after: readonly EntryView[] }
  | { readonly kind: 'acl'; readonly userGroup: string; readonly resourceGroup: string; readonly before: readonly string[]; readonly after: readonly string[] };

/** Folder permissions a grant of which a reviewer must see (issue 16). */
const FLAGGED_GRANTS: readonly string[] = ['admin', 'deleteFiles', 'share'];

/**
 * Who gains or loses what through the write changes of a plan (in their order), or undefined when
 * nobody does. `members` are the transfer group members as read; undefined: none known.
 */
export function planAccessChanges(changes: readonly Change[], bases: ReadonlyMap<string, AccessBasis>, members: GroupMemberNames | undefined): AccessReport | undefined {
  const known = members ? groupMembersFrom(members.members) : NO_MEMBERS;
  const users: AccessChange[] = [];
  const groups: AccessChange[] = [];
  const membersUnknown = new Set<string>();
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
          (d.who.type === 'User' ? users : groups).push({ address: change.address, who: d.who, service: 'transfer', target: change.name, gained: d.gained, lost: d.lost, via: d.via, removed: d.removed, flagged });
          if (d.who.type === 'Group') membersUnknown.add(d.who.name);
        }
        break;
      }
      case 'acl': {
        const gained = basis.after.filter((p) => !basis.before.includes(p));
        const lost = basis.before.filter((p) => !basis.after.includes(p));
        if (gained.length === 0 && lost.length === 0) break;
        const who = { type: 'Group' as const, name: basis.userGroup };
        groups.push({ address: change.address, who, service: 'automation', target: basis.resourceGroup, gained, lost, via: [who], removed: basis.before.length > 0 && basis.after.length === 0, flagged: [] });
        break;
      }
      default: {
        const never: never = basis;
        throw new Error(`unknown access basis ${String(never)}`);
      }
    }
  }
  if (users.length === 0 && groups.length === 0) return undefined;
  // Grouped by user (the sort is stable: a user's changes stay in plan order).
  const byName = (a: AccessChange, b: AccessChange) => compareText(a.who.name.toLowerCase(), b.who.name.toLowerCase());
  return { changes: [...users.sort(byName), ...groups.sort(byName)], membersUnknown: [...membersUnknown] };
}

function accessEntry(e: EntryView): AccessEntry {
  return { type: e.type, name: e.name, permissions: e.permissions.permissions };
}
