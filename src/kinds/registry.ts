import type { PrunableKind } from '../config/model.js';
import type { KindDefinition, ResourceKind } from './kind.js';
import { FOLDER_PERMISSIONS } from './folder-permissions/definition.js';
import { RESOURCE_GROUP_ACL } from './resource-group-acl/definition.js';
import { TASK } from './task/definition.js';
import { USER } from './user/definition.js';
import { GROUP } from './group/definition.js';

/**
 * Every resource kind's pure definition, by kind: a mapped type over `ResourceKind`, so a kind
 * without a definition does not compile. Listed in manifest order (`MANIFEST_KINDS`), the order
 * the plan's sections are computed in; `kindsInRank()` is the order changes run in.
 */
export const KINDS: { readonly [K in ResourceKind]: KindDefinition<K> } = {
  Task: TASK,
  ResourceGroupAcl: RESOURCE_GROUP_ACL,
  FolderPermissions: FOLDER_PERMISSIONS,
  User: USER,
  Group: GROUP,
};

/** A kind's definition, typed by its kind. */
export function kindOf<K extends ResourceKind>(kind: K): KindDefinition<K> {
  return KINDS[kind];
}

/** Every kind, in manifest order. */
export const EVERY_KIND: readonly ResourceKind[] = Object.keys(KINDS) as ResourceKind[];

/** Every kind's definition in rank order: creates and updates run in this order, deletes in the reverse. */
export function kindsInRank(): readonly KindDefinition<ResourceKind>[] {
  return EVERY_KIND.map((kind) => kindOf(kind)).sort((a, b) => a.rank - b.rank);
}

/**
 * Calls `visit` with each kind's definition in manifest order, typed together so a kind-generic
 * phase needs no cast: `forEachKind((definition) => definition.plan(contextFor(definition.kind)))`.
 */
export function forEachKind(visit: <K extends ResourceKind>(definition: KindDefinition<K>) => void): void {
  for (const kind of EVERY_KIND) visit(kindOf(kind));
}

/** The kinds `prune` may list, in manifest order. */
export const PRUNABLE_KINDS: readonly PrunableKind[] = EVERY_KIND.filter((kind) => KINDS[kind].prunable);
