import { join } from 'node:path';
import { loadManifests } from '../src/manifest/load.js';
import { resolveDesired } from '../src/plan/resolve-desired.js';
import { startInProcessEstate } from './in-process-estate.js';

/**
 * What each phase of a plan keeps (issue 29): the heap after a full GC once the manifests are
 * loaded, once the live state is read, once the desired state is resolved and once the plan is
 * made, each per object and per manifest byte. The servers run in processes of their own, so the
 * heap is this process's: the figures are the differences between phases.
 * Run: `node --expose-gc dist-bench/bench/memory-phases.js 30000` after `tsc -p bench`.
 */
const gc = (globalThis as { gc?: () => void }).gc ?? (() => undefined);
const heapMb = (): number => {
  gc();
  gc();
  return process.memoryUsage().heapUsed / 1048576;
};

const objects = Number(process.argv[2] ?? 30_000);
const estate = await startInProcessEstate(objects, 'mftops-memory-phases-');
const { work, bytes } = estate;
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
  const live = await estate.readLive(loaded.manifests);
  note('live');
  const resolved = resolveDesired(loaded.manifests, live);
  note('desired');
  const planned = estate.plan(resolved.desired, live);
  note('plan');
  process.stdout.write(`${objects} objects, ${(bytes / 1048576).toFixed(1)} MB of manifests, ${planned.plan.changes.length} changes\n${rows.join('\n')}\n`);
} finally {
  await estate.close();
}
