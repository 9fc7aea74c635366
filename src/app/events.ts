import type { ApplyPhase, ChangeResult } from '../apply/model.js';
import type { Plan } from '../plan/model.js';
import type { DiagnosticsReport } from '../render/diagnostics.js';

/**
 * What a use case tells its view while it runs, as data: the view decides how (a progress line on a
 * terminal, a log group on a runner, nothing in a test). Results come back as the use case's return
 * value; events are only what happens on the way.
 */
export type AppEvent =
  /** `done` of `total` reads of a long read; `what` names the last one. */
  | { readonly kind: 'progress'; readonly done: number; readonly total: number; readonly what: string }
  /** Something the person should know that does not stop the use case. */
  | { readonly kind: 'warning'; readonly message: string }
  /** A remark about what was done (a kind skipped, a file written). */
  | { readonly kind: 'note'; readonly message: string }
  /** Apply planned the manifests (no saved plan given): the plan, before approval and writes. */
  | { readonly kind: 'planned'; readonly plan: Plan; readonly diagnostics: DiagnosticsReport }
  /** Apply entered a phase; `writes` changes will be written, `parallelism` at a time. */
  | { readonly kind: 'apply-phase'; readonly phase: ApplyPhase; readonly writes: number; readonly parallelism: number }
  /** One change of an apply is done (applied, failed or skipped). */
  | { readonly kind: 'change-result'; readonly result: ChangeResult }
  /** After the view gave up on an apply (`abandon`): the lock is released and the tokens revoked. */
  | { readonly kind: 'abandoned' };

/** An event sink that drops everything (tests, library calls). */
export const ignoreEvents = (_event: AppEvent): void => {};
