import { DEFAULT_CONFIG_FILE, loadConfig } from '../config/load-config.js';
import { ConfigError } from '../errors.js';
import type { AppContext, EnvironmentChoice } from './context.js';
import { renderCompletion, SHELLS, type CompletionCommand, type Shell } from '../render/completion.js';

export interface CompletionOptions {
  /** `bash`, `zsh` or `fish`. */
  readonly shell: string;
  /** The command line to complete, as the view describes it (from the program it parses with). */
  readonly program: CompletionCommand;
}

/** The completion script of a shell for the program; a shell mftops does not write one for is an error naming those it does. */
export function completionScript(options: CompletionOptions): string {
  const shell = SHELLS.find((s) => s === options.shell) as Shell | undefined;
  if (shell === undefined) throw new ConfigError(`completion: no script for the shell "${options.shell}"; one of ${SHELLS.join(', ')}`);
  return renderCompletion(shell, options.program);
}

/**
 * The environment names of the configuration, for completing `--env`: none when there is no
 * readable, valid configuration (a completion never prints an error into the command line).
 */
export function listEnvironmentNames(choice: Pick<EnvironmentChoice, 'configFile'>, ctx: Pick<AppContext, 'cwd'>): string[] {
  try {
    return [...loadConfig(choice.configFile ?? DEFAULT_CONFIG_FILE, ctx.cwd).environments.keys()];
  } catch {
    return [];
  }
}
