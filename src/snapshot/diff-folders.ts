import { folderKey } from '../folder-path.js';
import { compareText } from '../order.js';
import { entryKey, entryPermissions } from '../kinds/folder-permissions/plan.js';
import type { FolderPermissions } from '../services/transfer/types.js';
import type { ChangedEntry, DiffEntry, FolderDiff, FoldersDiff, SavedAclEntry, SavedFolder } from './model.js';
import { withDefined } from '../with-defined.js';

/**
 * Compare the folder ACLs two snapshots saved (A → B), folder by folder (paths as the server
 * compares them), entry by entry (principal: type + id), permissions as sets. Pure; folder ACLs
 * hold no secret.
 */
export function diffSavedFolders(a: readonly SavedFolder[], b: readonly SavedFolder[]): FoldersDiff {
  const byKeyA = new Map(a.map((f) => [folderKey(f.path), f]));
  const byKeyB = new Map(b.map((f) => [folderKey(f.path), f]));
  const onlyInA = [...byKeyA].filter(([k]) => !byKeyB.has(k)).map(([, f]) => f.path);
  const onlyInB = [...byKeyB].filter(([k]) => !byKeyA.has(k)).map(([, f]) => f.path);
  const changed: FolderDiff[] = [];
  let compared = 0;
  for (const [key, after] of byKeyB) {
    const before = byKeyA.get(key);
    if (!before) continue;
    compared++;
    const diff = diffFolder(before, after);
    if (diff) changed.push(diff);
  }
  return { compared, onlyInA: onlyInA.sort(compareText), onlyInB: onlyInB.sort(compareText), changed: changed.sort((x, y) => compareText(x.path, y.path)) };
}

function diffFolder(a: SavedFolder, b: SavedFolder): FolderDiff | undefined {
  const before = new Map(a.entries.map((e) => [entryKey(e.type, String(e.id)), view(e)]));
  const after = new Map(b.entries.map((e) => [entryKey(e.type, String(e.id)), view(e)]));
  const added = [...after].filter(([k]) => !before.has(k)).map(([, e]) => e);
  const removed = [...before].filter(([k]) => !after.has(k)).map(([, e]) => e);
  const changed: ChangedEntry[] = [];
  for (const [k, x] of before) {
    const y = after.get(k);
    if (!y || (sameSet(x.permissions, y.permissions) && sameSet(x.sharePermissions, y.sharePermissions))) continue;
    const name = y.name ?? x.name;
    changed.push({
      type: y.type,
      id: y.id,
      ...withDefined({ name }),
      before: { permissions: x.permissions, sharePermissions: x.sharePermissions },
      after: { permissions: y.permissions, sharePermissions: y.sharePermissions },
    });
  }
  const absentIn = a.id === null && b.id !== null ? 'a' : b.id === null && a.id !== null ? 'b' : undefined;
  if (added.length + removed.length + changed.length === 0 && absentIn === undefined) return undefined;
  return { path: b.path, ...(absentIn ? { absentIn } : {}), added: added.sort(byEntry), removed: removed.sort(byEntry), changed: changed.sort(byEntry) };
}

function view(e: SavedAclEntry): DiffEntry {
  const granted = entryPermissions(e.permissions as FolderPermissions);
  return {
    type: e.type,
    id: String(e.id),
    ...(typeof e.name === 'string' && e.name !== '' ? { name: e.name } : {}),
    permissions: granted.permissions,
    sharePermissions: granted.sharePermissions,
  };
}

function sameSet(x: readonly string[], y: readonly string[]): boolean {
  return x.length === y.length && x.every((v) => y.includes(v));
}

function byEntry(x: Pick<DiffEntry, 'type' | 'id' | 'name'>, y: Pick<DiffEntry, 'type' | 'id' | 'name'>): number {
  return compareText(x.type, y.type) || compareText(x.name ?? x.id, y.name ?? y.id) || compareText(x.id, y.id);
}
