import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadSeedFile, startEmulator } from '../src/emulator/index.js';
import type { EmulatorSeed } from '../src/emulator/index.js';
import type { JsonObject } from '../src/emulator/json.js';
import { loadManifests } from '../src/manifest/load.js';
import { readLiveState } from '../src/live/read-live-state.js';
import { resolveDesired } from '../src/plan/resolve-desired.js';
import { computePlan } from '../src/plan/compute-plan.js';
import { findTransferSteps } from '../src/plan/cross-server.js';
import { renderPlanText } from '../src/render/plan-text.js';
import { getValueVocabulary } from '../src/manifest/schemas.js';
import { Secret } from '../src/secret.js';
import { createAutomationClient, createTransferClient, toReadonly } from '../src/services/index.js';
import { estateOf, extendSeed, writeEstateManifests } from './estate.js';
import { generatedTaskBody, taskRefsOf } from './task-bodies.js';
import { ROOT as root } from './root.js';

/**
 * The CPU of the pure phases of a plan (issue 29, plan CPU): resolving the desired state,
 * planning, the cross-server step lookup and the text rendering, each repeated on the same loaded
 * manifests and live state, the least and the median CPU time (user + system) of the runs. In one
 * process with the emulator, which is idle while these run, so the figures are the planner's own;
 * the least of several runs is the figure least disturbed by other work on a shared machine.
 * Run: `node dist-bench/bench/plan-cpu-phases.js 13000 7` after `tsc -p bench`.
 */
const objects = Number(process.argv[2] ?? 13_000);
const runs = Number(process.argv[3] ?? 7);
const size = estateOf(objects);
const base = loadSeedFile(join(root, 'examples/seed/emulator-seed.json'));
const seed = extendSeed(base, size) as EmulatorSeed & { automation: { tasks?: JsonObject[] } };
const refs = taskRefsOf(base);
seed.automation.tasks = [...(seed.automation.tasks ?? []), ...Array.from({ length: size.tasks }, (_, i) => generatedTaskBody(i, refs))];
const emulator = await startEmulator({ seed });
seed.automation.tasks = [];
const work = mkdtempSync(join(tmpdir(), 'mftops-plan-cpu-'));
writeEstateManifests(join(work, 'manifests'), size, true);
const automation = createAutomationClient({ url: emulator.automationUrl, username: 'admin', password: new Secret('admin-Pa55!seed'), connections: 32 });
const transfer = createTransferClient({ url: emulator.transferUrl, username: 'admin', password: new Secret('xfer-admin-Pa55!seed'), connections: 32 });

const cpuMs = (f: () => unknown): number => {
  const t = process.cpuUsage();
  f();
  const d = process.cpuUsage(t);
  return (d.user + d.system) / 1000;
};
const times = new Map<string, number[]>();
const record = (phase: string, ms: number): void => void times.set(phase, [...(times.get(phase) ?? []), ms]);
try {
  const loaded = await loadManifests([join(work, 'manifests')], { cwd: work, limits: { maxTotalBytes: 1 << 30 } });
  const scope = { taskGroups: ['Finance', 'Partners', 'Operations'], folders: ['/Bench'] };
  const live = await readLiveState({
    manifests: loaded.manifests,
    automation: toReadonly(automation),
    transfer: toReadonly(transfer),
    scope,
    prune: [],
    parallelism: 32,
  });
  let changes = 0;
  for (let i = 0; i < runs; i++) {
    let resolved: ReturnType<typeof resolveDesired> | undefined;
    let planned: ReturnType<typeof computePlan> | undefined;
    record(
      'resolve',
      cpuMs(() => (resolved = resolveDesired(loaded.manifests, live))),
    );
    record(
      'plan',
      cpuMs(
        () =>
          (planned = computePlan({
            desired: resolved!.desired,
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
          })),
      ),
    );
    record(
      'steps',
      cpuMs(() => findTransferSteps(loaded.manifests, live.automation, { transferHosts: [], transferHostname: '127.0.0.1' })),
    );
    record(
      'render',
      cpuMs(() => renderPlanText(planned!.plan, { color: false })),
    );
    changes = planned!.plan.changes.length;
  }
  const rows = [...times].map(([phase, ms]) => {
    const sorted = [...ms].sort((a, b) => a - b);
    return `${phase.padEnd(8)} least ${sorted[0]!.toFixed(0).padStart(6)} ms  median ${sorted[Math.floor(sorted.length / 2)]!.toFixed(0).padStart(6)} ms CPU`;
  });
  process.stdout.write(`${objects} objects, ${changes} planned, ${runs} runs\n${rows.join('\n')}\n`);
} finally {
  await automation.close();
  await transfer.close();
  await emulator.close();
  rmSync(work, { recursive: true, force: true });
}
