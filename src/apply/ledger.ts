import { closeSync, fsyncSync, openSync, writeSync } from 'node:fs';
import { systemError } from '../errors.js';
import type { Action } from '../plan/model.js';
import type { ChangeIds } from './model.js';

/**
 * The ledger: one JSON object per line, appended as apply goes, next to the snapshot taken before
 * it (`<snapshot>/ledger.jsonl`, mode 0600). It is what a person reads after an apply that went
 * wrong: which changes were sent, which took effect (with server ids), which failed and why. A
 * change is `pending` when its first request is about to go, then `ok`, `failed` or `skipped`.
 * Lines hold addresses, ids and one-line errors with secrets redacted — never a payload.
 */
export type LedgerEntry =
  | {
      readonly event: 'start';
      readonly environment: string;
      /** The plan's `createdAt` and `manifestDigest`: which plan this is the ledger of. */
      readonly planCreatedAt: string;
      readonly manifestDigest: string;
      readonly snapshot: string;
      /** Changes to send. */
      readonly changes: number;
    }
  | {
      readonly event: 'change';
      readonly address: string;
      readonly action: Action;
      readonly status: 'pending';
      /** A renamed object's name before this apply (a folder: its path). */
      readonly previousName?: string;
    }
  | {
      readonly event: 'change';
      readonly address: string;
      readonly action: Action;
      readonly status: 'ok' | 'failed' | 'skipped';
      readonly ids?: ChangeIds;
      readonly error?: string;
      readonly writes?: number;
      /** Writes whose outcome was unknown; each was re-read by identity before anything else. */
      readonly unknownOutcomes?: number;
      readonly confirmedByReread?: number;
    }
  | { readonly event: 'end'; readonly ok: number; readonly failed: number; readonly skipped: number; readonly interrupted: boolean }
  | {
      /** The apply ran outside the environment's change windows by `--override-window` (issue 28): why it could not wait. */
      readonly event: 'window-override';
      readonly state: 'closed' | 'frozen';
      readonly reason: string;
      /** Why the windows were closed, and when the next one opens. */
      readonly window: string;
    }
  | {
      /** The change windows were judged at `MFTOPS_NOW`, not the real time (issue 28). */
      readonly event: 'window-clock';
      readonly at: string;
    };

export interface LedgerWriter {
  /** The file's path. */
  readonly path: string;
  write(entry: LedgerEntry): void;
  /** Flush to disk and close; later writes are ignored. */
  close(): void;
}

/**
 * Create the ledger (it must not exist yet) with mode 0600. Lines are written synchronously, so
 * a line is in the file before the request it announces is sent.
 */
export function openLedger(path: string, now: () => Date = () => new Date()): LedgerWriter {
  let fd: number | undefined;
  try {
    fd = openSync(path, 'wx', 0o600);
  } catch (err) {
    throw systemError(`cannot create the ledger ${path}`, err);
  }
  return {
    path,
    write(entry) {
      if (fd === undefined) return;
      try {
        writeSync(fd, `${JSON.stringify({ time: now().toISOString(), ...entry })}\n`);
      } catch (err) {
        throw systemError(`cannot write the ledger ${path}`, err);
      }
    },
    close() {
      if (fd === undefined) return;
      try {
        fsyncSync(fd);
      } finally {
        closeSync(fd);
        fd = undefined;
      }
    },
  };
}

/** A ledger that keeps entries in memory (tests, and library callers that do not want a file). */
export function memoryLedger(): LedgerWriter & { readonly entries: LedgerEntry[] } {
  const entries: LedgerEntry[] = [];
  return { path: '(memory)', entries, write: (e) => void entries.push(e), close: () => {} };
}
