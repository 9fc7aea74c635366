import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { onTestFinished } from 'vitest';

const BIN = fileURLToPath(new URL('../../bin/mftops.js', import.meta.url));

/**
 * How long a CLI run may take before it counts as a hang and is killed (its code is then null).
 * Just under the test timeout (vitest.config.ts) so a hang fails with the run's own output; far
 * above any real run, so a loaded machine never cuts off one that is only slow.
 */
export const CLI_HANG_GUARD_MS = 170_000;

export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Run the built CLI (`bin/mftops.js` → `dist/`) as a user would, in its own process. `npm test`
 * builds first (pretest). The environment is only what the test passes, plus PATH, so nothing of
 * the developer's shell leaks into a test.
 */
export function runCli(
  args: readonly string[],
  opts: {
    cwd?: string;
    env?: Record<string, string>;
    timeoutMs?: number;
    user?: { uid: number; gid: number };
    /** The reader of stdout goes away after its first chunk (`mftops … | head -1`): stdout is what it got. */
    readerLeaves?: boolean;
  } = {},
): Promise<CliResult> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: opts.cwd ?? process.cwd(),
      env: { PATH: process.env['PATH'] ?? '', NO_COLOR: '1', ...opts.env },
      stdio: ['ignore', 'pipe', 'pipe'],
      // Another account (tests that need a folder the CLI may not write, when they run as root).
      ...(opts.user ?? {}),
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString('utf8');
      if (opts.readerLeaves) child.stdout.destroy();
    });
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? CLI_HANG_GUARD_MS);
    // A run still going when its test ends (a test that failed or timed out) is killed then, so
    // it cannot write to an emulator the next test shares.
    let ended = false;
    try {
      onTestFinished(() => {
        if (!ended) child.kill('SIGKILL');
      });
    } catch {
      // called from a hook (beforeAll…), not a test: the timer alone guards it
    }
    child.on('error', reject);
    child.on('close', (code) => {
      ended = true;
      clearTimeout(timer);
      resolveRun({ code, stdout, stderr });
    });
  });
}

/** A CLI run a test signals or watches while it runs (Ctrl-C, SIGTERM, a crash injected). */
export interface StartedCli {
  readonly child: ChildProcess;
  /** What it has printed so far. */
  readonly out: { stdout: string; stderr: string };
  /** Its exit code once it ends (null: killed by a signal it did not handle). */
  readonly closed: Promise<number | null>;
}

/**
 * Start the built CLI as `runCli` does (only PATH and `env` in its environment), without waiting
 * for it; `nodeArgs` go before the CLI (`--import` of an injection). Killed when its test ends.
 */
export function startCli(args: readonly string[], opts: { cwd: string; env?: Record<string, string>; nodeArgs?: readonly string[] }): StartedCli {
  const child = spawn(process.execPath, [...(opts.nodeArgs ?? []), BIN, ...args], {
    cwd: opts.cwd,
    env: { PATH: process.env['PATH'] ?? '', NO_COLOR: '1', ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const out = { stdout: '', stderr: '' };
  child.stdout?.on('data', (d: Buffer) => (out.stdout += d.toString('utf8')));
  child.stderr?.on('data', (d: Buffer) => (out.stderr += d.toString('utf8')));
  const closed = new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', resolve);
  });
  onTestFinished(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  return { child, out, closed };
}

/** A stack trace in user-facing output is a bug: this finds one. */
export function hasStackTrace(text: string): boolean {
  return /\n\s+at .+\(.+:\d+:\d+\)/.test(text) || /^\s+at file:\/\//m.test(text);
}
