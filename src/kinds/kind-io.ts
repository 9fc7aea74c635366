import type { PrunableKind, Scope } from '../config/model.js';
import { MftopsError } from '../errors.js';
import type { Manifest } from '../manifest/types.js';
import type { Change, ResourceKind } from '../plan/model.js';
import type { JsonValue, Payload } from '../resources/model.js';
import type { AutomationClient, ReadonlyAutomationClient } from '../services/automation/client.js';
import { ApiError } from '../services/errors.js';
import type { ReadonlyTransferClient, TransferClient } from '../services/transfer/client.js';
import type { CreatedIds } from './created-ids.js';
import type { FolderStep, FolderTouched } from './folder-permissions/io.js';
import type { AclStep, AclTouched } from './resource-group-acl/io.js';
import type { TaskStep, TaskTouched } from './task/io.js';
import type { UserStep, UserTouched } from './user/io.js';
import type { GroupStep, GroupTouched } from './group/io.js';
import type { ImportPartOf, ImportSelection, ReadLiveForImport } from './kind-import.js';

/**
 * The I/O half of a resource kind (its pure half is `KindDefinition`): what apply sends for a
 * change of the kind, step by step, how it reads an object back by identity when a write's
 * outcome is unknown, and what the stale-plan guard reads again. `KIND_IO`
 * (`src/kinds/io-registry.ts`) holds one per kind; `src/apply` looks the kind up there instead of
 * switching on it. The clients' calls stay in `src/services`: a kind's io file calls them.
 */
export interface KindIo<K extends ResourceKind> {
  readonly kind: K;
  /** The ids a change of this kind reports (ledger, summary), from its object's id. */
  idsOf(id: string): ChangeIds;
  /** Its object's id among `ids`, once known: what the table of the apply's ids records. */
  idIn(ids: ChangeIds): string | undefined;
  /**
   * What a plan must read for the manifests of this kind (pure; every manifest given is of the
   * kind, and there may be none when the kind is pruned): its part of `LiveNeeds`.
   */
  liveNeeds(manifests: readonly Manifest[], scope: Scope, prune: readonly PrunableKind[]): LiveNeedsPart;
  /** What a document of this kind starts reading while the manifests load (plan and drift; `ReadAhead`). */
  readonly readAhead: ReadAhead;
  /**
   * The requests of a write change, in order, from its payload (secrets resolved). A change whose
   * data cannot be sent (no payload, no live id for an update) is a bug in the plan: it throws.
   */
  planSteps(change: Change, payload: Payload | undefined): StepOf<K>[];
  /** Send one step; returns the ids it produced or worked on. */
  sendStep(step: StepOf<K>, ctx: StepContext): Promise<ChangeIds>;
  /** Read the step's object by identity: did the write take effect? Read errors are thrown. */
  confirmStep(step: StepOf<K>, ctx: StepContext): Promise<Confirmation<StepOf<K>>>;
  /**
   * The steps whose objects verification reads back for an applied change (`ids`: what it
   * produced), the same reads as after an unknown outcome.
   */
  verifySteps(change: Change, ids: ChangeIds | undefined): StepOf<K>[];
  /** The stale-plan guard's reads for the changes of this kind (at least one), the fewest requests. */
  readTouched(changes: readonly Change[], readers: StaleCheckReaders, parallelism: number): Promise<TouchedOf<K>>;
  /** Pure: how the change's object moved since the plan (none: it did not). */
  findStale(change: Change, now: TouchedOf<K>): StaleFinding[];
  /** What a change of this kind leaves undone when a request after its first fails (`the task was deleted but not created again`), if it says more than the count. */
  describeLeftUndone(change: Change): string | undefined;
  /** Words for a change of this kind that another change of the apply needs, as the reason that one is not started: `creating its parent folder (…)`. */
  describeNeeded(needed: Change): string;
  /** The payload with each string `walk` maps (secret references replaced by values); a kind whose payload holds none returns it as it is. */
  mapPayloadStrings(payload: Payload, walk: (value: JsonValue) => JsonValue): Payload;
  /**
   * What `mftops import` reads for the kind when it is selected, with the fewest requests: its
   * part of the `ImportSource` (read-only clients; the service's client is there).
   */
  readForImport(context: ImportReadContext): Promise<ImportPartOf<K>>;
}

/**
 * The reads one document of a kind starts while the manifests load (issue 29,
 * src/app/prefetch-reads.ts), before `liveNeeds` can say what the whole set needs; each is a read
 * `readLiveState` sends anyway for such a document, only earlier:
 * - `task-lists`: the automation info and the lists a task is planned against (tasks, hosts,
 *   scripts, date lists, resource groups);
 * - `acl-lists`: the automation info, the resource groups and their ACLs;
 * - `folder-acl`: the document's folder's ACL (the folder list first, once enough folders are named);
 * - `none`: nothing ahead (the kind's reads depend on the whole set, e.g. users' and groups' lookups).
 */
export type ReadAhead = 'task-lists' | 'acl-lists' | 'folder-acl' | 'none';

/** What a kind's import read reads with: read-only clients of the services the selection needs. */
export interface ImportReadContext {
  readonly automation?: Pick<
    ReadonlyAutomationClient,
    'listTasks' | 'listHosts' | 'listCustomScripts' | 'listStandardScripts' | 'listDateLists' | 'listResourceGroupAcls'
  >;
  readonly transfer?: Pick<ReadonlyTransferClient, 'listUsers' | 'getUser' | 'listGroups' | 'listGroupMembers' | 'findFolderByPath' | 'listFolderAcls'>;
  readonly selection: ImportSelection;
  /** Per-object reads in flight per server (absent: the reader's default). */
  readonly parallelism: number | undefined;
  /** The planner's read of the live state (a walk of a kind's scope roots). */
  readonly readLive: ReadLiveForImport;
}

/**
 * Each kind's associated I/O types: its steps and what the stale check reads for it. A new kind
 * adds its row; `StepOf`/`TouchedOf` (and so `KIND_IO`) do not compile without it.
 */
export interface KindIoTypes {
  readonly Task: { readonly step: TaskStep; readonly touched: TaskTouched };
  readonly ResourceGroupAcl: { readonly step: AclStep; readonly touched: AclTouched };
  readonly FolderPermissions: { readonly step: FolderStep; readonly touched: FolderTouched };
  readonly User: { readonly step: UserStep; readonly touched: UserTouched };
  readonly Group: { readonly step: GroupStep; readonly touched: GroupTouched };
}

export type StepOf<K extends ResourceKind> = KindIoTypes[K]['step'];
export type TouchedOf<K extends ResourceKind> = KindIoTypes[K]['touched'];

/**
 * A change as the requests it takes: one step is one write request, data the executor's state
 * machine walks; each kind's io file says how it is sent and re-read.
 */
export type Step = StepOf<ResourceKind>;
export type StepOp = Step['op'];

/**
 * What a plan must read, derived from the manifests and the prune settings alone (pure,
 * `planLiveReads` in src/live), so that a service nothing needs is never contacted and a list
 * nothing needs is never fetched.
 */
export interface LiveNeeds {
  readonly automation?: {
    /** Task manifests, or a prune of Tasks with task groups in scope. */
    readonly tasks: boolean;
    /** Hosts, scripts and date lists: the names Task manifests reference, and pruned tasks are shown with. */
    readonly catalogs: boolean;
    /** Task groups and ACL resource groups are checked against them. */
    readonly resourceGroups: boolean;
    /** ACL manifests, or a prune of ResourceGroupAcls with task groups in scope. */
    readonly acls: boolean;
    /** User groups named by ACL manifests (looked up unless a live ACL already names them). */
    readonly userGroups: readonly string[];
  };
  readonly transfer?: {
    /** Folder entries name users / groups: the lists are read to resolve names to ids. */
    readonly users: boolean;
    /** Usernames whose details are read (`GET /users/{id}`, one request each) when they exist: the managed users and their previous names. */
    readonly userDetails: readonly string[];
    readonly groups: boolean;
    /** Groups the folder manifests name: their members are read (with those of the groups live entries name). */
    readonly groupNames: readonly string[];
    /** Managed folder paths. */
    readonly folders: readonly string[];
    /** Their previous paths (`metadata.previousNames`): a folder found at one is renamed, not created. */
    readonly previous: readonly string[];
    /** Managed folders that may be created: their parent is looked up when they are missing. */
    readonly creatable: readonly string[];
    /** Scope roots to walk (prune of FolderPermissions). */
    readonly walk: readonly string[];
  };
}

/** A kind's part of `LiveNeeds`: only what it needs; the parts are merged, flags or'ed and lists joined. */
export interface LiveNeedsPart {
  readonly automation?: Partial<NonNullable<LiveNeeds['automation']>>;
  readonly transfer?: Partial<NonNullable<LiveNeeds['transfer']>>;
}

/** Server ids a change produced or worked on, for the ledger and the summary. */
export interface ChangeIds {
  /** Task id: the created one for `create`/`replace`, the live one otherwise. */
  readonly task?: string;
  readonly acl?: string;
  readonly folder?: string;
  readonly user?: string;
  readonly group?: string;
}

/** What apply needs of the automation client: its writes and the reads that identify objects. */
export type AutomationWriter = Pick<
  AutomationClient,
  | 'listTasks'
  | 'getTask'
  | 'createTask'
  | 'updateTask'
  | 'deleteTask'
  | 'listResourceGroupAcls'
  | 'getResourceGroupAcl'
  | 'createResourceGroupAcl'
  | 'updateResourceGroupAcl'
  | 'deleteResourceGroupAcl'
>;
export type TransferWriter = Pick<
  TransferClient,
  | 'findFolderByPath'
  | 'createSubfolder'
  | 'renameFolder'
  | 'listFolderAcls'
  | 'setFolderAcl'
  | 'deleteFolderAcl'
  | 'listUsers'
  | 'listGroups'
  | 'listGroupMembers'
  | 'createGroup'
  | 'addGroupMembers'
  | 'removeGroupMember'
  | 'findUser'
  | 'getUser'
  | 'createUser'
  | 'patchUser'
  | 'deleteUser'
>;

export interface WriteClients {
  readonly automation?: AutomationWriter;
  readonly transfer?: TransferWriter;
}

/** Shared by all changes of one apply. */
export interface StepContext {
  readonly clients: WriteClients;
  /** The ids of the objects this apply writes, by address: the plan's, and those created so far. */
  readonly created: CreatedIds;
}

/** A step that cannot be sent for a reason that is not an HTTP answer (a missing parent folder). */
export class StepError extends MftopsError {}

/**
 * What a re-read found after a write with an unknown outcome.
 * - `done`: the write took effect; nothing more to send.
 * - `resend`: it did not (or not as wanted): send `step` (the same one, or — when a create did
 *   take effect but the object differs — an update of what was created, never a second create).
 * - `fail`: the object went away under us; the change fails with `message`.
 */
export type Confirmation<S = Step> =
  | { readonly kind: 'done'; readonly ids: ChangeIds }
  | { readonly kind: 'resend'; readonly step: S }
  | { readonly kind: 'fail'; readonly message: string };

/** What the stale-plan guard reads with (the lists of resolved names included). */
export interface StaleCheckReaders {
  readonly automation?: Pick<
    ReadonlyAutomationClient,
    'listTasks' | 'listResourceGroupAcls' | 'listHosts' | 'listCustomScripts' | 'listStandardScripts' | 'listDateLists' | 'listResourceGroups'
  >;
  readonly transfer?: Pick<ReadonlyTransferClient, 'findFolderByPath' | 'listFolderAcls' | 'listUsers' | 'listGroups' | 'listGroupMembers' | 'getUser'>;
}

/**
 * An object that moved between plan and apply.
 * - `changed`: its fingerprint differs from the one the plan was computed from;
 * - `appeared`: the plan creates it, and it now exists;
 * - `gone`: the plan changes or deletes it (or creates a folder under it), and it no longer exists.
 */
export type StaleHow = 'changed' | 'appeared' | 'gone';

/** How one change's object moved; `detail`: extra words, e.g. which parent folder is gone. */
export interface StaleFinding {
  readonly how: StaleHow;
  readonly detail?: string;
}

export function automationWriter(ctx: StepContext): AutomationWriter {
  if (!ctx.clients.automation) throw new StepError('the automation service is not configured for this environment');
  return ctx.clients.automation;
}

export function transferWriter(ctx: StepContext): TransferWriter {
  if (!ctx.clients.transfer) throw new StepError('the transfer service is not configured for this environment');
  return ctx.clients.transfer;
}

/** The stale check's reader of a service the changes need. */
export function needReader<T>(reader: T | undefined, service: string): T {
  if (reader === undefined) throw new MftopsError(`the plan changes ${service} objects, but no ${service} service is configured`);
  return reader;
}

/** The read-only client an import of `what` reads with; its service's client is always given for a selected kind. */
export function importReader<T>(reader: T | undefined, what: string, service: string): T {
  if (reader === undefined) throw new Error(`bug: ${what} to import but no ${service} client`);
  return reader;
}

/** The object, or null when the server says it does not exist (404) or may not be seen (403). */
export async function readOrNull<T>(read: () => Promise<T>): Promise<T | null> {
  try {
    return await read();
  } catch (err) {
    if (err instanceof ApiError && (err.status === 404 || err.status === 403)) return null;
    throw err;
  }
}

/** A change whose data cannot be sent: a bug in the plan, named by the change. */
export function planBug(change: Change, what: string): never {
  throw new Error(`${change.address}: cannot ${change.action} (${what}); make the plan again`);
}

/** The change's live id, which an update or delete must have. */
export function liveIdOf(change: Change): string {
  return change.liveId ?? planBug(change, 'no live id in the plan');
}

/** `creating Task/Payroll (which it needs)`: a needed change in words any kind may use. */
export function describeNeededChange(needed: Change): string {
  const verbs: Readonly<Record<Change['action'], string>> = {
    create: 'creating',
    update: 'updating',
    replace: 'replacing',
    delete: 'deleting',
    'no-op': 'checking',
    blocked: 'unblocking',
  };
  return `${verbs[needed.action]} ${needed.address} (which it needs)`;
}
