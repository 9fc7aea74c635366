import { randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, renameSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { writeFileAtomicSync } from '../atomic-file.js';
import { MftopsError, systemError } from '../errors.js';

/** The lock's file name in `<snapshots.dir>/<env>/`. */
export const LOCK_FILE = 'apply.lock';
/** A lock not renewed for this long is stale (its owner died without a trace we can check). */
export const DEFAULT_LOCK_TTL_MS = 10 * 60_000;

/**
 * What `apply.lock` holds (JSON): who applies to the environment, since when, and until when the
 * lock counts if its owner stops renewing it. The owner renews `expiresAt` every third of the
 * lifetime, so only a dead or frozen owner lets it expire.
 */
export interface LockOwner {
  readonly pid: number;
  readonly host: string;
  /** ISO time the apply took the lock. */
  readonly startedAt: string;
  /** ISO time after which another apply may take the lock over. */
  readonly expiresAt: string;
  readonly environment: string;
}

/** A held lock: renewed in the background until `release` removes the file (once). */
export interface ApplyLock {
  readonly path: string;
  /** A stale lock this one replaced, for the message that says so. */
  readonly tookOverFrom?: LockOwner;
  release(): void;
}

export interface LockOptions {
  /** `<snapshots.dir>/<env>`: the folder the snapshots and ledgers of this environment go to. */
  readonly dir: string;
  readonly environment: string;
  readonly ttlMs?: number;
  readonly now?: () => number;
  readonly pid?: number;
  readonly host?: string;
  /** Whether a process of this host still runs (default: `process.kill(pid, 0)`). */
  readonly isAlive?: (pid: number) => boolean;
}

/**
 * Take the environment's apply lock, or throw a `MftopsError` naming the owner. A lock whose
 * owner is gone (expired, or a dead pid on this host — a SIGKILLed apply) is taken over; the
 * result says from whom so the caller can tell the user. The lock is written whole to a private
 * name and then hard-linked to `apply.lock` (`link` fails if it exists): of two applies started at
 * once exactly one creates it, and no reader ever sees it empty or half written.
 */
export function acquireApplyLock(opts: LockOptions): ApplyLock {
  const now = opts.now ?? Date.now;
  const ttl = opts.ttlMs ?? DEFAULT_LOCK_TTL_MS;
  const pid = opts.pid ?? process.pid;
  const host = opts.host ?? hostname();
  const isAlive = opts.isAlive ?? processIsAlive;
  const path = join(opts.dir, LOCK_FILE);
  let created: string | undefined;
  try {
    created = mkdirSync(opts.dir, { recursive: true, mode: 0o700 });
  } catch (err) {
    throw systemError(`cannot create ${opts.dir} for the apply lock`, err);
  }
  const owner = (): LockOwner => ({
    pid,
    host,
    startedAt: new Date(now()).toISOString(),
    expiresAt: new Date(now() + ttl).toISOString(),
    environment: opts.environment,
  });
  let tookOverFrom: LockOwner | undefined;
  for (let attempt = 0; attempt < 3; attempt++) {
    const mine = owner();
    if (createExclusive(path, mine)) return holdLock(path, mine, ttl, now, tookOverFrom, created);
    const theirs = readOwner(path);
    if (theirs === 'gone') continue; // released between our open and our read
    const reason = theirs === 'unreadable' ? undefined : staleReason(theirs, host, now(), isAlive);
    if (theirs !== 'unreadable' && reason === undefined) {
      throw new MftopsError(
        `another apply to environment "${opts.environment}" is running (pid ${theirs.pid} on ${theirs.host}, since ${theirs.startedAt}; ` +
          `the lock expires at ${theirs.expiresAt} unless renewed): wait for it, or delete ${path} if you are sure it is gone`,
      );
    }
    if (theirs === 'unreadable') {
      throw new MftopsError(`the apply lock ${path} exists but cannot be read: another apply may be starting; delete it if you are sure none runs`);
    }
    // Stale: move it aside atomically so that of two applies taking it over, one wins the create.
    try {
      renameSync(path, `${path}.stale-${pid}`);
      rmSync(`${path}.stale-${pid}`, { force: true });
    } catch {
      continue; // someone else moved it first
    }
    tookOverFrom = theirs;
  }
  throw new MftopsError(`could not take the apply lock ${path}: other applies keep taking it; try again`);
}

/** The reason a lock no longer counts, or undefined while it does. */
export function staleReason(owner: LockOwner, host: string, nowMs: number, isAlive: (pid: number) => boolean): string | undefined {
  if (Date.parse(owner.expiresAt) <= nowMs) return `expired at ${owner.expiresAt}`;
  if (owner.host === host && !isAlive(owner.pid)) return `process ${owner.pid} is no longer running`;
  return undefined;
}

/**
 * The owner of `<dir>/apply.lock` while the lock counts (not expired, and on this host a process
 * that still runs); undefined when there is none, it is stale, or it cannot be read.
 */
export function liveApplyLockOwner(
  dir: string,
  opts: { readonly host?: string; readonly now?: () => number; readonly isAlive?: (pid: number) => boolean } = {},
): LockOwner | undefined {
  const owner = readOwner(join(dir, LOCK_FILE));
  if (owner === 'gone' || owner === 'unreadable') return undefined;
  return staleReason(owner, opts.host ?? hostname(), (opts.now ?? Date.now)(), opts.isAlive ?? processIsAlive) === undefined ? owner : undefined;
}

/** The one line that tells the user a stale lock was taken over. */
export function describeTakeover(lock: ApplyLock): string | undefined {
  const t = lock.tookOverFrom;
  return t === undefined
    ? undefined
    : `took over a stale apply lock (pid ${t.pid} on ${t.host}, since ${t.startedAt}, expired or no longer running): the ledger of that run is in its snapshot folder`;
}

/** The release of every lock this process holds, for a crash that never reaches the caller's `finally`. */
const heldLocks = new Set<() => void>();

/**
 * Release every apply lock this process holds (the crash guard: an error nobody caught must not
 * leave the environment locked for the lock's lifetime). Each release is the lock's own, so a
 * lock another apply took over is left alone.
 */
export function releaseHeldApplyLocks(): void {
  for (const release of [...heldLocks]) release();
}

function holdLock(path: string, mine: LockOwner, ttl: number, now: () => number, tookOverFrom: LockOwner | undefined, created: string | undefined): ApplyLock {
  let released = false;
  const renew = setInterval(
    () => {
      if (released) return;
      const next: LockOwner = { ...mine, expiresAt: new Date(now() + ttl).toISOString() };
      try {
        writeFileAtomicSync(path, `${JSON.stringify(next)}\n`, { mode: 0o600 });
      } catch {
        // Renewal is best effort: the lock still holds until its expiry.
      }
    },
    Math.max(1000, Math.floor(ttl / 3)),
  );
  renew.unref();
  const onExit = (): void => release();
  process.once('exit', onExit);
  heldLocks.add(release);
  function release(): void {
    if (released) return;
    released = true;
    clearInterval(renew);
    process.off('exit', onExit);
    heldLocks.delete(release);
    const current = readOwner(path);
    // Remove only our own lock (a stale-takeover by someone else must not be undone).
    if (current !== 'gone' && current !== 'unreadable' && current.pid === mine.pid && current.host === mine.host && current.startedAt === mine.startedAt) {
      rmSync(path, { force: true });
    }
    // A run that wrote nothing (refused, stale) leaves no folder behind that the lock made.
    if (created !== undefined) removeEmptyFolders(dirname(path), created);
  }
  return { path, release, ...(tookOverFrom ? { tookOverFrom } : {}) };
}

/** `rmdir` from `dir` up to and including `top`, stopping at the first folder that is not empty. */
function removeEmptyFolders(dir: string, top: string): void {
  for (let d = dir; ; d = dirname(d)) {
    if (relative(top, d).startsWith('..')) return;
    try {
      rmdirSync(d);
    } catch {
      return;
    }
    if (d === top) return;
  }
}

/** Hard links are missing on some file systems (FAT, some network shares). */
const NO_HARD_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS']);

function createExclusive(path: string, owner: LockOwner): boolean {
  const text = `${JSON.stringify(owner)}\n`;
  const draft = `${path}.${owner.pid}-${randomBytes(6).toString('hex')}.new`;
  try {
    writeFileSync(draft, text, { mode: 0o600, flag: 'wx' });
    try {
      linkSync(draft, path);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? '';
      if (code === 'EEXIST') return false;
      if (!NO_HARD_LINKS.has(code)) throw err;
      // No links here: create in place (exclusive still, but a reader may see it empty for an instant).
      writeFileSync(path, text, { mode: 0o600, flag: 'wx' });
    }
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw systemError(`cannot create the apply lock ${path}`, err);
  } finally {
    rmSync(draft, { force: true });
  }
}

function readOwner(path: string): LockOwner | 'gone' | 'unreadable' {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'gone' : 'unreadable';
  }
  try {
    const v = JSON.parse(text) as Partial<LockOwner>;
    if (typeof v.pid === 'number' && typeof v.host === 'string' && typeof v.startedAt === 'string' && typeof v.expiresAt === 'string') {
      return { pid: v.pid, host: v.host, startedAt: v.startedAt, expiresAt: v.expiresAt, environment: String(v.environment ?? '') };
    }
  } catch {
    // fall through
  }
  // Empty or cut short: written by hand, or by an mftops older than the write-then-link creation.
  return 'unreadable';
}

function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
