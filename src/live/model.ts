import type { AboutInfo, DateList, Host, NamedObject, ResourceGroup, ResourceGroupAcl, Task } from '../services/automation/types.js';
import type { Folder, FolderAclEntry, GroupMembersForm, TransferGroup, TransferUser, TransferUserDetails } from '../services/transfer/types.js';
export { folderKey, uniqueFolderPaths } from '../folder-path.js';
// The stale check reads ACLs by this key too, below this module: it lives in a leaf.
export { aclKey } from '../resource-group-acl-key.js';

/**
 * What the servers hold, as far as a plan needs it: read once by `readLiveState` (the I/O edge),
 * then only looked at by the pure planner. Objects are kept exactly as the read-only clients
 * return them (already normalised by the clients: ids as strings, task parameters in map form,
 * hosts unwrapped with their wire `type`).
 *
 * Collections are indexed by identity so that matching is a lookup, never a scan: names are
 * lower-cased because both servers fold case in names (task, host, group, folder path). A member
 * is `undefined` when it was not read because no manifest and no prune needed it — the planner
 * never reads "not read" as "empty".
 */
export interface LiveState {
  /** Absent when no manifest and no prune needs the automation service (it was not contacted). */
  readonly automation?: AutomationLiveState;
  /** Absent when no manifest and no prune needs the transfer service. */
  readonly transfer?: TransferLiveState;
}

/** Items by lower-cased name and by server id. When two items share a name the first wins. */
export interface NamedIndex<T> {
  readonly items: readonly T[];
  readonly byName: ReadonlyMap<string, T>;
  readonly byId: ReadonlyMap<string, T>;
}

export interface AutomationLiveState {
  /** GET /info: the server's version and the account used. */
  readonly info?: AboutInfo;
  /** Every task the account can see (the list returns whole tasks). */
  readonly tasks?: NamedIndex<Task>;
  /** Hosts with their wire `type` (`siLock`/`xferLock`, `SSHFTP`, ...). */
  readonly hosts?: NamedIndex<Host>;
  /** Custom and standard scripts together: a Process step's `Script` may name either. */
  readonly scripts?: NamedIndex<LiveScript>;
  readonly dateLists?: NamedIndex<DateList>;
  /** Resource groups by name (they have no id). */
  readonly resourceGroups?: NamedIndex<ResourceGroup>;
  /** Resource-group ACLs keyed by `aclKey(resourceGroup, userGroup)`. */
  readonly acls?: ReadonlyMap<string, ResourceGroupAcl>;
  /**
   * User groups known to exist, lower-cased name → the server's spelling: every user group named
   * by a live ACL, plus those looked up one by one for ACL manifests. `readable` is false when the
   * account may not read user groups (403): then an unknown name is not an error.
   */
  readonly userGroups?: { readonly names: ReadonlyMap<string, string>; readonly readable: boolean };
  /**
   * Members of the user groups (A-28, one `GET /usergroups`), read only once a plan changes the
   * permissions of a resource-group ACL; undefined when not read.
   */
  readonly userGroupMembers?: UserGroupMemberNames;
}

/** User-group members as read from the automation server. */
export interface UserGroupMemberNames {
  /** Usernames by lower-cased user-group name; a group missing: its members could not be read. */
  readonly members: ReadonlyMap<string, readonly string[]>;
}

/** A custom or standard script; `origin` says which list it came from. */
export interface LiveScript extends NamedObject {
  readonly origin: 'custom' | 'standard';
}

export interface TransferLiveState {
  /**
   * Users by lower-cased username; undefined when no folder entry names a user and no step on a
   * transfer host has an account to check (or the account may not read the list).
   */
  readonly users?: NamedIndex<TransferUser>;
  /**
   * The details (`GET /users/{id}`, UserDetailsModel) of the users User manifests manage (by
   * `metadata.name` or a previous name) that exist, by user id; undefined when no User manifest
   * was planned. Unmanaged users are known from the list alone.
   */
  readonly userDetails?: ReadonlyMap<string, TransferUserDetails>;
  /** Groups by lower-cased name; undefined when no folder entry names a group. */
  readonly groups?: NamedIndex<TransferGroup>;
  /**
   * Members of the groups live entries and manifests name (T-16); undefined when no entry names a
   * group.
   */
  readonly groupMembers?: GroupMemberNames;
  /**
   * Folders looked up, by lower-cased path: the folder and its ACL, or `null` when the server has
   * no such folder (or the account may not see it: the API answers both with 403).
   */
  readonly folders: ReadonlyMap<string, LiveFolder | null>;
  /**
   * Folders named by task steps on transfer hosts (the cross-server checks) that `folders` does
   * not hold, in the same form; undefined when no check needed any.
   */
  readonly stepFolders?: ReadonlyMap<string, LiveFolder | null>;
  /**
   * Lower-cased paths of every folder found under `scope.folders` (the roots included), when a
   * prune of FolderPermissions asked for the walk; undefined otherwise.
   */
  readonly scopeFolders?: readonly string[];
}

/**
 * What the guard on privileged accounts of `mftops drift` read (src/live/read-accounts.ts), per
 * service; a service the environment does not configure is absent.
 */
export interface AccountsLiveState {
  /** Every transfer user (`GET /users`, SimpleUserModel: permission, status, lastLoginStamp). */
  readonly transfer?: AccountsRead<readonly TransferUser[]>;
  /** The members of the automation server's administrators user group (`GET /usergroups`). */
  readonly automation?: AccountsRead<{ readonly group: string; readonly members: readonly string[] }>;
}

/** A read of the accounts, or why it could not be made (never an error: the report says so). */
export type AccountsRead<T> =
  | { readonly state: 'read'; readonly value: T }
  | { readonly state: 'unreadable'; readonly httpStatus?: number; readonly message: string };

/** Group members by name, as read from the transfer server. */
export interface GroupMemberNames {
  /** How the server told them; `none`: no form answered, no group has known members. */
  readonly form: GroupMembersForm;
  /** Usernames by lower-cased group name; a group missing: its members could not be read. */
  readonly members: ReadonlyMap<string, readonly string[]>;
}

/** A folder and its ACL entries as read (`type` may be `None`/`Email` on newer servers: kept, never touched). */
export interface LiveFolder {
  readonly folder: Folder;
  readonly acl: readonly FolderAclEntry[];
}

/** Index items by lower-cased name and by id (first one wins on a clash). */
export function indexByName<T>(
  items: readonly T[],
  nameOf: (item: T) => string | undefined,
  idOf: (item: T) => string | undefined = () => undefined,
): NamedIndex<T> {
  const byName = new Map<string, T>();
  const byId = new Map<string, T>();
  for (const item of items) {
    const name = nameOf(item);
    if (name !== undefined && name !== '' && !byName.has(name.toLowerCase())) byName.set(name.toLowerCase(), item);
    const id = idOf(item);
    if (id !== undefined && id !== '' && !byId.has(id)) byId.set(id, item);
  }
  return { items, byName, byId };
}
