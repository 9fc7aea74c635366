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
