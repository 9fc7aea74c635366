import { parseConfigXml } from './config-xml.js';
import { diffConfigs } from './diff-configs.js';
import { diffSavedFolders } from './diff-folders.js';
import type { SnapshotDiff } from './model.js';
import { loadSnapshot, type LoadedSnapshot } from './load-snapshot.js';
import { describeRef, resolveSnapshotId, type ReadOptions, type SnapshotRef } from './store.js';

/**
 * Compare two stored snapshots (A → B) after checking both against their manifests: the
 * automation configurations when both hold one, and the folder ACLs they saved. `a` and `b` are
 * ids, unique prefixes, `latest` or `ENV/…` (see resolveSnapshotId).
 */
export function diffSnapshots(dir: string, a: string, b: string, options: ReadOptions = {}): SnapshotDiff {
  const refA = resolveSnapshotId(dir, a, options.env);
  const refB = resolveSnapshotId(dir, b, options.env);
  const loadedA = loadSnapshot(dir, refA, options.processEnv);
  const loadedB = loadSnapshot(dir, refB, options.processEnv);
  const folders = diffSavedFolders(loadedA.folders, loadedB.folders);
  if (loadedA.automationXml && loadedB.automationXml) {
    const { kinds } = diffConfigs(parseConfigXml(loadedA.automationXml.toString('utf8')), parseConfigXml(loadedB.automationXml.toString('utf8')));
    return { a: refA, b: refB, kinds, folders };
  }
  return { a: refA, b: refB, automationNotCompared: withoutExport([[refA, loadedA], [refB, loadedB]]), folders };
}

function withoutExport(snapshots: ReadonlyArray<readonly [SnapshotRef, LoadedSnapshot]>): string {
  const missing = snapshots.filter(([, s]) => s.automationXml === undefined).map(([ref]) => describeRef(ref));
  return missing.length === 1 ? `snapshot ${missing[0]} holds no automation export` : 'neither snapshot holds an automation export';
}
