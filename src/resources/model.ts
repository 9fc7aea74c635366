import type { FieldWords, InnerWords } from '../manifest/value-words.js';
export type { FieldWords, InnerWords } from '../manifest/value-words.js';
import type { ServiceName } from '../vocabulary.js';
import type { ManifestKind } from '../vocabulary.js';
import type { JsonObject, JsonValue, ResolvedName } from '../kinds/model-base.js';
import type { EntryPermissions, Principal } from '../kinds/folder-permissions/model.js';
import type { Payload } from '../kinds/kind-types.js';
import type { RefKind } from '../kinds/task/model.js';

// Each kind's desired object and payload live in its folder (src/kinds/<kind>/model.ts) and
// `KindTypes` lists them; the `Payload` union is derived there. Re-exported here under their old names.
export type { JsonObject, JsonValue, NameKind, ResolvedName } from '../kinds/model-base.js';
export type { Payload } from '../kinds/kind-types.js';
export type { DesiredTask, RefKind, RefNames, TaskPayload } from '../kinds/task/model.js';
export type { DesiredAcl, ResourceGroupAclPayload } from '../kinds/resource-group-acl/model.js';
export type { DesiredEntry, DesiredFolder, EntryPermissions, FolderPermissionsPayload, Principal } from '../kinds/folder-permissions/model.js';
export type { DesiredUser, UserPayload } from '../kinds/user/model.js';
export type { DesiredGroup, GroupMemberRef, GroupPayload } from '../kinds/group/model.js';

/**
 * The data each resource kind works on and produces: the desired object after references were
 * resolved (input), and the action, field and entry differences and request payload of its
 * outcome. The plan (src/plan/model.ts) is made of these; this module depends on no plan code, so
 * the planner depends on the kinds and never the other way round.
 */

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

/**
 * Why a change is what it is: a closed set of codes with their parameters as data. The sentence a
 * reader sees is rendering (`describeReason` in src/render/reasons.ts), never stored.
 * - `advanced-task`: an advanced (`TT=COS`) task cannot be created (`operation: create`) or
 *   changed (`update`) through the API: blocked.
 * - `task-group-immutable`: a task's `Group` differs and cannot change in place: replace.
 *   `lostSecrets` names the secrets (field paths) the server does not show and the manifest does
 *   not carry, which the re-created task loses; empty when none.
 * - `pruned`: an unmanaged task or resource-group ACL in the task groups of `scope`, deleted
 *   because its kind is pruned.
 * - `folder-pruned`: an unmanaged folder in scope whose removable entries are deleted because
 *   FolderPermissions are pruned.
 * - `folder-root-rename`: a folder found under a previous name that is the root folder `from`:
 *   it cannot be renamed (blocked).
 * - `folder-move`: a folder found under a previous path `from` with another parent than `to`:
 *   the API only renames in place (blocked).
 * - `folder-copies-parent`: a created folder starts with a copy of `parentPath`'s permissions
 *   (`inheritPermissions`).
 * - `entries-not-editable`: the wanted change to the entries of `principals` cannot be made (not
 *   editable on the server); `partial`: the folder's other entries are applied (update), else
 *   nothing can be (blocked).
 * - `user-rename`: a user found under a previous username `from`; the API cannot rename a user
 *   (UserPatchModel has no username): blocked, never a delete and a create.
 * - `user-pruned`: an unmanaged user whose username matches `scope.users` (the masks), deleted
 *   because Users are pruned; `status: Suspended` is the safer change the plan offers.
 * - `group-not-updatable`: a group's `description` differs, and the file transfer API of this
 *   release has no group update; `partial`: its member changes are applied (update), else nothing
 *   is (blocked).
 * - `group-not-deletable`: an unmanaged group, and Groups are pruned; the API has no group delete
 *   (blocked).
 * - `group-members-unknown`: the server did not tell the members of a managed group (no members
 *   form answered, or the account may not read them): nothing is changed rather than guessed
 *   (blocked).
 */
export type ChangeReason =
  | { readonly code: 'advanced-task'; readonly operation: 'create' | 'update' }
  | { readonly code: 'task-group-immutable'; readonly lostSecrets: readonly string[] }
  | { readonly code: 'pruned'; readonly kind: 'Task' | 'ResourceGroupAcl'; readonly scope: readonly string[] }
  | { readonly code: 'folder-pruned' }
  | { readonly code: 'folder-root-rename'; readonly from: string }
  | { readonly code: 'folder-move'; readonly from: string; readonly to: string }
  | { readonly code: 'folder-copies-parent'; readonly parentPath: string; readonly inheritPermissions: 'CopyOnly' | 'Always' }
  | { readonly code: 'entries-not-editable'; readonly principals: readonly Principal[]; readonly partial: boolean }
  | { readonly code: 'user-rename'; readonly from: string }
  | { readonly code: 'user-pruned'; readonly scope: readonly string[] }
  | { readonly code: 'group-not-updatable'; readonly partial: boolean }
  | { readonly code: 'group-not-deletable' }
  | { readonly code: 'group-members-unknown' };

/**
 * Why one folder ACL entry is what it is (see `ChangeReason`).
 * - `entry-not-editable`: the entry of `principal` cannot be changed on the server (blocked).
 * - `entry-copied-from-parent`: an entry a new folder copies from its parent and an `exact`
 *   manifest does not list (delete).
 */
export type EntryReason = { readonly code: 'entry-not-editable'; readonly principal: Principal } | { readonly code: 'entry-copied-from-parent' };

/** Every reason code, change and entry level (for schemas and tests). */
export type ReasonCode = ChangeReason['code'] | EntryReason['code'];

/**
 * One differing field. `path` is relative to the object's spec in display form:
 * `Schedules.Schedule[0].Frequency.Interval[0].StartTime`, `steps[1].Process.Script`.
 * Values are JSON as the user writes them (names, not ids; `0/1` flags as numbers), never a
 * display string: what cannot be written that way is a marker (`ValueMarker`), which renderers
 * turn into words.
 */
export interface FieldChange {
  readonly path: string;
  /** Absent when the field is not set on the live object. */
  readonly before?: JsonValue;
  /** Absent when the field is removed (only for whole list items). */
  readonly after?: JsonValue;
  /** A write-only secret: no values at all, rendered `(sensitive)`; apply always sends it. */
  readonly sensitive?: boolean;
  /** This field cannot change in place: it makes the change a `replace`. */
  readonly forcesReplace?: boolean;
  /**
   * The values in words, from the kind's schema (src/manifest/value-words.ts); absent when the
   * field has none. Renderers show them beside the raw values, which stay as they are.
   */
  readonly words?: FieldWords;
  /** Words of the values inside an object or list value (a whole step or schedule), per side. */
  readonly innerWords?: { readonly before?: readonly InnerWords[]; readonly after?: readonly InnerWords[] };
  /**
   * Where the manifest value was written when a `kind: Patch` gave it (its final origin, paths
   * relative to the working folder); absent: the manifest's own document.
   */
  readonly origin?: { readonly file: string; readonly line: number; readonly col: number };
}

/**
 * One folder ACL entry's fate. Permission lists hold the names granted (false ones omitted), so a
 * renderer can draw the matrix and apply can build the request.
 */
export interface EntryChange {
  readonly principal: Principal;
  readonly action: 'create' | 'update' | 'delete' | 'no-op' | 'blocked';
  readonly reason?: EntryReason;
  readonly before?: EntryPermissions;
  readonly after?: EntryPermissions;
  /** Where a `kind: Patch` wrote the manifest's entry (its final origin); absent: the manifest's own document. */
  readonly origin?: { readonly file: string; readonly line: number; readonly col: number };
}

/**
 * The markers a field value (`FieldChange.before`/`after`, at any depth) may hold where task data
 * cannot say what the plan means. In a field value **an object with a key that starts with `$` is
 * never data**: it is one of these, and a data object that has such a key (a parameter named
 * `$x`) is stored wrapped in `$data`, so no task data can pass for a marker.
 * - `{"$sensitive": true}`: a write-only value (a password field, a secret parameter) inside a
 *   value that is shown (a removed step, a replaced schedule); renderers write `(sensitive)`.
 * - `{"$ref": "host" | "script" | "dateList", "id": "…"}`: a live object's id that no object the
 *   account can read names (deleted, or hidden); renderers write `(host ID …)`. An id whose name is
 *   known is that name, a plain string, as a manifest writes it.
 * - `{"$data": {…}}`: a data object whose own keys start with `$`; its keys are as they are, its
 *   values are field values again.
 */
export type ValueMarker =
  | { readonly kind: 'sensitive' }
  | { readonly kind: 'ref'; readonly ref: RefKind; readonly id: string }
  | { readonly kind: 'data'; readonly data: JsonObject };

const REF_KINDS: readonly string[] = ['host', 'script', 'dateList'] satisfies readonly RefKind[];

/** The marker `value` is (see `ValueMarker`), or undefined for plain data (and for a `$` object this version does not know). */
export function readMarker(value: JsonValue): ValueMarker | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const keys = Object.keys(value);
  if (keys.length === 1 && value.$sensitive === true) return { kind: 'sensitive' };
  const ref = value.$ref;
  const id = value.id;
  if (keys.length === 2 && typeof ref === 'string' && REF_KINDS.includes(ref) && typeof id === 'string') return { kind: 'ref', ref: ref as RefKind, id };
  const data = value.$data;
  if (keys.length === 1 && data !== null && typeof data === 'object' && !Array.isArray(data)) return { kind: 'data', data };
  return undefined;
}

/** One object of a plan: what happens to it and why (src/plan/model.ts: `Plan.changes`). */
export interface Change {
  /** `Kind/name`, e.g. `Task/Payroll to bank`, `FolderPermissions/Distribution/Acme`; the `--target` syntax. */
  readonly address: string;
  readonly kind: ManifestKind;
  /**
   * The identity: task name; an ACL's `metadata.name` (or `resourceGroup/userGroup` for an
   * unmanaged one); folder path.
   */
  readonly name: string;
  readonly service: ServiceName;
  readonly action: Action;
  /**
   * Why, as a code with its parameters (the sentence is rendering): every `blocked`, `replace` and
   * `delete`, a create that copies its parent's permissions, an update that leaves entries out.
   */
  readonly reason?: ChangeReason;
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
   * Write changes only: every name the change resolved to a server object (users and groups of
   * folder entries, hosts, scripts, date lists, resource groups), each once, in manifest order;
   * absent when it resolved none. Apply re-reads the lists and refuses the whole plan when one
   * now resolves to another id, or to nothing. Folders by path are checked by `liveId` and
   * `fingerprint`; objects the plan creates by the stale check's `appeared`.
   */
  readonly resolved?: readonly ResolvedName[];
  /**
   * Write changes only (create, update, replace, delete): the wave apply runs the change in.
   * Waves run one after the other from 0, the changes of a wave side by side (up to
   * `--parallelism` at once). Creates and updates are the first wave; deletes follow in waves of
   * their own: tasks, then ACLs, then folders deepest first. `changes` lists them wave by wave.
   */
  readonly wave?: number;
  /**
   * The address of the change this one waits for, in its wave, and is not started without: for
   * a folder below a folder this plan creates or renames, the change of the nearest such folder.
   */
  readonly needs?: string;
  /**
   * Field-level differences, in manifest order. Empty for `no-op`. For FolderPermissions the
   * differences of ACL entries are in `entries`, not here.
   */
  readonly fields: readonly FieldChange[];
  /** Folder permissions only: per-entry view for the permission matrix and for apply. */
  readonly entries?: readonly EntryChange[];
  /**
   * A `delete` or `replace` of a task or resource-group ACL: what it removes (a replace deletes
   * the live object first), the live object's `spec` as `mftops import` would write it (names,
   * not ids), secrets as `{"$sensitive": true}` markers; values are field values (see
   * `ValueMarker`). A folder's delete lists its entries instead. Absent in plans made before
   * mftops showed it.
   */
  readonly removes?: JsonObject;
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
