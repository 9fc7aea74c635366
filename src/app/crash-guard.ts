/**
 * The last line of defence of a view's process: a promise rejection nobody handled, or an
 * exception nobody caught. Node's default prints a stack trace ("Node.js v20…") and exits with
 * the apply lock and the tokens left as they were; this reports the error once, in the view's
 * words, releases what the normal error path releases, and exits 1. Causes are fixed where they
 * are; this is for the ones not found yet.
 */

/** Time given to revoking the tokens before the process exits all the same. */
export const CRASH_REVOKE_TIMEOUT_MS = 3000;

export interface CrashGuardOptions {
  /**
   * Tell the user (the view's one line, its JSON error document, its annotation). Called once,
   * for the first failure; its own failure is ignored (the exit still happens).
   */
  readonly report: (err: unknown) => void | Promise<void>;
  /** Default `process.exit`. */
  readonly exit?: (code: number) => void;
  /** Where the events are listened for. Default `process`. */
  readonly target?: Pick<NodeJS.EventEmitter, 'on' | 'off'>;
  /** Release the apply locks and revoke the tokens (default: `releaseAfterCrash`). */
  readonly release?: () => Promise<void>;
}

/** Install the guard; returns its uninstaller. */
export function installCrashGuard(opts: CrashGuardOptions): () => void {
  const target = opts.target ?? process;
  const exit = opts.exit ?? ((code: number) => process.exit(code));
  const release = opts.release ?? releaseAfterCrash;
  let crashed = false;
  const onCrash = (err: unknown): void => {
    // A second failure while the first is being handled: the process is already on its way out.
    if (crashed) return;
    crashed = true;
    const report = async (): Promise<void> => {
      try {
        await opts.report(err);
      } catch {
        // Nothing better is left to say it with.
      }
    };
    void report()
      .then(() => release().catch(() => undefined))
      .finally(() => exit(1));
  };
  target.on('unhandledRejection', onCrash);
  target.on('uncaughtException', onCrash);
  return () => {
    target.off('unhandledRejection', onCrash);
    target.off('uncaughtException', onCrash);
  };
}

/**
 * What the normal error path releases: the apply locks this process holds, then the tokens of
 * every open session (bounded). The modules are loaded only if not loaded yet by the command,
 * in which case there is nothing of theirs to release, which is cheap either way. Lazy
 * (measured): every command installs the guard, and static imports here loaded 5 modules more
 * for each, `--help` too.
 */
export async function releaseAfterCrash(): Promise<void> {
  try {
    // A scheduler `apply --pause-scheduler` stopped is started again while the tokens still work,
    // and while the lock is held (a second apply cannot start in between); never throws.
    const { resumeHeldSchedulers } = await import('./scheduler-pause.js');
    await resumeHeldSchedulers(CRASH_REVOKE_TIMEOUT_MS);
    const { releaseHeldApplyLocks } = await import('../apply/apply-lock.js');
    releaseHeldApplyLocks();
  } finally {
    const { closeAllSessions } = await import('../services/session.js');
    await closeAllSessions(CRASH_REVOKE_TIMEOUT_MS);
  }
}
