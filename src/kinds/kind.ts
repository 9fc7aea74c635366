import type { LiveState } from '../live/model.js';
import type { Scope } from '../config/model.js';
import type { Manifest, ManifestKind } from '../manifest/types.js';
import type { ValueVocabulary } from '../manifest/value-words.js';
import type { Change, EntryPermissions, NameKind } from '../resources/model.js';
import type { AuditRecord } from '../services/automation/types.js';
import type { DesiredByKind, UnmanagedDetail } from './kind-types.js';
import type { ServiceName } from '../vocabulary.js';
import type { EntryView } from './folder-permissions/plan.js';
import type { PlanDiagnostic } from './diagnostics.js';
import type { KindImport } from './kind-import.js';
import type { TaskImportPart } from './task/to-manifest.js';
import type { AclImportPart } from './resource-group-acl/import.js';
import type { FolderImportPart } from './folder-permissions/import.js';
import type { UserImportPart } from './user/import.js';
import type { GroupImportPart } from './group/import.js';

/**
 * The kinds the automation server's audit report can attribute (`KindDefinition.audit` is set
 * exactly for these: the compiler holds the two together).
 */
export type AuditedKind = 'Task' | 'ResourceGroupAcl';

/** Resource kinds a plan manages: the manifest kinds. */
export type ResourceKind = ManifestKind;

/** The manifest of kind `K`. */
export type ManifestOf<K extends ResourceKind> = Extract<Manifest, { readonly kind: K }>;

// Each kind's types live in its folder (src/kinds/<kind>/model.ts); `KindTypes` lists them and
// derives these. Re-exported here under their old names.
export type { DesiredByKind, KindTypes, UnmanagedDetail } from './kind-types.js';

/** The desired object of kind `K`. */
export type DesiredOf<K extends ResourceKind> = DesiredByKind[K];

/** Each kind's part of an `ImportSource` (src/kinds/kind-import.ts): the live objects `mftops import` reads for it. */
export interface ImportPartByKind {
  readonly Task: TaskImportPart;
  readonly ResourceGroupAcl: AclImportPart;
  readonly FolderPermissions: FolderImportPart;
  readonly User: UserImportPart;
  readonly Group: GroupImportPart;
}

/**
 * What each permission change starts from and ends with (src/plan/access-changes.ts computes who
 * gains and loses what from it): a folder's entries, a resource-group ACL's permissions, or a
 * transfer user's permission level (`account`: `before` absent for a user the plan creates,
 * `after` for one it deletes).
 */
export type AccessBasis =
  | { readonly kind: 'folder'; readonly before: readonly EntryView[]; readonly after: readonly EntryView[] }
  | { readonly kind: 'acl'; readonly userGroup: string; readonly resourceGroup: string; readonly before: readonly string[]; readonly after: readonly string[] }
  | { readonly kind: 'account'; readonly user: string; readonly before: string | undefined; readonly after: string | undefined }
  | { readonly kind: 'membership'; readonly group: string; readonly before: readonly string[]; readonly after: readonly string[] };

/** The unmanaged detail of kind `K`. */
export type UnmanagedDetailOf<K extends ResourceKind> = Extract<UnmanagedDetail, { readonly kind: K }>;

/** The renderer's words a kind's wording is made with (the kinds load no renderer). */
export interface KindWords {
  /** Server text made safe to print on one line. */
  readonly escape: (text: string) => string;
  /** A folder entry's permissions in words. */
  readonly grant: (grant: EntryPermissions) => string;
}

/**
 * The objects the manifests of one plan declare: lower-cased address → the address as the
 * manifest spells it. A name that the live state lacks but a manifest declares is an object this
 * plan creates (a group member a User manifest makes), not an unknown name.
 */
export type DeclaredAddresses = ReadonlyMap<string, string>;

/** A manifest's references resolved (`value`), or what did not resolve (`diagnostics`, then it is left out). */
export interface Resolution<T> {
  readonly value: T;
  readonly diagnostics: readonly PlanDiagnostic[];
}

/**
 * What a kind's planning reads and where it puts its changes: one `computePlan` run (pure). The
 * kinds are planned one after another in the order of `KINDS`; `add` keeps the order they add in.
 */
export interface PlanContext<K extends ResourceKind> {
  /** The kind's desired objects, in manifest order. */
  readonly desired: readonly DesiredOf<K>[];
  /** Manifests of every kind left out because a reference did not resolve: still managed, never pruned. */
  readonly skipped: readonly Manifest[];
  readonly live: LiveState;
  readonly scope: Scope;
  /** Manifest paths in `source` are shown relative to this folder (absent: as loaded). */
  readonly cwd: string | undefined;
  /** The words of the task fields, from the task schema. */
  readonly taskVocabulary: ValueVocabulary;
  /** `--rotate-passwords`: an existing user whose manifest has a `password` is sent it again (a sensitive update). */
  readonly rotatePasswords: boolean;
  /** The account each server is read (and written) with: never pruned, or mftops would lock itself out. */
  readonly serverAccounts: Readonly<Partial<Record<ServiceName, string>>>;
  /** Plan-time problems the live state reveals; the objects concerned are left out. */
  readonly diagnostics: PlanDiagnostic[];
  /** What each permission change starts from and ends with, by address, for the access report. */
  readonly bases: Map<string, AccessBasis>;
  /** One change of this kind; `depth`: a path-named kind's path depth (parents first, deletes children first). */
  readonly add: (change: Change, depth?: number) => void;
}

/**
 * The order of an object's keys in a plan file: `keys` first, in that order, then any others;
 * `inner` orders the value of a key the same way (each item of a list).
 */
export interface KeyOrder {
  readonly keys: readonly string[];
  readonly inner?: Readonly<Record<string, KeyOrder>>;
}

/**
 * How drift asks the automation server's audit report who last changed an object of a kind: its
 * records' `TargetType`, and the record field that names the object when no id matches (`TaskName`:
 * a task deleted on the server is still found by name); without it, only by id.
 */
export interface KindAudit {
  readonly targetType: string;
  readonly nameField?: keyof AuditRecord;
}

/**
 * One resource kind, as the pure code sees it: everything the plan, the drift report, import
 * selection, `diff-env` and the renderers need to know of a kind that is not the same for all.
 * `src/kinds/registry.ts` holds one per kind in a mapped type over `ResourceKind`, so a new kind
 * that lacks a field, or a kind with no definition, is a compile error rather than a search. Its
 * I/O (reads, write steps, re-find, stale read) is `KindIo<K>` in `src/kinds/kind-io.ts`.
 */
export interface KindDefinition<K extends ResourceKind> {
  readonly kind: K;
  /** The server the kind's objects live on. */
  readonly service: ServiceName;
  /**
   * Plan and execution order of creates and updates, from 0 (objects others refer to first);
   * deletes run in the reverse order, one wave per kind.
   */
  readonly rank: number;
  /** The kind's manifest schema in `schemas/`. */
  readonly schema: string;
  /**
   * What makes two manifests the same server object (as MF301 decides), without the kind: a
   * task's name, an ACL's resource group and user group, a folder's path, case folded.
   */
  readonly identityOf: (manifest: ManifestOf<K>) => string;
  /**
   * The part of the environment's `scope` that bounds prune and import for this kind: task
   * groups (tasks, and ACLs on those resource groups) or folder roots.
   */
  readonly scopeKey: keyof Pick<Scope, 'taskGroups' | 'folders' | 'users'>;
  /** Whether `prune` may list it: unmanaged objects of the kind in scope are deleted. */
  readonly prunable: boolean;
  /** The kinds of server objects it names (resolved to ids by `resolve`, checked again by apply). */
  readonly references: readonly NameKind[];
  /**
   * The manifest's references resolved against the live state of its service (present: a
   * manifest whose service is not configured is reported before this is called).
   */
  readonly resolve: (manifest: ManifestOf<K>, live: LiveState, declared: DeclaredAddresses) => Resolution<DesiredOf<K>>;
  /** The name a desired object's address is made of (`metadata.name`, a folder's path). */
  readonly nameOf: (desired: DesiredOf<K>) => string;
  /** Plans the desired objects of the kind: one change each, or a diagnostic that leaves it out. */
  readonly plan: (context: PlanContext<K>) => void;
  /** The deletes of the unmanaged objects in scope (called only when `prune` lists the kind). */
  readonly prune: (context: PlanContext<K>) => void;
  /** What the unmanaged object a prune `change` deletes is, from the live state the plan was made from (drift lists it). */
  readonly unmanagedDetail: (change: Change, live: LiveState) => UnmanagedDetailOf<K>;
  /** That detail in a line of words: `task in Finance`, `Operators on Finance: TaskRun`. */
  readonly describeUnmanaged: (detail: UnmanagedDetailOf<K>, words: KindWords) => string;
  /** The order of its payload's keys in a plan file (`src/app/plan-file.ts` writes every kind's by it). */
  readonly payloadKeys: KeyOrder;
  /**
   * The addresses its change answers to besides its own, for `--target` and `drift.ignore`: an
   * ACL's `ResourceGroupAcl/<resourceGroup>/<userGroup>`, whatever its label.
   */
  readonly aliasesOf: (change: Change) => readonly string[];
  /**
   * The addresses of the creates of the same plan whose ids its change sends (a group's members
   * the plan creates), in the order it sends them: the change runs in a wave after the creates
   * and waits for the first (`needs`). Empty for a change that refers to nothing created.
   */
  readonly createsNeeded: (change: Change) => readonly string[];
  /**
   * Whether its change is a prune the API cannot carry out, planned as blocked rather than as a
   * delete (a group: the API deletes none). Drift lists it as unmanaged, as it does a delete.
   */
  readonly isBlockedPrune: (change: Change) => boolean;
  /** The manifest's spec as `diff-env` compares it: a list that is a set (a group's members) in one order. */
  readonly comparedSpec: (manifest: ManifestOf<K>) => unknown;
  /** Spec keys whose list items `diff-env` names by their principal (`entries[user:alice]`) rather than by position. */
  readonly principalLists: readonly string[];
  /**
   * Spec keys whose list is a set of plain names (a group's `members`): the plan reports an item
   * the server has beyond git as a difference at the key with the name as `actual`, one it lacks
   * with the name as `expected`, and `drift --adopt` appends or removes that one item (by name,
   * case aside) rather than rewriting the list. Absent: none.
   */
  readonly nameSets?: readonly string[];
  /** How drift asks the audit report who changed an object of the kind; undefined: its server keeps no audit report to ask. */
  readonly audit: K extends AuditedKind ? KindAudit : undefined;
  /** A note under a drift report that lists an object of the kind, on why it does not say who changed it; undefined: none. */
  readonly unauditedNote: string | undefined;
  /** What `mftops import` takes of the kind and makes of its live objects, and what a delete of one removes (src/kinds/kind-import.ts). */
  readonly importer: KindImport<K>;
}
