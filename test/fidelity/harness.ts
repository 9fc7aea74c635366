import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { main } from '../../src/cli/main.js';
import { captureIo } from '../../src/cli/io.js';
import { emulatorConfigYaml } from '../../src/emulator/config-for.js';
import { startEmulator } from '../../src/emulator/index.js';
import type { EmulatorOptions, EmulatorSeed, RunningEmulator } from '../../src/emulator/index.js';
import { testdir } from '../helpers/testdir.js';
import { SEEDED_SECRET } from './arbitraries.js';

/** The passwords of the generated states' admin accounts (the emulator's defaults). */
export const LOGIN_ENV = { MFT_AUTOMATION_PASSWORD: 'admin-Pa55!seed', MFT_TRANSFER_PASSWORD: 'xfer-admin-Pa55!seed' };

export interface CliRun {
  readonly args: readonly string[];
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * The CLI in this process (commander wiring, commands, clients), over real HTTP to an emulator:
 * spawning a process per command would cost ten times the run. Commands run one at a time.
 */
export async function mftops(args: readonly string[], cwd: string, env: Readonly<Record<string, string>>): Promise<CliRun> {
  const io = captureIo({ cwd, env: { ...LOGIN_ENV, ...env } });
  const before = process.exitCode;
  process.exitCode = 0;
  try {
    await main(['node', 'mftops', ...args], io);
    return { args, code: Number(process.exitCode ?? 0), stdout: io.out(), stderr: io.err() };
  } finally {
    process.exitCode = before;
  }
}

/** An emulator holding `seed`, with a working folder whose mftops.yaml points at it. */
export async function workspace(
  seed: EmulatorSeed,
  options: Omit<EmulatorOptions, 'seed'>,
  files: Readonly<Record<string, string>> = {},
  scope?: { readonly taskGroups?: readonly string[]; readonly folders?: readonly string[] },
): Promise<{ emulator: RunningEmulator; dir: string }> {
  const emulator = await startEmulator({ ...options, seed });
  const config = emulatorConfigYaml({ ...emulator, manifests: ['manifests'], ...(scope ? { scope } : {}) });
  const dir = testdir({ 'mftops.yaml': config, 'manifests/.keep': '', ...files });
  return { emulator, dir };
}

/** Every file under `dir`, as text (what import wrote, what apply saved). */
export function readTree(dir: string): string {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else out.push(readFileSync(p, 'latin1'));
    }
  };
  walk(dir);
  return out.join('\n');
}

/** A failed step, with everything needed to see why (the property's counter-example shows it). */
export function explain(run: CliRun): string {
  return `mftops ${run.args.join(' ')} exited ${run.code}\n--- stdout\n${run.stdout}\n--- stderr\n${run.stderr}`;
}

/** Seeded secrets must not show in any output or file. */
export function leakedSecret(text: string): boolean {
  return text.includes(SEEDED_SECRET);
}
