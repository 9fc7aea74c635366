import { openLedger } from '../apply/ledger.js';
import type { LedgerWriter } from '../apply/ledger.js';
import type { ApplyWindowReport } from '../schedule/model.js';

/**
 * A ledger that records an `--override-window`, and a clock pinned by `MFTOPS_NOW`, right after
 * its `start` line, so they are in the file a person reads after the apply (issue 28).
 */
export function openLedgerNoting(window: ApplyWindowReport): (path: string) => LedgerWriter {
  return (path) => {
    const ledger = openLedger(path);
    let noted = false;
    return {
      path: ledger.path,
      write(entry) {
        ledger.write(entry);
        if (noted || entry.event !== 'start') return;
        noted = true;
        if (window.overrideReason !== undefined && window.state !== 'open')
          ledger.write({ event: 'window-override', state: window.state, reason: window.overrideReason, window: window.text ?? '' });
        if (window.pinnedClock !== undefined) ledger.write({ event: 'window-clock', at: window.pinnedClock });
      },
      close: () => ledger.close(),
    };
  };
}
