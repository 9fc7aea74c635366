import { ConfigError } from '../../errors.js';
import type { CommandIo } from '../io.js';

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
  const { startEmulator, loadSeedFile, parseVariantAssignments, describeVariants, PROFILES } = await import('../../emulator/index.js');
  const profile = PROFILES.find((p) => p === opts.profile) ?? 'current';
  const overrides = parseVariantAssignments(opts.variant);
  const seed = opts.seed !== undefined ? loadSeedFile(opts.seed) : undefined;
  const emulator = await startEmulator({
    port,
    latencyMs,
    faultRate,
    faultSeed,
    profile,
    variants: overrides,
    accessTtlSeconds,
    rateLimit,
    ...(seed ? { seed } : {}),
  });
  const changed = describeVariants(emulator.state.variants);
  io.stdout(
    `mftops emulator (${profile} profile) listening on ${emulator.url}\n` +
      (changed.length > 0 ? `  variants:   ${changed.join(' ')}\n` : '') +
      `  automation: ${emulator.automationUrl}\n` +
      `  transfer:   ${emulator.transferUrl}\n` +
      `  requests:   ${emulator.url}/_emulator/requests\n`,
  );
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

function parseNumber(flag: string, text: string, range: { min: number; max: number; integer: boolean }): number {
  const n = Number(text);
  if (text.trim() === '' || !Number.isFinite(n) || (range.integer && !Number.isInteger(n)) || n < range.min || n > range.max) {
    throw new ConfigError(`${flag} must be ${range.integer ? 'a whole number' : 'a number'} from ${range.min} to ${range.max}, not "${text}"`);
  }
  return n;
}
