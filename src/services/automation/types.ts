import type { AclPermission } from '../../vocabulary.js';
/**
 * Wire types of the automation service (spec/automation-api.md, gaps.md). Only fields mftops
 * reads are named; every object keeps the rest (`[field: string]: unknown`) because a task or
 * host read from the server is sent back whole on update.
 */

/** A field the reference marks 0/1. Some servers answer booleans; both are accepted. */
export type ZeroOne = 0 | 1;

/** GET /info. */
export interface AboutInfo {
  readonly appVersion?: string;
  readonly appBuildNumber?: string;
  readonly appBuildTimestamp?: string;
  readonly username?: string;
  readonly isAdmin?: boolean;
  readonly [field: string]: unknown;
}

/**
 * One task or step parameter, in the map form the client always exposes and sends:
 * `{ name: { value, DisplayValue } }`. A secret reads back with `DisplayValue: "(suppressed)"`.
 */
export interface TaskParameter {
  readonly value?: unknown;
  readonly DisplayValue?: string;
  readonly [field: string]: unknown;
}

/** Parameters by name (the `{Parameter: [{Name, value}]}` wire variant is turned into this). */
export type TaskParameters = Readonly<Record<string, TaskParameter>>;

/** A step: one key naming its kind (`Source`, `Process`, `Destination`, `For`, `If`, …). */
export type TaskStep = Readonly<Record<string, Readonly<Record<string, unknown>>>>;

export interface Schedule {
  readonly Days?: { readonly DayOfWeek?: readonly string[]; readonly [field: string]: unknown };
  readonly Frequency?: { readonly Interval?: readonly { readonly StartTime?: string; readonly EndTime?: string }[]; readonly [field: string]: unknown };
  readonly [field: string]: unknown;
}

/**
 * A task as GET /tasks/{id} returns it and POST/PUT take it. `ID`, step `ID`s and `NextEID` are
 * server-numbered; `Group` cannot change after creation; `TT: "COS"` marks an advanced task the
 * API cannot write.
 */
export interface Task {
  readonly ID?: string;
  readonly Name?: string;
  readonly Active?: ZeroOne | boolean;
  readonly Group?: readonly string[];
  readonly Info?: { readonly Description?: string; readonly Notes?: string; readonly [field: string]: unknown };
  readonly Parameters?: TaskParameters;
  readonly Schedules?: { readonly Schedule?: readonly Schedule[]; readonly [field: string]: unknown };
  readonly steps?: readonly TaskStep[];
  readonly TT?: string;
  readonly NextEID?: number;
  readonly [field: string]: unknown;
}

/** List filter for tasks: `name` takes the reference's masks (`text`, `*text*`, `text*`, `*text`). */
export interface TaskQuery {
  readonly name?: string;
  /** Top-level fields to include (the server ignores unknown names). */
  readonly fields?: readonly string[];
}

/**
 * A host, unwrapped from the wire's `{"SSHFTP": {...}}`: `type` is the wire type name exactly as
 * the server sent it (`SSHFTP`, `siLock`, `xferLock`, …), the rest is the host object.
 */
export interface Host {
  readonly type: string;
  readonly ID: string;
  readonly Name: string;
  readonly [field: string]: unknown;
}

/** Custom scripts, standard scripts, date lists, global parameters: common fields plus the rest. */
export interface NamedObject {
  readonly ID?: string;
  readonly Name?: string;
  readonly [field: string]: unknown;
}

export interface CustomScript extends NamedObject {
  readonly Description?: string;
  readonly Lang?: string;
  readonly Source?: string;
}

export interface DateList extends NamedObject {
  readonly Description?: string;
  readonly Entries?: readonly ({ readonly C: string } | { readonly Date: string })[];
}

/** `{Name, Notes, members: [{t, ...}]}` (gaps.md). */
export interface ResourceGroup {
  readonly Name: string;
  readonly Notes?: string;
  readonly members?: readonly { readonly t?: string; readonly [field: string]: unknown }[];
  readonly [field: string]: unknown;
}

export interface UserGroup {
  readonly Name?: string;
  readonly [field: string]: unknown;
}

/**
 * A user group of `GET /usergroups` with its members read (A-28: the reference does not show the
 * model). `members` is undefined when the answer had no members field in any form we know: then
 * they are unknown, which is not the same as none.
 */
export interface UserGroupMembers {
  readonly name: string;
  /** Usernames, as the server spells them. */
  readonly members?: readonly string[];
}

/** Resource-group ACL permission names (gaps.md); values 0/1. */
export type AclPermissionName = AclPermission;

export type AclPermissions = Readonly<Partial<Record<AclPermissionName, ZeroOne | boolean>>> & { readonly [field: string]: unknown };

/** A resource-group ACL: which user group may do what with the tasks of a resource group. */
export interface ResourceGroupAcl {
  readonly ACLID: string;
  readonly ResourceGroupName: string;
  readonly UserGroupName: string;
  readonly Permissions: AclPermissions;
  readonly [field: string]: unknown;
}

export interface NewResourceGroupAcl {
  readonly ResourceGroupName: string;
  readonly UserGroupName: string;
  readonly Permissions: AclPermissions;
}

/** PUT body: only the fields that change (ACLID and the two names must match or be omitted). */
export type ResourceGroupAclChanges = Partial<NewResourceGroupAcl>;

export interface AclFilter {
  readonly resourceGroupName?: string;
  readonly userGroupName?: string;
}

export interface StartTaskResult {
  readonly nominalStart?: string;
  readonly [field: string]: unknown;
}

/** POST /reports/audit body. `predicate` is RSQL; `orderBy` a field, `!` in front for descending. */
export interface AuditQuery {
  readonly predicate?: string;
  readonly orderBy?: string;
  readonly maxCount?: number;
}

export interface AuditRecord {
  readonly LogID?: number;
  readonly LogTime?: string;
  readonly Username?: string;
  readonly IPAddress?: string;
  readonly Action?: string;
  readonly TargetType?: string;
  readonly TargetID?: string;
  readonly TaskName?: string;
  readonly Status?: string;
  readonly [field: string]: unknown;
}

/** What `exportConfig` wrote: the byte count and sha256 (hex) of the body exactly as received. */
export interface ExportResult {
  readonly bytes: number;
  readonly sha256: string;
}
