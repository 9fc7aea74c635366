import { openLedger } from '../apply/ledger.js';
import type { LedgerWriter } from '../apply/ledger.js';
import type { ApplyWindowReport } from '../schedule/model.js';

/**
 * A ledger that records an `--override-window` right after its `start` line, so the reason is
 * in the file a person reads after the apply (issue 28).
 */
export function openLedgerNoting(window: ApplyWindowReport): (path: string) => LedgerWriter {
  return (path) => {
    const ledger = openLedger(path);
    let noted = false;
    return {
      path: ledger.path,
      write(entry) {
        ledger.write(entry);
        if (noted || entry.event !== 'start' || window.overrideReason === undefined || window.state === 'open') return;
        noted = true;
        ledger.write({ event: 'window-override', state: window.state, reason: window.overrideReason, window: window.text ?? '' });
      },
      close: () => ledger.close(),
    };
  };
}
