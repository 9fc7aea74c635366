import { MftopsError } from '../errors.js';
import { mapWithConcurrency } from '../live/map-with-concurrency.js';
import { aclKey, folderKey, uniqueFolderPaths } from '../live/model.js';
import type { LiveFolder } from '../live/model.js';
import { parentPath } from '../folder-path.js';
import type { Change } from '../plan/model.js';
import { fingerprintFolder } from '../kinds/folder-permissions/plan.js';
import { fingerprintAcl } from '../kinds/resource-group-acl/plan.js';
import { fingerprintTask, taskId } from '../kinds/task/plan.js';
import type { ReadonlyAutomationClient } from '../services/automation/client.js';
import type { ResourceGroupAcl, Task } from '../services/automation/types.js';
import type { ReadonlyTransferClient } from '../services/transfer/client.js';
import type { StaleObject } from './model.js';
import { resolvedNameKinds } from './moved-names.js';
import type { NameLists } from './moved-names.js';

/**
 * The stale-plan guard: before anything is written, every object the plan touches is read
 * again and its fingerprint computed the way the plan computed it. Reading is I/O
 * (`readTouchedObjects`, the fewest requests: one task list, one ACL list, each touched folder by
 * path and its ACL; and one list per kind of name the writes resolved: users, groups, hosts,
 * scripts, date lists, resource groups); comparing is pure (`findStaleObjects`, `findMovedNames`).
 */

export interface StaleCheckReaders {
  readonly automation?: Pick<ReadonlyAutomationClient, 'listTasks' | 'listResourceGroupAcls' | 'listHosts' | 'listCustomScripts' | 'listStandardScripts' | 'listDateLists' | 'listResourceGroups'>;
  readonly transfer?: Pick<ReadonlyTransferClient, 'findFolderByPath' | 'listFolderAcls' | 'listUsers' | 'listGroups'>;
}

/** The touched objects as they are now. */
export interface TouchedObjects {
  /** Every task (the list answers whole tasks, as the plan read them); absent when no task is touched. */
  readonly tasks?: readonly Task[];
  readonly acls?: readonly ResourceGroupAcl[];
  /** Touched folders by `folderKey`: the folder and its ACL, or null when no folder has the path. */
  readonly folders: ReadonlyMap<string, LiveFolder | null>;
  /** Parents of folders to create (those the plan does not create itself) by `folderKey`: do they exist. */
  readonly parents: ReadonlyMap<string, boolean>;
  /** The lists the writes' resolved names are looked up in again (`Change.resolved`). */
  readonly names: NameLists;
}

export async function readTouchedObjects(changes: readonly Change[], readers: StaleCheckReaders, parallelism: number): Promise<TouchedObjects> {
  const needTasks = changes.some((c) => c.kind === 'Task');
  const needAcls = changes.some((c) => c.kind === 'ResourceGroupAcl');
  const folderChanges = changes.filter((c) => c.kind === 'FolderPermissions');
  const automation = needTasks || needAcls ? need(readers.automation, 'automation') : undefined;
  const transfer = folderChanges.length > 0 ? need(readers.transfer, 'transfer') : undefined;

  const created = new Set(folderChanges.filter((c) => c.action === 'create').map((c) => folderKey(c.name)));
  // A renamed folder is read at its previous path (where it is) and at its new one (nothing may be there yet).
  const paths = uniqueFolderPaths(folderChanges.flatMap((c) => (c.previousName !== undefined ? [c.previousName, c.name] : [c.name])));
  const parents = uniqueFolderPaths(
    folderChanges
      .filter((c) => c.action === 'create')
      .map(createdFolderParent)
      .filter((p): p is string => p !== undefined && !created.has(folderKey(p))),
  );

  const [tasks, acls, folders, parentFound, names] = await Promise.all([
    needTasks ? automation!.listTasks() : undefined,
    needAcls ? automation!.listResourceGroupAcls() : undefined,
    transfer
      ? mapWithConcurrency(paths, parallelism, async (path): Promise<LiveFolder | null> => {
          const folder = await transfer.findFolderByPath(path);
          return folder ? { folder, acl: await transfer.listFolderAcls(folder.id) } : null;
        })
      : [],
    transfer ? mapWithConcurrency(parents, parallelism, async (path) => (await transfer.findFolderByPath(path)) !== null) : [],
    readNameLists(changes, readers),
  ]);
  return {
    ...(tasks ? { tasks } : {}),
    ...(acls ? { acls } : {}),
    folders: new Map(paths.map((p, i) => [folderKey(p), folders[i] ?? null])),
    parents: new Map(parents.map((p, i) => [folderKey(p), parentFound[i] ?? false])),
    names,
  };
}

/**
 * One list per kind of name the changes resolved, all at once; scripts are both lists, as the
 * plan reads them. The transfer client keeps its user and group lists: they are read afresh, or an
 * apply that planned itself would compare the plan's lists with themselves.
 */
async function readNameLists(changes: readonly Change[], readers: StaleCheckReaders): Promise<NameLists> {
  const kinds = resolvedNameKinds(changes);
  const automation = () => need(readers.automation, 'automation');
  const transfer = () => need(readers.transfer, 'transfer');
  const named = <T>(items: readonly T[], name: (x: T) => unknown, id?: (x: T) => unknown) =>
    items.map((x) => {
      const i = id ? idText(id(x)) : undefined;
      return { name: typeof name(x) === 'string' ? (name(x) as string) : '', ...(i !== undefined ? { id: i } : {}) };
    });
  const [user, group, host, script, dateList, resourceGroup] = await Promise.all([
    kinds.has('user') ? transfer().listUsers({ fresh: true }).then((l) => named(l, (u) => u.username, (u) => u.id)) : undefined,
    kinds.has('group') ? transfer().listGroups({ fresh: true }).then((l) => named(l, (g) => g.name, (g) => g.id)) : undefined,
    kinds.has('host') ? automation().listHosts().then((l) => named(l, (h) => h.Name, (h) => h.ID)) : undefined,
    kinds.has('script')
      ? Promise.all([automation().listCustomScripts(), automation().listStandardScripts()]).then(([custom, standard]) => named([...custom, ...standard], (s) => s.Name, (s) => s.ID))
      : undefined,
    kinds.has('dateList') ? automation().listDateLists().then((l) => named(l, (d) => d.Name, (d) => d.ID)) : undefined,
    kinds.has('resourceGroup') ? automation().listResourceGroups().then((l) => named(l, (g) => g.Name)) : undefined,
  ]);
  return { ...(user ? { user } : {}), ...(group ? { group } : {}), ...(host ? { host } : {}), ...(script ? { script } : {}), ...(dateList ? { dateList } : {}), ...(resourceGroup ? { resourceGroup } : {}) };
}

/** Ids as the plan keyed them: strings, numbers as text. */
function idText(id: unknown): string | undefined {
  return typeof id === 'string' ? id : typeof id === 'number' ? String(id) : undefined;
}

/** Every touched object that moved since the plan, in plan order. */
export function findStaleObjects(changes: readonly Change[], now: TouchedObjects): StaleObject[] {
  const out: StaleObject[] = [];
  const tasksById = new Map((now.tasks ?? []).map((t) => [taskId(t), t]));
  const tasksByName = new Map<string, Task>();
  for (const t of now.tasks ?? []) if (typeof t.Name === 'string' && !tasksByName.has(t.Name.toLowerCase())) tasksByName.set(t.Name.toLowerCase(), t);
  const aclsById = new Map((now.acls ?? []).map((a) => [String(a.ACLID), a]));
  const aclsByPair = new Map((now.acls ?? []).map((a) => [aclKey(a.ResourceGroupName, a.UserGroupName), a]));
  const stale = (c: Change, how: StaleObject['how'], detail?: string) => out.push({ address: c.address, how, ...(detail !== undefined ? { detail } : {}) });

  for (const c of changes) {
    switch (c.kind) {
      case 'Task': {
        if (c.action === 'create') {
          const other = tasksByName.get(c.name.toLowerCase());
          if (other) stale(c, 'appeared', `a task named ${other.Name ?? c.name} now exists (ID ${taskId(other)})`);
          break;
        }
        const live = c.liveId !== undefined ? tasksById.get(c.liveId) : undefined;
        if (!live) stale(c, 'gone', `task ID ${c.liveId ?? '?'}`);
        else if (fingerprintTask(live) !== c.fingerprint) stale(c, 'changed');
        else if (c.previousName !== undefined) {
          const other = tasksByName.get(c.name.toLowerCase());
          if (other && taskId(other) !== c.liveId) stale(c, 'appeared', `another task named ${c.name} now exists (ID ${taskId(other)})`);
        }
        break;
      }
      case 'ResourceGroupAcl': {
        if (c.action === 'create') {
          const p = c.payload?.kind === 'ResourceGroupAcl' ? c.payload : undefined;
          const other = p ? aclsByPair.get(aclKey(p.resourceGroup, p.userGroup)) : undefined;
          if (other) stale(c, 'appeared', `an ACL for ${other.ResourceGroupName} / ${other.UserGroupName} now exists (ACLID ${other.ACLID})`);
          break;
        }
        const live = c.liveId !== undefined ? aclsById.get(c.liveId) : undefined;
        if (!live) stale(c, 'gone', `ACLID ${c.liveId ?? '?'}`);
        else if (fingerprintAcl(live) !== c.fingerprint) stale(c, 'changed');
        break;
      }
      case 'FolderPermissions': {
        const live = now.folders.get(folderKey(c.name));
        if (c.action === 'create') {
          if (live) stale(c, 'appeared', `folder ${live.folder.path} now exists (id ${live.folder.id})`);
          const parent = createdFolderParent(c);
          if (parent !== undefined && now.parents.get(folderKey(parent)) === false) stale(c, 'gone', `its parent folder ${parent} no longer exists`);
          break;
        }
        const at = c.previousName ?? c.name;
        const found = now.folders.get(folderKey(at));
        if (!found) stale(c, 'gone', `folder id ${c.liveId ?? '?'}${c.previousName !== undefined ? ` at ${at}` : ''}`);
        else if (found.folder.id !== c.liveId) stale(c, 'changed', `${c.previousName !== undefined ? at : 'the path'} now names another folder (id ${found.folder.id}, was ${c.liveId ?? '?'})`);
        else if (fingerprintFolder(found) !== c.fingerprint) stale(c, 'changed');
        else if (c.previousName !== undefined && live) stale(c, 'appeared', `folder ${live.folder.path} now exists (id ${live.folder.id}): the rename would collide with it`);
        break;
      }
      default: {
        const never: never = c.kind;
        throw new Error(`unknown kind ${String(never)}`);
      }
    }
  }
  return out;
}

/** The folder a planned folder create goes under: the payload's, else the path's parent. */
function createdFolderParent(c: Change): string | undefined {
  return (c.payload?.kind === 'FolderPermissions' ? c.payload.create?.parentPath : undefined) ?? parentPath(c.name);
}

function need<T>(reader: T | undefined, service: string): T {
  if (reader === undefined) throw new MftopsError(`the plan changes ${service} objects, but no ${service} service is configured`);
  return reader;
}

