/**
 * Errors that reach the user. The CLI prints `message` (one line, no stack) and exits 1 for any
 * `MftopsError`; anything else is a bug and is reported as an internal error.
 *
 * User mistakes in manifests are *not* exceptions: they are diagnostics (src/manifest). These
 * classes are for I/O failures and for configuration problems found while starting a command.
 */
export class MftopsError extends Error {
  /** Marks every subclass across module copies (bundles, tests), like aws-cdk's branded errors. */
  readonly isMftopsError = true;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** The configuration file or a command-line option is wrong; the message names what and where. */
export class ConfigError extends MftopsError {}

export function isMftopsError(err: unknown): err is MftopsError {
  return typeof err === 'object' && err !== null && (err as { isMftopsError?: unknown }).isMftopsError === true;
}
