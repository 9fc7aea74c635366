import type { CommandIo } from './io.js';

/** Reports how far a long read has got: `done` of `total` items of `what` (e.g. "folders"). */
export type ProgressCallback = (done: number, total: number, what: string) => void;

export interface Progress {
  readonly report: ProgressCallback;
  /** Erase the line; call when the work is done or failed. */
  readonly finish: () => void;
}

/**
 * A one-line counter on stderr, redrawn in place at most every 100 ms. Only on a terminal and
 * never with --quiet, so CI logs and redirected output stay clean; otherwise it does nothing.
 */
export function createProgress(io: CommandIo, quiet: boolean, now: () => number = Date.now): Progress {
  if (quiet || !io.stderrIsTty) return { report: () => {}, finish: () => {} };
  let last = Number.NEGATIVE_INFINITY;
  let drawn = false;
  return {
    report: (done, total, what) => {
      const t = now();
      if (done < total && t - last < 100) return;
      last = t;
      drawn = true;
      io.stderr(`\r\u001b[2KReading live state: ${done}/${total} ${what}`);
    },
    finish: () => {
      if (drawn) io.stderr('\r\u001b[2K');
      drawn = false;
    },
  };
}
