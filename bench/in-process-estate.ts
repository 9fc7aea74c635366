import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readLiveState } from '../src/live/read-live-state.js';
import type { LiveState } from '../src/live/model.js';
import type { ManifestSet } from '../src/manifest/validate.js';
import { getValueVocabulary } from '../src/manifest/schemas.js';
import { computePlan } from '../src/plan/compute-plan.js';
import type { resolveDesired } from '../src/plan/resolve-desired.js';
import { Secret } from '../src/secret.js';
import { createAutomationClient, createTransferClient, toReadonly } from '../src/services/index.js';
import { startEmulatorPair } from './emulator-pair.js';
import { estateOf, writeEstateManifests } from './estate.js';

/**
 * The bench's estate of `objects` objects, its manifests written to a temporary folder, and the
 * planner's phases run on it in this process (bench/memory-phases.ts, bench/plan-cpu-phases.ts
 * measure them one by one). The two servers run in processes of their own
 * (bench/emulator-pair.ts), so this process's heap and CPU are the planner's alone.
 */
export interface InProcessEstate {
  /** The folder holding `manifests/`. */
  readonly work: string;
  /** Bytes of manifests written. */
  readonly bytes: number;
  /** The live state the manifests need, read as plan reads it. */
  readLive(manifests: ManifestSet['manifests']): Promise<LiveState>;
  /** The plan of the resolved manifests against `live`, as plan makes it. */
  plan(desired: ReturnType<typeof resolveDesired>['desired'], live: LiveState): ReturnType<typeof computePlan>;
  close(): Promise<void>;
}

const SCOPE = { taskGroups: ['Finance', 'Partners', 'Operations'], folders: ['/Bench'] };

export async function startInProcessEstate(objects: number, prefix: string): Promise<InProcessEstate> {
  const size = estateOf(objects);
  const emulator = await startEmulatorPair({ estate: size });
  const work = mkdtempSync(join(tmpdir(), prefix));
  const bytes = writeEstateManifests(join(work, 'manifests'), size, true);
  const automation = createAutomationClient({ url: emulator.automationUrl, username: 'admin', password: new Secret('admin-Pa55!seed'), connections: 32 });
  const transfer = createTransferClient({ url: emulator.transferUrl, username: 'admin', password: new Secret('xfer-admin-Pa55!seed'), connections: 32 });
  return {
    work,
    bytes,
    readLive: (manifests) =>
      readLiveState({
        manifests,
        automation: toReadonly(automation),
        transfer: toReadonly(transfer),
        scope: SCOPE,
        prune: [],
        parallelism: 32,
      }),
    plan: (desired, live) =>
      computePlan({
        desired,
        live,
        environment: 'bench',
        servers: {},
        manifestDigest: '',
        scope: SCOPE,
        prune: [],
        toolVersion: 'bench',
        now: new Date(),
        cwd: work,
        taskVocabulary: getValueVocabulary('Task'),
      }),
    close: async () => {
      await automation.close();
      await transfer.close();
      await emulator.close();
      rmSync(work, { recursive: true, force: true });
    },
  };
}
