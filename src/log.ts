/**
 * Diagnostic logging to stderr. stdout belongs to the command's result (plan, report, JSON).
 * Nothing secret is ever passed here: request logs carry method, path and status only.
 */
export interface Logger {
  /** Shown with -v/--verbose: requests, retries, token refreshes. */
  debug(message: string): void;
  /** Shown unless -q/--quiet. */
  info(message: string): void;
  /** Always shown. */
  warn(message: string): void;
}

export type Verbosity = 'quiet' | 'normal' | 'verbose';

export function createLogger(verbosity: Verbosity, write: (line: string) => void = (l) => process.stderr.write(l)): Logger {
  return {
    debug: (m) => {
      if (verbosity === 'verbose') write(`debug: ${m}\n`);
    },
    info: (m) => {
      if (verbosity !== 'quiet') write(`${m}\n`);
    },
    warn: (m) => write(`warning: ${m}\n`),
  };
}

/** A logger that drops everything; the default for library calls and tests. */
export const silentLogger: Logger = { debug: () => {}, info: () => {}, warn: () => {} };
