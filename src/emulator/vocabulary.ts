/**
 * The closed vocabularies the emulator serves, written from the API references and gaps.md, not
 * taken from the product: the emulator is the server mftops did not write, so its lists are its
 * own. `test/emulator/vocabulary.test.ts` compares them with the product's (src/vocabulary.ts): a
 * disagreement is a finding about one of the two readings.
 */

/** Resource-group ACL permissions (gaps.md "Resource-group ACLs"); values 0/1. */
export const ACL_PERMISSION_KEYS = [
  'TaskRun',
  'TaskEditExisting',
  'TaskAddEditDelete',
  'HostAddEditDelete',
  'ScriptAddEditDelete',
  'SSLAddEditDelete',
  'SSHAddEditDelete',
  'PGPAddEditDelete',
] as const;
export type AclPermission = (typeof ACL_PERMISSION_KEYS)[number];

/** FolderAclPermissionsModel's booleans (transfer §2); `sharePermissions` is separate. */
export const FOLDER_PERMISSION_KEYS = [
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
export type FolderPermission = (typeof FOLDER_PERMISSION_KEYS)[number];

/** FolderShareAclPermissionsModel's booleans (transfer §2). */
export const SHARE_PERMISSION_KEYS = ['readFiles', 'writeFiles', 'deleteFiles', 'listFiles', 'notify', 'listUsers'] as const;
export type SharePermission = (typeof SHARE_PERMISSION_KEYS)[number];

/** Day names the emulator stores (automation §2.4a "day name"), and the three-letter reading. */
export const DAY_NAMES = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'] as const;
export const SHORT_DAY_NAMES = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'] as const;

/** The Steps Type model's member names (automation §2.4a), by the step kinds tasks are written with. */
export const MIC_STEP_KEYS = {
  Source: 'MicSourceType',
  Process: 'MicProcessType',
  Destination: 'MicDestinationType',
  Email: 'MicEmailType',
  For: 'MicForType',
  If: 'MicIfType',
  RunTask: 'MicRunTaskType',
  UpdOrig: 'MicUpdOrigType',
} as const;

/**
 * The user enums of transfer-users-groups.md (UserDetailsModel, AddUserModel, UserPatchModel).
 * `Anonymous` is a permission the model can answer but no API call gives: the emulator never
 * creates one, so it is not in the list a write or a seed takes.
 */
export const USER_PERMISSIONS = ['TemporaryUser', 'User', 'AuditUser', 'FileAdmin', 'Admin', 'SysAdmin'] as const;
export type UserPermission = (typeof USER_PERMISSIONS)[number];
export const USER_STATUSES = ['Active', 'Suspended', 'Template'] as const;
export type UserStatus = (typeof USER_STATUSES)[number];
export const EMAIL_FORMATS = ['HTML', 'Text'] as const;
export type EmailFormat = (typeof EMAIL_FORMATS)[number];
export const RECEIVES_NOTIFICATION = ['ReceivesNoNotifications', 'ReceivesNotifications', 'AdminReceivesNotifications'] as const;
export type ReceivesNotification = (typeof RECEIVES_NOTIFICATION)[number];
export const AUTH_METHODS = ['MOVEitOnly', 'ExternalOnly', 'Both'] as const;
export type AuthMethod = (typeof AUTH_METHODS)[number];
/** AddUserModel `homeFolderInUseOption`. */
export const HOME_FOLDER_IN_USE = ['AllowIfExists', 'DenyIfExists'] as const;

/** `GET /users?permission=`: the filter's value → the permissions it lists (`GroupAdmins` lists nobody: SPEC rule 143). */
export const USER_PERMISSION_FILTERS = {
  AllUsers: USER_PERMISSIONS,
  EndUsers: ['User'],
  Administrators: ['Admin'],
  FileAdmins: ['FileAdmin'],
  GroupAdmins: [],
  TemporaryUsers: ['TemporaryUser'],
  SysAdmins: ['SysAdmin'],
  AuditUsers: ['AuditUser'],
} as const satisfies Readonly<Record<string, readonly UserPermission[]>>;

/** `GET /users?status=` values. */
export const USER_STATUS_FILTERS = ['AllUsers', 'ActiveUsers', 'InactiveUsers', 'NeverSignedOnUsers', 'TemplateUsers'] as const;
export type UserStatusFilter = (typeof USER_STATUS_FILTERS)[number];
