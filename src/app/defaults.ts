/**
 * The defaults every view shares: the CLI's option defaults and the Action's input defaults are
 * these, so the two cannot drift apart (they once applied at 4 and 10 changes at a time).
 */
export const DEFAULTS = {
  /** Per-object reads in flight per server: plan, drift, import, snapshot save. */
  readParallelism: 10,
  /** Changes written at the same time by apply. */
  applyParallelism: 4,
  /** Apply refuses a plan that deletes more objects than this. */
  maxDeletes: 10,
} as const;

/** The bounds of `--parallelism` (reads and writes alike). */
export const PARALLELISM_RANGE = { min: 1, max: 64 } as const;

/** The bounds of `--max-deletes` (and the Action's `max-deletes`). */
export const MAX_DELETES_RANGE = { min: 0, max: 1_000_000 } as const;
