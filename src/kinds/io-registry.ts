import type { ResourceKind } from '../plan/model.js';
import { FOLDER_PERMISSIONS_IO } from './folder-permissions/io.js';
import type { KindIo } from './kind-io.js';
import { RESOURCE_GROUP_ACL_IO } from './resource-group-acl/io.js';
import { TASK_IO } from './task/io.js';
import { USER_IO } from './user/io.js';
import { GROUP_IO } from './group/io.js';

/**
 * The I/O half of every resource kind. A mapped type over `ResourceKind`: a new kind does not
 * compile until it has its row, so the compiler, not a search, finds what apply and the stale
 * check need of it.
 */
export const KIND_IO: { readonly [K in ResourceKind]: KindIo<K> } = {
  Task: TASK_IO,
  ResourceGroupAcl: RESOURCE_GROUP_ACL_IO,
  FolderPermissions: FOLDER_PERMISSIONS_IO,
  User: USER_IO,
  Group: GROUP_IO,
};
