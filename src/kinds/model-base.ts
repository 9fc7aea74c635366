import type { SourcePosition } from '../diagnostics.js';

/**
 * What every kind's model (`src/kinds/<kind>/model.ts`) is made of: a manifest's common part,
 * the names a desired object resolved, JSON values. The kinds' models are data at the bottom of
 * the layers (they import only the leaves and each other), so the manifest loader, the resources
 * and the kinds all read them; `src/manifest/types.ts` and `src/resources/model.ts` re-export
 * these under their old names.
 */

/** A JSON path into a document: property names and list indexes, e.g. `['spec', 'steps', 0, 'Source']`. */
export type JsonPath = readonly (string | number)[];

/** Maps a path inside one document to where it is written. */
export interface SourceMap {
  /**
   * Where the value at `path` is written (`'key'`: where its key is). A path that does not exist
   * in the document resolves to the deepest part that does, so the answer is always a place.
   */
  locate(path: JsonPath | string, target?: 'value' | 'key'): SourcePosition;
  /**
   * Where the value at `path` (or the value it is part of) was written by a `kind: Patch`, when
   * a patch gave it its final value; absent/undefined: it is the document's own.
   */
  patchedAt?(path: JsonPath): SourcePosition | undefined;
}

export interface ManifestBase {
  /** `metadata.name`: the identity of Tasks and FolderPermissions (a folder path), a label for ACLs. */
  readonly name: string;
  /** `metadata.previousNames`, empty when absent. */
  readonly previousNames: readonly string[];
  /** Where the document starts (its first key). */
  readonly source: SourcePosition;
  /** Positions of everything in the document, for diagnostics of later stages (unknown host names, ...). */
  readonly sourceMap: SourceMap;
}

/**
 * The kinds of names a plan resolves to server objects (issue 23), by where they are written:
 * - `user`, `group`: the principals of folder entries, transfer users and groups (ids);
 * - `host`, `script`, `dateList`: the references of task steps and schedules (ids);
 * - `resourceGroup`: task `Group`s and ACL resource groups, which have no id: the name is the
 *   identity, so only that one still has it can be checked.
 * User groups are not here: they have no id and no list (each is looked up by name).
 */
export type NameKind = 'user' | 'group' | 'host' | 'script' | 'dateList' | 'resourceGroup';

/**
 * One name a change resolved at plan time, and what it resolved to. Apply re-reads the lists and
 * refuses the plan, before any write, when the name now resolves to another id or to nothing: a
 * write by id would otherwise reach whoever holds the id now (a renamed user gets another's grant).
 */
export interface ResolvedName {
  readonly kind: NameKind;
  /** As the manifest writes it; looked up case-insensitively, as the plan looked it up. */
  readonly name: string;
  /** The server id the name resolved to; absent for `resourceGroup` (no id). */
  readonly id?: string;
}

export type JsonValue = string | number | boolean | null | JsonValue[] | JsonObject;

export interface JsonObject {
  readonly [key: string]: JsonValue;
}

/** Where a manifest's `metadata.name` is: the one path most kinds' identity is made of. */
export const NAME_PATH: JsonPath = ['metadata', 'name'];

/**
 * What the manifest layer knows of a kind's documents (it sits below the registry): how its
 * objects are named in addresses, and what makes two documents one server object (MF301).
 * Each kind's `model.ts` defines its own; `KIND_DOCUMENTS` (src/kinds/kind-types.ts) lists them.
 * - `naming`: `name`, a name of the kind's own (`Task/Payroll to bank`), or `path`, an absolute
 *   folder path whose leading slash doubles as the address separator (`FolderPermissions/A/B`),
 *   compared as a folder key and ordered by depth;
 * - `identity.paths`: the values that make the identity, case folded (`NAME_PATH`, or a
 *   top-level `spec` key); the first is where MF301 points;
 * - `identity.describe`: that object in words; `identity.label`: the kind's name is only a
 *   label, unique all the same (addresses are made of it), and this is the hint when two share one.
 */
export interface KindDocument {
  readonly naming: 'name' | 'path';
  readonly identity: {
    readonly paths: readonly [JsonPath, ...JsonPath[]];
    readonly describe: (values: readonly string[]) => string;
    readonly label?: string;
  };
}
