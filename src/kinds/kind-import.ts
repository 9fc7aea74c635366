import { compareText } from '../order.js';
import type { PrunableKind, Scope } from '../config/model.js';
import type { LiveState } from '../live/model.js';
import type { Change } from '../resources/model.js';
import type { ImportPartByKind, ResourceKind } from './kind.js';

/**
 * The import half of a resource kind (pure; `KindDefinition.importer`): which of its live objects
 * `mftops import` takes, the minimal manifest it makes of each, and the same manifest of the
 * object a plan's change acts on (what a delete removes, a policy's `oldObject`). What import
 * reads for the kind is I/O: `KindIo.readForImport`. `src/import` and `src/app/import.ts` loop
 * over the registry and name no kind.
 */
export interface KindImport<K extends ResourceKind> {
  /** Its objects in a message: `tasks`, `ACLs`, `folders`. */
  readonly plural: string;
  /** The folder its files go to under import's output folder, as in `examples/manifests`: `tasks`. */
  readonly folder: string;
  /**
   * Imported only when `--kind` names it, never as part of an import of the whole scope: a kind
   * its scope does not bound (groups), whose adoption is a choice of its own.
   */
  readonly askedForOnly: boolean;
  /** Its part of the `ImportSource` when nothing was read for it (the kind was not selected). */
  readonly nothingRead: ImportPartOf<K>;
  /**
   * The drafts of the objects `selection` takes from `source`, sorted by name, secrets through
   * `secrets` (one namer for the whole import: placeholder names are unique across kinds); and
   * the objects left out because their manifest would not validate, each with why.
   */
  readonly draft: (source: ImportSource, selection: ImportSelection, secrets: SecretNamer) => KindDrafts;
  /**
   * Why a scope entry of the kind's `scopeKey` selects none of its objects in `source` (words
   * after `matches`: `no task`), or undefined when it selects some. Absent: its scope entries are
   * not the kind's to judge (a kind the scope does not bound, or bounded by masks). An entry is
   * reported for a kind only when no kind before it (manifest order) of the same scope key
   * matched it: a task group with tasks but no ACL is worth no line.
   */
  readonly unmatched?: (entry: string, source: ImportSource) => string | undefined;
  /**
   * Where a snapshot keeps its objects: in the automation export, among the folders it saved
   * (`noneSaved`: the warning when it saved none at all, which then stands for every unmatched
   * scope entry of the kind), or nowhere (an import from a snapshot finds none).
   */
  readonly inSnapshot:
    | { readonly where: 'export' }
    | { readonly where: 'saved'; readonly noneSaved: (source: ImportSource) => string | undefined }
    | { readonly where: 'none' };
  /**
   * A reader of the live objects changes act on, made once per plan from the live state the plan
   * was made from: the object's draft, or undefined for a create or an object not read. Secrets
   * through `secrets` (a `$sensitive` marker in a plan). It reads only what names the live object
   * (`LiveObjectRef`), so an object of a drift report (`drift --adopt` of one created on the
   * server) is read the same way, with no kind named by the caller.
   */
  readonly liveDrafts: (live: LiveState, secrets: SecretNamer) => (object: LiveObjectRef) => ManifestDraft | undefined;
  /**
   * Whether a delete (or replace) of the kind shows what it removes (`Change.removes`); a folder's
   * delete already lists every entry it removes, with its permissions.
   */
  readonly showsRemoved: boolean;
}

/** What names a live object: a change, or an unmanaged object of a drift report (its id; a folder's path, or the path it was renamed from). */
export type LiveObjectRef = Pick<Change, 'name' | 'liveId' | 'previousName'>;

/**
 * The planner's read of the live state for `scope`, as a prune of `prune` would read it (a kind's
 * walk of its scope). src/live reads it and src/import hands it to the kinds' import reads
 * (`ImportReadContext`): the kinds' I/O sits below src/live.
 */
export type ReadLiveForImport = (scope: Scope, prune: readonly PrunableKind[]) => Promise<LiveState>;

/** The kind's part of `ImportSource`. */
export type ImportPartOf<K extends ResourceKind> = ImportPartByKind[K];

type Intersection<U> = (U extends unknown ? (part: U) => void : never) extends (part: infer I) => void ? I : never;

/**
 * Live objects as the APIs answer them (a snapshot's XML is decoded into the same shapes), with
 * every secret value already replaced by `(suppressed)`: nothing after this point can leak one.
 * Each kind's part is its own (`ImportPartByKind`, src/kinds/kind.ts).
 */
export type ImportSource = {
  /** Where the objects came from, for messages: a server URL or `snapshot <id>`. */
  readonly origin: string;
} & Intersection<ImportPartByKind[ResourceKind]>;

/** Which objects to import. */
export interface ImportSelection {
  readonly kinds: readonly ResourceKind[];
  /**
   * Tasks and ACLs: an automation name mask (`x`, `x*`, `*x`, `*x*`, `*`), matched against the
   * task name, or the ACL's resource group or user group. Folders: a path glob (`*` within one
   * folder name, `**` across folders). Given, it replaces the scope.
   */
  readonly name?: string;
  /** Every object the account can see, ignoring the environment's scope. */
  readonly all: boolean;
  readonly scope: Scope;
}

/**
 * A minimal manifest before it is shaped to its kind's schema (src/import does that: the schemas
 * are files, and the kinds load none): what a kind's converter makes of one live object.
 */
export interface ManifestDraft {
  readonly kind: ResourceKind;
  /** The object's identity (task name, `resourceGroup/userGroup`, folder path). */
  readonly name: string;
  /** `Kind/metadata.name`, as plans show it. */
  readonly address: string;
  readonly metadataName: string;
  readonly spec: Record<string, unknown>;
  /** What the manifest could not say (unknown step kinds, fields a manifest has no place for); shaping adds to it. */
  readonly notes: string[];
}

/** A kind's drafts of one import, and the objects it left out with why. */
export interface KindDrafts {
  readonly drafts: readonly ManifestDraft[];
  readonly skipped: readonly string[];
}

/** One manifest to write, with what the user must know about it. */
export interface ImportedManifest {
  readonly kind: ResourceKind;
  /** The object's identity (task name, `resourceGroup/userGroup`, folder path). */
  readonly name: string;
  /** `Kind/metadata.name`, as plans show it. */
  readonly address: string;
  /** The manifest document: apiVersion, kind, metadata, spec, keys in schema order. */
  readonly document: Readonly<Record<string, unknown>>;
  /** What the manifest could not say (unknown step kinds, fields a manifest has no place for). */
  readonly notes: readonly string[];
}

/** A `${env:NAME}` placeholder written where the server keeps a secret. */
export interface SecretPlaceholder {
  /** The environment variable the user must set. */
  readonly variable: string;
  readonly address: string;
  /** The field it stands in, e.g. `Parameters.ApiKey`, `steps[0].Source.Password`. */
  readonly field: string;
}

/**
 * Hands out `${env:…}` placeholder names: upper-case, from the object and field
 * (`PAYROLL_TO_BANK_APIKEY`), unique across one import, and remembers them for the closing list.
 */
export interface SecretNamer {
  /**
   * What the manifest holds in a secret's place: a `${env:NAME}` placeholder for an import, a
   * `$sensitive` marker for a plan showing what a delete removes (`createSecretRedactor`).
   */
  placeholder(address: string, field: string, parts: readonly string[]): unknown;
  list(): SecretPlaceholder[];
}

/** `list` sorted by `nameOf`, case aside: the order import converts, writes and lists objects in. */
export function sortByName<T>(list: readonly T[], nameOf: (item: T) => string): T[] {
  return [...list].sort((a, b) => compareText(nameOf(a).toLowerCase(), nameOf(b).toLowerCase()));
}
