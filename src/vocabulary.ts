/**
 * Closed vocabularies of the two server APIs (spec/gaps.md), written once: the manifest schema
 * rules, the client types, the emulator and the plan all draw on these lists.
 */

/** The two servers mftops manages. */
export type ServiceName = 'automation' | 'transfer';

/** Resource-group ACL permissions of the automation service; on the wire each is 0 or 1. */
export const ACL_PERMISSIONS = [
  'TaskRun',
  'TaskEditExisting',
  'TaskAddEditDelete',
  'HostAddEditDelete',
  'ScriptAddEditDelete',
  'SSLAddEditDelete',
  'SSHAddEditDelete',
  'PGPAddEditDelete',
] as const;
export type AclPermission = (typeof ACL_PERMISSIONS)[number];

/** Folder ACL permissions of the transfer service (FolderAclPermissionsModel); booleans on the wire. */
export const FOLDER_PERMISSIONS = [
  'readFiles',
  'writeFiles',
  'deleteFiles',
  'listFiles',
  'notify',
  'addDeleteSubfolders',
  'share',
  'admin',
  'listUsers',
] as const;
export type FolderPermission = (typeof FOLDER_PERMISSIONS)[number];

/** What people a folder is shared with may do (FolderShareAclPermissionsModel). */
export const SHARE_PERMISSIONS = ['readFiles', 'writeFiles', 'deleteFiles', 'listFiles', 'notify', 'listUsers'] as const;
export type SharePermission = (typeof SHARE_PERMISSIONS)[number];

/** Days of the week as mftops writes them (full English names, Monday first). */
export const WEEK_DAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'] as const;
export type DayOfWeek = (typeof WEEK_DAYS)[number];

/** The three-letter names some servers answer with (and manifests may use): `Mon` … `Sun`. */
export const SHORT_WEEK_DAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'] as const;

/**
 * A day name in any case, full (`Monday`) or three letters (`mon`), as the full name; undefined
 * for anything else. The reference says only "day name" (automation §2.4a): both forms exist.
 */
export function canonicalDayName(text: string): DayOfWeek | undefined {
  const t = text.trim().toLowerCase();
  if (t.length < 3) return undefined;
  const i = SHORT_WEEK_DAYS.findIndex((d) => d.toLowerCase() === t.slice(0, 3));
  if (i < 0) return undefined;
  const long = WEEK_DAYS[i]!;
  return t === long.toLowerCase() || t.length === 3 ? long : undefined;
}

/**
 * Step kinds as tasks are written (automation §2.4a "Task input uses Source, Process,
 * Destination") and the names the Steps Type model gives the same members (`MicSourceType`…),
 * which a server may answer with (docs/server-variants.md A-14).
 */
export const MIC_STEP_NAMES = {
  Source: 'MicSourceType',
  Process: 'MicProcessType',
  Destination: 'MicDestinationType',
  Email: 'MicEmailType',
  For: 'MicForType',
  If: 'MicIfType',
  RunTask: 'MicRunTaskType',
  UpdOrig: 'MicUpdOrigType',
} as const;

/** A transfer user's permission level (UserPatchModel `permission`, transfer-users-groups.md), lowest first; `Anonymous` is the server's own and never declared. */
export const USER_PERMISSIONS = ['TemporaryUser', 'User', 'AuditUser', 'FileAdmin', 'Admin', 'SysAdmin'] as const;
export type UserPermission = (typeof USER_PERMISSIONS)[number];

/** Permission levels that administer the server or every file on it: a plan that grants one is flagged for review. */
export const PRIVILEGED_USER_PERMISSIONS: readonly UserPermission[] = ['FileAdmin', 'Admin', 'SysAdmin'];

/** A transfer user's status (UserPatchModel `status`). */
export const USER_STATUSES = ['Active', 'Suspended', 'Template'] as const;
export type UserStatus = (typeof USER_STATUSES)[number];

/** How a transfer user signs on (UserDetailsModel `authMethod`). */
export const USER_AUTH_METHODS = ['MOVEitOnly', 'ExternalOnly', 'Both'] as const;
export type UserAuthMethod = (typeof USER_AUTH_METHODS)[number];

/** The format of a transfer user's notification emails (UserDetailsModel `emailFormat`). */
export const USER_EMAIL_FORMATS = ['HTML', 'Text'] as const;
export type UserEmailFormat = (typeof USER_EMAIL_FORMATS)[number];

/** Which notifications a transfer user receives (UserDetailsModel `receivesNotification`). */
export const USER_NOTIFICATIONS = ['ReceivesNoNotifications', 'ReceivesNotifications', 'AdminReceivesNotifications'] as const;
export type UserNotification = (typeof USER_NOTIFICATIONS)[number];

/** The resource kinds a manifest declares. */
export const MANIFEST_KINDS = ['Task', 'ResourceGroupAcl', 'FolderPermissions', 'User', 'Group'] as const;
export type ManifestKind = (typeof MANIFEST_KINDS)[number];

/**
 * Every kind a manifest file may hold: the resource kinds, `Policy` and `Patch`. Neither is a
 * resource: the loader keeps policies apart (`ManifestSet.policies`) and merges patches into
 * their targets (src/manifest/patch.ts), so nothing that plans, applies, imports or prunes ever
 * sees one. The one list: the schema's kinds, MF102's message and its explanation read it.
 */
export const DOCUMENT_KINDS = [...MANIFEST_KINDS, 'Policy', 'Patch'] as const;
export type DocumentKind = (typeof DOCUMENT_KINDS)[number];
