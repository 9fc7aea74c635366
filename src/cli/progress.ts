import type { CommandIo } from './io.js';

/** Reports how far a long read has got: `done` of `total` items of `what` (e.g. "folders"). */
export type ProgressCallback = (done: number, total: number, what: string) => void;

export interface Progress {
  readonly report: ProgressCallback;
  /** Erase the line; call when the work is done or failed. */
  readonly finish: () => void;
}

type StopSignal = 'SIGINT' | 'SIGTERM';

/**
 * Where Ctrl-C and `kill` arrive (the process), and how the signal's default is done once the
 * line is erased: `raise` sends it again, to a process that then has no listener of ours.
 */
export interface ProgressSignals {
  readonly source: Pick<NodeJS.EventEmitter, 'prependListener' | 'off' | 'listenerCount'>;
  readonly raise: (signal: StopSignal) => void;
}

const PROCESS_SIGNALS: ProgressSignals = { source: process, raise: (signal) => void process.kill(process.pid, signal) };

/**
 * A one-line counter on stderr, redrawn in place at most every 100 ms. Only on a terminal and
 * never with --quiet, so CI logs and redirected output stay clean; otherwise it does nothing.
 *
 * While a line is drawn, SIGINT and SIGTERM erase it first (before any other listener prints), so
 * a Ctrl-C never leaves the shell's prompt glued to a half line. When nothing else listens (plan,
 * drift: Node's default would end the process), the signal is then raised again to do just that.
 */
export function createProgress(io: CommandIo, quiet: boolean, now: () => number = Date.now, signals: ProgressSignals = PROCESS_SIGNALS): Progress {
  if (quiet || !io.stderrIsTty) return { report: () => {}, finish: () => {} };
  let last = Number.NEGATIVE_INFINITY;
  let drawn = false;
  const erase = (): void => {
    if (drawn) io.stderr('\r\u001b[2K');
    drawn = false;
    signals.source.off('SIGINT', onInterrupt);
    signals.source.off('SIGTERM', onTerminate);
  };
  const stopped = (signal: StopSignal): void => {
    erase();
    if (signals.source.listenerCount(signal) === 0) signals.raise(signal);
  };
  const onInterrupt = (): void => stopped('SIGINT');
  const onTerminate = (): void => stopped('SIGTERM');
  return {
    report: (done, total, what) => {
      const t = now();
      if (done < total && t - last < 100) return;
      last = t;
      if (!drawn) {
        signals.source.prependListener('SIGINT', onInterrupt);
        signals.source.prependListener('SIGTERM', onTerminate);
      }
      drawn = true;
      io.stderr(`\r\u001b[2KReading live state: ${done}/${total} ${what}`);
    },
    finish: erase,
  };
}
