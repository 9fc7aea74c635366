import type { UserAuthMethod, UserEmailFormat, UserNotification, UserPermission, UserStatus } from '../../vocabulary.js';
import { NAME_PATH, type JsonObject, type ManifestBase, type ResolvedName, type KindDocument } from '../model-base.js';

/**
 * The types of a User (a transfer server account): spec, manifest, desired object, payload,
 * unmanaged detail. Listed in `KindTypes` (src/kinds/kind-types.ts).
 */

export interface UserManifest extends ManifestBase {
  readonly kind: 'User';
  readonly spec: UserSpec;
}

/**
 * A transfer user (schemas/user.schema.json); `metadata.name` is the username. A field the
 * manifest leaves out is not managed: its live value stays as it is and is never compared.
 */
export interface UserSpec {
  readonly fullName?: string;
  readonly email?: string;
  readonly permission?: UserPermission;
  readonly status?: UserStatus;
  readonly authMethod?: UserAuthMethod;
  readonly notes?: string;
  readonly emailFormat?: UserEmailFormat;
  readonly receivesNotification?: UserNotification;
  /** Bytes; 0: no quota. */
  readonly folderQuota?: number;
  readonly forceChangePassword?: boolean;
  /** Sent when the user is created, never compared afterwards (the API cannot move a home folder). */
  readonly homeFolderPath?: string;
  /** Write-only: a `${env:NAME}` / `${file:PATH}` reference, sent on create (and on update with `--rotate-passwords`), never read or compared. */
  readonly password?: string;
}

/** A transfer user as the manifest declares it (it names no other object: nothing to resolve). */
export interface DesiredUser {
  readonly manifest: UserManifest;
  /** The username as written (`metadata.name`). */
  readonly username: string;
  /** Always empty: a user refers to nothing by name. */
  readonly resolved: readonly ResolvedName[];
}

/**
 * A transfer user's requests. `create`: the AddUserModel body (POST /users), then `patch` on the
 * created user for the fields AddUserModel lacks (status, authMethod, ...); an update: `patch` only,
 * with the fields that differ (UserPatchModel, PATCH /users/{id}). A password is its `${env:}` /
 * `${file:}` reference text, resolved only by apply; nothing else in the payload is.
 */
export interface UserPayload {
  readonly kind: 'User';
  readonly username: string;
  readonly create?: JsonObject;
  readonly patch?: JsonObject;
}

/** An unmanaged user, in a line: its permission level, status and last sign-on, as the server tells them. */
export interface UserUnmanagedDetail {
  readonly kind: 'User';
  readonly permission?: string;
  readonly status?: string;
  readonly lastLoginStamp?: string;
}

/** How the manifest layer names and identifies its documents (`KindDocument`). */
export const USER_DOCUMENT: KindDocument = { naming: 'name', identity: { paths: [NAME_PATH], describe: ([name]) => `User \`${name}\`` } };
