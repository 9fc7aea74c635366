import type { ManifestKind } from '../manifest/types.js';
import type { ImportedManifest, SecretPlaceholder } from '../kinds/kind-import.js';

/**
 * `mftops import`: live objects → minimal manifests. The pipeline is
 * source (the servers through read-only clients, or a saved XML snapshot) → `ImportSource`, the
 * one intermediate form (objects shaped as the APIs answer them) → selection (kind, name, scope)
 * → `ImportedManifest` documents (pure) → files (the only writes, never over an existing file
 * without `--force`).
 */

export type ImportKind = ManifestKind;

/** The import's model is the kinds' (src/kinds/kind-import.ts): each kind converts its own objects. */
export type { ImportedManifest, ImportSelection, ImportSource, ManifestDraft, SecretNamer, SecretPlaceholder } from '../kinds/kind-import.js';

/** What an import produced, before anything is written. */
export interface ImportResult {
  readonly manifests: readonly ImportedManifest[];
  readonly secrets: readonly SecretPlaceholder[];
  /**
   * Live objects left out because their manifest would not validate, each with why (a folder
   * path with `..`, a control or forbidden character: MF324). The import warns and writes the rest.
   */
  readonly skipped: readonly string[];
}

/** A manifest file about to be written. */
export interface PlannedFile {
  /** Relative to the output folder, `/`-separated: `tasks/payroll-to-bank.yaml`. */
  readonly relPath: string;
  /** Absolute. */
  readonly path: string;
  readonly text: string;
  readonly address: string;
}
