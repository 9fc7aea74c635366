/**
 * What a command may touch of the process: its output streams, environment and working folder.
 * Commands receive this instead of using `process` directly, so tests run them in-process and read
 * what they wrote. stdout carries the result (plan, report, JSON); stderr carries progress, warnings
 * and errors. The global options every command is given are here too, so that a command's module
 * imports its inputs from this leaf and never from src/cli/main.ts, which imports the commands.
 */
export interface CommandIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  readonly env: NodeJS.ProcessEnv;
  readonly cwd: string;
  /** stdout is a terminal: colour and interactive prompts are allowed (NO_COLOR still wins). */
  readonly isTty: boolean;
  /** stderr is a terminal: progress lines may be drawn there. */
  readonly stderrIsTty?: boolean;
}

/** Options every command accepts (DESIGN.md §1). */
export interface GlobalOptions {
  readonly config?: string;
  readonly env?: string;
  /** Set when `config` came from MFTOPS_CONFIG (no --config given): messages name the variable. */
  readonly configFrom?: OptionVariable;
  /** Set when `env` came from MFTOPS_ENV (no --env given). */
  readonly envFrom?: OptionVariable;
  readonly format: OutputFormat;
  readonly color: boolean;
  readonly quiet: boolean;
  readonly verbose: boolean;
}

/** `--format`; the formats each command accepts are in src/cli/formats.ts. */
export type OutputFormat = 'text' | 'markdown' | 'json' | 'github';

/** The environment variables that stand in for a global option not given on the command line. */
export type OptionVariable = 'MFTOPS_CONFIG' | 'MFTOPS_ENV';

export function processIo(): CommandIo {
  keepRunningWhenOutputCloses(process.stdout);
  keepRunningWhenOutputCloses(process.stderr);
  return {
    stdout: (t) => void process.stdout.write(t),
    stderr: (t) => void process.stderr.write(t),
    env: process.env,
    cwd: process.cwd(),
    isTty: Boolean(process.stdout.isTTY),
    stderrIsTty: Boolean(process.stderr.isTTY),
  };
}

const watched = new WeakSet<NodeJS.EventEmitter>();

/**
 * A reader that goes away (`mftops plan | head`, a closed terminal) makes the stream's next write
 * fail with EPIPE, an error event nobody handled: the crash guard's "internal error", exit 1, and
 * an apply cut short between two writes. Instead the rest of the output is dropped (Node discards
 * writes to the destroyed stream) and the command runs to its end with its own exit code, as
 * `git log | head` does; any other error of the stream is still a crash.
 */
export function keepRunningWhenOutputCloses(stream: NodeJS.EventEmitter): void {
  if (watched.has(stream)) return;
  watched.add(stream);
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') throw err;
  });
}

/** A CommandIo that records output, for tests. */
export function captureIo(overrides: Partial<Omit<CommandIo, 'stdout' | 'stderr'>> = {}): CommandIo & {
  out(): string;
  err(): string;
} {
  let out = '';
  let err = '';
  return {
    stdout: (t) => void (out += t),
    stderr: (t) => void (err += t),
    env: overrides.env ?? {},
    cwd: overrides.cwd ?? process.cwd(),
    isTty: overrides.isTty ?? false,
    out: () => out,
    err: () => err,
  };
}
