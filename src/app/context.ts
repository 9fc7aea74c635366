import type { Logger } from '../log.js';
import type { AppEvent } from './events.js';

/**
 * What a use case may touch of the world around it, given by the view that runs it (the CLI, the
 * Action, a test): the folder relative paths are resolved against, the process environment, where
 * logs and events go, and the clock. A use case reads and writes files and servers itself (it is
 * the I/O edge), but never `process`, a terminal or a GitHub API: those are the views'.
 */
export interface AppContext {
  /** Relative paths (configuration, manifests, `--out`) are resolved against this folder. */
  readonly cwd: string;
  /** The process environment: `${env:}` references, proxies, `MFTOPS_*` settings. */
  readonly env: NodeJS.ProcessEnv;
  /** Request logs and other lines for people (`-v`); never a result. */
  readonly logger: Logger;
  /** Structured news while a use case runs: progress, warnings, phases, per-change outcomes. */
  readonly emit: (event: AppEvent) => void;
  /** The clock: plan timestamps, drift acknowledgements' expiry. Default `new Date()`. */
  readonly now?: () => Date;
}

/** Which configuration file and environment a use case works on. */
export interface EnvironmentChoice {
  /** The configuration file; default `mftops.yaml` in `cwd`. */
  readonly configFile?: string;
  /** Default: the configuration's only environment. */
  readonly environment?: string;
  /** Where `configFile` / `environment` came from when not a flag (`MFTOPS_CONFIG`): errors name it. */
  readonly configFileFrom?: string;
  readonly environmentFrom?: string;
}
