import { fork } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { countRequests } from '../src/emulator/index.js';
import type { RunningEmulator } from '../src/emulator/index.js';
import type { JsonObject } from '../src/emulator/json.js';
import type { EstateFacts, HostAnswer, HostCall, HostOptions, HostUsage, SeedSpec } from './emulator-host.js';

/**
 * The bench's two servers (issue 29): the automation service and the transfer service each served
 * by its own emulator in its own process (bench/emulator-host.ts), both seeded identically, so a
 * long answer of one (the 10,000-task list) does not hold up the other's, as it did when one
 * thread served both, and the servers' CPU and heap are neither the bench's nor a measured
 * process's. The CLI is pointed at the automation URL of the one and the transfer URL of the other.
 */
export interface BenchServers {
  readonly automationUrl: string;
  readonly transferUrl: string;
  /** Both servers. */
  configure(change: { readonly latencyMs?: number }): Promise<void>;
  /** Empties both request logs and resets their peak concurrency. */
  resetRequestLog(): Promise<void>;
  /**
   * Requests since the reset, summed over both servers; `peakConcurrency` is the higher of the two
   * servers' peaks (a client's parallelism is per server; `byService` has each); `cpuMs` the
   * servers' CPU since they started, summed, to be taken as a difference.
   */
  usage(): Promise<HostUsage & { readonly byService: { readonly automation: HostUsage; readonly transfer: HostUsage } }>;
  /** Tasks and their list's size from the automation server, folders from the transfer server. */
  facts(ids?: boolean): Promise<EstateFacts>;
  /** The automation server's stored tasks `from`..`to - 1`. */
  tasks(from: number, to: number): Promise<JsonObject[]>;
  close(): Promise<void>;
}

type Call = HostCall extends infer C ? (C extends { id: number } ? Omit<C, 'id'> : never) : never;

interface Host {
  call<T>(c: Call): Promise<T>;
  close(): Promise<void>;
}

const HOST = fileURLToPath(new URL('./emulator-host.js', import.meta.url));

function startHost(): Host {
  const child: ChildProcess = fork(HOST, [], { serialization: 'advanced', stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  let next = 0;
  let exited: Error | undefined;
  child.on('message', (a: HostAnswer) => {
    const p = pending.get(a.id);
    pending.delete(a.id);
    if ('error' in a) p?.reject(new Error(`emulator host: ${a.error}`));
    else p?.resolve(a.value);
  });
  child.on('exit', (code, signal) => {
    exited = new Error(`emulator host exited (${signal ?? String(code)})`);
    for (const p of pending.values()) p.reject(exited);
    pending.clear();
  });
  const call = <T>(c: Call): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      if (exited) return reject(exited);
      const id = next++;
      pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      child.send({ ...c, id } as HostCall);
    });
  return {
    call,
    close: async () => {
      if (exited) return;
      const gone = new Promise<void>((done) => child.once('exit', () => done()));
      try {
        await call({ op: 'close' });
      } catch {
        // It exited meanwhile (e.g. Ctrl-C while the bench held its estate): nothing left to close.
      } finally {
        if (child.connected) child.disconnect();
        if (!exited) await gone;
      }
    },
  };
}

const sum = (a: HostUsage, b: HostUsage): HostUsage => ({
  requests: a.requests + b.requests,
  tokenRequests: a.tokenRequests + b.tokenRequests,
  writes: a.writes + b.writes,
  peakConcurrency: Math.max(a.peakConcurrency, b.peakConcurrency),
  cpuMs: a.cpuMs + b.cpuMs,
});

/** Two emulators seeded with `seed`, one for each service, with the same `options`. */
export async function startEmulatorPair(seed: SeedSpec, options: HostOptions = {}): Promise<BenchServers> {
  const automation = startHost();
  const transfer = startHost();
  const both = <T>(c: Call): Promise<[T, T]> => Promise.all([automation.call<T>(c), transfer.call<T>(c)]);
  try {
    const [a, t] = await both<{ automationUrl: string; transferUrl: string }>({ op: 'start', seed, options });
    return {
      automationUrl: a.automationUrl,
      transferUrl: t.transferUrl,
      configure: async (change) => void (await both({ op: 'configure', change })),
      resetRequestLog: async () => void (await both({ op: 'reset' })),
      usage: async () => {
        const [ua, ut] = await both<HostUsage>({ op: 'usage' });
        return { ...sum(ua, ut), byService: { automation: ua, transfer: ut } };
      },
      facts: async (ids = false) => {
        const [fa, ft] = await both<EstateFacts>({ op: 'facts', ids });
        return { ...fa, folders: ft.folders, ...(ids ? { folderIds: ft.folderIds } : {}) };
      },
      tasks: (from, to) => automation.call<JsonObject[]>({ op: 'tasks', from, to }),
      close: async () => void (await Promise.all([automation.close(), transfer.close()])),
    };
  } catch (err) {
    await Promise.all([automation.close(), transfer.close()]).catch(() => undefined);
    throw err;
  }
}

/**
 * An emulator of this process seen as {@link BenchServers} (the snapshot scenario's, whose state
 * the bench fills in place): both services on this process's thread, its CPU this process's.
 */
export function inProcessServers(emulator: RunningEmulator): BenchServers {
  const cpuMs = (): number => {
    const c = process.cpuUsage();
    return (c.user + c.system) / 1000;
  };
  const usage = (): HostUsage => {
    const counts = countRequests(emulator.requestLog());
    return { requests: counts.total, tokenRequests: counts.tokenCalls, writes: counts.writes, peakConcurrency: emulator.peakConcurrency(), cpuMs: cpuMs() };
  };
  return {
    automationUrl: emulator.automationUrl,
    transferUrl: emulator.transferUrl,
    configure: async (change) => emulator.configure(change),
    resetRequestLog: async () => emulator.resetRequestLog(),
    usage: async () => {
      const u = usage();
      return { ...u, byService: { automation: u, transfer: { requests: 0, tokenRequests: 0, writes: 0, peakConcurrency: 0, cpuMs: 0 } } };
    },
    facts: async () => {
      throw new Error('facts of an in-process emulator: read its state');
    },
    tasks: async (from, to) => emulator.state.automation.tasks.slice(from, to),
    close: () => emulator.close(),
  };
}
