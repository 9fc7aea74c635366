import { NAME_PATH, type ManifestBase, type ResolvedName, type KindDocument } from '../model-base.js';

/**
 * The types of a Group (a transfer server group and its members): spec, manifest, desired
 * object, payload, unmanaged detail. Listed in `KindTypes` (src/kinds/kind-types.ts).
 */

export interface GroupManifest extends ManifestBase {
  readonly kind: 'Group';
  readonly spec: GroupSpec;
}

/**
 * A group of the file transfer server (transfer-users-groups.md), named by `metadata.name`
 * (case-insensitive). The API creates groups and adds and removes members; it cannot change a
 * group's name or description, nor delete one.
 */
export interface GroupSpec {
  /** Sent when the group is created; a different live description cannot be changed (blocked). */
  readonly description?: string;
  /** exact: members the manifest does not list are removed; additive: never removed. */
  readonly mode: 'exact' | 'additive';
  /** Usernames, compared as a set without regard to case. */
  readonly members: readonly string[];
  /** observe: read and reported (and used for access review), never written. Absent: `manage`. */
  readonly manage?: 'manage' | 'observe';
}

/** A Group manifest with its members resolved to transfer-server user ids. */
export interface DesiredGroup {
  readonly manifest: GroupManifest;
  /** The group's name as written (`metadata.name`). */
  readonly name: string;
  /** Its members in manifest order, each once (case aside). */
  readonly members: readonly GroupMemberRef[];
  /** The names resolved to server objects on the way (each once), for apply to check again. */
  readonly resolved: readonly ResolvedName[];
}

/**
 * A transfer group's requests: create it first (POST /groups, `create`), then add members (one
 * POST /groups/{id}/members with every id to add), then remove members (`mode: exact` only, one
 * DELETE /groups/{id}/members/{userId} each). The group's id is the plan's `liveId` or the one
 * its create returned.
 */
export interface GroupPayload {
  readonly kind: 'Group';
  /** The group's name as the manifest writes it (`metadata.name`). */
  readonly name: string;
  /** Set when the group must be created first. */
  readonly create?: { readonly description?: string };
  /** Members to add, in manifest order. */
  readonly add: readonly GroupMemberRef[];
  /** Members to remove (live users: each has its id). */
  readonly remove: readonly GroupMemberRef[];
}

/**
 * One member of a group change: a live user's id, or (`createdBy`) the address of the User change
 * of the same plan that creates it, whose id apply takes from the table of the apply's ids.
 */
export interface GroupMemberRef {
  readonly username: string;
  readonly id?: string;
  readonly createdBy?: string;
}

/** An unmanaged group, in a line: how many members it has, when the server tells. */
export interface GroupUnmanagedDetail {
  readonly kind: 'Group';
  readonly members?: number;
}

/** How the manifest layer names and identifies its documents (`KindDocument`). */
export const GROUP_DOCUMENT: KindDocument = { naming: 'name', identity: { paths: [NAME_PATH], describe: ([name]) => `Group \`${name}\`` } };
