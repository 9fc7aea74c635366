import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { writeFileAtomicSync } from '../../atomic-file.js';
import { ConfigError, systemError } from '../../errors.js';
import type { CommandIo } from '../io.js';
import { startEmulator, loadSeedFile, parseVariantAssignments, describeVariants, seedAdmins, PROFILES } from '../../emulator/index.js';
import { emulatorConfigYaml } from '../../emulator/config-for.js';
import { withDefined } from '../../with-defined.js';

/** The variables the printed mftops.yaml reads the passwords from, as `mftops init` and the README name them. */
const PASSWORD_VARIABLES = { automation: 'MFT_AUTOMATION_PASSWORD', transfer: 'MFT_TRANSFER_PASSWORD' } as const;
/** The environment the printed mftops.yaml defines. */
const ENVIRONMENT = 'emulator';

export interface EmulatorCommandOptions {
  readonly port: string;
  readonly seed?: string;
  readonly latencyMs: string;
  readonly faultRate: string;
  readonly faultSeed: string;
  readonly profile: string;
  /** `NAME=VALUE` switches of the register, in the order given. */
  readonly variant: readonly string[];
  readonly accessTtl: string;
  /** Requests per second per service; `0`: no limit. */
  readonly rateLimit?: string;
  /** Also write the printed mftops.yaml to this file (refused when it exists, unless `force`). */
  readonly writeConfig?: string;
  readonly force?: boolean;
  readonly quiet: boolean;
}

/** `mftops emulator`: serve both APIs until SIGINT/SIGTERM, then exit 0. */
export async function runEmulator(opts: EmulatorCommandOptions, io: CommandIo): Promise<number> {
  const port = parseNumber('--port', opts.port, { min: 0, max: 65535, integer: true });
  const latencyMs = parseNumber('--latency-ms', opts.latencyMs, { min: 0, max: 600_000, integer: true });
  const faultRate = parseNumber('--fault-rate', opts.faultRate, { min: 0, max: 1, integer: false });
  const faultSeed = parseNumber('--fault-seed', opts.faultSeed, { min: 0, max: 2 ** 31, integer: true });
  const accessTtlSeconds = parseNumber('--access-ttl', opts.accessTtl, { min: 1, max: 86_400, integer: true });
  const rateLimit = parseNumber('--rate-limit', opts.rateLimit ?? '0', { min: 0, max: 100_000, integer: false });
  const profile = PROFILES.find((p) => p === opts.profile) ?? 'current';
  const overrides = parseVariantAssignments(opts.variant);
  const seed = opts.seed !== undefined ? loadSeedFile(opts.seed) : undefined;
  // Refused before anything listens; checked again by the write itself (no overwrite without --force).
  const configFile = opts.writeConfig !== undefined ? resolve(opts.writeConfig) : undefined;
  if (configFile !== undefined && opts.force !== true && existsSync(configFile))
    throw new ConfigError(`${opts.writeConfig} exists: pass --force to overwrite it, or choose another file`);
  const emulator = await startEmulator({
    port,
    latencyMs,
    faultRate,
    faultSeed,
    profile,
    variants: overrides,
    accessTtlSeconds,
    rateLimit,
    ...withDefined({ seed }),
  });
  const changed = describeVariants(emulator.state.variants);
  io.stdout(
    `mftops emulator (${profile} profile) listening on ${emulator.url}\n` +
      (changed.length > 0 ? `  variants:   ${changed.join(' ')}\n` : '') +
      `  automation: ${emulator.automationUrl}\n` +
      `  transfer:   ${emulator.transferUrl}\n` +
      `  requests:   ${emulator.url}/_emulator/requests\n`,
  );
  const admins = seedAdmins(seed);
  const config = emulatorConfigYaml({
    environment: ENVIRONMENT,
    ...(admins.automation ? { automationUrl: emulator.automationUrl, automationUsername: admins.automation.username } : {}),
    ...(admins.transfer ? { transferUrl: emulator.transferUrl, transferUsername: admins.transfer.username } : {}),
    manifests: ['manifests'],
  });
  if (configFile !== undefined) {
    try {
      if (opts.force !== true && existsSync(configFile))
        throw new ConfigError(`${opts.writeConfig} exists: pass --force to overwrite it, or choose another file`);
      writeFileAtomicSync(configFile, configHeader(emulator.url) + config, { mode: 0o644 });
    } catch (err) {
      await emulator.close();
      throw err instanceof ConfigError ? err : systemError(`cannot write ${opts.writeConfig}`, err);
    }
  }
  io.stdout(describeSignIn(admins, config, opts.writeConfig));
  if (!opts.quiet) io.stderr('Press Ctrl-C to stop.\n');
  await new Promise<void>((resolveStop) => {
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolveStop();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  await emulator.close();
  return 0;
}

/** The accounts, the `export` line for their passwords, and the mftops.yaml (or where it was written). */
function describeSignIn(
  admins: {
    readonly automation?: { readonly username: string; readonly password: string };
    readonly transfer?: { readonly username: string; readonly password: string };
  },
  config: string,
  writtenTo: string | undefined,
): string {
  const services = (['automation', 'transfer'] as const).flatMap((s) => (admins[s] ? [{ service: s, ...admins[s] }] : []));
  if (services.length === 0) return '  sign in:    the seed has no administrator of either service\n';
  const lines = [
    ...services.map((a) => `  ${`${a.service} sign-in:`.padEnd(20)}${a.username} / ${a.password}`),
    '',
    'Set the passwords where you run mftops (mftops.yaml reads them from the environment, never from the file):',
    `  export ${services.map((a) => `${PASSWORD_VARIABLES[a.service]}=${shellQuote(a.password)}`).join(' ')}`,
  ];
  if (writtenTo !== undefined)
    lines.push(`Wrote ${writtenTo}: environment "${ENVIRONMENT}" on this emulator, manifests in manifests/. Try: mftops status --config ${writtenTo}`);
  else
    lines.push(
      '',
      `An mftops.yaml for this emulator (--write-config FILE writes it):`,
      ...config
        .trimEnd()
        .split('\n')
        .map((l) => `  ${l}`),
    );
  return `${lines.join('\n')}\n`;
}

function configHeader(url: string): string {
  return `# mftops.yaml for the mftops emulator at ${url}, written by mftops emulator --write-config.\n# The passwords come from ${PASSWORD_VARIABLES.automation} and ${PASSWORD_VARIABLES.transfer} (mftops emulator prints the export line).\n`;
}

/** A POSIX shell word: single-quoted, each `'` closed, escaped and reopened. */
function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

function parseNumber(flag: string, text: string, range: { min: number; max: number; integer: boolean }): number {
  const n = Number(text);
  if (text.trim() === '' || !Number.isFinite(n) || (range.integer && !Number.isInteger(n)) || n < range.min || n > range.max) {
    throw new ConfigError(`${flag} must be ${range.integer ? 'a whole number' : 'a number'} from ${range.min} to ${range.max}, not "${text}"`);
  }
  return n;
}
