import type { AclPermission } from '../../vocabulary.js';
import { type ManifestBase, type ResolvedName, type KindDocument } from '../model-base.js';

/**
 * The types of a ResourceGroupAcl (the automation server's permissions of a user group on a
 * resource group): spec, manifest, desired object, payload, unmanaged detail. Listed in
 * `KindTypes` (src/kinds/kind-types.ts).
 */

export interface ResourceGroupAclManifest extends ManifestBase {
  readonly kind: 'ResourceGroupAcl';
  readonly spec: ResourceGroupAclSpec;
}

export interface ResourceGroupAclSpec {
  readonly resourceGroup: string;
  readonly userGroup: string;
  /** Granted permissions; every other one is 0. */
  readonly permissions: readonly AclPermission[];
}

export interface DesiredAcl {
  readonly manifest: ResourceGroupAclManifest;
  /** The server's spelling of the resource group. */
  readonly resourceGroup: string;
  /** The server's spelling of the user group when known, else as written. */
  readonly userGroup: string;
  readonly permissions: readonly AclPermission[];
  /** The names resolved to server objects on the way (each once), for apply to check again. */
  readonly resolved: readonly ResolvedName[];
}

export interface ResourceGroupAclPayload {
  readonly kind: 'ResourceGroupAcl';
  readonly resourceGroup: string;
  readonly userGroup: string;
  /** All eight permissions, 0 or 1. */
  readonly permissions: Readonly<Record<string, 0 | 1>>;
}

/** An unmanaged ACL, in a line: who may do what on which resource group. */
export interface ResourceGroupAclUnmanagedDetail {
  readonly kind: 'ResourceGroupAcl';
  readonly resourceGroup: string;
  readonly userGroup: string;
  readonly permissions: readonly string[];
}

/** How the manifest layer names and identifies its documents (`KindDocument`). */
export const RESOURCE_GROUP_ACL_DOCUMENT: KindDocument = {
  naming: 'name',
  identity: {
    paths: [
      ['spec', 'resourceGroup'],
      ['spec', 'userGroup'],
    ],
    describe: ([resourceGroup, userGroup]) => `a ResourceGroupAcl for resource group \`${resourceGroup}\` and user group \`${userGroup}\``,
    label: 'names address ACLs in plans (ResourceGroupAcl/<name>): give each its own',
  },
};
