import type { AclPermission, FolderPermission, Manifest, FolderPermissionsManifest, ResourceGroupAclManifest, SharePermission, TaskManifest } from '../manifest/types.js';
import type { JsonObject } from './model.js';

/**
 * The desired state after references were resolved against the live servers: what
 * `resolveDesired` hands to `planChanges`. Every object keeps its manifest (for names as the
 * user wrote them and for source positions); the resolved parts hold server ids.
 *
 * An object whose references do not all resolve is not here: it is a diagnostic instead.
 */
export interface DesiredState {
  /** In manifest order (files sorted, documents in file order). */
  readonly tasks: readonly DesiredTask[];
  readonly acls: readonly DesiredAcl[];
  readonly folders: readonly DesiredFolder[];
  /**
   * Manifests left out because a reference did not resolve. Their objects are still managed:
   * never pruned, and valid `--target`s (they just plan nothing until fixed).
   */
  readonly skipped: readonly Manifest[];
}

export interface DesiredTask {
  readonly manifest: TaskManifest;
  /**
   * The manifest's spec as an API task body, only the fields the manifest sets, in its order:
   * `Name` first; `Host` → `HostID` + `Type` (the host's wire type, e.g. `siLock`); `Script` →
   * `ScriptID`; `DateListRef` names → `[{DateListID}]`; `Group` names as the server spells them;
   * parameters `{name: {value}}` (a secret: its `${env:}` reference text and
   * `DisplayValue: "(suppressed)"`); passwords as reference text. Step and schedule indexes are
   * those of the manifest.
   */
  readonly body: JsonObject;
}

export interface DesiredAcl {
  readonly manifest: ResourceGroupAclManifest;
  /** The server's spelling of the resource group. */
  readonly resourceGroup: string;
  /** The server's spelling of the user group when known, else as written. */
  readonly userGroup: string;
  readonly permissions: readonly AclPermission[];
}

export interface DesiredFolder {
  readonly manifest: FolderPermissionsManifest;
  /** The folder path as written (`metadata.name`). */
  readonly path: string;
  readonly entries: readonly DesiredEntry[];
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
