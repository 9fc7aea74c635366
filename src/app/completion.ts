import { ConfigError } from '../errors.js';
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
