import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadSeedFile, startEmulator } from '../src/emulator/index.js';
import type { EmulatorSeed } from '../src/emulator/index.js';
import type { JsonObject } from '../src/emulator/json.js';
import { loadManifests } from '../src/manifest/load.js';
import { readLiveState } from '../src/live/read-live-state.js';
import { resolveDesired } from '../src/plan/resolve-desired.js';
import { computePlan } from '../src/plan/compute-plan.js';
import { getValueVocabulary } from '../src/manifest/schemas.js';
import { Secret } from '../src/secret.js';
import { createAutomationClient, createTransferClient, toReadonly } from '../src/services/index.js';
import { estateOf, extendSeed, writeEstateManifests } from './estate.js';
import { generatedTaskBody, taskRefsOf } from './task-bodies.js';
import { ROOT as root } from './root.js';

/**
 * What each phase of a plan keeps (issue 29): the heap after a full GC once the manifests are
 * loaded, once the live state is read, once the desired state is resolved and once the plan is
 * made, each per object and per manifest byte. In one process with the emulator (whose state is
 * allocated before the first figure), so only the differences mean anything.
 * Run: `node --expose-gc dist-bench/bench/memory-phases.js 30000` after `tsc -p bench`.
 */
const gc = (globalThis as { gc?: () => void }).gc ?? (() => undefined);
const heapMb = (): number => {
  gc();
  gc();
  return process.memoryUsage().heapUsed / 1048576;
};

const objects = Number(process.argv[2] ?? 30_000);
const size = estateOf(objects);
const base = loadSeedFile(join(root, 'examples/seed/emulator-seed.json'));
const seed = extendSeed(base, size) as EmulatorSeed & { automation: { tasks?: JsonObject[] } };
const refs = taskRefsOf(base);
seed.automation.tasks = [...(seed.automation.tasks ?? []), ...Array.from({ length: size.tasks }, (_, i) => generatedTaskBody(i, refs))];
const emulator = await startEmulator({ seed });
seed.automation.tasks = [];
const work = mkdtempSync(join(tmpdir(), 'mftops-memory-phases-'));
const bytes = writeEstateManifests(join(work, 'manifests'), size, true);
writeFileSync(join(work, 'unused'), '');
const automation = createAutomationClient({ url: emulator.automationUrl, username: 'admin', password: new Secret('admin-Pa55!seed'), connections: 32 });
const transfer = createTransferClient({ url: emulator.transferUrl, username: 'admin', password: new Secret('xfer-admin-Pa55!seed'), connections: 32 });
const rows: string[] = [];
let last = heapMb();
const note = (phase: string): void => {
  const now = heapMb();
  const delta = now - last;
  rows.push(
    `${phase.padEnd(10)} +${delta.toFixed(0).padStart(5)} MB  ${((delta * 1024) / objects).toFixed(2).padStart(6)} KB/object  ${((delta * 1048576) / bytes).toFixed(2).padStart(6)} B/manifest byte`,
  );
  last = now;
};
try {
  const loaded = await loadManifests([join(work, 'manifests')], { cwd: work, limits: { maxTotalBytes: 1 << 30 } });
  note('manifests');
  const scope = { taskGroups: ['Finance', 'Partners', 'Operations'], folders: ['/Bench'] };
  const live = await readLiveState({
    manifests: loaded.manifests,
    automation: toReadonly(automation),
    transfer: toReadonly(transfer),
    scope,
    prune: [],
    parallelism: 32,
  });
  note('live');
  const resolved = resolveDesired(loaded.manifests, live);
  note('desired');
  const planned = computePlan({
    desired: resolved.desired,
    live,
    environment: 'bench',
    servers: {},
    manifestDigest: '',
    scope,
    prune: [],
    toolVersion: 'bench',
    now: new Date(),
    cwd: work,
    taskVocabulary: getValueVocabulary('Task'),
  });
  note('plan');
  process.stdout.write(`${objects} objects, ${(bytes / 1048576).toFixed(1)} MB of manifests, ${planned.plan.changes.length} changes\n${rows.join('\n')}\n`);
} finally {
  await automation.close();
  await transfer.close();
  await emulator.close();
  rmSync(work, { recursive: true, force: true });
}
