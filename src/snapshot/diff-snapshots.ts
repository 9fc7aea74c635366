import { parseConfigXml } from './config-xml.js';
import { diffConfigs } from './diff-configs.js';
import type { SnapshotDiff } from './model.js';
import { loadSnapshot } from './load-snapshot.js';
import { resolveSnapshotId, type ReadOptions } from './store.js';

/**
 * Compare two stored snapshots (A → B) after checking both against their manifests. `a` and `b`
 * are ids, unique prefixes, `latest` or `ENV/…` (see resolveSnapshotId).
 */
export function diffSnapshots(dir: string, a: string, b: string, options: ReadOptions = {}): SnapshotDiff {
  const refA = resolveSnapshotId(dir, a, options.env);
  const refB = resolveSnapshotId(dir, b, options.env);
  const xmlA = parseConfigXml(loadSnapshot(dir, refA, options.processEnv).automationXml.toString('utf8'));
  const xmlB = parseConfigXml(loadSnapshot(dir, refB, options.processEnv).automationXml.toString('utf8'));
  return { a: refA, b: refB, ...diffConfigs(xmlA, xmlB) };
}
