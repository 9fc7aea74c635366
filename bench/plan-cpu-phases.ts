import { join } from 'node:path';
import { loadManifests } from '../src/manifest/load.js';
import { resolveDesired } from '../src/plan/resolve-desired.js';
import { findTransferSteps } from '../src/plan/cross-server.js';
import { renderPlanText } from '../src/render/plan-text.js';
import { startInProcessEstate } from './in-process-estate.js';

/**
 * The CPU of the pure phases of a plan (issue 29, plan CPU): resolving the desired state,
 * planning, the cross-server step lookup and the text rendering, each repeated on the same loaded
 * manifests and live state, the least and the median CPU time (user + system) of the runs. The
 * servers run in processes of their own (and are idle meanwhile), so the figures are the planner's own;
 * the least of several runs is the figure least disturbed by other work on a shared machine.
 * Run: `node dist-bench/bench/plan-cpu-phases.js 13000 7` after `tsc -p bench`.
 */
const objects = Number(process.argv[2] ?? 13_000);
const runs = Number(process.argv[3] ?? 7);
const estate = await startInProcessEstate(objects, 'mftops-plan-cpu-');
const work = estate.work;

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
  const live = await estate.readLive(loaded.manifests);
  let changes = 0;
  for (let i = 0; i < runs; i++) {
    let resolved: ReturnType<typeof resolveDesired> | undefined;
    let planned: ReturnType<typeof estate.plan> | undefined;
    record(
      'resolve',
      cpuMs(() => (resolved = resolveDesired(loaded.manifests, live))),
    );
    record(
      'plan',
      cpuMs(() => (planned = estate.plan(resolved!.desired, live))),
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
  await estate.close();
}
