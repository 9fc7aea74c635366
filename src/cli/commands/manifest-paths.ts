import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { ConfigError } from '../../errors.js';
import { DEFAULT_CONFIG_FILE, loadConfig, selectEnvironment } from '../../config/load-config.js';
import type { CommandIo } from '../io.js';
import type { GlobalOptions } from '../main.js';

/**
 * The manifest paths a command works on: the ones given, else the environment's `manifests`.
 * `validate` with paths needs no configuration file (DESIGN.md §1).
 */
export function resolveValidatePaths(paths: readonly string[], g: GlobalOptions, io: CommandIo): string[] {
  if (paths.length > 0) return paths.map((p) => resolve(io.cwd, p));
  const configPath = g.config ?? DEFAULT_CONFIG_FILE;
  if (g.config === undefined && !existsSync(resolve(io.cwd, configPath))) {
    throw new ConfigError(`no manifest paths given and no ${DEFAULT_CONFIG_FILE} here: run mftops validate PATH… or pass --config FILE`);
  }
  const config = loadConfig(configPath, io.cwd);
  const env = selectEnvironment(config, g.env);
  if (env.manifests.length === 0) {
    throw new ConfigError(`environment "${env.name}" lists no manifests in ${config.file}; pass paths or add manifests: [...]`);
  }
  return [...env.manifests];
}
