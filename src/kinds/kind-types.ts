import type { ManifestKind } from '../vocabulary.js';
import type { KindDocument } from './model-base.js';
import {
  FOLDER_PERMISSIONS_DOCUMENT,
  type DesiredFolder,
  type FolderPermissionsManifest,
  type FolderPermissionsPayload,
  type FolderPermissionsUnmanagedDetail,
} from './folder-permissions/model.js';
import { GROUP_DOCUMENT, type DesiredGroup, type GroupManifest, type GroupPayload, type GroupUnmanagedDetail } from './group/model.js';
import {
  RESOURCE_GROUP_ACL_DOCUMENT,
  type DesiredAcl,
  type ResourceGroupAclManifest,
  type ResourceGroupAclPayload,
  type ResourceGroupAclUnmanagedDetail,
} from './resource-group-acl/model.js';
import { TASK_DOCUMENT, type DesiredTask, type TaskManifest, type TaskPayload, type TaskUnmanagedDetail } from './task/model.js';
import { USER_DOCUMENT, type DesiredUser, type UserManifest, type UserPayload, type UserUnmanagedDetail } from './user/model.js';

/**
 * The types of each resource kind, by kind: the one place that lists them (each is defined in
 * its kind's `model.ts`). `Manifest`, `Payload`, `UnmanagedDetail` and `DesiredByKind` are
 * derived from it, and the manifest loader, the resources and the kinds take them from here
 * (through src/manifest/types.ts, src/resources/model.ts and src/kinds/kind.ts).
 * - `manifest`: the document after validation and normalisation (`kind`, `name`, `spec`, ...);
 * - `desired`: the manifest with its references resolved to server ids (`KindDefinition.resolve`);
 * - `payload`: the requests apply sends for a change of the kind (`Change.payload`);
 * - `unmanaged`: what drift says of an unmanaged object of the kind, in a line.
 */
export interface KindTypes {
  readonly Task: { manifest: TaskManifest; desired: DesiredTask; payload: TaskPayload; unmanaged: TaskUnmanagedDetail };
  readonly ResourceGroupAcl: {
    manifest: ResourceGroupAclManifest;
    desired: DesiredAcl;
    payload: ResourceGroupAclPayload;
    unmanaged: ResourceGroupAclUnmanagedDetail;
  };
  readonly FolderPermissions: {
    manifest: FolderPermissionsManifest;
    desired: DesiredFolder;
    payload: FolderPermissionsPayload;
    unmanaged: FolderPermissionsUnmanagedDetail;
  };
  readonly User: { manifest: UserManifest; desired: DesiredUser; payload: UserPayload; unmanaged: UserUnmanagedDetail };
  readonly Group: { manifest: GroupManifest; desired: DesiredGroup; payload: GroupPayload; unmanaged: GroupUnmanagedDetail };
}

/** What `KindTypes` holds for kind `K`: its manifest, payload and unmanaged detail carry `kind: K`. */
interface KindTypeSet<K extends ManifestKind> {
  readonly manifest: { readonly kind: K };
  readonly desired: unknown;
  readonly payload: { readonly kind: K };
  readonly unmanaged: { readonly kind: K };
}

/**
 * Compile-time checks that `KindTypes` and `MANIFEST_KINDS` (src/vocabulary.ts, the runtime
 * list) name the same kinds, each with its own types: a kind in one list only, or a type of
 * another kind, does not compile.
 */
export type KindTypesComplete = Complete<KindTypes>;
export type KindTypesNoOther = NoOther<Exclude<keyof KindTypes, ManifestKind>>;
type Complete<T extends { readonly [K in ManifestKind]: KindTypeSet<K> }> = T;
type NoOther<T extends never> = T;

/** Every resource manifest (the loader's output, after patches). */
export type Manifest = KindTypes[ManifestKind]['manifest'];

/** The request bodies apply will send, per kind. Ids resolved at plan time. */
export type Payload = KindTypes[ManifestKind]['payload'];

/** What an unmanaged object is, in a line: enough to decide whether to import or delete it (the drift report's). */
export type UnmanagedDetail = KindTypes[ManifestKind]['unmanaged'];

/** The desired object of each kind: its manifest with its references resolved to server ids. */
export type DesiredByKind = { readonly [K in ManifestKind]: KindTypes[K]['desired'] };

/**
 * Each kind's `KindDocument`, by kind: how the manifest layer, which sits below the registry,
 * names and identifies its documents (addresses, MF301).
 */
export const KIND_DOCUMENTS: { readonly [K in ManifestKind]: KindDocument } = {
  Task: TASK_DOCUMENT,
  ResourceGroupAcl: RESOURCE_GROUP_ACL_DOCUMENT,
  FolderPermissions: FOLDER_PERMISSIONS_DOCUMENT,
  User: USER_DOCUMENT,
  Group: GROUP_DOCUMENT,
};
