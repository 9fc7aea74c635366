import { ConfigError } from '../errors.js';
import type { TransferUser } from '../services/transfer/types.js';
import { EVERY_KIND, KINDS } from '../kinds/registry.js';
import { folderKey } from '../live/model.js';
import {
  aclLabel,
  aclToManifest,
  createImportCatalog,
  createSecretNamer,
  folderToManifest,
  taskToManifest,
  userToManifest,
  groupToManifest,
} from './to-manifest.js';
import type { ImportedManifest, ImportKind, ImportResult, ImportSelection, ImportSource } from './model.js';
import { folderPathProblem, isSameOrBelow, trimFolderPath } from '../folder-path.js';
import { compareText } from '../order.js';
import { matchesNameMask, matchesPathGlob } from '../glob.js';
import type { LiveGroupMembers } from '../kinds/group/to-manifest.js';

/**
 * Which live objects an import takes (pure), and the manifests made from them.
 * - `--name`: tasks by the automation API's name mask, ACLs by the same mask on their resource
 *   group or user group, folders by a folder path glob (both dialects in `src/glob.ts`).
 * - otherwise the environment's scope: tasks in `scope.taskGroups`, ACLs on those resource
 *   groups, folders under `scope.folders`; with `--all`, everything the account sees.
 * A folder found by a walk is imported only when it has user or group entries (the folders in
 * between are not worth a file); a folder asked for by its exact path always is.
 */
export function importObjects(source: ImportSource, selection: ImportSelection): ImportResult {
  const catalog = createImportCatalog(source);
  const secrets = createSecretNamer();
  const manifests: ImportedManifest[] = [];
  const skipped: string[] = [];
  const byName = <T>(list: readonly T[], nameOf: (x: T) => string) => [...list].sort((a, b) => compareText(nameOf(a).toLowerCase(), nameOf(b).toLowerCase()));
  for (const kind of orderKinds(selection.kinds)) {
    switch (kind) {
      case 'Task':
        for (const task of byName(selectTasks(source, selection), (t) => String(t.Name ?? ''))) manifests.push(taskToManifest(task, catalog, secrets));
        break;
      case 'ResourceGroupAcl': {
        const labels = new Set<string>();
        for (const acl of byName(selectAcls(source, selection), (a) => `${a.ResourceGroupName}/${a.UserGroupName}`)) {
          const base = aclLabel(acl);
          let label = base;
          for (let n = 2; labels.has(label); n++) label = `${base}-${n}`;
          labels.add(label);
          manifests.push(aclToManifest(acl, label));
        }
        break;
      }
      case 'FolderPermissions':
        for (const folder of byName(selectFolders(source, selection), (f) => f.folder.path)) {
          // A manifest that would not validate is worse than none: it stops every later plan.
          const problem = folderPathProblem(trimFolderPath(folder.folder.path));
          if (problem === undefined) manifests.push(folderToManifest(folder));
          else skipped.push(`folder ${JSON.stringify(folder.folder.path)} not imported (MF324): ${problem}`);
        }
        break;
      case 'User':
        for (const user of byName(selectUsers(source, selection), (u) => u.username)) manifests.push(userToManifest(user, source.userDetails?.get(user.id)));
        break;
      case 'Group':
        for (const live of byName(selectGroups(source, selection), (g) => g.group.name)) manifests.push(groupToManifest(live));
        break;
      default: {
        const never: never = kind;
        throw new Error(`unknown kind ${String(never)}`);
      }
    }
  }
  return { manifests, secrets: secrets.list(), skipped };
}

/** The selected kinds in manifest order (the registry's), whatever order they were asked in. */
function orderKinds(kinds: readonly ImportKind[]): ImportKind[] {
  return EVERY_KIND.filter((k) => kinds.includes(k));
}

/** Refuses a selection that names nothing to look in (no scope, no --name, no --all). */
export function checkSelection(selection: ImportSelection, environment: string): void {
  if (selection.name !== undefined || selection.all) return;
  for (const kind of selection.kinds) {
    const { scopeKey } = KINDS[kind];
    if ((selection.scope[scopeKey] ?? []).length > 0) continue;
    const key = `scope.${scopeKey}`;
    throw new ConfigError(`environment "${environment}" has no ${key}: pass --name PATTERN, or --all to import every ${kind} the account can see`);
  }
}

/** Users by `--name` (a name mask on the username), else the masks of `scope.users`, or every one with `--all`. */
export function selectUsers(source: Pick<ImportSource, 'users'>, s: Pick<ImportSelection, 'name' | 'all' | 'scope'>): readonly TransferUser[] {
  return (source.users ?? []).filter((u) => {
    if (u.username === '') return false;
    if (s.name !== undefined) return matchesNameMask(s.name, u.username);
    return s.all || (s.scope.users ?? []).some((mask) => matchesNameMask(mask, u.username));
  });
}

function selectTasks(source: ImportSource, s: ImportSelection): ImportSource['tasks'] {
  const groups = new Set(s.scope.taskGroups.map((g) => g.toLowerCase()));
  return source.tasks.filter((t) => {
    const name = String(t.Name ?? '');
    if (name === '') return false;
    if (s.name !== undefined) return matchesNameMask(s.name, name);
    return s.all || (Array.isArray(t.Group) && t.Group.some((g) => groups.has(String(g).toLowerCase())));
  });
}

function selectAcls(source: ImportSource, s: ImportSelection): ImportSource['acls'] {
  const groups = new Set(s.scope.taskGroups.map((g) => g.toLowerCase()));
  return source.acls.filter((a) => {
    if (s.name !== undefined) return matchesNameMask(s.name, a.ResourceGroupName) || matchesNameMask(s.name, a.UserGroupName);
    return s.all || groups.has(a.ResourceGroupName.toLowerCase());
  });
}

/** Groups are not bound by a scope: every group, or those whose name matches `--name` (a name mask). */
function selectGroups(source: ImportSource, s: ImportSelection): readonly LiveGroupMembers[] {
  const groups = (source.groups ?? []).filter((g) => g.group.name !== '');
  return s.name === undefined ? groups : groups.filter((g) => matchesNameMask(s.name!, g.group.name));
}

function selectFolders(source: ImportSource, s: ImportSelection): ImportSource['folders'] {
  const exact = new Set((source.exactFolders ?? []).map(folderKey));
  const roots = s.scope.folders;
  const seen = new Set<string>();
  return source.folders.filter((f) => {
    const key = folderKey(f.folder.path);
    if (seen.has(key)) return false;
    seen.add(key);
    if (exact.has(key)) return true;
    const hasEntries = f.acl.some((e) => e.type === 'User' || e.type === 'Group');
    if (!hasEntries) return false;
    if (s.name !== undefined) return matchesPathGlob(s.name, f.folder.path);
    return s.all || roots.some((r) => isSameOrBelow(f.folder.path, r));
  });
}

/** A scope entry an import found nothing for: `scope.<key>[index]` of the environment. */
export interface UnmatchedScopeEntry {
  readonly key: 'taskGroups' | 'folders';
  readonly index: number;
  readonly entry: string;
  /** What it matched none of: `no task`, `no such folder`… */
  readonly why: string;
}

/**
 * Scope entries this import found nothing for (pure), in the order of the scope: a task group no
 * task (and, with ACLs, no resource-group ACL) is in, a folder root with no folder at or below
 * it, or none there with user or group entries. Only the parts of the scope the selected kinds
 * read; none with `--name` or `--all`, which replace the scope.
 */
export function findUnmatchedScope(source: ImportSource, selection: ImportSelection): UnmatchedScopeEntry[] {
  if (selection.name !== undefined || selection.all) return [];
  const out: UnmatchedScopeEntry[] = [];
  const wantTasks = selection.kinds.includes('Task');
  const wantAcls = selection.kinds.includes('ResourceGroupAcl');
  if (wantTasks || wantAcls) {
    selection.scope.taskGroups.forEach((entry, index) => {
      const group = entry.toLowerCase();
      const tasks = source.tasks.some((t) => String(t.Name ?? '') !== '' && Array.isArray(t.Group) && t.Group.some((g) => String(g).toLowerCase() === group));
      const acls = source.acls.some((a) => a.ResourceGroupName.toLowerCase() === group);
      // A group with an ACL but no task is still worth a line: the import brings none of its tasks.
      const none = [...(wantTasks && !tasks ? ['no task'] : []), ...(wantAcls && !acls && (!wantTasks || !tasks) ? ['no resource-group ACL'] : [])];
      if (none.length > 0) out.push({ key: 'taskGroups', index, entry, why: `matches ${none.join(' and ')}` });
    });
  }
  if (selection.kinds.includes('FolderPermissions')) {
    selection.scope.folders.forEach((entry, index) => {
      const below = source.folders.filter((f) => isSameOrBelow(f.folder.path, entry));
      if (below.length === 0) {
        const why = source.origin.startsWith('snapshot ')
          ? `matches no folder saved in ${source.origin}`
          : 'matches no folder: there is no such folder, or this account cannot see it';
        out.push({ key: 'folders', index, entry, why });
      } else if (!below.some((f) => f.acl.some((e) => e.type === 'User' || e.type === 'Group'))) {
        out.push({
          key: 'folders',
          index,
          entry,
          why: `matches no folder with user or group entries (${below.length === 1 ? 'the folder has none' : `none of its ${below.length} folders has any`})`,
        });
      }
    });
  }
  return out;
}
