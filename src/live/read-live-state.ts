import type { PrunableKind, Scope } from '../config/model.js';
import type { Manifest } from '../manifest/types.js';
import type { AutomationClient, ReadonlyAutomationClient } from '../services/automation/client.js';
import type { ResourceGroupAcl } from '../services/automation/types.js';
import { ApiError } from '../services/errors.js';
import type { ReadonlyTransferClient, TransferClient } from '../services/transfer/client.js';
import type { Folder, FolderAclEntry, TransferUser, TransferUserDetails } from '../services/transfer/types.js';
import { mapWithConcurrency } from '../map-with-concurrency.js';
import { aclKey, folderKey, indexByName, uniqueFolderPaths } from './model.js';
import type { AutomationLiveState, GroupMemberNames, LiveFolder, LiveScript, LiveState, TransferLiveState, UserGroupMemberNames } from './model.js';
import { isSameOrBelow, parentPath } from '../folder-path.js';
import { KIND_IO } from '../kinds/io-registry.js';
import type { LiveNeeds } from '../kinds/kind-io.js';

export type { LiveNeeds } from '../kinds/kind-io.js';

/** Called after each request of a long read: requests done, requests known so far, what was read. */
export type ProgressCallback = (done: number, total: number, what: string) => void;

/**
 * A read-only view that is refused by the compiler when a full client is passed in its place: the
 * members only the full client has (the writes, `close`) must be absent. Structural typing would
 * otherwise accept a full client wherever its read-only view is expected.
 */
export type ReadOnlyView<Full, View> = View & { readonly [K in Exclude<keyof Full, keyof View>]?: never };
export type AutomationReader = ReadOnlyView<AutomationClient, ReadonlyAutomationClient>;
export type TransferReader = ReadOnlyView<TransferClient, ReadonlyTransferClient>;

export interface ReadLiveStateInput {
  readonly manifests: readonly Manifest[];
  /** Read-only views only (`toReadonlyAutomationClient`): reading live state can never write. */
  readonly automation?: AutomationReader;
  readonly transfer?: TransferReader;
  readonly scope: Scope;
  readonly prune: readonly PrunableKind[];
  /** Requests in flight per service for per-folder reads. Default 10. */
  readonly parallelism?: number;
  readonly progress?: ProgressCallback;
  /**
   * The folders task steps on transfer hosts name (cross-server checks), known only once the
   * automation hosts are read: asked when they are, and read with the managed folders' lookups.
   */
  readonly stepFolders?: (automation: AutomationLiveState | undefined) => StepFolderNeeds;
}

/** What the cross-server checks need from the transfer server. */
export interface StepFolderNeeds {
  /** Folder paths the steps name. */
  readonly paths: readonly string[];
  /**
   * Some step has an account to check: the users list is read, and the members of the groups with
   * an entry on those folders (the groups folder manifests name are read for every plan).
   */
  readonly accounts: boolean;
}

/**
 * What must be read, derived from the manifests and the prune settings alone (pure): each kind's
 * part (`KindIo.liveNeeds`), flags or'ed and lists joined, so that a service nothing needs is never
 * contacted and a list nothing needs is never fetched.
 */
export function planLiveReads(manifests: readonly Manifest[], scope: Scope, prune: readonly PrunableKind[]): LiveNeeds {
  const parts = Object.values(KIND_IO).map((io) =>
    io.liveNeeds(
      manifests.filter((m) => m.kind === io.kind),
      scope,
      prune,
    ),
  );
  const automation = parts.flatMap((p) => p.automation ?? []);
  const transfer = parts.flatMap((p) => p.transfer ?? []);
  const any = <T>(of: readonly T[], flag: (part: T) => boolean | undefined) => of.some((part) => flag(part) === true);
  const joined = <T>(of: readonly T[], list: (part: T) => readonly string[] | undefined) => of.flatMap((part) => list(part) ?? []);
  return {
    ...(automation.length > 0
      ? {
          automation: {
            tasks: any(automation, (p) => p.tasks),
            catalogs: any(automation, (p) => p.catalogs),
            resourceGroups: any(automation, (p) => p.resourceGroups),
            acls: any(automation, (p) => p.acls),
            userGroups: joined(automation, (p) => p.userGroups),
          },
        }
      : {}),
    ...(transfer.length > 0
      ? {
          transfer: {
            users: any(transfer, (p) => p.users),
            userDetails: joined(transfer, (p) => p.userDetails),
            groups: any(transfer, (p) => p.groups),
            groupNames: joined(transfer, (p) => p.groupNames),
            folders: joined(transfer, (p) => p.folders),
            previous: joined(transfer, (p) => p.previous),
            creatable: joined(transfer, (p) => p.creatable),
            walk: joined(transfer, (p) => p.walk),
          },
        }
      : {}),
  };
}

/**
 * Reads everything a plan needs with as few requests as the APIs allow: each automation list
 * once (no paging parameters: the whole list in one answer), in parallel; the transfer users and
 * groups once; the managed folders by path (or, when there are many, from one folder list) and
 * each one's ACL, bounded by `parallelism`. Throws the
 * clients' errors (I/O failures); a missing folder is data (`null`), not an error.
 */
export async function readLiveState(input: ReadLiveStateInput): Promise<LiveState> {
  const needs = planLiveReads(input.manifests, input.scope, input.prune);
  const tracker = createTracker(input.progress);
  const parallelism = input.parallelism ?? 10;
  const reading = needs.automation && input.automation ? readAutomation(input.automation, needs.automation, tracker) : Promise.resolve(undefined);
  const stepFolders = input.stepFolders;
  const steps = stepFolders ? reading.then(stepFolders) : undefined;
  // The transfer reads await `steps` only after their own requests, and an automation read that
  // fails first rejects it before anyone listens: unhandled, Node ends the process with a stack
  // trace. Its failure is `reading`'s (reported by Promise.all below) or is awaited in readTransfer.
  steps?.catch(() => undefined);
  const transferReads =
    input.transfer && (needs.transfer || steps) ? readTransfer(input.transfer, needs.transfer ?? NO_TRANSFER_NEEDS, tracker, parallelism, steps) : undefined;
  const [automation, transfer] = await Promise.all([reading, transferReads]);
  return { ...(automation ? { automation } : {}), ...(transfer ? { transfer } : {}) };
}

const NO_TRANSFER_NEEDS: NonNullable<LiveNeeds['transfer']> = {
  users: false,
  userDetails: [],
  groups: false,
  groupNames: [],
  folders: [],
  previous: [],
  creatable: [],
  walk: [],
};

interface Tracker {
  /** `n` more requests are coming. */
  expect(n: number): void;
  run<T>(what: string, call: () => Promise<T>): Promise<T>;
}

function createTracker(progress: ProgressCallback | undefined): Tracker {
  let done = 0;
  let total = 0;
  return {
    expect(n) {
      total += n;
    },
    async run(what, call) {
      const result = await call();
      done++;
      progress?.(done, Math.max(done, total), what);
      return result;
    },
  };
}

async function readAutomation(client: AutomationReader, needs: NonNullable<LiveNeeds['automation']>, t: Tracker): Promise<AutomationLiveState> {
  const skip = Promise.resolve(undefined);
  const lists = [needs.tasks, needs.catalogs, needs.catalogs, needs.catalogs, needs.catalogs, needs.resourceGroups, needs.acls];
  t.expect(1 + lists.filter(Boolean).length);
  const [info, tasks, hosts, custom, standard, dateLists, resourceGroups, acls] = await Promise.all([
    t.run('server info', () => client.info()),
    needs.tasks ? t.run('tasks', () => client.listTasks()) : skip,
    needs.catalogs ? t.run('hosts', () => client.listHosts()) : skip,
    needs.catalogs ? t.run('custom scripts', () => client.listCustomScripts()) : skip,
    needs.catalogs ? t.run('standard scripts', () => client.listStandardScripts()) : skip,
    needs.catalogs ? t.run('date lists', () => client.listDateLists()) : skip,
    needs.resourceGroups ? t.run('resource groups', () => client.listResourceGroups()) : skip,
    needs.acls ? t.run('resource-group ACLs', () => client.listResourceGroupAcls()) : skip,
  ]);
  const state: { -readonly [K in keyof AutomationLiveState]: AutomationLiveState[K] } = { info };
  if (tasks)
    state.tasks = indexByName(
      tasks,
      (x) => x.Name,
      (x) => idText(x.ID),
    );
  if (hosts)
    state.hosts = indexByName(
      hosts,
      (x) => x.Name,
      (x) => x.ID,
    );
  if (custom && standard) {
    const scripts: LiveScript[] = [
      ...custom.map((s) => ({ ...s, origin: 'custom' as const })),
      ...standard.map((s) => ({ ...s, origin: 'standard' as const })),
    ];
    state.scripts = indexByName(
      scripts,
      (x) => x.Name,
      (x) => idText(x.ID),
    );
  }
  if (dateLists)
    state.dateLists = indexByName(
      dateLists,
      (x) => x.Name,
      (x) => idText(x.ID),
    );
  if (resourceGroups) state.resourceGroups = indexByName(resourceGroups, (x) => x.Name);
  if (acls) state.acls = indexAcls(acls);
  if (needs.userGroups.length > 0) state.userGroups = await readUserGroups(client, needs.userGroups, acls ?? [], t);
  return state;
}

function indexAcls(acls: readonly ResourceGroupAcl[]): ReadonlyMap<string, ResourceGroupAcl> {
  const map = new Map<string, ResourceGroupAcl>();
  for (const acl of acls) {
    const key = aclKey(acl.ResourceGroupName, acl.UserGroupName);
    if (!map.has(key)) map.set(key, acl);
  }
  return map;
}

/**
 * The client has no user-group list: a name a live ACL already uses exists; any other is asked
 * for one by one (the lookup is case-sensitive on the server). A 403 means the account may not
 * read user groups, so unknown names cannot be told from typos.
 */
async function readUserGroups(
  client: AutomationReader,
  wanted: readonly string[],
  acls: readonly ResourceGroupAcl[],
  t: Tracker,
): Promise<NonNullable<AutomationLiveState['userGroups']>> {
  const names = new Map<string, string>();
  for (const acl of acls) if (!names.has(acl.UserGroupName.toLowerCase())) names.set(acl.UserGroupName.toLowerCase(), acl.UserGroupName);
  const unknown = wanted.filter((n) => !names.has(n.toLowerCase()));
  let readable = true;
  t.expect(unknown.length);
  await Promise.all(
    unknown.map((name) =>
      t.run(`user group ${name}`, async () => {
        try {
          const group = await client.getUserGroup(name);
          const found = typeof group.Name === 'string' && group.Name !== '' ? group.Name : name;
          names.set(found.toLowerCase(), found);
        } catch (err) {
          if (!(err instanceof ApiError)) throw err;
          if (err.status === 403) readable = false;
          else if (err.status !== 404) throw err;
        }
      }),
    ),
  );
  return { names, readable };
}

/**
 * The members of every user group, from one list (A-28). An optional read: an account that is not
 * an administrator (403), a server without the list (404, 405, 501) or groups answered without
 * members leave those groups' members unknown, and the plan says so; never a failed plan.
 */
export async function readUserGroupMembers(client: AutomationReader): Promise<UserGroupMemberNames> {
  try {
    const groups = await client.listUserGroups();
    const members = new Map<string, readonly string[]>();
    for (const g of groups) if (g.members !== undefined && !members.has(g.name.toLowerCase())) members.set(g.name.toLowerCase(), g.members);
    return { members };
  } catch (err) {
    if (err instanceof ApiError && [403, 404, 405, 501].includes(err.status)) return { members: new Map() };
    throw err;
  }
}

/**
 * The transfer reads; undefined when nothing was needed after all (no managed folder, and no task
 * step on a transfer host). The folders of `steps` are looked up after the managed ones, from the
 * folder list when that was read, and kept apart (`stepFolders`).
 */
async function readTransfer(
  client: TransferReader,
  needs: NonNullable<LiveNeeds['transfer']>,
  t: Tracker,
  parallelism: number,
  steps?: Promise<StepFolderNeeds>,
): Promise<TransferLiveState | undefined> {
  const managed = needs !== NO_TRANSFER_NEEDS;
  if (!managed) {
    const wanted = await steps!;
    if (wanted.paths.length === 0) return undefined;
  }
  t.expect((needs.users ? 1 : 0) + (needs.groups ? 1 : 0));
  const list = folderListReader(client, t);
  const [users, groups, walked] = await Promise.all([
    needs.users ? t.run('users', () => client.listUsers()) : undefined,
    needs.groups ? t.run('groups', () => client.listGroups()) : undefined,
    needs.walk.length > 0 ? walkFolders(client, needs.walk, t, parallelism, list) : undefined,
  ]);

  // Folders by key: the walk found everything below its roots, so only the rest is looked up,
  // previous paths in the same round (from the folder list when it is read anyway).
  const found = new Map<string, Folder | null>(walked ?? []);
  const underWalk = (path: string) => needs.walk.some((root) => isSameOrBelow(path, root));
  const wanted = [...needs.folders, ...needs.previous];
  const toFind = uniqueFolderPaths(wanted.filter((p) => !found.has(folderKey(p)) && !underWalk(p)));
  await findFolders(client, toFind, found, t, parallelism, list);
  for (const p of wanted) if (!found.has(folderKey(p))) found.set(folderKey(p), null);

  // A folder to create needs its parent: look up the parents nothing has read yet.
  const parents = uniqueFolderPaths(
    needs.creatable
      .filter((p) => found.get(folderKey(p)) === null)
      .map(parentPath)
      .filter((p): p is string => p !== undefined && !found.has(folderKey(p)) && !underWalk(p)),
  );
  await findFolders(client, parents, found, t, parallelism, list);

  const present = [...found.entries()].filter((e): e is [string, Folder] => e[1] !== null);
  t.expect(present.length);
  const acls = await mapWithConcurrency(present, parallelism, ([, folder]) => t.run(`permissions of ${folder.path}`, () => client.listFolderAcls(folder.id)));
  const folders = new Map<string, LiveFolder | null>();
  for (const [key, folder] of found) if (folder === null) folders.set(key, null);
  present.forEach(([key, folder], i) => folders.set(key, { folder, acl: acls[i]! }));
  const groupMembers = await readGroupMembers(client, needs.groupNames, acls.flat(), t, parallelism);

  const stepNeeds = steps ? await steps : undefined;
  const checks = stepNeeds ? await readStepFolders(client, stepNeeds, folders, users, t, parallelism, list) : undefined;
  const allUsers = users ?? checks?.users;
  const userDetails = allUsers && needs.userDetails.length > 0 ? await readUserDetails(client, allUsers, needs.userDetails, t, parallelism) : undefined;
  // The groups on the steps' folders that no managed folder showed: their members too, for the accounts' rights.
  const stepGroups =
    stepNeeds?.accounts && checks
      ? [...checks.folders.values()]
          .flatMap((f) => f?.acl ?? [])
          .filter((e) => e.type === 'Group' && e.name !== undefined && groupMembers?.members.has(e.name.toLowerCase()) !== true)
      : [];
  const members = mergeGroupMembers(groupMembers, stepGroups.length > 0 ? await readGroupMembers(client, [], stepGroups, t, parallelism) : undefined);

  return {
    ...(allUsers
      ? {
          users: indexByName(
            allUsers,
            (u) => u.username,
            (u) => u.id,
          ),
        }
      : {}),
    ...(userDetails ? { userDetails } : {}),
    ...(checks ? { stepFolders: checks.folders } : {}),
    ...(groups
      ? {
          groups: indexByName(
            groups,
            (g) => g.name,
            (g) => g.id,
          ),
        }
      : {}),
    folders,
    ...(members ? { groupMembers: members } : {}),
    ...(walked ? { scopeFolders: [...walked.entries()].filter(([, f]) => f !== null).map(([k]) => k) } : {}),
  };
}

/** The details of the named users that exist (one `GET /users/{id}` each, `parallelism` at once), by id. */
async function readUserDetails(
  client: TransferReader,
  users: readonly TransferUser[],
  names: readonly string[],
  t: Tracker,
  parallelism: number,
): Promise<ReadonlyMap<string, TransferUserDetails>> {
  const wanted = new Set(names.map((n) => n.toLowerCase()));
  const found = users.filter((u) => u.id !== '' && wanted.has(u.username.toLowerCase()));
  t.expect(found.length);
  const details = await mapWithConcurrency(found, parallelism, (u) => t.run(`user ${u.username}`, () => client.getUser(u.id)));
  return new Map(found.map((u, i) => [u.id, details[i]!]));
}

/**
 * The folders the cross-server checks need that the managed ones do not include, each with its
 * ACL, and the users list when no folder entry had it read. A users list the account may not read
 * (403/404) leaves the accounts unchecked, never fails the plan.
 */
async function readStepFolders(
  client: TransferReader,
  wanted: StepFolderNeeds,
  managed: ReadonlyMap<string, LiveFolder | null>,
  users: readonly TransferUser[] | undefined,
  t: Tracker,
  parallelism: number,
  list: FolderListReader,
): Promise<{ folders: ReadonlyMap<string, LiveFolder | null>; users?: readonly TransferUser[] }> {
  const paths = uniqueFolderPaths(wanted.paths.filter((p) => !managed.has(folderKey(p))));
  const found = new Map<string, Folder | null>();
  const readUsers = wanted.accounts && users === undefined && wanted.paths.length > 0;
  if (readUsers) t.expect(1);
  const [listed] = await Promise.all([
    readUsers
      ? t
          .run('users', () => client.listUsers())
          .catch((err: unknown) => (err instanceof ApiError && (err.status === 403 || err.status === 404) ? undefined : Promise.reject(err)))
      : undefined,
    findFolders(client, paths, found, t, parallelism, list),
  ]);
  const present = [...found.entries()].filter((e): e is [string, Folder] => e[1] !== null);
  t.expect(present.length);
  const acls = await mapWithConcurrency(present, parallelism, ([, folder]) => t.run(`permissions of ${folder.path}`, () => client.listFolderAcls(folder.id)));
  const folders = new Map<string, LiveFolder | null>();
  for (const p of paths) folders.set(folderKey(p), null);
  present.forEach(([key, folder], i) => folders.set(key, { folder, acl: acls[i]! }));
  return { folders, ...(listed ? { users: listed } : {}) };
}

/** Both reads' members in one; the form of the first that found one. */
function mergeGroupMembers(a: GroupMemberNames | undefined, b: GroupMemberNames | undefined): GroupMemberNames | undefined {
  if (a === undefined || b === undefined) return a ?? b;
  return { form: a.form !== 'none' ? a.form : b.form, members: new Map([...a.members, ...b.members]) };
}

/**
 * Members of every group a live entry or a manifest names, for the access changes a plan shows.
 * An optional read: a server that lists members in no form, or an account that may not, leaves
 * the groups without known members (`form: none`) and the plan says so.
 */
async function readGroupMembers(
  client: TransferReader,
  names: readonly string[],
  entries: readonly FolderAclEntry[],
  t: Tracker,
  parallelism: number,
): Promise<GroupMemberNames | undefined> {
  const ids = new Set(entries.filter((e) => e.type === 'Group').map((e) => String(e.id)));
  if (ids.size === 0 && names.length === 0) return undefined;
  const [users, groups] = await Promise.all([client.listUsers(), client.listGroups()]).catch((err: unknown) => {
    if (err instanceof ApiError && (err.status === 403 || err.status === 404)) return [[], []] as const;
    throw err;
  });
  const wanted = new Set(names.map((n) => n.toLowerCase()));
  for (const g of groups) if (wanted.has(g.name.toLowerCase())) ids.add(g.id);
  // One group first: it finds the form the server answers in (the user field answers every group at once).
  const [first, ...rest] = [...ids];
  if (first === undefined) return { form: 'none', members: new Map() };
  const nameOf = (id: string) => groups.find((g) => g.id === id)?.name ?? id;
  t.expect(1);
  const head = await t.run(`members of group ${nameOf(first)}`, () => client.listGroupMembers([first]));
  const more = head.form === 'members' || head.form === 'usersFilter' ? rest : [];
  t.expect(more.length);
  const tail = await mapWithConcurrency(more, parallelism, (id) => t.run(`members of group ${nameOf(id)}`, () => client.listGroupMembers([id])));
  const byId = new Map([head, ...tail].flatMap((m) => [...m.members]));
  const username = new Map(users.map((u) => [u.id, u.username]));
  const members = new Map<string, string[]>();
  for (const g of groups) {
    const memberIds = byId.get(g.id);
    if (memberIds)
      members.set(
        g.name.toLowerCase(),
        memberIds.flatMap((id) => username.get(id) ?? []),
      );
  }
  return { form: head.form, members };
}

/**
 * Above this many paths to find, the whole folder list is read (GET /folders, 1,000 a page) instead
 * of one lookup per path. At the default parallelism of 10, 25 lookups take 3 rounds, about what a
 * list of a 3,000-folder server takes in pages; below it, lookups are cheaper and do not pull every
 * folder of a large server; above it, the list wins more with every path (2,000 paths: 2-3
 * requests instead of 2,000).
 */
export const FOLDER_LIST_THRESHOLD = 25;

/** Folders by `folderKey` of their path (as the server compares paths), or undefined when the list is not readable. */
type FolderList = ReadonlyMap<string, Folder> | undefined;

async function findFolders(
  client: TransferReader,
  paths: readonly string[],
  into: Map<string, Folder | null>,
  t: Tracker,
  parallelism: number,
  list?: FolderListReader,
): Promise<void> {
  if (paths.length === 0) return;
  // Once the list has been read, it answers any further lookup for free.
  if (list && (paths.length > FOLDER_LIST_THRESHOLD || list.started())) {
    const byPath = await list.read();
    if (byPath) {
      for (const p of paths) into.set(folderKey(p), byPath.get(folderKey(p)) ?? null);
      return;
    }
  }
  t.expect(paths.length);
  const results = await mapWithConcurrency(paths, parallelism, (p) => t.run(`folder ${p}`, () => client.findFolderByPath(p)));
  paths.forEach((p, i) => into.set(folderKey(p), results[i] ?? null));
}

interface FolderListReader {
  read(): Promise<FolderList>;
  started(): boolean;
}

/**
 * The folder list, read once however often asked. A 403/404 on the list (an account that may read
 * single folders but not list them) falls back to lookups by path.
 */
function folderListReader(client: TransferReader, t: Tracker): FolderListReader {
  let read: Promise<FolderList> | undefined;
  const readList = async (): Promise<FolderList> => {
    t.expect(1);
    try {
      const folders = await t.run('folder list', () => client.listFolders());
      const byPath = new Map<string, Folder>();
      for (const f of folders) if (!byPath.has(folderKey(f.path))) byPath.set(folderKey(f.path), f);
      return byPath;
    } catch (err) {
      if (err instanceof ApiError && (err.status === 403 || err.status === 404)) return undefined;
      throw err;
    }
  };
  return { started: () => read !== undefined, read: () => (read ??= readList()) };
}

/**
 * Every folder at or below the roots (a root that does not exist is null). From the folder list
 * when the account may read it: a page per 1,000 folders of the server, where walking the tree
 * takes one subfolder listing per folder in scope (2,000 in scope: 3 requests instead of 2,001).
 * Otherwise breadth first, one subfolder listing per folder.
 */
async function walkFolders(
  client: TransferReader,
  roots: readonly string[],
  t: Tracker,
  parallelism: number,
  list: FolderListReader,
): Promise<Map<string, Folder | null>> {
  const out = new Map<string, Folder | null>();
  const rootPaths = uniqueFolderPaths(roots);
  const byPath = await list.read();
  if (byPath) {
    for (const root of rootPaths) out.set(folderKey(root), byPath.get(folderKey(root)) ?? null);
    for (const [path, folder] of byPath) {
      if (!out.has(folderKey(path)) && rootPaths.some((root) => isSameOrBelow(path, root))) out.set(folderKey(path), folder);
    }
    return out;
  }
  await findFolders(client, rootPaths, out, t, parallelism);
  const seen = new Set<string>();
  let level = [...out.values()].filter((f): f is Folder => f !== null);
  while (level.length > 0) {
    level = level.filter((f) => !seen.has(f.id));
    for (const f of level) seen.add(f.id);
    t.expect(level.length);
    const children = await mapWithConcurrency(level, parallelism, (f) => t.run(`subfolders of ${f.path}`, () => client.listSubfolders(f.id)));
    level = children.flat().filter((f) => !seen.has(f.id) && !out.has(folderKey(f.path)));
    for (const f of level) out.set(folderKey(f.path), f);
  }
  return out;
}

function idText(id: unknown): string | undefined {
  return typeof id === 'string' ? id : typeof id === 'number' ? String(id) : undefined;
}
