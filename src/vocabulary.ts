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

/** The resource kinds a manifest declares. */
export const MANIFEST_KINDS = ['Task', 'ResourceGroupAcl', 'FolderPermissions', 'Group'] as const;
export type ManifestKind = (typeof MANIFEST_KINDS)[number];

/**
 * Every kind a manifest file may hold: the resource kinds, `Policy` and `Patch`. Neither is a
 * resource: the loader keeps policies apart (`ManifestSet.policies`) and merges patches into
 * their targets (src/manifest/patch.ts), so nothing that plans, applies, imports or prunes ever
 * sees one. The one list: the schema's kinds, MF102's message and its explanation read it.
 */
export const DOCUMENT_KINDS = [...MANIFEST_KINDS, 'Policy', 'Patch'] as const;
export type DocumentKind = (typeof DOCUMENT_KINDS)[number];
