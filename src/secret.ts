import { readFileSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { inspect } from 'node:util';
import { ConfigError } from './errors.js';

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
  /** `${file:}` paths are relative to this folder (the configuration file's). */
  readonly baseDir: string;
  /** Where the reference was written, for the error message (e.g. `mftops.yaml: environments.prod.automation.password`). */
  readonly where: string;
}

/**
 * The value of a reference. A missing variable or unreadable file is an error that names it and
 * where it was used, never an empty string. A file's trailing newline is dropped.
 */
export function resolveSecretRef(ref: SecretRef, ctx: ResolveContext): Secret {
  switch (ref.kind) {
    case 'env': {
      const value = ctx.env[ref.name];
      if (value === undefined || value === '') {
        throw new ConfigError(`${ctx.where}: environment variable ${ref.name} is not set`);
      }
      return new Secret(value);
    }
    case 'file': {
      const path = isAbsolute(ref.path) ? ref.path : resolve(ctx.baseDir, ref.path);
      let text: string;
      try {
        text = readFileSync(path, 'utf8');
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code ?? 'unreadable';
        throw new ConfigError(`${ctx.where}: cannot read secret file ${ref.path} (${code})`);
      }
      return new Secret(text.replace(/\r?\n$/, ''));
    }
  }
}
