import { closeSync, constants, existsSync, fstatSync, openSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { inspect } from 'node:util';

/**
 * A secret value (password, token). It cannot be printed by accident: `String()`, template
 * literals, `JSON.stringify` and `util.inspect` all give `(sensitive)`. The only way to the
 * value is `reveal()`, which the transport calls when it builds a request body.
 */
export class Secret {
  readonly #value: string;
  constructor(value: string) {
    this.#value = value;
  }
  reveal(): string {
    return this.#value;
  }
  toString(): string {
    return '(sensitive)';
  }
  toJSON(): string {
    return '(sensitive)';
  }
  [inspect.custom](): string {
    return 'Secret((sensitive))';
  }
}

/**
 * A reference to a secret as written in a configuration file or manifest: `${env:NAME}` or
 * `${file:PATH}`. References are kept as data until a command needs the value.
 */
export type SecretRef = { readonly kind: 'env'; readonly name: string } | { readonly kind: 'file'; readonly path: string };

const SECRET_REF = /^\$\{(env|file):([^}]+)\}$/;

/** The reference a whole string stands for, or undefined when it is a literal. */
export function parseSecretRef(text: string): SecretRef | undefined {
  const m = SECRET_REF.exec(text.trim());
  if (!m) return undefined;
  const body = m[2]!.trim();
  return m[1] === 'env' ? { kind: 'env', name: body } : { kind: 'file', path: body };
}

export function formatSecretRef(ref: SecretRef): string {
  switch (ref.kind) {
    case 'env':
      return `\${env:${ref.name}}`;
    case 'file':
      return `\${file:${ref.path}}`;
  }
}

export interface ResolveContext {
  readonly env: NodeJS.ProcessEnv;
  /** `${file:}` paths are relative to this folder (the configuration file's, a manifest's). */
  readonly baseDir: string;
  /** A manifest's reference: where it may point (`checkConfinedRef`). Absent: mftops.yaml's own credentials, read from anywhere. */
  readonly confinement?: SecretConfinement;
}

/**
 * Where a manifest's references may point. A manifest's secret is sent to a server, which keeps it
 * (exports, snapshots), and the plan shows it only as `(sensitive)`: so a `${file:}` reads only a
 * regular file inside one of `fileRoots` once symlinks are resolved, never one below /proc, /sys
 * or /dev whatever the roots; and a `${env:}` never names a variable that mftops.yaml signs in
 * with (a task password `${env:MFT_AUTOMATION_PASSWORD}` would hand the admin password to the
 * server). mftops.yaml's own `${file:}` credentials are the operator's and are not confined.
 */
export interface SecretConfinement {
  /**
   * Absolute folders: the repository (the folder of mftops.yaml, or of the manifests without one)
   * and mftops.yaml's `secrets.fileRoots`.
   */
  readonly fileRoots: readonly string[];
  /** The variables mftops.yaml's service credentials (`username`, `password`) are read from, in any environment. */
  readonly credentialVariables: readonly string[];
}

/** Never read for a manifest, whatever `fileRoots` says: process memory, kernel state, devices. */
const SYSTEM_FOLDERS: readonly string[] = ['/proc', '/sys', '/dev'];

/**
 * Why a reference has no value. Never holds a value, so it can be shown anywhere.
 * - `unset`: the variable is not in the environment;
 * - `empty`: the variable, or the file once its trailing newline is dropped, is empty (never sent
 *   as an empty password);
 * - `credential`: a manifest names a variable of mftops.yaml's service credentials;
 * - `missing`: no file at `path`;
 * - `unreadable`: the file is there but cannot be read (`code`: EACCES, EISDIR, ...);
 * - `outside`: a manifest's file lies outside every root (`resolved`: where its symlinks lead);
 * - `system`: a manifest's file lies below /proc, /sys or /dev;
 * - `not-a-file`: a manifest's file is a FIFO, a device, a socket or a folder.
 * `path` is the absolute path the reference resolved to, as it was looked for.
 */
export type SecretFailure =
  | { readonly kind: 'env'; readonly name: string; readonly why: 'unset' | 'empty' | 'credential' }
  | { readonly kind: 'file'; readonly path: string; readonly why: 'missing' | 'empty' | 'system' | 'not-a-file' }
  | { readonly kind: 'file'; readonly path: string; readonly why: 'outside'; readonly resolved: string; readonly roots: readonly string[] }
  | { readonly kind: 'file'; readonly path: string; readonly why: 'unreadable'; readonly code: string };

/**
 * Why a manifest's reference may not be read (`SecretConfinement`), or undefined when it may. A
 * file that does not exist passes when its path, its existing folders' symlinks resolved, lies in
 * a root: reading it says it is missing. Reads the file system (realpath, stat), never the file.
 */
export function checkConfinedRef(ref: SecretRef, baseDir: string, confinement: SecretConfinement): SecretFailure | undefined {
  switch (ref.kind) {
    case 'env':
      return confinement.credentialVariables.includes(ref.name) ? { kind: 'env', name: ref.name, why: 'credential' } : undefined;
    case 'file': {
      const path = isAbsolute(ref.path) ? resolve(ref.path) : resolve(baseDir, ref.path);
      const resolved = realPathOf(path);
      if (SYSTEM_FOLDERS.some((f) => isInside(path, f) || isInside(resolved, f))) return { kind: 'file', path, why: 'system' };
      const roots = confinement.fileRoots.map((r) => realPathOf(resolve(r)));
      if (!roots.some((r) => isInside(resolved, r))) return { kind: 'file', path, why: 'outside', resolved, roots: confinement.fileRoots };
      let isFile = true;
      try {
        isFile = statSync(resolved).isFile();
      } catch {
        // Missing or unreadable: reading it says which.
      }
      return isFile ? undefined : { kind: 'file', path, why: 'not-a-file' };
    }
  }
}

/** `path` with every symlink resolved; for a path that does not exist, its deepest existing folder resolved and the rest as written. */
function realPathOf(path: string): string {
  let existing = path;
  while (!existsSync(existing)) {
    const up = dirname(existing);
    if (up === existing) return path;
    existing = up;
  }
  try {
    return join(realpathSync.native(existing), relative(existing, path));
  } catch {
    return path;
  }
}

/** `path` is `folder` or below it (both absolute, normalised). */
function isInside(path: string, folder: string): boolean {
  return path === folder || path.startsWith(folder.endsWith(sep) ? folder : `${folder}${sep}`);
}

/**
 * The value of a reference, or why there is none (never an empty string). A file's trailing newline
 * is dropped.
 */
export function readSecretRef(
  ref: SecretRef,
  ctx: ResolveContext,
): { readonly ok: true; readonly secret: Secret } | { readonly ok: false; readonly failure: SecretFailure } {
  switch (ref.kind) {
    case 'env': {
      const refused = ctx.confinement !== undefined ? checkConfinedRef(ref, ctx.baseDir, ctx.confinement) : undefined;
      if (refused !== undefined) return { ok: false, failure: refused };
      const value = ctx.env[ref.name];
      if (value === undefined) return { ok: false, failure: { kind: 'env', name: ref.name, why: 'unset' } };
      if (value === '') return { ok: false, failure: { kind: 'env', name: ref.name, why: 'empty' } };
      return { ok: true, secret: new Secret(value) };
    }
    case 'file': {
      const path = isAbsolute(ref.path) ? ref.path : resolve(ctx.baseDir, ref.path);
      if (ctx.confinement !== undefined) {
        const refused = checkConfinedRef(ref, ctx.baseDir, ctx.confinement);
        if (refused !== undefined) return { ok: false, failure: refused };
      }
      let text: string;
      try {
        text = ctx.confinement !== undefined ? readRegularFile(realpathSync.native(path)) : readFileSync(path, 'utf8');
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code ?? 'unreadable';
        return { ok: false, failure: code === 'ENOENT' ? { kind: 'file', path, why: 'missing' } : { kind: 'file', path, why: 'unreadable', code } };
      }
      const value = text.replace(/\r?\n$/, '');
      if (value === '') return { ok: false, failure: { kind: 'file', path, why: 'empty' } };
      return { ok: true, secret: new Secret(value) };
    }
  }
}

/**
 * The text of a file that is regular when opened: opened without blocking (a FIFO swapped in
 * after the check would otherwise hang the read), checked, then read.
 */
function readRegularFile(path: string): string {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    if (!fstatSync(fd).isFile()) throw Object.assign(new Error(`${path} is not a regular file`), { code: 'ENOTREGULAR' });
    return readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
}

/** One line for a failure: the variable's name or the file's absolute path, and why. */
export function describeSecretFailure(f: SecretFailure): string {
  switch (f.kind) {
    case 'env':
      switch (f.why) {
        case 'unset':
          return `environment variable ${f.name} is not set`;
        case 'empty':
          return `environment variable ${f.name} is set but empty`;
        case 'credential':
          return `environment variable ${f.name} holds a service credential of mftops.yaml, which a manifest may not send to a server`;
        default: {
          const never: never = f;
          throw new Error(`unknown secret failure ${String(never)}`);
        }
      }
    case 'file':
      switch (f.why) {
        case 'missing':
          return `secret file ${f.path} does not exist`;
        case 'empty':
          return `secret file ${f.path} is empty`;
        case 'unreadable':
          return `secret file ${f.path} cannot be read (${f.code})`;
        case 'outside':
          return `secret file ${f.path}${f.resolved !== f.path ? ` (a link to ${f.resolved})` : ''} is outside the folders manifest secrets may be read from (${f.roots.join(', ')})`;
        case 'system':
          return `secret file ${f.path} is below /proc, /sys or /dev, which manifest secrets are never read from`;
        case 'not-a-file':
          return `secret file ${f.path} is not a regular file (a FIFO, device, socket or folder)`;
        default: {
          const never: never = f;
          throw new Error(`unknown secret failure ${String(never)}`);
        }
      }
  }
}
