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
