import type { Diagnostic } from './diagnostics.js';

/**
 * Errors that reach the user. The CLI prints `message` (one line, no stack) and exits 1 for any
 * `MftopsError`; anything else is a bug and is reported as an internal error.
 *
 * User mistakes in manifests are *not* exceptions: they are diagnostics (src/diagnostics.ts).
 * These classes are for I/O failures and for configuration problems found while starting a
 * command.
 */
export class MftopsError extends Error {
  /** Marks every subclass across module copies (bundles, tests), like aws-cdk's branded errors. */
  readonly isMftopsError = true;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/**
 * The configuration file or a command-line option is wrong; the message names what and where.
 * Problems of the configuration file also come as `diagnostics` (coded, each at its place, all of
 * the file's at once), which views render in the format asked for; the message is then their
 * text, one line each, for whatever shows only a message. A problem with an option or a name
 * (`--env staging`) has no diagnostics.
 */
export class ConfigError extends MftopsError {
  readonly diagnostics: readonly Diagnostic[];
  constructor(message: string, options: { cause?: unknown; diagnostics?: readonly Diagnostic[] } = {}) {
    super(message, options.cause !== undefined ? { cause: options.cause } : undefined);
    this.diagnostics = options.diagnostics ?? [];
  }
}

export function isMftopsError(err: unknown): err is MftopsError {
  return typeof err === 'object' && err !== null && (err as { isMftopsError?: unknown }).isMftopsError === true;
}

/** The diagnostics an error carries (a `ConfigError` of the configuration file), else none; across module copies too. */
export function diagnosticsOf(err: unknown): readonly Diagnostic[] {
  if (!isMftopsError(err)) return [];
  const list = (err as { diagnostics?: unknown }).diagnostics;
  return Array.isArray(list) ? (list as readonly Diagnostic[]) : [];
}

/**
 * Operating-system errors that are the machine's state, not a bug in mftops: what each means to a
 * user, and what to do about it. A view shows one of these as one line (never "this is a bug",
 * never a stack); an edge that knows the path or the port wraps it with `systemError` first.
 */
const SYSTEM_ERRORS: Readonly<Record<string, { readonly reason: string; readonly hint: string }>> = {
  EACCES: { reason: 'permission denied', hint: 'check the permissions of the file and its folder, or choose another path' },
  EPERM: { reason: 'operation not permitted', hint: 'check the permissions of the file and its folder, or choose another path' },
  ENOSPC: { reason: 'no space left on the device', hint: 'free some space, or choose a path on another disk' },
  EDQUOT: { reason: 'disk quota exceeded', hint: 'free some space, or choose a path on another disk' },
  EROFS: { reason: 'the file system is read-only', hint: 'choose a path on a writable file system' },
  EMFILE: { reason: 'too many open files', hint: 'raise the limit of open files (ulimit -n), or lower --parallelism' },
  ENFILE: { reason: 'too many open files on this system', hint: 'close other programs, or lower --parallelism' },
  ENOENT: { reason: 'no such file or folder', hint: 'check the path; a folder to write into must exist first' },
  ENOTDIR: { reason: 'a part of the path is not a folder', hint: 'check the path' },
  EISDIR: { reason: 'it is a folder', hint: 'give the path of a file' },
  EADDRINUSE: { reason: 'the address is in use', hint: 'pick another port, or stop the process that holds it' },
  EADDRNOTAVAIL: { reason: 'the address is not available on this machine', hint: 'pick another address' },
};

/** An operating-system error (Node's `code` and `syscall`) of a kind in SYSTEM_ERRORS, else undefined. */
export function systemErrorOf(err: unknown): NodeJS.ErrnoException | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const e = err as NodeJS.ErrnoException;
  return typeof e.code === 'string' && typeof e.syscall === 'string' && Object.hasOwn(SYSTEM_ERRORS, e.code) ? e : undefined;
}

/**
 * `what` failed because of `err`, in one line: `cannot write plan file out/plan.json: permission
 * denied (EACCES): check the permissions …`. An error of another kind keeps only its code.
 */
export function systemError(what: string, err: unknown): MftopsError {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  const known = code !== undefined && Object.hasOwn(SYSTEM_ERRORS, code) ? SYSTEM_ERRORS[code] : undefined;
  return new MftopsError(known ? `${what}: ${known.reason} (${code}): ${known.hint}` : `${what} (${code ?? 'error'})`, { cause: err });
}

/**
 * The one line a view shows for an error that is not a bug: an `MftopsError`'s message, or an
 * operating-system error no edge wrapped (worded from its syscall, path or port). Undefined for
 * anything else: that is a bug in mftops.
 */
export function userMessageOf(err: unknown): string | undefined {
  if (isMftopsError(err)) return err.message;
  const e = systemErrorOf(err);
  if (e === undefined) return undefined;
  const { port, address } = e as { port?: unknown; address?: unknown };
  const verb = SYSCALL_VERBS[e.syscall!] ?? e.syscall!;
  const what =
    e.path !== undefined
      ? `cannot ${verb} ${e.path}`
      : typeof port === 'number'
        ? `cannot ${verb} on ${String(address ?? 'port')}:${port}`
        : `${e.syscall} failed`;
  return systemError(what, e).message;
}

/** Node's syscall names in words, for an error that reached a view unwrapped. */
const SYSCALL_VERBS: Readonly<Record<string, string>> = {
  open: 'open',
  read: 'read',
  write: 'write to',
  scandir: 'read the folder',
  mkdir: 'create the folder',
  mkdtemp: 'create a folder in',
  rmdir: 'remove the folder',
  unlink: 'remove',
  rename: 'rename',
  link: 'link',
  copyfile: 'copy',
  stat: 'read',
  lstat: 'read',
  chmod: 'change the permissions of',
  listen: 'listen',
};
