import type { CredentialStore } from './credentials.js';
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

/**
 * A task run: started through the API (`Scheduled: 0`), seeded, or started by a test (maybe as
 * the scheduler's, `Scheduled: 1`). It runs until stopped, or until `endsAtMs` of the emulator
 * clock, when it is `Completed` (`settleRuns`). `endsAtMs` is the emulator's own: never answered.
 */
export interface TaskRun {
  TaskID: string;
  TaskName: string;
  NominalStart: string;
  TimeStarted: string;
  Status: 'Running' | 'Stopped' | 'Completed';
  Scheduled: 0 | 1;
  /** Emulator clock (epoch ms) at which the run completes; absent: it runs until stopped. */
  endsAtMs?: number;
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
  /** PGP keys, SSH keys, SSL certificates (public metadata only; src/emulator/credentials.ts). */
  credentials?: CredentialStore;
}

// ---------------------------------------------------------------------------------------------
// Transfer service

export { USER_PERMISSIONS as TRANSFER_PERMISSIONS } from './vocabulary.js';
import type { AuthMethod, EmailFormat, ReceivesNotification, UserPermission, UserStatus } from './vocabulary.js';
export type TransferPermission = UserPermission;

/**
 * A transfer-service user: the UserDetailsModel of transfer-users-groups.md plus the password,
 * which no read ever answers. `id` is a string on every profile.
 */
export interface TransferUser {
  id: string;
  username: string;
  /** Write-only: taken by POST /users, PATCH /users/{id} and the token grant, never answered. '' = none set: the user cannot sign on. */
  password: string;
  fullName: string;
  email: string;
  permission: TransferPermission;
  /** Suspended and Template users cannot sign on. */
  status: UserStatus;
  orgID: number;
  /** ISO time of the last sign-on (a password grant); '' = never signed on. */
  lastLoginStamp: string;
  emailFormat: EmailFormat;
  notes: string;
  statusNote: string;
  /** ISO time the password was last set. */
  passwordChangeStamp: string;
  receivesNotification: ReceivesNotification;
  forceChangePassword: boolean;
  /** Bytes; 0 = no quota. */
  folderQuota: number;
  /** Bytes held; the emulator holds no files, so 0. */
  totalFileSize: number;
  authMethod: AuthMethod;
  language: string;
  /** 0 when the user has no home folder. */
  homeFolderID: number;
  /** The folder the user sees first; the home folder by default, 0 when none. */
  defaultFolderID: number;
  expirationPolicyID: number;
}

/** The fields a new user needs; every other field takes its default (`newTransferUser`). */
export type TransferUserCore = Pick<TransferUser, 'id' | 'username' | 'password'> & Partial<Omit<TransferUser, 'id' | 'username' | 'password'>>;

/** A user with the defaults of a new account for every field `core` leaves out. */
export function newTransferUser(core: TransferUserCore): TransferUser {
  return {
    fullName: core.username,
    email: `${core.username}@example.com`,
    permission: 'User',
    status: 'Active',
    orgID: 0,
    lastLoginStamp: '',
    emailFormat: 'HTML',
    notes: '',
    statusNote: '',
    passwordChangeStamp: '2026-01-05T08:00:00Z',
    receivesNotification: 'ReceivesNotifications',
    forceChangePassword: false,
    folderQuota: 0,
    totalFileSize: 0,
    authMethod: 'MOVEitOnly',
    language: 'en',
    homeFolderID: 0,
    defaultFolderID: core.homeFolderID ?? 0,
    expirationPolicyID: 0,
    ...core,
  };
}

/**
 * A user or group change the transfer service took, kept in state only: the transfer references
 * show no audit endpoint (SPEC rule 156), so nothing answers these; tests read them.
 */
export interface TransferAuditRecord {
  /** 1, 2, … in order. */
  readonly id: number;
  /** ISO time on the emulator clock. */
  readonly time: string;
  /** Who made the change (the bearer's username). */
  readonly username: string;
  readonly ip: string;
  readonly action: 'user.create' | 'user.update' | 'user.delete' | 'group.create' | 'group.addMember' | 'group.removeMember';
  readonly targetType: 'User' | 'Group';
  /** The user id, or the group id as a string. */
  readonly targetId: string;
  /** The username or group name at the time. */
  readonly targetName: string;
  /** The fields a user update set (names only, never values: a password stays out). */
  readonly fields?: readonly string[];
  /** For a membership change: the member's username. */
  readonly member?: string;
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
  /** User and group changes, oldest first (state only: no endpoint answers them). */
  audit: TransferAuditRecord[];
}

/** The whole emulator state; tests may read and mutate it directly. */
export interface EmulatorState {
  /** The named set the emulator was started with (its release details: see `NAMED_SETS`). */
  readonly profile: Profile;
  /** The reading of every switch of the register: the profile's, overridden by `variants`. */
  readonly variants: Variants;
  /** Added to the wall clock for token expiry and timestamps: raise it to move time forward. */
  clockOffsetMs: number;
  /**
   * How long (ms of the emulator clock) a run started through `POST /tasks/{id}/start` lasts;
   * absent: until stopped (the `runSeconds` option; tests may change it).
   */
  runMs?: number;
  automation: AutomationState;
  transfer: TransferState;
}

export function nowMs(state: EmulatorState): number {
  return Date.now() + state.clockOffsetMs;
}

/** Completes every running run whose end has come on the emulator clock (read before runs are answered or matched). */
export function settleRuns(state: EmulatorState): void {
  const now = nowMs(state);
  for (const r of state.automation.runs) if (r.Status === 'Running' && r.endsAtMs !== undefined && r.endsAtMs <= now) r.Status = 'Completed';
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
