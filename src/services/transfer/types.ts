/**
 * Wire types of the file transfer service (spec/transfer-api.md, gaps.md). Ids arrive as JSON
 * numbers on current servers and strings in the reference: the client exposes them as strings.
 * Unknown fields are kept.
 */

/** Folder permission flags (FolderAclPermissionsModel); booleans on the wire. */
export interface FolderPermissions {
  readonly readFiles?: boolean;
  readonly writeFiles?: boolean;
  readonly deleteFiles?: boolean;
  readonly listFiles?: boolean;
  readonly notify?: boolean;
  readonly addDeleteSubfolders?: boolean;
  readonly share?: boolean;
  readonly admin?: boolean;
  readonly listUsers?: boolean;
  readonly sharePermissions?: SharePermissions;
  readonly [field: string]: unknown;
}

/** What people a folder is shared with may do (FolderShareAclPermissionsModel). */
export interface SharePermissions {
  readonly readFiles?: boolean;
  readonly writeFiles?: boolean;
  readonly deleteFiles?: boolean;
  readonly listFiles?: boolean;
  readonly notify?: boolean;
  readonly listUsers?: boolean;
  readonly [field: string]: unknown;
}

/** `User` and `Group` are managed; newer servers also list `None` and `Email`, which are kept and never touched. */
export type AclEntryType = 'User' | 'Group';

/**
 * One entry of a folder's ACL as read (canonical: src/services/transfer/normalize.ts). An entry
 * with `isEditable: false` (the home-folder owner) is never changed or removed.
 */
export interface FolderAclEntry {
  readonly type: string;
  /** The user's or group's id. */
  readonly id: string;
  /**
   * The username or group name, found by `id` in the user and group lists; absent when those lists
   * cannot be read or do not hold the id. Never the server's own `name` field, whose meaning the
   * reference leaves open (a username on some servers, a full name on others: `serverName`).
   */
  readonly name?: string;
  /** The entry's `name` exactly as the server sent it, for messages only. */
  readonly serverName?: string;
  readonly permissions: FolderPermissions;
  readonly entryId?: string;
  readonly isEditable?: boolean;
  readonly isDeletable?: boolean;
  readonly isHomeFolderUser?: boolean;
  readonly [field: string]: unknown;
}

/** Body of PUT/POST /folders/{id}/acls. */
export interface FolderAclInput {
  readonly type: AclEntryType;
  readonly id: string;
  readonly permissions: FolderPermissions;
}

/** Body of DELETE /folders/{id}/acls. */
export interface FolderAclRef {
  readonly type: AclEntryType;
  readonly id: string;
}

/** FolderDetailsModel (and the folder list items): `id`, `parentId` as strings (`parentId` `0` when none). */
export interface Folder {
  readonly id: string;
  readonly parentId?: string;
  readonly name: string;
  readonly path: string;
  readonly folderType?: string;
  readonly [field: string]: unknown;
}

export type InheritPermissions = 'None' | 'CopyOnly' | 'Always';

export interface NewSubfolder {
  readonly name: string;
  readonly inheritPermissions: InheritPermissions;
}

/** SimpleUserModel (transfer-users-groups.md): `fullName` also from an older release's `realname` (normalize.ts). */
export interface TransferUser {
  readonly id: string;
  readonly username: string;
  readonly fullName?: string;
  readonly realname?: string;
  readonly email?: string;
  readonly permission?: string;
  /** `Active`, `Suspended`, `Template` (SimpleUserModel). */
  readonly status?: string;
  /**
   * The last sign-on (SimpleUserModel), canonical (normalize.ts `readSignOnStamp`): an ISO 8601 UTC
   * date-time; `''` when the user never signed on (empty, null, or a date before 1970); the text as
   * sent when it is no date; absent when the server did not send the field.
   */
  readonly lastLoginStamp?: string;
  readonly [field: string]: unknown;
}

/**
 * UserDetailsModel (`GET /users/{id}`, and the answer of POST and PATCH): the SimpleUserModel
 * fields and the account's settings. `folderQuota` a number, `forceChangePassword` a boolean
 * (normalize.ts). No read returns a password; one a server sent would be dropped.
 */
export interface TransferUserDetails extends TransferUser {
  readonly emailFormat?: string;
  readonly notes?: string;
  readonly statusNote?: string;
  readonly receivesNotification?: string;
  readonly forceChangePassword?: boolean;
  readonly folderQuota?: number;
  readonly authMethod?: string;
  readonly homeFolderID?: string;
}

/** AddUserModel: the body of POST /users (only what mftops sends). */
export interface NewUser {
  readonly username: string;
  readonly fullName?: string;
  readonly password?: string;
  readonly email?: string;
  readonly permission?: string;
  readonly forceChangePassword?: boolean;
  readonly notes?: string;
  readonly homeFolderPath?: string;
}

/** UserPatchModel: a partial update of PATCH /users/{id} (no username: the API cannot rename a user). */
export type UserPatch = Readonly<Record<string, unknown>>;

/** A group to create (BaseGroupModel). */
export interface NewGroup {
  readonly name: string;
  readonly description?: string;
}

export interface TransferGroup {
  readonly id: string;
  readonly name: string;
  readonly description?: string;
  readonly membersCount?: number;
  readonly [field: string]: unknown;
}

/**
 * How the server told which users are in a group (docs/server-variants.md T-16; the reference
 * shows no way): a `groupIds`/`groups` field on user records, `GET /groups/{id}/members`, or
 * `GET /users?groupId=`. `none`: no form answered; then no group has known members.
 */
export type GroupMembersForm = 'userField' | 'members' | 'usersFilter' | 'none';

/** Group members as read: user ids by group id. */
export interface GroupMembership {
  readonly form: GroupMembersForm;
  /** Member user ids by group id; a group missing here: its members could not be read. */
  readonly members: ReadonlyMap<string, readonly string[]>;
}
