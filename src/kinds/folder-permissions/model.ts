import type { FolderPermission, SharePermission } from '../../vocabulary.js';
import { NAME_PATH, type ManifestBase, type ResolvedName, type KindDocument } from '../model-base.js';

/**
 * The types of FolderPermissions (a transfer folder's ACL entries, by path): spec, manifest,
 * desired object, payload, unmanaged detail, and the entry principal and permissions the plan's
 * entry changes are made of. Listed in `KindTypes` (src/kinds/kind-types.ts).
 */

export interface FolderPermissionsManifest extends ManifestBase {
  readonly kind: 'FolderPermissions';
  readonly spec: FolderPermissionsSpec;
}

export interface FolderPermissionsSpec {
  /** Create the folder under its (existing) parent when it is missing. */
  readonly createIfMissing?: { readonly inheritPermissions: 'None' | 'CopyOnly' | 'Always' };
  /** exact: unlisted entries are removed; additive: never removed. Non-editable entries are never touched. */
  readonly mode: 'exact' | 'additive';
  /** Compared as a set, keyed by user or group (case-insensitive). */
  readonly entries: readonly FolderEntry[];
}

/** Exactly one of `user` / `group`. Permissions not listed are false. */
export type FolderEntry = ({ readonly user: string; readonly group?: undefined } | { readonly group: string; readonly user?: undefined }) & {
  readonly permissions: readonly FolderPermission[];
  readonly sharePermissions?: readonly SharePermission[];
};

/** Folder ACL entry principal: a user or a group, by name. */
export interface Principal {
  readonly type: 'User' | 'Group';
  readonly name: string;
}

export interface EntryPermissions {
  readonly permissions: readonly string[];
  readonly sharePermissions: readonly string[];
}

export interface DesiredFolder {
  readonly manifest: FolderPermissionsManifest;
  /** The folder path as written (`metadata.name`). */
  readonly path: string;
  readonly entries: readonly DesiredEntry[];
  /** The names resolved to server objects on the way (each once), for apply to check again. */
  readonly resolved: readonly ResolvedName[];
}

/** One folder entry with its principal resolved to a transfer-server id. */
export interface DesiredEntry {
  readonly type: 'User' | 'Group';
  /** As written in the manifest. */
  readonly name: string;
  readonly id: string;
  readonly permissions: readonly FolderPermission[];
  /** Empty when the manifest lists none. */
  readonly sharePermissions: readonly SharePermission[];
  /** Position in `spec.entries`, for source positions. */
  readonly index: number;
}

export interface FolderPermissionsPayload {
  readonly kind: 'FolderPermissions';
  readonly path: string;
  /** Set when the folder must be created first under `parentPath`. */
  readonly create?: { readonly parentPath: string; readonly name: string; readonly inheritPermissions: 'None' | 'CopyOnly' | 'Always' };
  /**
   * Set when the folder is renamed in place first (PATCH /folders/{id} `{name}`): `from` is its
   * live path, `name` the last segment of `path`. Absent for a folder that only moves along with a
   * renamed parent (its `previousName` is set, no request renames it).
   */
  readonly rename?: { readonly from: string; readonly name: string };
  /** Entries to PUT (create or update), ids resolved. */
  readonly set: readonly {
    readonly type: 'User' | 'Group';
    readonly id: string;
    readonly name: string;
    readonly permissions: Readonly<Record<string, boolean | Readonly<Record<string, boolean>>>>;
  }[];
  /** Entries to DELETE. */
  readonly remove: readonly { readonly type: 'User' | 'Group'; readonly id: string; readonly name: string }[];
}

/** An unmanaged folder, in a line: its entries. */
export interface FolderPermissionsUnmanagedDetail {
  readonly kind: 'FolderPermissions';
  readonly entries: readonly { readonly principal: Principal; readonly grant: EntryPermissions }[];
}

/** How the manifest layer names and identifies its documents (`KindDocument`). */
export const FOLDER_PERMISSIONS_DOCUMENT: KindDocument = {
  naming: 'path',
  identity: { paths: [NAME_PATH], describe: ([path]) => `FolderPermissions for \`${path}\`` },
};
