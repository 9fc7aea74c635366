import type { Command, Option } from 'commander';
import { completionScript, listEnvironmentNames } from '../../app/completion.js';
import { DIAGNOSTIC_CODES } from '../../diagnostics.js';
import { MANIFEST_KINDS } from '../../manifest/types.js';
import type { CompletionCommand, CompletionOption, CompletionValues } from '../../render/completion.js';
import type { CommandIo, GlobalOptions } from '../io.js';

/**
 * Values of options and arguments that commander does not know as choices (free text it splits
 * itself, or a lookup that also takes names), by `command path|--option` or `command path`.
 */
const MORE_VALUES: Readonly<Record<string, CompletionValues>> = {
  'import|--kind': MANIFEST_KINDS,
  explain: Object.keys(DIAGNOSTIC_CODES),
  // The configuration's, read when TAB is pressed.
  '|--env': 'environments',
  'diff-env': 'environments',
};

/** `mftops completion bash|zsh|fish`: the script on stdout. */
export async function runCompletion(program: Command, shell: string, io: CommandIo): Promise<number> {
  io.stdout(completionScript({ shell, program: describeCommand(program, '') }));
  return 0;
}

/** `mftops __environments`, run by the scripts at TAB time: the names, one a line; silent and 0 whatever goes wrong. */
export async function runEnvironmentNames(g: GlobalOptions, io: CommandIo): Promise<number> {
  const names = listEnvironmentNames(g.config !== undefined ? { configFile: g.config } : {}, { cwd: io.cwd });
  io.stdout(names.map((n) => `${n}\n`).join(''));
  return 0;
}

/**
 * The command line as completion needs it, read from the commander program: it cannot go stale.
 * Arguments named for paths or files take file names; other arguments without a list of values
 * (a snapshot id) are free text.
 */
export function describeCommand(cmd: Command, path: string, argumentValues?: CompletionValues): CompletionCommand {
  const help = cmd.createHelp();
  const choices = cmd.registeredArguments.flatMap((a) => a.argChoices ?? []);
  const values = MORE_VALUES[path] ?? (choices.length > 0 ? choices : argumentValues);
  const files = cmd.registeredArguments.some((a) => /path|dir|file/i.test(a.name()));
  return {
    name: cmd.name(),
    description: cmd.description(),
    options: help.visibleOptions(cmd).map((o) => describeOption(o, path)),
    arguments: values ?? (files ? 'files' : 'none'),
    commands: help.visibleCommands(cmd).map((c) => {
      const at = path === '' ? c.name() : `${path} ${c.name()}`;
      // commander's own `help [command]` (not one of the commands) takes the name of a sibling.
      return describeCommand(
        c,
        at,
        cmd.commands.includes(c)
          ? undefined
          : help
              .visibleCommands(cmd)
              .filter((s) => cmd.commands.includes(s))
              .map((s) => s.name()),
      );
    }),
  };
}

function describeOption(o: Option, path: string): CompletionOption {
  const takesValue = o.required || o.optional;
  const values = o.argChoices ?? (o.long !== undefined ? MORE_VALUES[`${path}|${o.long}`] : undefined);
  return {
    flags: [o.short, o.long].filter((f): f is string => f !== undefined),
    description: o.description,
    takesValue,
    ...(takesValue && values !== undefined ? { values } : {}),
  };
}
