import type { ScalingPoint, Target } from './run-bench.js';

/** Issue 29: peak RSS ≤ 1 GB for plan and drift of 300,000 objects. */
export const RSS_LIMIT_MB = 1024;
export const RSS_LIMIT_OBJECTS = 300_000;

/**
 * The memory rows of the cost curve (issue 29), for its largest size: peak RSS per live object
 * (manifests, live state and plan all grow with it) and per manifest byte, each bounded by what
 * 1 GB at 300,000 objects allows (3.5 KB an object; per manifest byte, 1 GB over that estate's
 * manifests, scaled from the bytes per object measured). The growth row says whether memory
 * follows the input: the RSS one more object costs between the two largest sizes.
 */
export function memoryTargets(scaling: readonly ScalingPoint[]): Target[] {
  const out: Target[] = [];
  const ran = (p: ScalingPoint): boolean => p.exitCode === 0 || p.exitCode === 2;
  const perObjectLimitKb = (RSS_LIMIT_MB * 1024) / RSS_LIMIT_OBJECTS;
  for (const command of ['plan', 'drift'] as const) {
    const points = scaling.filter((p) => p.command === command);
    const largest = points.at(-1);
    if (!largest) continue;
    // Below 300,000 objects Node's own 50 MB dominate the figures per object: only the growth row.
    if (largest.objects >= RSS_LIMIT_OBJECTS)
      out.push({
        target: `scaling: ${command} of ${largest.objects} objects peak RSS ≤ ${perObjectLimitKb.toFixed(1)} KB per object (1 GB ÷ 300,000)`,
        baseline: 'fixed',
        measured: `${largest.rssKbPerObject.toFixed(1)} KB per object (${largest.peakRssMb} MB)`,
        met: ran(largest) && largest.rssKbPerObject <= perObjectLimitKb,
      });
    const bytesPerObject = largest.manifestBytes / largest.objects;
    const perByteLimit = (RSS_LIMIT_MB * 1024 * 1024) / (bytesPerObject * RSS_LIMIT_OBJECTS);
    if (largest.objects >= RSS_LIMIT_OBJECTS)
      out.push({
        target: `scaling: ${command} of ${largest.objects} objects peak RSS ≤ ${perByteLimit.toFixed(1)} B per manifest byte (1 GB ÷ 300,000 objects' manifests)`,
        baseline: 'fixed',
        measured: `${largest.rssPerManifestByte.toFixed(1)} B per byte of ${(largest.manifestBytes / 1048576).toFixed(1)} MB of manifests`,
        met: ran(largest) && largest.rssPerManifestByte <= perByteLimit,
      });
    const before = points.at(-2);
    if (before && ran(before) && ran(largest)) {
      const marginalKb = ((largest.peakRssMb - before.peakRssMb) * 1024) / (largest.objects - before.objects);
      out.push({
        target: `scaling: ${command} RSS per added object ${before.objects} → ${largest.objects} ≤ ${perObjectLimitKb.toFixed(1)} KB`,
        baseline: 'measured',
        measured: `${marginalKb.toFixed(2)} KB per object (${before.peakRssMb} → ${largest.peakRssMb} MB)`,
        met: marginalKb <= perObjectLimitKb,
      });
    }
  }
  return out;
}
