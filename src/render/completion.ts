/**
 * Shell completion scripts, generated from a description of the command line (the CLI builds it
 * from its commander program, so a command or option added there is completed without a change
 * here). Each script completes command and subcommand names, options (a command's own and the
 * program's global ones), the values of options and arguments that take one of a list, and file
 * names for every other value. The environments (`--env`, `diff-env A B`) are read from the
 * configuration at TAB time: the script asks the program (`mftops __environments`).
 */

import { ENVIRONMENTS_COMMAND } from './completion-words.js';
import type { Shell } from './completion-words.js';

export { ENVIRONMENTS_COMMAND, SHELLS } from './completion-words.js';
export type { Shell } from './completion-words.js';

/** A command of the program (the program itself at the root), as completion needs it. */
export interface CompletionCommand {
  readonly name: string;
  /** One line; shown beside the name by zsh and fish. */
  readonly description: string;
  /** At the root: the global options, which every command accepts. */
  readonly options: readonly CompletionOption[];
  /** What its positional arguments take: nothing (it has none, or free text), file names, the configuration's environments, or one of a list. */
  readonly arguments: 'none' | 'files' | CompletionValues;
  readonly commands: readonly CompletionCommand[];
}

export interface CompletionOption {
  /** `--config`, `-q`: every spelling. */
  readonly flags: readonly string[];
  readonly description: string;
  readonly takesValue: boolean;
  /** The values it takes, when they are a fixed list or the configuration's environments; otherwise file names. */
  readonly values?: CompletionValues;
}

/** Values to complete: a fixed list, or `environments`, asked of the program at TAB time. */
export type CompletionValues = readonly string[] | 'environments';

export function renderCompletion(shell: Shell, program: CompletionCommand): string {
  switch (shell) {
    case 'bash':
      return bashScript(program);
    case 'zsh':
      return zshScript(program);
    case 'fish':
      return fishScript(program);
    default: {
      const never: never = shell;
      throw new Error(`unknown shell ${String(never)}`);
    }
  }
}

/** A command with the words that lead to it (`snapshot save`; `''` for the program). */
interface Located {
  readonly path: string;
  readonly command: CompletionCommand;
}

function located(program: CompletionCommand): Located[] {
  const out: Located[] = [];
  const walk = (command: CompletionCommand, path: string): void => {
    out.push({ path, command });
    for (const sub of command.commands) walk(sub, path === '' ? sub.name : `${path} ${sub.name}`);
  };
  walk(program, '');
  return out;
}

/** The options a command accepts: its own, then the global ones (those of the program) it does not have itself (`--help`). */
function optionsOf(program: CompletionCommand, at: Located): CompletionOption[] {
  if (at.path === '') return [...program.options];
  const own = new Set(at.command.options.flatMap((o) => o.flags));
  return [...at.command.options, ...program.options.filter((o) => !o.flags.some((f) => own.has(f)))];
}

const flagsOf = (options: readonly CompletionOption[]): string[] => options.flatMap((o) => o.flags);
const valueFlagsOf = (options: readonly CompletionOption[]): string[] => options.filter((o) => o.takesValue).flatMap((o) => o.flags);

/** A word in single quotes, for sh. */
function quote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** The description as one short line: up to the first clause, at most 80 characters. */
function shortly(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  const clause = /^(.*?)(?: \(|;)/.exec(line)?.[1] ?? line;
  return clause.length <= 80 ? clause : `${clause.slice(0, 79)}…`;
}

/** `case` arms by command path: `'snapshot save') echo '…' ;;`. */
function caseArms(all: readonly Located[], body: (at: Located) => string | undefined): string[] {
  return all.flatMap((at) => {
    const b = body(at);
    return b === undefined ? [] : [`    ${quote(at.path)}) ${b} ;;`];
  });
}

/** Per path and option, the fixed values of options that have them (global options at any path). */
function valueArms(program: CompletionCommand, all: readonly Located[], answer: (values: CompletionValues) => string): string[] {
  const arms: string[] = [];
  for (const at of all.slice(1)) {
    for (const o of at.command.options) if (o.values) arms.push(`    ${o.flags.map((f) => quote(`${at.path}|${f}`)).join('|')}) ${answer(o.values)} ;;`);
  }
  for (const o of program.options) if (o.values) arms.push(`    ${o.flags.map((f) => `*${quote(`|${f}`)}`).join('|')}) ${answer(o.values)} ;;`);
  return arms;
}

function bashScript(program: CompletionCommand): string {
  const all = located(program);
  const words = (list: CompletionValues) => (list === 'environments' ? `__${program.name}_environments` : `echo ${quote(list.join(' '))}`);
  return `# bash completion for ${program.name} (generated by: ${program.name} completion bash)
# Install: ${program.name} completion bash > ~/.local/share/bash-completion/completions/${program.name}
#      or: add  source <(${program.name} completion bash)  to ~/.bashrc

# The subcommands of a command path ('' for the program).
__${program.name}_commands() {
  case "$1" in
${caseArms(all, (at) => (at.command.commands.length > 0 ? words(at.command.commands.map((c) => c.name)) : undefined)).join('\n')}
  esac
}

# The options a command path accepts, its own and the global ones.
__${program.name}_options() {
  case "$1" in
${caseArms(all, (at) => words(flagsOf(optionsOf(program, at)))).join('\n')}
  esac
}

# The options of a command path that take a value.
__${program.name}_value_options() {
  case "$1" in
${caseArms(all, (at) => words(valueFlagsOf(optionsOf(program, at)))).join('\n')}
  esac
}

# The values of an option ($1: path, $2: option); status 1 when it takes a file name.
__${program.name}_values() {
  case "$1|$2" in
${valueArms(program, all, (values) => `${words(values)}; return 0`).join('\n')}
  esac
  return 1
}

# The values of a command's arguments (none for free text); status 1 when they are file names.
__${program.name}_arguments() {
  case "$1" in
${caseArms(all, (at) => (at.command.arguments === 'files' ? undefined : `${words(at.command.arguments === 'none' ? [] : at.command.arguments)}; return 0`)).join('\n')}
  esac
  return 1
}

# The environments of the configuration: the one --config names on the command line, else
# MFTOPS_CONFIG's or ./mftops.yaml (asked of the program itself; nothing on any error).
__${program.name}_environments() {
  local i config=()
  for ((i = 1; i < COMP_CWORD; i++)); do
    if [[ \${COMP_WORDS[i]} == --config ]]; then
      if [[ \${COMP_WORDS[i+1]} == = ]]; then config=(--config "\${COMP_WORDS[i+2]}"); else config=(--config "\${COMP_WORDS[i+1]}"); fi
    elif [[ \${COMP_WORDS[i]} == --config=* ]]; then
      config=("\${COMP_WORDS[i]}")
    fi
  done
  "\${COMP_WORDS[0]}" ${ENVIRONMENTS_COMMAND} "\${config[@]}" 2>/dev/null
}

# Whether the word $2 is one of the words of $1.
__${program.name}_in() {
  local w
  for w in $1; do [[ $w == "$2" ]] && return 0; done
  return 1
}

_${program.name}() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD-1]}" path='' opt='' values i w
  COMPREPLY=()
  # The command path: the command words before the cursor, past options and their values.
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
    if [[ $w == -* ]]; then
      if [[ $w != *=* ]] && __${program.name}_in "$(__${program.name}_value_options "$path")" "$w"; then
        ((i++))
      fi
    elif __${program.name}_in "$(__${program.name}_commands "$path")" "$w"; then
      path="\${path:+$path }$w"
    fi
  done
  # The option whose value is at the cursor: --format j, --format=j (split at = or not).
  if [[ $cur == --*=* ]]; then
    opt="\${cur%%=*}"
    cur="\${cur#*=}"
  elif [[ $prev == = && \${COMP_WORDS[COMP_CWORD-2]} == -* ]]; then
    opt="\${COMP_WORDS[COMP_CWORD-2]}"
  elif [[ $cur == = && $prev == -* ]]; then
    opt="$prev"
    cur=''
  elif [[ $prev == -* ]] && __${program.name}_in "$(__${program.name}_value_options "$path")" "$prev"; then
    opt="$prev"
  fi
  if [[ -n $opt ]]; then
    if values="$(__${program.name}_values "$path" "$opt")"; then
      COMPREPLY=($(compgen -W "$values" -- "$cur"))
    else
      compopt -o filenames 2>/dev/null
      COMPREPLY=($(compgen -f -- "$cur"))
    fi
    return 0
  fi
  if [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "$(__${program.name}_options "$path")" -- "$cur"))
    return 0
  fi
  values="$(__${program.name}_commands "$path")"
  if [[ -n $values ]]; then
    COMPREPLY=($(compgen -W "$values" -- "$cur"))
  elif values="$(__${program.name}_arguments "$path")"; then
    COMPREPLY=($(compgen -W "$values" -- "$cur"))
  else
    compopt -o filenames 2>/dev/null
    COMPREPLY=($(compgen -f -- "$cur"))
  fi
  return 0
}

complete -F _${program.name} ${program.name}
`;
}

function zshScript(program: CompletionCommand): string {
  const all = located(program);
  const n = program.name;
  const described = (name: string, description: string) => quote(`${name.replace(/:/g, '\\:')}:${shortly(description)}`);
  const reply = (list: readonly string[]) => `reply=(${list.join(' ')})`;
  const values = (list: CompletionValues) => (list === 'environments' ? `__${n}_environments` : reply(list.map(quote)));
  return `#compdef ${n}
# zsh completion for ${n} (generated by: ${n} completion zsh)
# Install: ${n} completion zsh > "\${fpath[1]}/_${n}"   (then start a new shell)
#      or: add  source <(${n} completion zsh)  to ~/.zshrc, after compinit

# The subcommands of a command path ('' for the program), as name:description.
__${n}_commands() {
  reply=()
  case "$1" in
${caseArms(all, (at) => (at.command.commands.length > 0 ? reply(at.command.commands.map((c) => described(c.name, c.description))) : undefined)).join('\n')}
  esac
}

# The options a command path accepts, its own and the global ones, as flag:description.
__${n}_options() {
  reply=()
  case "$1" in
${caseArms(all, (at) => reply(optionsOf(program, at).flatMap((o) => o.flags.map((f) => described(f, o.description))))).join('\n')}
  esac
}

# The options of a command path that take a value.
__${n}_value_options() {
  reply=()
  case "$1" in
${caseArms(all, (at) => reply(valueFlagsOf(optionsOf(program, at)).map(quote))).join('\n')}
  esac
}

# The values of an option ($1: path, $2: option); status 1 when it takes a file name.
__${n}_values() {
  reply=()
  case "$1|$2" in
${valueArms(program, all, (list) => `${values(list)}; return 0`).join('\n')}
  esac
  return 1
}

# The values of a command's arguments (none for free text); status 1 when they are file names.
__${n}_arguments() {
  reply=()
  case "$1" in
${caseArms(all, (at) => (at.command.arguments === 'files' ? undefined : `${values(at.command.arguments === 'none' ? [] : at.command.arguments)}; return 0`)).join('\n')}
  esac
  return 1
}

# The environments of the configuration (--config on the command line, else MFTOPS_CONFIG's or ./mftops.yaml).
__${n}_environments() {
  local i
  local -a config
  for (( i = 2; i < CURRENT; i++ )); do
    if [[ \${words[i]} == --config ]]; then
      config=(--config "\${words[i+1]}")
    elif [[ \${words[i]} == --config=* ]]; then
      config=("\${words[i]}")
    fi
  done
  reply=(\${(f)"$(\${words[1]} ${ENVIRONMENTS_COMMAND} "\${config[@]}" 2>/dev/null)"})
}

_${n}() {
  local cur=\${words[CURRENT]} prev=\${words[CURRENT-1]} path='' opt='' i w
  local -a reply names
  # The command path: the command words before the cursor, past options and their values.
  for (( i = 2; i < CURRENT; i++ )); do
    w=\${words[i]}
    if [[ $w == -* ]]; then
      __${n}_value_options "$path"
      if [[ $w != *=* ]] && (( \${reply[(Ie)$w]} )); then
        (( i++ ))
      fi
    else
      __${n}_commands "$path"
      names=(\${reply%%:*})
      if (( \${names[(Ie)$w]} )); then
        path=\${path:+$path }$w
      fi
    fi
  done
  # The option whose value is at the cursor: --format j or --format=j.
  if [[ $cur == --*=* ]]; then
    opt=\${cur%%=*}
    compset -P '*='
  else
    __${n}_value_options "$path"
    if [[ $prev == -* ]] && (( \${reply[(Ie)$prev]} )); then
      opt=$prev
    fi
  fi
  if [[ -n $opt ]]; then
    if __${n}_values "$path" "$opt"; then
      compadd -a reply
    else
      _files
    fi
    return
  fi
  if [[ $cur == -* ]]; then
    __${n}_options "$path"
    _describe -t options option reply
    return
  fi
  __${n}_commands "$path"
  if (( \${#reply} )); then
    _describe -t commands command reply
  elif __${n}_arguments "$path"; then
    compadd -a reply
  else
    _files
  fi
}

if [[ $funcstack[1] == _${n} ]]; then
  _${n} "$@"
else
  compdef _${n} ${n}
fi
`;
}

function fishScript(program: CompletionCommand): string {
  const n = program.name;
  const all = located(program);
  const lines = [
    `# fish completion for ${n} (generated by: ${n} completion fish)`,
    `# Install: ${n} completion fish > ~/.config/fish/completions/${n}.fish`,
    '',
    `# The command path of the command line: its command words, past options and their values.`,
    `function __${n}_path`,
    '    set -l words (commandline -opc)',
    "    set -l path ''",
    '    set -l skip 0',
    '    for w in $words[2..-1]',
    '        if test $skip -eq 1',
    '            set skip 0',
    '        else if string match -q -- "-*" $w',
    `            if not string match -q -- "*=*" $w; and contains -- $w (__${n}_value_options $path)`,
    '                set skip 1',
    '            end',
    `        else if contains -- $w (__${n}_commands $path)`,
    '            set path (string trim -- "$path $w")',
    '        end',
    '    end',
    '    echo $path',
    'end',
    '',
    `function __${n}_commands`,
    '    switch "$argv[1]"',
    ...all.flatMap((at) =>
      at.command.commands.length > 0
        ? [`        case ${quote(at.path)}`, `            printf '%s\\n' ${at.command.commands.map((c) => quote(c.name)).join(' ')}`]
        : [],
    ),
    '    end',
    'end',
    '',
    `function __${n}_value_options`,
    '    switch "$argv[1]"',
    ...all.flatMap((at) => {
      const flags = valueFlagsOf(optionsOf(program, at));
      return flags.length > 0 ? [`        case ${quote(at.path)}`, `            printf '%s\\n' ${flags.map(quote).join(' ')}`] : [];
    }),
    '    end',
    'end',
    '',
    `# The environments of the configuration (--config on the command line, else MFTOPS_CONFIG's or ./mftops.yaml).`,
    `function __${n}_environments`,
    '    set -l words (commandline -opc)',
    '    set -l config',
    '    for i in (seq 2 (count $words))',
    '        if test "$words[$i]" = --config; and test $i -lt (count $words)',
    '            set config --config $words[(math $i + 1)]',
    "        else if string match -q -- '--config=*' $words[$i]",
    '            set config $words[$i]',
    '        end',
    '    end',
    // `command`: fish before 3.0 runs no variable as a command.
    `    command $words[1] ${ENVIRONMENTS_COMMAND} $config 2>/dev/null`,
    'end',
    '',
    `# True when the command line is at the command path $argv[1].`,
    `function __${n}_at`,
    `    test (__${n}_path) = "$argv[1]"`,
    'end',
    '',
    `complete -c ${n} -f`,
  ];
  const globalFlags = new Set(flagsOf(program.options));
  for (const at of all) {
    const cond = `-n ${quote(`__${n}_at "${at.path}"`)}`;
    for (const sub of at.command.commands) lines.push(`complete -c ${n} ${cond} -a ${quote(sub.name)} -d ${quote(shortly(sub.description))}`);
    // The global options once, at any path; a command's own options where it is.
    const options = at.path === '' ? program.options : at.command.options.filter((o) => !o.flags.some((f) => globalFlags.has(f)));
    const where = at.path === '' ? '' : `${cond} `;
    for (const o of options) lines.push(`complete -c ${n} ${where}${fishOption(o, n)}`);
    const args = at.command.arguments;
    if (args === 'files') lines.push(`complete -c ${n} ${cond} -F`);
    else if (args !== 'none') lines.push(`complete -c ${n} ${cond} -a ${fishValues(n, args)}`);
  }
  return `${lines.join('\n')}\n`;
}

function fishValues(n: string, values: CompletionValues): string {
  return quote(values === 'environments' ? `(__${n}_environments)` : values.join(' '));
}

function fishOption(o: CompletionOption, n: string): string {
  const flags = o.flags.map((f) => (f.startsWith('--') ? `-l ${quote(f.slice(2))}` : `-s ${quote(f.slice(1))}`)).join(' ');
  const value = !o.takesValue ? '' : o.values ? ` -x -a ${fishValues(n, o.values)}` : ' -r -F';
  return `${flags}${value} -d ${quote(shortly(o.description))}`;
}
