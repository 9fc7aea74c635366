import type { AddressInfo } from 'node:net';
import { ConfigError, MftopsError, systemError } from '../errors.js';
import type { EmulatorSeed } from './seed.js';
import { createState } from './seed.js';
import type { RequestRecord } from './server.js';
import { createEmulatorServer } from './server.js';
import { createListChurn } from './list-churn.js';
import type { EmulatorState } from './state.js';
import type { Profile, Variants } from './variants.js';
import { resolveVariants } from './variants.js';

export type { EmulatorSeed, AutomationSeed, TransferSeed, FolderSeed, FolderAclSeed, AutomationUserSeed, TransferUserSeed, TransferGroupSeed } from './seed.js';
export { loadSeedFile, seedAdmins, DEFAULT_AUTOMATION_ADMIN, DEFAULT_TRANSFER_ADMIN } from './seed.js';
export type { EmulatorState } from './state.js';
export type { Profile, Variants, VariantName, VariantSwitch, NamedSet, ProfileDetails } from './variants.js';
export { VARIANT_SWITCHES, VARIANT_NAMES, NAMED_SETS, PROFILES, resolveVariants, parseVariantAssignments, describeVariants } from './variants.js';
export type { RequestRecord, RequestCounts, FaultKind, ServiceName } from './server.js';
export { countRequests } from './server.js';

export interface EmulatorOptions {
  /** Default 0: a free port. The host is always 127.0.0.1. */
  port?: number;
  /** Default: an empty state with the admin user of each service only. */
  seed?: EmulatorSeed;
  /** Added before each API response (not for /_emulator). */
  latencyMs?: number;
  /** 0..1: probability that an API request (token calls included) gets a fault. */
  faultRate?: number;
  /** How long a `slow-answer` fault holds its answer (ms); default 0: no such fault is drawn. */
  slowResponseMs?: number;
  /** Requests per second each service answers; over it, 429 with `Retry-After`. Default 0: no limit. */
  rateLimit?: number;
  /** Whether `short-read` (a body cut short, then the connection closed) joins the fault draw; default false. */
  shortReads?: boolean;
  /** How many users `list-churn` may add to the transfer `/users` list between page reads; default 0: none. */
  churnFaults?: number;
  /** PRNG seed so fault sequences replay; default 1. */
  faultSeed?: number;
  /** The named set of switches: `current` (default), `legacy` or `divergent` (see docs/server-variants.md). */
  profile?: Profile;
  /** Switches of the register set one by one; they win over the profile's. */
  variants?: Partial<Variants>;
  /** How long a task run started through the API lasts (seconds of the emulator clock); default: until stopped. */
  runSeconds?: number;
  /** Access-token lifetime of both services, default 300. */
  accessTtlSeconds?: number;
  /** Refresh-token lifetime of both services, default 900. */
  refreshTtlSeconds?: number;
  /**
   * Lists that change while read (register B-10): every `every`-th page request of a folder's ACL
   * list or the user list adds an entry at its front, `times` times per list (default: for ever).
   */
  listChurn?: { readonly every: number; readonly times?: number };
}

export interface RunningEmulator {
  /** http://127.0.0.1:PORT */
  readonly url: string;
  /** url + '/automation'; the API is below it at /api/v1 (`automation.basePath=webadmin`: /webadmin/api/v1). */
  readonly automationUrl: string;
  /** url + '/transfer'; the API is below it at /api/v1. */
  readonly transferUrl: string;
  readonly port: number;
  /** Change latency or fault rate while running (e.g. populate a large state fast, then measure). */
  configure(change: {
    readonly latencyMs?: number;
    readonly faultRate?: number;
    readonly slowResponseMs?: number;
    readonly rateLimit?: number;
    readonly shortReads?: boolean;
    readonly churnFaults?: number;
  }): void;
  requestLog(): readonly RequestRecord[];
  /** The most requests the emulator was answering at once since start or `resetRequestLog`. */
  peakConcurrency(): number;
  /** Empties the request log and resets the peak concurrency. */
  resetRequestLog(): void;
  /** The emulated servers' state, read and changed in place; tests go through test/helpers/emulator-test-api.ts. */
  readonly state: EmulatorState;
  /** Stops listening and closes keep-alive sockets too. */
  close(): Promise<void>;
}

function check(ok: boolean, message: string): void {
  if (!ok) throw new ConfigError(`emulator: ${message}`);
}

/** The port cannot be had: the machine's state, said in one line with what to do (never "a bug"). */
function listenError(port: number, err: unknown): MftopsError {
  switch ((err as NodeJS.ErrnoException).code) {
    case 'EADDRINUSE':
      return new MftopsError(`port ${port} is in use: pick another with --port or stop the other process`, { cause: err });
    case 'EACCES':
      return new MftopsError(`port ${port} may not be opened by this user (EACCES): pick one above 1023 with --port`, { cause: err });
    default:
      return systemError(`cannot listen on 127.0.0.1:${port}`, err);
  }
}

export async function startEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  const port = options.port ?? 0;
  const latencyMs = options.latencyMs ?? 0;
  const faultRate = options.faultRate ?? 0;
  const slowResponseMs = options.slowResponseMs ?? 0;
  const rateLimit = options.rateLimit ?? 0;
  const churnFaults = options.churnFaults ?? 0;
  const profile = options.profile ?? 'current';
  const access = options.accessTtlSeconds ?? 300;
  const refresh = options.refreshTtlSeconds ?? 900;
  check(Number.isInteger(port) && port >= 0 && port <= 65535, `port must be an integer from 0 to 65535, not ${port}`);
  check(Number.isFinite(latencyMs) && latencyMs >= 0, `latency must be 0 or more milliseconds, not ${latencyMs}`);
  check(Number.isFinite(faultRate) && faultRate >= 0 && faultRate <= 1, `fault rate must be from 0 to 1, not ${faultRate}`);
  check(Number.isFinite(slowResponseMs) && slowResponseMs >= 0, `slow response must be 0 or more milliseconds, not ${slowResponseMs}`);
  check(Number.isFinite(rateLimit) && rateLimit >= 0, `rate limit must be 0 or more requests per second, not ${rateLimit}`);
  check(Number.isInteger(churnFaults) && churnFaults >= 0, `churn faults must be a whole number of users, 0 or more, not ${churnFaults}`);
  check(access > 0 && refresh > 0, 'token lifetimes must be positive');
  const churn = options.listChurn;
  if (churn) {
    check(Number.isInteger(churn.every) && churn.every > 0, `list churn: every must be a positive integer, not ${churn.every}`);
    check(churn.times === undefined || (Number.isInteger(churn.times) && churn.times >= 0), `list churn: times must be 0 or more, not ${String(churn.times)}`);
  }
  // A ConfigError naming the known profiles, switches or readings.
  const variants = resolveVariants(profile, options.variants ?? {});
  check(
    options.runSeconds === undefined || (Number.isFinite(options.runSeconds) && options.runSeconds > 0),
    `run seconds must be positive, not ${String(options.runSeconds)}`,
  );
  const state = createState(options.seed, profile, variants, options.runSeconds);
  let urls = { url: '', automationUrl: '', transferUrl: '' };
  const config = {
    state,
    lifetimes: { accessSeconds: access, refreshSeconds: refresh },
    latencyMs,
    faultRate,
    slowResponseMs,
    rateLimit,
    shortReads: options.shortReads ?? false,
    churnFaults,
    faultSeed: options.faultSeed ?? 1,
    listChurn: churn ? createListChurn(churn.every, churn.times) : undefined,
    urls: () => urls,
  };
  const { server, log, concurrency } = createEmulatorServer(config);
  await new Promise<void>((resolve, reject) => {
    const refused = (err: unknown): void => reject(listenError(port, err));
    server.once('error', refused);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', refused);
      resolve();
    });
  });
  const actual = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${actual}`;
  urls = { url, automationUrl: `${url}/automation`, transferUrl: `${url}/transfer` };
  return {
    ...urls,
    port: actual,
    state,
    configure: (change) => {
      if (change.latencyMs !== undefined) {
        check(Number.isFinite(change.latencyMs) && change.latencyMs >= 0, `latency must be 0 or more milliseconds, not ${change.latencyMs}`);
        config.latencyMs = change.latencyMs;
      }
      if (change.faultRate !== undefined) {
        check(Number.isFinite(change.faultRate) && change.faultRate >= 0 && change.faultRate <= 1, `fault rate must be from 0 to 1, not ${change.faultRate}`);
        config.faultRate = change.faultRate;
      }
      if (change.slowResponseMs !== undefined) {
        check(
          Number.isFinite(change.slowResponseMs) && change.slowResponseMs >= 0,
          `slow response must be 0 or more milliseconds, not ${change.slowResponseMs}`,
        );
        config.slowResponseMs = change.slowResponseMs;
      }
      if (change.rateLimit !== undefined) {
        check(Number.isFinite(change.rateLimit) && change.rateLimit >= 0, `rate limit must be 0 or more requests per second, not ${change.rateLimit}`);
        config.rateLimit = change.rateLimit;
      }
      if (change.shortReads !== undefined) config.shortReads = change.shortReads;
      if (change.churnFaults !== undefined) {
        check(
          Number.isInteger(change.churnFaults) && change.churnFaults >= 0,
          `churn faults must be a whole number of users, 0 or more, not ${change.churnFaults}`,
        );
        config.churnFaults = change.churnFaults;
      }
    },
    requestLog: () => [...log],
    peakConcurrency: () => concurrency.peak,
    resetRequestLog: () => {
      log.length = 0;
      concurrency.peak = concurrency.current;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((e) => (e ? reject(e) : resolve()));
        server.closeAllConnections();
      }),
  };
}
