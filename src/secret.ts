import { readFileSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
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
}

/**
 * Why a reference has no value. Never holds a value, so it can be shown anywhere.
 * - `unset`: the variable is not in the environment;
 * - `empty`: the variable, or the file once its trailing newline is dropped, is empty (never sent
 *   as an empty password);
 * - `missing`: no file at `path`;
 * - `unreadable`: the file is there but cannot be read (`code`: EACCES, EISDIR, ...).
 * `path` is the absolute path the reference resolved to, as it was looked for.
 */
export type SecretFailure =
  | { readonly kind: 'env'; readonly name: string; readonly why: 'unset' | 'empty' }
  | { readonly kind: 'file'; readonly path: string; readonly why: 'missing' | 'empty' }
  | { readonly kind: 'file'; readonly path: string; readonly why: 'unreadable'; readonly code: string };

/**
 * The value of a reference, or why there is none (never an empty string). A file's trailing newline
 * is dropped.
 */
export function readSecretRef(ref: SecretRef, ctx: ResolveContext): { readonly ok: true; readonly secret: Secret } | { readonly ok: false; readonly failure: SecretFailure } {
  switch (ref.kind) {
    case 'env': {
      const value = ctx.env[ref.name];
      if (value === undefined) return { ok: false, failure: { kind: 'env', name: ref.name, why: 'unset' } };
      if (value === '') return { ok: false, failure: { kind: 'env', name: ref.name, why: 'empty' } };
      return { ok: true, secret: new Secret(value) };
    }
    case 'file': {
      const path = isAbsolute(ref.path) ? ref.path : resolve(ctx.baseDir, ref.path);
      let text: string;
      try {
        text = readFileSync(path, 'utf8');
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

/** One line for a failure: the variable's name or the file's absolute path, and why. */
export function describeSecretFailure(f: SecretFailure): string {
  switch (f.kind) {
    case 'env':
      return `environment variable ${f.name} is ${f.why === 'unset' ? 'not set' : 'set but empty'}`;
    case 'file':
      switch (f.why) {
        case 'missing':
          return `secret file ${f.path} does not exist`;
        case 'empty':
          return `secret file ${f.path} is empty`;
        case 'unreadable':
          return `secret file ${f.path} cannot be read (${f.code})`;
        default: {
          const never: never = f;
          throw new Error(`unknown secret failure ${String(never)}`);
        }
      }
  }
}
