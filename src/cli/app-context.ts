import type { AppContext, EnvironmentChoice } from '../app/context.js';
import type { AppEvent } from '../app/events.js';
import type { CommandIo, GlobalOptions } from './io.js';
import { createProgress } from './progress.js';
import { loggerFor } from './commands/common.js';
import { withDefined } from '../with-defined.js';

/** The application context of one CLI command, and `finish()` to erase its progress line. */
export interface CliContext extends AppContext {
  readonly finish: () => void;
}

/**
 * How the CLI shows a use case's events on stderr: progress as one redrawn line (on a terminal,
 * not with -q), warnings always, notes unless -q. `more` sees every event first and returns true
 * for the ones it showed itself (apply's phases and per-change lines).
 */
export function cliContext(g: GlobalOptions, io: CommandIo, more?: (event: AppEvent) => boolean): CliContext {
  const progress = createProgress(io, g.quiet);
  const emit = (event: AppEvent): void => {
    if (more?.(event)) return;
    switch (event.kind) {
      case 'progress':
        progress.report(event.done, event.total, event.what);
        return;
      case 'warning':
        progress.finish();
        io.stderr(`mftops: warning: ${event.message}\n`);
        return;
      case 'note':
        progress.finish();
        if (!g.quiet) io.stderr(`mftops: note: ${event.message}\n`);
        return;
      case 'planned':
      case 'apply-phase':
      case 'change-result':
      case 'abandoned':
        return;
      default: {
        const never: never = event;
        throw new Error(`unknown event ${JSON.stringify(never)}`);
      }
    }
  };
  return { cwd: io.cwd, env: io.env, logger: loggerFor(g, io), emit, finish: progress.finish };
}

/** The environment choice of the global options. */
export function environmentChoice(g: GlobalOptions): EnvironmentChoice {
  return {
    ...withDefined({
      configFile: g.config,
      environment: g.env,
      configFileFrom: g.configFrom,
      environmentFrom: g.envFrom,
    }),
  };
}
