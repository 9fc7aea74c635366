import type { Manifest } from '../manifest/types.js';
import type { DesiredOf, ResourceKind } from '../kinds/kind.js';
export type { DesiredAcl, DesiredEntry, DesiredFolder, DesiredTask } from '../resources/model.js';

/**
 * The desired state after references were resolved against the live servers: what
 * `resolveDesired` hands to `computePlan`. Every object keeps its manifest (for names as the
 * user wrote them and for source positions); the resolved parts hold server ids.
 *
 * An object whose references do not all resolve is not here: it is a diagnostic instead.
 */
export interface DesiredState {
  /** The desired objects of each kind, in manifest order (files sorted, documents in file order). */
  readonly byKind: { readonly [K in ResourceKind]: readonly DesiredOf<K>[] };
  /**
   * Manifests left out because a reference did not resolve. Their objects are still managed:
   * never pruned, and valid `--target`s (they just plan nothing until fixed).
   */
  readonly skipped: readonly Manifest[];
}
