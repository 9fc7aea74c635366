import type { LiveFolder } from '../live/model.js';
import { folderKey } from '../live/model.js';
import { readLiveState } from '../live/read-live-state.js';
import type { AutomationReader, ProgressCallback, TransferReader } from '../live/read-live-state.js';
import type { ImportSelection, ImportSource } from './model.js';
import { isPathGlob, pathGlobRoot } from '../glob.js';
import { mapWithConcurrency } from '../map-with-concurrency.js';
import type { TransferUser, TransferUserDetails } from '../services/transfer/types.js';
import { selectUsers } from './select.js';
import type { LiveGroupMembers } from '../kinds/group/to-manifest.js';
import { withDefined } from '../with-defined.js';

export interface ReadImportSourceInput {
  /** Read-only views only: importing never writes to a server. */
  readonly automation?: AutomationReader;
  readonly transfer?: TransferReader;
  readonly selection: ImportSelection;
  /** For messages: where the objects come from. */
  readonly origin: string;
  readonly parallelism?: number;
  readonly progress?: ProgressCallback;
}

/**
 * The live objects an import needs, with the fewest reads: for tasks the task list (filtered by
 * the server when `--name` is a mask) and the host, script and date-list lists that turn ids into
 * names; for ACLs their list; for folders a walk below the scope roots (or the glob's fixed part,
 * or `/` with `--all`) or one lookup per exact path, each found folder's ACL once.
 */
export async function readImportSource(input: ReadImportSourceInput): Promise<ImportSource> {
  const s = input.selection;
  const a = input.automation;
  const wantTasks = s.kinds.includes('Task');
  const wantAcls = s.kinds.includes('ResourceGroupAcl');
  const wantFolders = s.kinds.includes('FolderPermissions');
  const wantUsers = s.kinds.includes('User');
  const wantGroups = s.kinds.includes('Group');
  if ((wantTasks || wantAcls) && a === undefined) throw new Error('bug: tasks or ACLs to import but no automation client');
  if ((wantFolders || wantUsers || wantGroups) && input.transfer === undefined)
    throw new Error('bug: folders, users or groups to import but no transfer client');
  const none = Promise.resolve([]);
  const [tasks, hosts, custom, standard, dateLists, acls, folders, users, groups] = await Promise.all([
    wantTasks ? a!.listTasks(s.name !== undefined ? { name: s.name } : {}) : none,
    wantTasks ? a!.listHosts() : none,
    wantTasks ? a!.listCustomScripts() : none,
    wantTasks ? a!.listStandardScripts() : none,
    wantTasks ? a!.listDateLists() : none,
    wantAcls ? a!.listResourceGroupAcls() : none,
    wantFolders ? readFolders(input.transfer!, s, input.parallelism, input.progress) : Promise.resolve({ folders: [], exact: [] }),
    wantUsers ? readUsers(input.transfer!, s, input.parallelism) : undefined,
    wantGroups ? readGroups(input.transfer!) : undefined,
  ]);
  return {
    origin: input.origin,
    tasks,
    hosts,
    scripts: [...custom, ...standard],
    dateLists,
    acls,
    folders: folders.folders,
    exactFolders: folders.exact,
    ...(users ? { users: users.users, userDetails: users.details } : {}),
    ...withDefined({ groups }),
  };
}

/** The users the selection names, and the details of each (one `GET /users/{id}` per user, `parallelism` at once). */
async function readUsers(
  transfer: TransferReader,
  s: ImportSelection,
  parallelism = 10,
): Promise<{ users: readonly TransferUser[]; details: ReadonlyMap<string, TransferUserDetails> }> {
  const users = selectUsers({ users: await transfer.listUsers() }, s);
  const details = await mapWithConcurrency(users, parallelism, (u) => transfer.getUser(u.id));
  return { users, details: new Map(users.map((u, i) => [u.id, details[i]!])) };
}

/** Every group with its members' usernames, in whichever form the server tells them (T-16). */
async function readGroups(transfer: TransferReader): Promise<LiveGroupMembers[]> {
  const [users, groups] = await Promise.all([transfer.listUsers(), transfer.listGroups()]);
  const membership = groups.length > 0 ? await transfer.listGroupMembers(groups.map((g) => g.id)) : undefined;
  const username = new Map(users.map((u) => [u.id, u.username]));
  return groups.map((group) => {
    const ids = membership?.members.get(group.id);
    return { group, members: ids?.flatMap((id) => username.get(id) ?? []) };
  });
}

async function readFolders(
  transfer: TransferReader,
  s: ImportSelection,
  parallelism: number | undefined,
  progress: ProgressCallback | undefined,
): Promise<{ folders: LiveFolder[]; exact: string[] }> {
  const exact = s.name !== undefined && !isPathGlob(s.name) ? [s.name] : [];
  const roots = exact.length > 0 ? [] : s.name !== undefined ? [pathGlobRoot(s.name)] : s.all ? ['/'] : [...s.scope.folders];
  const folders: LiveFolder[] = [];
  if (roots.length > 0) {
    // The planner's walk reads exactly this: every folder below the roots and its ACL.
    const live = await readLiveState({
      manifests: [],
      transfer,
      scope: { taskGroups: [], folders: roots },
      prune: ['FolderPermissions'],
      ...(parallelism !== undefined ? { parallelism } : {}),
      ...(progress ? { progress } : {}),
    });
    for (const f of live.transfer?.folders.values() ?? []) if (f !== null) folders.push(f);
  }
  for (const path of exact) {
    const folder = await transfer.findFolderByPath(path);
    if (folder === null) continue;
    folders.push({ folder, acl: await transfer.listFolderAcls(folder.id) });
  }
  return { folders, exact: exact.map(folderKey) };
}
