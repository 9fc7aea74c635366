import type { Manifest } from '../manifest/types.js';
import type { DesiredAcl, DesiredFolder, DesiredTask } from '../resources/model.js';
export type { DesiredAcl, DesiredEntry, DesiredFolder, DesiredTask } from '../resources/model.js';

/**
 * The desired state after references were resolved against the live servers: what
 * `resolveDesired` hands to `planChanges`. Every object keeps its manifest (for names as the
 * user wrote them and for source positions); the resolved parts hold server ids.
 *
 * An object whose references do not all resolve is not here: it is a diagnostic instead.
 */
export interface DesiredState {
  /** In manifest order (files sorted, documents in file order). */
  readonly tasks: readonly DesiredTask[];
  readonly acls: readonly DesiredAcl[];
  readonly folders: readonly DesiredFolder[];
  /**
   * Manifests left out because a reference did not resolve. Their objects are still managed:
   * never pruned, and valid `--target`s (they just plan nothing until fixed).
   */
  readonly skipped: readonly Manifest[];
}

