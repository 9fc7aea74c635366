import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { DEFAULT_CONFIG_FILE } from '../config/load-config.js';
import { ConfigError } from '../errors.js';
import type { DiagnosticsReport } from '../render/diagnostics.js';
import type { AppContext, EnvironmentChoice } from './context.js';
import { loadEnvironmentManifests, manifestPathsOf, openEnvironment } from './environment.js';

export interface ValidateOptions extends EnvironmentChoice {
  /** Files and folders (relative to `cwd`); none: the environment's manifests. */
  readonly paths?: readonly string[];
}

/** Check manifests against the schemas and rules; no network. Paths given need no configuration file. */
export async function validateManifests(options: ValidateOptions, ctx: AppContext): Promise<DiagnosticsReport> {
  const loaded = await loadEnvironmentManifests(validatePaths(options, ctx), ctx);
  return { diagnostics: loaded.manifests.diagnostics, manifestCount: loaded.manifests.manifests.length };
}

/** The paths given, else the environment's manifests (a configuration file is then needed). */
export function validatePaths(options: ValidateOptions, ctx: Pick<AppContext, 'cwd'>): string[] {
  if (options.paths !== undefined && options.paths.length > 0) return options.paths.map((p) => resolve(ctx.cwd, p));
  if (options.configFile === undefined && !existsSync(resolve(ctx.cwd, DEFAULT_CONFIG_FILE))) {
    throw new ConfigError(`no manifest paths given and no ${DEFAULT_CONFIG_FILE} here: run mftops validate PATH… or pass --config FILE`);
  }
  const { config, env } = openEnvironment(options, ctx);
  return manifestPathsOf([], config, env, ctx);
}
