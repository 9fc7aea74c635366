import type { JsonObject } from './json.js';
import type { Profile, Variants } from './variants.js';

export type { Profile, Variants } from './variants.js';

/** A bearer or refresh token the emulator issued. */
export interface TokenRecord {
  readonly kind: 'access' | 'refresh';
  readonly username: string;
  /** Epoch ms on the emulator clock (see `EmulatorState.clockOffsetMs`). */
  readonly expiresAt: number;
  revoked: boolean;
}

/** Tokens of one service, keyed by the token string. */
export type TokenTable = Map<string, TokenRecord>;

// ---------------------------------------------------------------------------------------------
// Automation service

/**
 * A login of the automation service. Admin rights come from `IsAdmin` (membership of the
 * administrators user group); `MemberOf` names the user groups whose resource-group ACLs apply.
 */
export interface AutomationUser extends JsonObject {
  Username: string;
  Password: string;
  IsAdmin: boolean;
  MemberOf: string[];
}

/** Host type keys of the hosts list; `siLock` / `xferLock` (variant `automation.hostType`) is the transfer server. */
export const HOST_TYPES = [
  'siLock',
  'xferLock',
  'FileSystem',
  'FTP',
  'SSHFTP',
  'Share',
  'SMTP',
  'POP3',
  'S3',
  'AS1',
  'AS2',
  'AS3',
  'SharePoint',
  'AzureBlob',
  'GoogleStorage',
] as const;
export type HostType = (typeof HOST_TYPES)[number];

/** A host: its type key and its fields in API shape, passwords included (never sent over REST). */
export interface HostRecord {
  type: HostType;
  fields: JsonObject;
}

export { ACL_PERMISSION_KEYS, FOLDER_PERMISSION_KEYS, SHARE_PERMISSION_KEYS } from './vocabulary.js';
export type { AclPermission, FolderPermission, SharePermission } from './vocabulary.js';
import type { AclPermission, FolderPermission, SharePermission } from './vocabulary.js';

/** A resource-group ACL in API shape `{ACLID, ResourceGroupName, UserGroupName, Permissions}`. */
export interface AclRecord extends JsonObject {
  ACLID: string;
  ResourceGroupName: string;
  UserGroupName: string;
  Permissions: Record<AclPermission, 0 | 1>;
}

/** One audit record (automation §2.7 Audit Report Record, the fields the emulator fills). */
export interface AuditRecord {
  LogID: number;
  LogTime: string;
  Username: string;
  IPAddress: string;
  ClientIP: string;
  Action: string;
  TargetType: string;
  TargetID: string;
  TaskName: string;
  Status: string;
  StatusCode: number;
  StatusMsg: string;
  Node: number;
  AgentBrand: string;
}

/** A task run started through the API; runs never finish on their own. */
export interface TaskRun {
  TaskID: string;
  TaskName: string;
  NominalStart: string;
  TimeStarted: string;
  Status: 'Running' | 'Stopped';
  Scheduled: 0;
}

/**
 * The automation service's configuration plus its sessions. Everything except `tokens`, `audit`
 * and `runs` is configuration: it is what GET /config exports and PUT /config replaces.
 *
 * Tasks are stored in API shape after normalisation (defaults filled, ids numbered), with one
 * difference: `Parameters` (task and Process step) are kept as `{Parameter: [{Name, value,
 * Secret}]}` so secrets keep their value; the REST view suppresses them.
 */
export interface AutomationState {
  users: AutomationUser[];
  /** `{Name, Type: local|remote, Description}` */
  userGroups: JsonObject[];
  /** `{Name, Notes}`; `members` is computed from the objects' `Group` fields. */
  resourceGroups: JsonObject[];
  acls: AclRecord[];
  hosts: HostRecord[];
  customScripts: JsonObject[];
  standardScripts: JsonObject[];
  dateLists: JsonObject[];
  globalParameters: JsonObject[];
  tasks: JsonObject[];
  schedulerEnabled: boolean;
  /** Next numeric object id (tasks, hosts, scripts, ACLs…); ids are decimal strings. */
  nextId: number;
  tokens: TokenTable;
  audit: AuditRecord[];
  runs: TaskRun[];
}

// ---------------------------------------------------------------------------------------------
// Transfer service

export const TRANSFER_PERMISSIONS = ['TemporaryUser', 'User', 'FileAdmin', 'Admin', 'SysAdmin'] as const;
export type TransferPermission = (typeof TRANSFER_PERMISSIONS)[number];

/** A transfer-service user; `id` is a string on every profile. */
export interface TransferUser {
  id: string;
  username: string;
  password: string;
  fullName: string;
  email: string;
  permission: TransferPermission;
  status: string;
  orgID: number;
  /** 0 when the user has no home folder. */
  homeFolderID: number;
}

/** A group; `id` is a JSON number. `members` holds user ids. */
export interface TransferGroup {
  id: number;
  name: string;
  description: string;
  members: string[];
}

export type FolderPermissions = Record<FolderPermission, boolean> & { sharePermissions: Record<SharePermission, boolean> };

/** One folder ACL entry; `id` is the user id or the group id as a string. */
export interface FolderAclEntry {
  type: 'User' | 'Group';
  id: string;
  permissions: FolderPermissions;
  /** false for the home-folder owner: the entry cannot be changed or removed. */
  isEditable: boolean;
  isDeletable: boolean;
}

/**
 * A folder. `details` holds the FolderDetailsModel settings that are plain data (description,
 * quotas, notification settings…); identity, tree position and ACL are separate members.
 */
export interface TransferFolder {
  id: number;
  /** 0 for the root. */
  parentId: number;
  name: string;
  path: string;
  folderType: string;
  /** Home-folder owner's username, '' otherwise. */
  owner: string;
  parentInheritRights: number;
  details: JsonObject;
  acl: FolderAclEntry[];
}

export interface TransferState {
  users: TransferUser[];
  groups: TransferGroup[];
  folders: TransferFolder[];
  nextFolderId: number;
  nextGroupId: number;
  tokens: TokenTable;
}

/** The whole emulator state; tests may read and mutate it directly. */
export interface EmulatorState {
  /** The named set the emulator was started with (its release details: see `NAMED_SETS`). */
  readonly profile: Profile;
  /** The reading of every switch of the register: the profile's, overridden by `variants`. */
  readonly variants: Variants;
  /** Added to the wall clock for token expiry and timestamps: raise it to move time forward. */
  clockOffsetMs: number;
  automation: AutomationState;
  transfer: TransferState;
}

export function nowMs(state: EmulatorState): number {
  return Date.now() + state.clockOffsetMs;
}

/** The transfer-server host type as the `automation.hostType` variant spells it. */
export function xferHostType(variants: Variants): HostType {
  return variants['automation.hostType'];
}

/** Allocate the next automation object id. */
export function allocateId(state: AutomationState): string {
  const id = String(state.nextId);
  state.nextId += 1;
  return id;
}
