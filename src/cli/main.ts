import { Argument, Command, CommanderError, Option } from 'commander';
import { DEFAULTS } from '../app/defaults.js';
import { diagnosticsOf, userMessageOf } from '../errors.js';
import { processIo, type CommandIo, type GlobalOptions } from './io.js';
import { checkFormat } from './formats.js';
import { VERSION } from '../version.js';
import { PROFILES } from '../emulator/profiles.js';
import { ENVIRONMENTS_COMMAND, SHELLS } from '../render/completion-words.js';
import type { ApplyCommandOptions } from './commands/apply.js';
import type { EmulatorCommandOptions } from './commands/emulator.js';
import type { PlanCommandOptions } from './commands/plan.js';
import type { ImportCommandOptions } from './commands/import.js';
import type { ServiceName } from '../vocabulary.js';
import { installCrashGuard } from '../app/crash-guard.js';
import { allowHeapGrowthLimit } from '../heap-growth.js';
import { withDefined } from '../with-defined.js';

/**
 * The global options with MFTOPS_CONFIG and MFTOPS_ENV filling in `--config` and `--env` when
 * those were not given (a flag always wins; an empty variable is unset), each marked with where
 * it came from. `init` names a new environment: a variable set for another project does not.
 */
export function withOptionVariables(g: GlobalOptions, env: NodeJS.ProcessEnv, command: string): GlobalOptions {
  const config = env['MFTOPS_CONFIG'] ?? '';
  const name = env['MFTOPS_ENV'] ?? '';
  return {
    ...g,
    ...(g.config === undefined && config !== '' ? { config, configFrom: 'MFTOPS_CONFIG' as const } : {}),
    ...(g.env === undefined && name !== '' && command !== 'init' ? { env: name, envFrom: 'MFTOPS_ENV' as const } : {}),
  };
}

/**
 * Parse arguments, run one command, set the exit code. Commands are imported lazily so that
 * `--help` and `validate` do not pay for undici and the emulator.
 *
 * Run as the program (no `io` given), the process is guarded: a rejection nobody handled or an
 * exception nobody caught is reported as any error is (one line, or the JSON error document),
 * the apply lock released and the tokens revoked, exit 1; never Node's stack trace. An error is
 * reported once, whichever of the two sees it first (an unhandled copy of an error the command
 * also throws is the same error).
 */
export async function main(argv: readonly string[], io?: CommandIo): Promise<void> {
  const out = io ?? processIo();
  const program = buildProgram(out);
  const verbose = argv.includes('-v') || argv.includes('--verbose');
  let reported = false;
  const report = async (err: unknown, fromGuard: boolean): Promise<void> => {
    if (reported) return;
    reported = true;
    const code = await exitCodeFor(err, out, program.opts<Partial<GlobalOptions>>(), verbose, typedCommand(program, argv));
    // A stray failure after a command ended well is still a failure.
    process.exitCode = fromGuard ? 1 : code;
  };
  if (io === undefined) {
    installCrashGuard({ report: (err) => report(err, true) });
    allowHeapGrowthLimit();
  }
  try {
    await program.parseAsync([...argv]);
  } catch (err) {
    await report(err, false);
  }
}

async function exitCodeFor(err: unknown, io: CommandIo, g: Partial<GlobalOptions>, verbose: boolean, typed: string): Promise<number> {
  // Help and version are successes.
  if (err instanceof CommanderError && (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help')) return 0;
  // Lazy (measured), as the commands are: the error path's renderers are 8 modules `--help` and a
  // command that succeeds do not load.
  const { writeDiagnostics, writeError } = await import('./commands/common.js');
  const options: GlobalOptions = { quiet: false, verbose: false, ...g, format: g.format ?? 'text', color: g.color ?? true };
  if (err instanceof CommanderError) {
    // A usage error is an error like any other: one line (commander's own output is silenced).
    writeError(options, io, usageErrorLine(err.message, typed));
    return 1;
  }
  const diagnostics = diagnosticsOf(err);
  if (diagnostics.length > 0) {
    // The configuration file's problems, like a command's: in the format asked for.
    writeDiagnostics(options, io, diagnostics, 0, { alone: true });
    return 1;
  }
  // Ours, or the machine's (a port in use, a full disk): one line, no stack, even with -v.
  const message = userMessageOf(err);
  if (message !== undefined) {
    writeError(options, io, message);
    return 1;
  }
  const internal = err instanceof Error ? err.message : String(err);
  if (options.format === 'json') writeError(options, io, `internal error: ${internal}`);
  io.stderr(`mftops: internal error: ${internal}\n`);
  if (verbose && err instanceof Error && err.stack) io.stderr(`${err.stack}\n`);
  else io.stderr('(this is a bug in mftops; run again with -v for details and report it)\n');
  return 1;
}

/** The commander program of every command (exported for the tests that walk it). */
export function buildProgram(io: CommandIo): Command {
  const program = new Command('mftops')
    .description('GitOps for managed-file-transfer servers: validate, plan and apply tasks, resource-group ACLs and folder permissions from YAML.')
    .version(VERSION, '--version')
    .option('--config <file>', 'configuration file (default: $MFTOPS_CONFIG, else mftops.yaml in the working folder)')
    .option('--env <name>', 'environment in the configuration file (default: $MFTOPS_ENV, else the only one)')
    .addOption(new Option('--format <format>', 'output format').choices(['text', 'markdown', 'json', 'github']).default('text'))
    .option('--no-color', 'no colour in output (also NO_COLOR)')
    .option('-q, --quiet', 'only errors and results', false)
    .option('-v, --verbose', 'log requests, retries and token refreshes to stderr', false)
    .exitOverride()
    // Usage errors are written by exitCodeFor, in the one-line form of every error.
    .configureOutput({ writeOut: (s) => io.stdout(s), writeErr: (s) => io.stderr(s), outputError: () => undefined })
    // A command's --help lists the options every command takes too (copied to each command).
    .configureHelp({ showGlobalOptions: true });

  const globals = (cmd: Command): GlobalOptions => withOptionVariables(cmd.optsWithGlobals() as GlobalOptions, io.env, commandPath(cmd));
  const run = (code: Promise<number>): Promise<void> => code.then((c) => void (process.exitCode = c));

  // A --format the command does not print is refused before it starts (src/cli/formats.ts).
  program.hook('preAction', (_program, cmd) => checkFormat(commandPath(cmd), globals(cmd).format));

  program
    .command('validate')
    .description('check manifests against the schemas and rules; no network (exit 0 valid, 1 invalid)')
    .argument('[paths...]', "manifest files or folders (default: the environment's manifests)")
    .action(async (paths: string[], _opts: unknown, cmd: Command) => {
      const { runValidateCommand } = await import('./commands/validate.js');
      await run(runValidateCommand(globals(cmd), paths, io));
    });

  program
    .command('status')
    .description('check connection and credentials for each service; server versions and object counts')
    .option('--expiring-within <days>', 'list keys and certificates expiring within this many days, e.g. 30 or 30d (default 30)')
    .action(async (opts: { expiringWithin?: string }, cmd: Command) => {
      const { runStatus } = await import('./commands/status.js');
      await run(runStatus(globals(cmd), io, opts));
    });

  program
    .command('plan')
    .description('read the live servers and show what would change to match the manifests; read-only')
    .argument('[paths...]', "manifest files or folders (default: the environment's manifests)")
    .option('--out <file>', 'save the plan, to apply it exactly later with mftops apply FILE')
    .option('--detailed-exitcode', 'exit 2 when there are changes (0 none, 1 error)', false)
    .option('--target <address...>', 'limit the plan to these objects (Kind/name, e.g. "Task/Payroll to bank")', [])
    .option('--parallelism <n>', 'concurrent reads per server', String(DEFAULTS.readParallelism))
    .option('--prune', "with manifest paths other than the environment's: prune all the same (off then: other manifests may manage what these do not name)")
    .option('--no-prune', 'prune nothing in this run')
    .option('--rotate-passwords', "send each existing User its manifest's password again (passwords are never read or compared)", false)
    .action(async (paths: string[], opts: Omit<PlanCommandOptions, 'paths'>, cmd: Command) => {
      const { runPlan } = await import('./commands/plan.js');
      await run(runPlan(globals(cmd), { ...opts, paths }, io));
    });

  program
    .command('apply')
    .description('apply a saved plan exactly, or plan the manifests and apply after approval; writes (exit 0 applied and verified, 1 error)')
    .argument(
      '[planfile-or-paths...]',
      "a plan file saved by mftops plan --out (any name: found by its content), or manifest files or folders (default: the environment's manifests)",
    )
    .option('--auto-approve', 'do not ask for approval before applying a fresh plan', false)
    .option('--allow-delete', 'allow the plan to delete objects', false)
    .option('--allow-replace', 'allow the plan to replace objects (delete, then create again)', false)
    .option('--max-deletes <n>', 'refuse a plan that deletes more objects than this', String(DEFAULTS.maxDeletes))
    .option('--parallelism <n>', 'changes written at the same time', String(DEFAULTS.applyParallelism))
    .option('--target <address...>', 'plan and apply only these objects (Kind/name), as plan --target; not with a plan file', [])
    .option(
      '--prune',
      "with manifest paths other than the environment's: prune all the same (off then: other manifests may manage what these do not name); not with a plan file",
    )
    .option('--no-prune', 'prune nothing in this run; not with a plan file')
    .option('--rotate-passwords', "send each existing User its manifest's password again, as plan --rotate-passwords; not with a plan file", false)
    .option('--override-window <reason>', "apply outside the environment's change windows; the reason is recorded in the ledger and the report")
    .addOption(
      new Option('--running-tasks <mode>', 'before writing a running task: wait for it to end (up to --running-wait), skip the change (exit 1), or ignore it')
        .choices(['wait', 'skip', 'ignore'])
        .default('wait'),
    )
    .option('--running-wait <duration>', 'how long --running-tasks wait waits for each running task (90s, 10m, 1h)', '10m')
    .option('--pause-scheduler', 'stop the automation scheduler for the writes and start it again afterwards (admin only)', false)
    .action(async (args: string[], opts: Omit<ApplyCommandOptions, 'args'>, cmd: Command) => {
      const { runApply } = await import('./commands/apply.js');
      await run(runApply(globals(cmd), { ...opts, args }, io));
    });

  program
    .command('show')
    .description('show a plan file saved by mftops plan --out, as plan printed it (--format text, markdown or json); reads only the file')
    .argument('<planfile>', 'the saved plan')
    .action(async (planFile: string, _opts: unknown, cmd: Command) => {
      const { runShow } = await import('./commands/show.js');
      await run(runShow(globals(cmd), { planFile }, io));
    });

  program
    .command('drift')
    .description('compare the servers with the manifests and list unmanaged objects in scope; read-only (exit 0 in sync, 2 drift, 1 error)')
    .argument('[paths...]', "manifest files or folders (default: the environment's manifests)")
    .option('--report <file>', 'also write the JSON drift report to FILE')
    .option('--parallelism <n>', 'concurrent reads per server', String(DEFAULTS.readParallelism))
    .option(
      '--prune',
      "with manifest paths other than the environment's: list unmanaged objects all the same (not listed then: other manifests may manage them)",
    )
    .option('--no-prune', 'mark no unmanaged object as one apply would delete')
    .option(
      '--adopt [addresses...]',
      'rewrite the manifests to match the servers for the drifted objects (all, or the addresses given); writes files only, never a server',
    )
    .option('--dry-run', 'with --adopt: print the diff of each manifest file and write nothing')
    .option('--shared', 'with --adopt: also edit manifests that other environments load (they change there too)')
    .option('--expiring-within <days>', 'list keys and certificates expiring within this many days, e.g. 30 or 30d (default 30)')
    .action(
      async (
        paths: string[],
        opts: {
          report?: string;
          parallelism: string;
          prune?: boolean;
          adopt?: boolean | string[];
          dryRun?: boolean;
          shared?: boolean;
          expiringWithin?: string;
        },
        cmd: Command,
      ) => {
        const { runDrift } = await import('./commands/drift.js');
        await run(runDrift(globals(cmd), { ...opts, paths }, io));
      },
    );

  program
    .command('diff-env')
    .description(
      'what differs between two environments, object by object: declared in one only, declared differently, or not in sync on its server; read-only (exit 0 alike, 2 differ, 1 error)',
    )
    .argument('<a>', 'an environment of the configuration (e.g. staging)')
    .argument('<b>', 'another one (e.g. production)')
    .option('--offline', 'compare the manifests only: no request, no credential read', false)
    .option('--parallelism <n>', 'concurrent reads per server', String(DEFAULTS.readParallelism))
    .addHelpText(
      'after',
      [
        '',
        "Each environment's manifests are loaded (its own manifests: folders) and compared by identity:",
        'task name, folder path, resource group and user group. Unless --offline, both servers are read',
        "as plan reads them, and an object whose server differs from that environment's manifests is",
        'said to be not in sync there. --env is not used: the two environments are the arguments.',
        '',
        'Example: mftops diff-env staging production --format markdown',
      ].join('\n'),
    )
    .action(async (a: string, b: string, opts: { offline: boolean; parallelism: string }, cmd: Command) => {
      const { runDiffEnv } = await import('./commands/diff-env.js');
      await run(runDiffEnv(globals(cmd), { a, b, ...opts }, io));
    });

  program
    .command('import')
    .description('write minimal manifests from live objects or a saved snapshot; read-only (exit 0, 1)')
    .option(
      '--kind <kind...>',
      'Task, ResourceGroupAcl, FolderPermissions, Group (repeat or comma-separate); default: the first three, less any whose service (or scope) the environment lacks',
    )
    .option(
      '--name <pattern>',
      'tasks/ACLs: name mask (x, x*, *x, *x*); folders: path or glob (* in a name, ** across); without --kind, a pattern starting with / imports folders, any other tasks and ACLs',
    )
    .option('--out <dir>', "folder to write into (default: the environment's first manifests folder)")
    .option('--all', 'every object the account sees, not only the scope', false)
    .option('--force', 'overwrite existing files', false)
    .option('--from-snapshot <id>', 'read a saved snapshot (id, prefix, latest) instead of the servers')
    .option('--parallelism <n>', 'concurrent reads per server', String(DEFAULTS.readParallelism))
    .action(async (opts: ImportCommandOptions, cmd: Command) => {
      const { runImport } = await import('./commands/import.js');
      await run(runImport(globals(cmd), opts, io));
    });

  program
    .command('scheduler')
    .description("the automation server's scheduler (mftops status shows its state)")
    .command('start')
    .description('start the automation scheduler (admin only), e.g. after an apply --pause-scheduler that was killed; removes its recovery note')
    .option('--force', 'start it even while an apply --pause-scheduler in progress has it stopped for its writes', false)
    .action(async (opts: { force: boolean }, cmd: Command) => {
      const { runSchedulerStart } = await import('./commands/scheduler.js');
      await run(runSchedulerStart(globals(cmd), io, { force: opts.force }));
    });

  const snapshot = program.command('snapshot').description('backups of the live configuration: save, list, verify, diff, restore');
  snapshot
    .command('save')
    .summary("save every service of the environment: the automation export and the transfer folders' ACL entries (files 0600)")
    .description(
      "save every service of the environment: the automation server's XML export and the ACL entries of the transfer folders (files 0600). " +
        "The folders saved are the ones the environment's FolderPermissions manifests manage and every folder under its scope.folders; " +
        'with neither, no folder permissions are saved (a warning says so)',
    )
    .option('--folder <path...>', 'transfer folders to save instead of the managed folders and those under scope.folders')
    .action(async (opts: { folder?: string[] }, cmd: Command) => {
      const { runSnapshotSave } = await import('./commands/snapshot.js');
      await run(runSnapshotSave(globals(cmd), opts, io));
    });
  snapshot
    .command('list')
    .description('list saved snapshots: time, environment, size, sha256, task count')
    .action(async (_opts: unknown, cmd: Command) => {
      const { runSnapshotList } = await import('./commands/snapshot.js');
      await run(runSnapshotList(globals(cmd), io));
    });
  snapshot
    .command('verify')
    .description('check a snapshot: sha256 of every file and well-formed XML (exit 1 when altered)')
    .argument('<id>', 'snapshot id, a unique prefix, or latest')
    .action(async (id: string, _opts: unknown, cmd: Command) => {
      const { runSnapshotVerify } = await import('./commands/snapshot.js');
      await run(runSnapshotVerify(globals(cmd), { id }, io));
    });
  snapshot
    .command('diff')
    .description('tasks, hosts, resource-group ACLs and folder ACL entries added, removed or changed between two snapshots (exit 0 alike, 2 differ, 1 error)')
    .argument('<a>', 'older snapshot')
    .argument('<b>', 'newer snapshot')
    .action(async (a: string, b: string, _opts: unknown, cmd: Command) => {
      const { runSnapshotDiff } = await import('./commands/snapshot.js');
      await run(runSnapshotDiff(globals(cmd), { a, b }, io));
    });
  snapshot
    .command('restore')
    .description('put a snapshot back (PUT /config and the saved folder ACL entries), after saving a snapshot of what it replaces')
    .argument('<id>', 'snapshot id, a unique prefix, or latest')
    .option('--auto-approve', 'do not ask for confirmation', false)
    .option('--dry-run', 'show what the restore would change (reads only) and write nothing', false)
    .addOption(new Option('--service <service>', 'restore only this part of the snapshot (default: every part it holds)').choices(['automation', 'transfer']))
    .action(async (id: string, opts: { autoApprove: boolean; dryRun: boolean; service?: ServiceName }, cmd: Command) => {
      const { runSnapshotRestore } = await import('./commands/snapshot.js');
      await run(runSnapshotRestore(globals(cmd), { id, autoApprove: opts.autoApprove, dryRun: opts.dryRun, ...withDefined({ service: opts.service }) }, io));
    });

  program
    .command('emulator')
    .description('serve both server APIs locally on 127.0.0.1, from an in-memory state (for demos and tests)')
    .option('--port <n>', 'port to listen on (0: any free port)', '0')
    .option('--seed <file>', 'JSON seed with the initial state (default: an empty state with admin users)')
    .option('--latency-ms <n>', 'delay added to every response', '0')
    .option('--fault-rate <p>', 'probability (0-1) that a request fails with 500, 503 or a reset', '0')
    .option('--fault-seed <n>', 'seed of the fault sequence', '1')
    .addOption(new Option('--profile <profile>', 'named set of server variants (docs/server-variants.md)').choices(PROFILES).default('current'))
    .option(
      '--variant <name=value>',
      'serve one reading of the register, e.g. automation.days=short (repeatable; wins over --profile)',
      (v: string, prev: string[]) => [...prev, v],
      [] as string[],
    )
    .option('--access-ttl <seconds>', 'lifetime of access tokens', '300')
    .option('--rate-limit <per-second>', 'answer at most this many requests per second per service, then 429 with Retry-After (0: no limit)', '0')
    .option('--write-config <file>', 'also write an mftops.yaml for this emulator to FILE (passwords as ${env:} references; refused if FILE exists)')
    .option('--force', 'with --write-config: overwrite FILE', false)
    .action(async (opts: Omit<EmulatorCommandOptions, 'quiet'>, cmd: Command) => {
      const { runEmulator } = await import('./commands/emulator.js');
      await run(runEmulator({ ...opts, quiet: globals(cmd).quiet }, io));
    });

  // Conventions: fmt, init, explain, completion.
  program
    .command('fmt')
    .description('rewrite manifests in canonical form: keys in schema order, quoting, comments kept (exit 0, 1 errors or --check found unformatted files)')
    .argument('[paths...]', "manifest files or folders (default: the environment's manifests)")
    .option('--check', 'write nothing; list the files that are not in canonical form and exit 1 if any (for CI)', false)
    .action(async (paths: string[], opts: { check: boolean }, cmd: Command) => {
      const { runFmt } = await import('./commands/fmt.js');
      await run(runFmt(globals(cmd), { paths, check: opts.check }, io));
    });
  program
    .command('init')
    .description(
      'start a project: a commented mftops.yaml (one environment, --env NAME, default prod), an example manifest of each kind, and the GitHub workflows; never overwrites',
    )
    .argument('[dir]', 'the project folder (default: the working folder)')
    .option('--force', 'overwrite files that exist', false)
    .option('--action-ref <owner/repo@ref>', 'the action the workflows use (default: ./node_modules/mftops, the mftops this repository installs)')
    .action(async (dir: string | undefined, opts: { force: boolean; actionRef?: string }, cmd: Command) => {
      const { runInit } = await import('./commands/init.js');
      await run(runInit(globals(cmd), { ...withDefined({ dir }), force: opts.force, ...withDefined({ actionRef: opts.actionRef }) }, io));
    });
  program
    .command('explain')
    .description('what a diagnostic code means, an example that triggers it and the fix; without a code, the list of codes')
    .argument('[code]', 'a code (MF201) or its name (unknown-field)')
    .action(async (code: string | undefined, _opts: unknown, cmd: Command) => {
      const { runExplain } = await import('./commands/explain.js');
      await run(runExplain(globals(cmd), code, io));
    });
  program
    .command('completion')
    .description('print a shell completion script for commands, options and their values (e.g. source <(mftops completion bash))')
    .addArgument(new Argument('<shell>', 'the shell: bash, zsh or fish').choices(SHELLS))
    .action(async (shell: string) => {
      const { runCompletion } = await import('./commands/completion.js');
      await run(runCompletion(program, shell, io));
    });

  // Run by the completion scripts at TAB time (src/render/completion.ts); not for people.
  program
    .command(ENVIRONMENTS_COMMAND, { hidden: true })
    .description('the environments of the configuration, one a line (for shell completion)')
    .action(async (_opts: unknown, cmd: Command) => {
      const { runEnvironmentNames } = await import('./commands/completion.js');
      await run(runEnvironmentNames(globals(cmd), io));
    });

  return program;
}

/**
 * Commander's usage error as one line: `unknown command 'paln' (did you mean plan?)`; without a
 * suggestion, where to read the usage.
 */
export function usageErrorLine(message: string, command = ''): string {
  const [first = '', ...rest] = message.replace(/^error: /, '').split('\n');
  const suggestion = /^\(Did you mean (.+)\?\)$/.exec(rest.join(' ').trim());
  if (suggestion) return `${first} (did you mean ${suggestion[1]}?)`;
  return `${[first, ...rest].join(' ').trim()} (see mftops ${command === '' ? '' : `${command} `}--help)`;
}

/** The command words of the command line (`snapshot restore`), as far as they name commands. */
function typedCommand(program: Command, argv: readonly string[]): string {
  const words: string[] = [];
  let at = program;
  const args = argv.slice(2);
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    if (word.startsWith('-')) {
      if (['--config', '--env', '--format'].includes(word)) i++;
      continue;
    }
    const next = at.commands.find((c) => c.name() === word || c.aliases().includes(word));
    if (next === undefined) break;
    words.push(next.name());
    at = next;
  }
  return words.join(' ');
}

/** `snapshot save`: the command's words as typed, without the program's name. */
export function commandPath(cmd: Command): string {
  const words: string[] = [];
  for (let c: Command | null = cmd; c?.parent; c = c.parent) words.unshift(c.name());
  return words.join(' ');
}
