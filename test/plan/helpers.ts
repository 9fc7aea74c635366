import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { EnvironmentSettings, PrunableKind } from '../../src/config/model.js';
import type { EmulatorOptions, EmulatorSeed, RunningEmulator } from '../../src/emulator/index.js';
import { startEmulator } from '../../src/emulator/index.js';
import { loadManifests } from '../../src/manifest/load.js';
import { readAndPlan } from '../../src/app/read-and-plan.js';
import type { ReadAndPlanResult } from '../../src/app/read-and-plan.js';
import type { Change } from '../../src/plan/model.js';
import { Secret } from '../../src/secret.js';
import { createAutomationClient, toReadonlyAutomationClient } from '../../src/services/automation/client.js';
import type { AutomationClient } from '../../src/services/automation/client.js';
import { createTransferClient, toReadonlyTransferClient } from '../../src/services/transfer/client.js';
import type { TransferClient } from '../../src/services/transfer/client.js';
import { ADMIN, XFER_ADMIN, exampleSeed } from '../emulator/helpers.js';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const EXAMPLE_MANIFESTS = join(ROOT, 'examples/manifests');

/** An emulator with the example seed (or `seed`) and full clients signed in as the seed's admins. */
export interface Harness {
  readonly emulator: RunningEmulator;
  readonly automation: AutomationClient;
  readonly transfer: TransferClient;
  close(): Promise<void>;
}

export async function startHarness(options: EmulatorOptions & { seed?: EmulatorSeed } = {}): Promise<Harness> {
  const emulator = await startEmulator({ seed: exampleSeed(), ...options });
  const automation = createAutomationClient({ url: emulator.automationUrl, username: ADMIN.username, password: new Secret(ADMIN.password) });
  const transfer = createTransferClient({ url: emulator.transferUrl, username: XFER_ADMIN.username, password: new Secret(XFER_ADMIN.password) });
  return {
    emulator,
    automation,
    transfer,
    close: async () => {
      await Promise.all([automation.close(), transfer.close()]);
      await emulator.close();
    },
  };
}

export function environment(overrides: Partial<EnvironmentSettings> = {}): EnvironmentSettings {
  return {
    name: 'test',
    manifests: [],
    scope: { taskGroups: ['Finance', 'Partners', 'Operations'], folders: ['/Distribution'] },
    prune: [] as PrunableKind[],
    ...overrides,
  };
}

/** Load manifests from paths and plan them against the harness with read-only clients. */
export async function planPaths(
  h: Harness,
  paths: readonly string[],
  options: { env?: Partial<EnvironmentSettings>; targets?: string[]; cwd?: string } = {},
): Promise<ReadAndPlanResult> {
  const cwd = options.cwd ?? ROOT;
  const manifests = await loadManifests(paths, { cwd });
  return readAndPlan({
    manifests,
    clients: { automation: toReadonlyAutomationClient(h.automation), transfer: toReadonlyTransferClient(h.transfer) },
    environment: environment(options.env),
    servers: {
      automation: { url: h.emulator.automationUrl, username: ADMIN.username },
      transfer: { url: h.emulator.transferUrl, username: XFER_ADMIN.username },
    },
    ...(options.targets ? { targets: options.targets } : {}),
    cwd,
    now: () => new Date('2026-11-22T00:00:00Z'),
  });
}

export function byAddress(changes: readonly Change[], address: string): Change {
  const c = changes.find((x) => x.address === address);
  if (!c) throw new Error(`no change ${address} in [${changes.map((x) => x.address).join(', ')}]`);
  return c;
}
