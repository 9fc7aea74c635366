import type { ServiceName } from '../config/model.js';
import type { ManifestKind } from '../manifest/types.js';

/**
 * The plan: what `mftops plan` computed and `mftops apply` executes. It is plain JSON data — the
 * in-memory form and the plan file (`--out`) are the same object — versioned by
 * `formatVersion` and described by `schemas/plan.schema.json`. Like Terraform's `plans.Plan`,
 * it is computed by a pure function of (desired state, live state) and carries everything apply
 * needs, so apply never re-derives intent from manifests.
 *
 * **No secret value is ever in a plan.** Write-only fields appear as `sensitive` field changes
 * without values, and `payload`s hold secrets as `${env:}`/`${file:}` reference text that apply
 * resolves at the moment it sends the request.
 */
export interface Plan {
  /** Bumped on any incompatible change; apply refuses other versions. */
  readonly formatVersion: typeof PLAN_FORMAT_VERSION;
  /** mftops version that made the plan. */
  readonly toolVersion: string;
  /** ISO 8601 UTC. */
  readonly createdAt: string;
  /** Environment name from mftops.yaml; apply refuses a plan for another environment. */
  readonly environment: string;
  /** The servers the live state was read from; apply refuses a plan made against other servers. */
  readonly servers: Readonly<Partial<Record<ServiceName, ServerIdentity>>>;
  /** sha256 over the manifest files (paths and bytes) the plan was computed from. */
  readonly manifestDigest: string;
  /** `--target` addresses, when the plan was limited to them. */
  readonly targets?: readonly string[];
  /** Every managed object, in execution order (dependencies first, deletes last). No-ops included. */
  readonly changes: readonly Change[];
  /** Counts per action; derived from `changes`, kept for readers of the file. */
  readonly summary: PlanSummary;
}

export const PLAN_FORMAT_VERSION = 1;

export interface ServerIdentity {
  /** Base URL as configured (no credentials ever). */
  readonly url: string;
  /** Application version the server reported, when it reports one. */
  readonly version?: string;
  /** Account the plan was read with. */
  readonly username: string;
}

/**
 * What happens to one object.
 * - `create`: the object does not exist.
 * - `update`: it exists and some managed field differs (a rename via `previousNames` is an update).
 * - `replace`: a field that cannot change in place differs (a task's `Group`); apply deletes and
 *   re-creates, and only with `--allow-replace`.
 * - `delete`: unmanaged in scope, of a kind listed in `prune`; apply needs `--allow-delete`.
 * - `no-op`: in sync.
 * - `blocked`: a difference the API cannot apply (an advanced `TT=COS` task, a non-editable
 *   folder ACL entry); apply skips it and says why.
 */
export type Action = 'create' | 'update' | 'replace' | 'delete' | 'no-op' | 'blocked';

export const ACTIONS: readonly Action[] = ['create', 'update', 'replace', 'delete', 'no-op', 'blocked'];

/** Resource kinds a plan manages: the manifest kinds. */
export type ResourceKind = ManifestKind;

export interface Change {
  /** `Kind/name`, e.g. `Task/Payroll to bank`, `FolderPermissions/Distribution/Acme`; the `--target` syntax. */
  readonly address: string;
  readonly kind: ResourceKind;
  /**
   * The identity: task name; an ACL's `metadata.name` (or `resourceGroup/userGroup` for an
   * unmanaged one); folder path.
   */
  readonly name: string;
  readonly service: ServiceName;
  readonly action: Action;
  /** Why, in one sentence, for every action but `no-op`/`create`/plain `update` (e.g. why blocked). */
  readonly reason?: string;
  /**
   * The live name when the object is renamed through `metadata.previousNames`; for a folder, its
   * live path (renamed in place, or moved along with a parent folder this plan renames).
   */
  readonly previousName?: string;
  /** Server id of the live object (absent for `create`). */
  readonly liveId?: string;
  /**
   * sha256 of the live object as read (volatile server fields excluded), absent for `create` and
   * `no-op` (apply leaves those alone). Apply re-reads every object it writes and refuses the
   * whole plan if any fingerprint moved.
   */
  readonly fingerprint?: string;
  /**
   * Field-level differences, in manifest order. Empty for `no-op`. For FolderPermissions the
   * differences of ACL entries are in `entries`, not here.
   */
  readonly fields: readonly FieldChange[];
  /** Folder permissions only: per-entry view for the permission matrix and for apply. */
  readonly entries?: readonly EntryChange[];
  /** Where the object is declared (absent for `delete` of an unmanaged object). */
  readonly source?: SourceRef;
  /** What apply sends (ids resolved, secrets as references); absent for `no-op` and `blocked`. */
  readonly payload?: Payload;
}

/** A manifest position, paths relative to the working folder. */
export interface SourceRef {
  readonly file: string;
  readonly line: number;
  readonly col: number;
}

/**
 * One differing field. `path` is relative to the object's spec in display form:
 * `Schedules.Schedule[0].Frequency.Interval[0].StartTime`, `steps[1].Process.Script`.
 * Values are JSON as the user writes them (names, not ids; `0/1` flags as numbers).
 */
export interface FieldChange {
  readonly path: string;
  /** Absent when the field is not set on the live object. */
  readonly before?: JsonValue;
  /** Absent when the field is removed (only for whole list items). */
  readonly after?: JsonValue;
  /** A write-only secret: no values, rendered `(sensitive)`; apply always sends it. */
  readonly sensitive?: boolean;
  /** This field cannot change in place: it makes the change a `replace`. */
  readonly forcesReplace?: boolean;
}

/** Folder ACL entry principal: a user or a group, by name. */
export interface Principal {
  readonly type: 'User' | 'Group';
  readonly name: string;
}

/**
 * One folder ACL entry's fate. Permission lists hold the names granted (false ones omitted), so a
 * renderer can draw the matrix and apply can build the request.
 */
export interface EntryChange {
  readonly principal: Principal;
  readonly action: 'create' | 'update' | 'delete' | 'no-op' | 'blocked';
  readonly reason?: string;
  readonly before?: EntryPermissions;
  readonly after?: EntryPermissions;
}

export interface EntryPermissions {
  readonly permissions: readonly string[];
  readonly sharePermissions: readonly string[];
}

/** The request bodies apply will send, per kind. Ids resolved at plan time. */
export type Payload = TaskPayload | ResourceGroupAclPayload | FolderPermissionsPayload;

export interface TaskPayload {
  readonly kind: 'Task';
  /**
   * The complete task body to POST (create) or PUT (update): the live task with the manifest's
   * fields applied, so fields the manifest does not set keep their live values.
   */
  readonly body: JsonObject;
}

export interface ResourceGroupAclPayload {
  readonly kind: 'ResourceGroupAcl';
  readonly resourceGroup: string;
  readonly userGroup: string;
  /** All eight permissions, 0 or 1. */
  readonly permissions: Readonly<Record<string, 0 | 1>>;
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
  readonly set: readonly { readonly type: 'User' | 'Group'; readonly id: string; readonly name: string; readonly permissions: Readonly<Record<string, boolean | Readonly<Record<string, boolean>>>> }[];
  /** Entries to DELETE. */
  readonly remove: readonly { readonly type: 'User' | 'Group'; readonly id: string; readonly name: string }[];
}

export interface PlanSummary {
  readonly create: number;
  readonly update: number;
  readonly replace: number;
  readonly delete: number;
  readonly 'no-op': number;
  readonly blocked: number;
}

export type JsonValue = string | number | boolean | null | JsonValue[] | JsonObject;
export interface JsonObject {
  readonly [key: string]: JsonValue;
}

/**
 * A folder change that makes its path exist: a create, or a rename (`previousName`). A change to a
 * folder below that path must wait for it.
 */
export function establishesFolderPath(change: Change): boolean {
  return change.kind === 'FolderPermissions' && (change.action === 'create' || (change.action === 'update' && change.previousName !== undefined));
}

/** Counts per action. */
export function summarize(changes: readonly Change[]): PlanSummary {
  const counts = { create: 0, update: 0, replace: 0, delete: 0, 'no-op': 0, blocked: 0 };
  for (const c of changes) counts[c.action]++;
  return counts;
}

/** A plan changes something when any change is not a no-op (blocked ones count: they need a person). */
export function hasChanges(plan: Plan): boolean {
  return plan.changes.some((c) => c.action !== 'no-op');
}

/** `Kind/name`; a folder path's own leading slash doubles as the separator: `FolderPermissions/Distribution/Acme`. */
export function formatAddress(kind: ResourceKind, name: string): string {
  return kind === 'FolderPermissions' && name.startsWith('/') ? `${kind}${name}` : `${kind}/${name}`;
}

/** Parse `Kind/name` (the name may contain `/`, as folder paths do). */
export function parseAddress(address: string): { kind: ResourceKind; name: string } | undefined {
  const slash = address.indexOf('/');
  if (slash <= 0) return undefined;
  const kind = address.slice(0, slash);
  const name = address.slice(slash + 1);
  if (name === '') return undefined;
  switch (kind) {
    case 'Task':
    case 'ResourceGroupAcl':
      return { kind, name };
    case 'FolderPermissions':
      // Folder names are absolute paths; accept `FolderPermissions/A/B` and `FolderPermissions//A/B`.
      return { kind, name: `/${name.replace(/^\/+/, '')}` };
    default:
      return undefined;
  }
}
