import { join } from 'node:path';
import { countRequests, loadSeedFile, startEmulator } from '../src/emulator/index.js';
import type { EmulatorOptions, EmulatorSeed, RunningEmulator } from '../src/emulator/index.js';
import type { JsonObject } from '../src/emulator/json.js';
import { extendSeed } from './estate.js';
import type { EstateSize } from './estate.js';
import { ROOT as root } from './root.js';
import { generatedTaskBody, taskRefsOf } from './task-bodies.js';

/**
 * One emulator in a process of its own (issue 29): the bench runs one per service
 * (bench/emulator-pair.ts), so each service answers on its own thread, as two servers on other
 * machines would, and none of them shares the bench's or a measured process's heap. Started by
 * `fork` with the advanced serialization; every message is a {@link HostCall}, answered by a
 * {@link HostAnswer} with the same id.
 */

/** What the emulator is seeded with: the examples' seed, and with `estate` the bench estate of that size on top. */
export interface SeedSpec {
  readonly estate?: EstateSize;
}

/** The JSON-able options of `startEmulator`, the seed aside. */
export type HostOptions = Omit<EmulatorOptions, 'seed' | 'listChurn'>;

export type HostCall =
  | { readonly id: number; readonly op: 'start'; readonly seed: SeedSpec; readonly options: HostOptions }
  | { readonly id: number; readonly op: 'configure'; readonly change: Parameters<RunningEmulator['configure']>[0] }
  | { readonly id: number; readonly op: 'reset' }
  | { readonly id: number; readonly op: 'usage' }
  | { readonly id: number; readonly op: 'facts'; readonly ids: boolean }
  | { readonly id: number; readonly op: 'tasks'; readonly from: number; readonly to: number }
  | { readonly id: number; readonly op: 'close' };

export type HostAnswer = { readonly id: number; readonly value: unknown } | { readonly id: number; readonly error: string };

/** Requests since the last reset, and the CPU this process used since it started. */
export interface HostUsage {
  readonly requests: number;
  readonly tokenRequests: number;
  readonly writes: number;
  readonly peakConcurrency: number;
  readonly cpuMs: number;
}

/** What the bench reads of the state it seeded (the figures its floors and the per-object reader need). */
export interface EstateFacts {
  readonly tasks: number;
  /** Bytes of the stored tasks as one JSON list (the task list's size, see run-bench's `taskListPages`). */
  readonly taskListBytes: number;
  readonly folders: number;
  /** With `ids`: the generated tasks', the bench ACLs' and the bench folders' ids. */
  readonly taskIds?: readonly string[];
  readonly aclIds?: readonly string[];
  readonly folderIds?: readonly string[];
}

/** The seed of `spec`, built in this process (231,000 task bodies are not sent over the pipe). */
export function seedOf(spec: SeedSpec): EmulatorSeed {
  const base = loadSeedFile(join(root, 'examples/seed/emulator-seed.json'));
  if (!spec.estate) return base;
  const refs = taskRefsOf(base);
  const seed = extendSeed(base, spec.estate) as EmulatorSeed & { automation: { tasks?: JsonObject[] } };
  seed.automation.tasks = [...(seed.automation.tasks ?? []), ...Array.from({ length: spec.estate.tasks }, (_, i) => generatedTaskBody(i, refs))];
  return seed;
}

function factsOf(emulator: RunningEmulator, ids: boolean): EstateFacts {
  const { automation: a, transfer: t } = emulator.state;
  let taskListBytes = 2;
  for (const task of a.tasks) taskListBytes += Buffer.byteLength(JSON.stringify(task)) + 1;
  const facts = { tasks: a.tasks.length, taskListBytes, folders: t.folders.length };
  if (!ids) return facts;
  return {
    ...facts,
    taskIds: a.tasks.filter((x) => String(x['Name']).startsWith('Generated task')).map((x) => String(x['ID'])),
    aclIds: a.acls.filter((acl) => acl.ResourceGroupName.startsWith('Bench RG')).map((acl) => acl.ACLID),
    folderIds: t.folders.filter((f) => f.path.startsWith('/Bench/')).map((f) => String(f.id)),
  };
}

function serve(): void {
  let emulator: RunningEmulator | undefined;
  const running = (): RunningEmulator => {
    if (!emulator) throw new Error('the emulator is not started');
    return emulator;
  };
  const handle = async (call: HostCall): Promise<unknown> => {
    switch (call.op) {
      case 'start': {
        emulator = await startEmulator({ ...call.options, seed: seedOf(call.seed) });
        return { automationUrl: emulator.automationUrl, transferUrl: emulator.transferUrl };
      }
      case 'configure':
        return running().configure(call.change);
      case 'reset':
        return running().resetRequestLog();
      case 'usage': {
        const e = running();
        const counts = countRequests(e.requestLog());
        const cpu = process.cpuUsage();
        return {
          requests: counts.total,
          tokenRequests: counts.tokenCalls,
          writes: counts.writes,
          peakConcurrency: e.peakConcurrency(),
          cpuMs: (cpu.user + cpu.system) / 1000,
        } satisfies HostUsage;
      }
      case 'facts':
        return factsOf(running(), call.ids);
      case 'tasks':
        return running().state.automation.tasks.slice(call.from, call.to);
      case 'close':
        await emulator?.close();
        emulator = undefined;
        return undefined;
      default: {
        const never: never = call;
        throw new Error(`unknown call ${JSON.stringify(never)}`);
      }
    }
  };
  process.on('message', (call: HostCall) => {
    handle(call).then(
      (value) => process.send?.({ id: call.id, value } satisfies HostAnswer),
      (err: unknown) => process.send?.({ id: call.id, error: err instanceof Error ? err.message : String(err) } satisfies HostAnswer),
    );
  });
  // The bench gone (its pipe closed) ends the host too.
  process.on('disconnect', () => process.exit(0));
}

if (process.send) serve();
