import type { LiveFolder } from '../../live/model.js';
import { FOLDER_PERMISSIONS, SHARE_PERMISSIONS } from '../../manifest/types.js';
import type {
  Action,
  ChangeReason,
  DesiredEntry,
  DesiredFolder,
  EntryChange,
  EntryPermissions,
  FieldChange,
  FolderPermissionsPayload,
  Principal,
} from '../../resources/model.js';
import type { FolderAclEntry, FolderPermissions } from '../../services/transfer/types.js';
import { sha256Of, toJson } from '../../resources/common.js';
import { isRecord } from '../../is-record.js';

/**
 * The FolderPermissions kind (transfer API folder ACLs, gaps.md "Folder ACLs").
 *
 * Identity: the folder path, case-insensitive. The entries compare as a set keyed by principal
 * (type + server id); inside an entry, `permissions` and `sharePermissions` compare as sets
 * (permissions not listed are false). Policies: entries of other types (`None`, `Email`) are never
 * touched; an entry with `isEditable: false` (a home-folder owner) is never changed — a wanted
 * change to it is `blocked` while the rest of the folder still applies — nor removed; `mode:
 * exact` removes the editable User/Group entries the manifest does not list, `additive` never
 * removes anything.
 */

type WritePermissions = FolderPermissionsPayload['set'][number]['permissions'];

/** An ACL entry reduced to what the plan compares. */
export interface EntryView {
  readonly type: 'User' | 'Group';
  readonly id: string;
  readonly name: string;
  readonly permissions: EntryPermissions;
  /** false: never changed (home-folder owner). */
  readonly editable: boolean;
  /** false: never removed. */
  readonly deletable: boolean;
}

/**
 * User and Group entries of a live ACL; other types are left alone. An entry whose principal the
 * user and group lists do not name (the account may not read them) shows as `#<id>`.
 */
export function viewEntries(acl: readonly FolderAclEntry[]): EntryView[] {
  const out: EntryView[] = [];
  for (const e of acl) {
    if (e.type !== 'User' && e.type !== 'Group') continue;
    out.push({
      type: e.type,
      id: String(e.id),
      name: e.name ?? unnamedPrincipal(e.id),
      permissions: entryPermissions(e.permissions),
      editable: e.isEditable !== false,
      deletable: e.isEditable !== false && e.isDeletable !== false,
    });
  }
  return out;
}

/** How an entry shows when no list names its principal: never by the server's `name` (see FolderAclEntry). */
export function unnamedPrincipal(id: string): string {
  return `#${id}`;
}

/** Granted permissions as sorted lists (the canonical orders of the manifest types). */
export function entryPermissions(p: FolderPermissions | undefined): EntryPermissions {
  const granted = (x: unknown, key: string) => isRecord(x) && (x[key] === true || x[key] === 1 || x[key] === 'true');
  const share = p?.sharePermissions;
  return {
    permissions: exactly(FOLDER_PERMISSIONS.filter((k) => granted(p, k))),
    sharePermissions: exactly(SHARE_PERMISSIONS.filter((k) => granted(share, k))),
  };
}

function desiredPermissions(e: DesiredEntry): EntryPermissions {
  return {
    permissions: exactly(FOLDER_PERMISSIONS.filter((k) => e.permissions.includes(k))),
    sharePermissions: exactly(SHARE_PERMISSIONS.filter((k) => e.sharePermissions.includes(k))),
  };
}

/**
 * The list without the room `filter` leaves to grow (17 items for the first one): a plan keeps
 * these lists for every entry of every folder, unchanged ones included (in `entries`), and they
 * were 2.6 MB of a 10,000-object plan's 10 MB.
 */
function exactly(list: string[]): string[] {
  return list.length === 0 ? list : list.slice();
}

/** The complete permission object a PUT sends: every flag, false when not granted. */
export function writePermissions(p: EntryPermissions): WritePermissions {
  const out: Record<string, boolean | Record<string, boolean>> = {};
  for (const k of FOLDER_PERMISSIONS) out[k] = p.permissions.includes(k);
  out.sharePermissions = Object.fromEntries(SHARE_PERMISSIONS.map((k) => [k, p.sharePermissions.includes(k)]));
  return out;
}

function samePermissions(a: EntryPermissions, b: EntryPermissions): boolean {
  const same = (x: readonly string[], y: readonly string[]) => x.length === y.length && x.every((v) => y.includes(v));
  return same(a.permissions, b.permissions) && same(a.sharePermissions, b.sharePermissions);
}

export function entryKey(type: string, id: string): string {
  return `${type}\u0000${id}`;
}

/**
 * sha256 of the folder id and its ACL entries as read, sorted by principal. Names are left out:
 * they come from the user and group lists, not from the ACL.
 */
export function fingerprintFolder(live: LiveFolder): string {
  const entries = [...live.acl].sort((a, b) => {
    const x = entryKey(a.type, String(a.id));
    const y = entryKey(b.type, String(b.id));
    return x < y ? -1 : x > y ? 1 : 0;
  });
  return sha256Of({ id: String(live.folder.id), entries: entries.map(({ name: _name, serverName: _serverName, ...rest }) => toJson(rest)) });
}

export interface FolderOutcome {
  readonly action: Exclude<Action, 'replace'>;
  readonly reason?: ChangeReason;
  readonly fields: readonly FieldChange[];
  readonly entries: readonly EntryChange[];
  readonly payload?: FolderPermissionsPayload;
  /** The folder's entries once the change is applied (for predicting what a subfolder copies). */
  readonly after: readonly EntryView[];
}

/** How the folder is to be created, when it is missing. */
export interface FolderCreation {
  readonly parentPath: string;
  readonly name: string;
  readonly inheritPermissions: 'None' | 'CopyOnly' | 'Always';
  /** The entries the new folder starts with (a copy of the parent's when it inherits). */
  readonly copied: readonly EntryView[];
}

/** The last segment of a folder path: `/A/B` → `B`. */
export function folderName(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/**
 * The action for a managed folder: against its live ACL, or (with `creation`) for a folder that
 * does not exist yet and starts with `creation.copied`. `previousPath` is the live path of a
 * folder found through `previousNames` (under the same parent, or under a parent this plan
 * renames): the path change makes it an update, with a rename request when its own name changes.
 */
export function planFolder(desired: DesiredFolder, live: readonly EntryView[], creation?: FolderCreation, previousPath?: string): FolderOutcome {
  const exact = desired.manifest.spec.mode === 'exact';
  const byKey = new Map(live.map((e) => [entryKey(e.type, e.id), e]));
  const matched = new Set<string>();
  const entries: EntryChange[] = [];
  // Entry differences live in `entries` (the model's per-entry view), not in `fields`.
  const fields: FieldChange[] = previousPath === undefined ? [] : [{ path: 'path', before: previousPath, after: desired.path }];
  const set: FolderPermissionsPayload['set'][number][] = [];
  const remove: FolderPermissionsPayload['remove'][number][] = [];
  const after = new Map(live.map((e) => [entryKey(e.type, e.id), e]));

  for (const d of desired.entries) {
    const key = entryKey(d.type, d.id);
    matched.add(key);
    const principal: Principal = { type: d.type, name: d.name };
    const want = desiredPermissions(d);
    const have = byKey.get(key);
    const write = () => {
      set.push({ type: d.type, id: d.id, name: d.name, permissions: writePermissions(want) });
      after.set(key, { type: d.type, id: d.id, name: d.name, permissions: want, editable: true, deletable: true });
    };
    // In a new folder every listed entry is set, even one the parent's copy should bring: the
    // copy is a prediction, the PUT makes it sure.
    if (!have || creation) {
      entries.push({ principal, action: 'create', after: want });
      write();
    } else if (samePermissions(have.permissions, want)) {
      entries.push({ principal, action: 'no-op', before: have.permissions, after: want });
    } else if (!have.editable) {
      entries.push({ principal, action: 'blocked', reason: { code: 'entry-not-editable', principal }, before: have.permissions, after: want });
    } else {
      entries.push({ principal, action: 'update', before: have.permissions, after: want });
      write();
    }
  }
  if (exact) {
    for (const e of live) {
      const key = entryKey(e.type, e.id);
      if (matched.has(key) || !e.deletable) continue;
      const principal: Principal = { type: e.type, name: e.name };
      entries.push({ principal, action: 'delete', before: e.permissions, ...(creation ? { reason: { code: 'entry-copied-from-parent' as const } } : {}) });
      remove.push({ type: e.type, id: e.id, name: e.name });
      after.delete(key);
    }
  }

  const blocked = entries.filter((e) => e.action === 'blocked').map((e) => e.principal);
  const payload: FolderPermissionsPayload = {
    kind: 'FolderPermissions',
    path: desired.path,
    ...(creation ? { create: { parentPath: creation.parentPath, name: creation.name, inheritPermissions: creation.inheritPermissions } } : {}),
    // Same name: only the parent is renamed, which moves this folder along.
    ...(previousPath !== undefined && folderName(previousPath) !== folderName(desired.path)
      ? { rename: { from: previousPath, name: folderName(desired.path) } }
      : {}),
    set,
    remove,
  };
  const afterList = [...after.values()];
  if (creation) {
    const how = creation.inheritPermissions;
    const reason: ChangeReason | undefined =
      how === 'None' ? undefined : { code: 'folder-copies-parent', parentPath: creation.parentPath, inheritPermissions: how };
    return { action: 'create', ...(reason ? { reason } : {}), fields, entries, payload, after: afterList };
  }
  if (set.length > 0 || remove.length > 0 || previousPath !== undefined) {
    return {
      action: 'update',
      ...(blocked.length > 0 ? { reason: { code: 'entries-not-editable', principals: blocked, partial: true } } : {}),
      fields,
      entries,
      payload,
      after: afterList,
    };
  }
  if (blocked.length > 0)
    return { action: 'blocked', reason: { code: 'entries-not-editable', principals: blocked, partial: false }, fields, entries, after: afterList };
  return { action: 'no-op', fields: [], entries, after: afterList };
}

/** An unmanaged folder in scope when FolderPermissions are pruned: its removable entries go. */
export function planFolderPrune(path: string, live: readonly EntryView[]): FolderOutcome | undefined {
  const gone = live.filter((e) => e.deletable);
  if (gone.length === 0) return undefined;
  return {
    action: 'delete',
    reason: { code: 'folder-pruned' },
    fields: [],
    entries: gone.map((e) => ({ principal: { type: e.type, name: e.name }, action: 'delete' as const, before: e.permissions })),
    payload: { kind: 'FolderPermissions', path, set: [], remove: gone.map((e) => ({ type: e.type, id: e.id, name: e.name })) },
    after: live.filter((e) => !e.deletable),
  };
}
