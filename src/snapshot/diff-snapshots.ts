import { parseConfigXml } from './config-xml.js';
import { diffConfigs } from './diff-configs.js';
import { diffSavedAccounts } from './diff-accounts.js';
import { diffSavedFolders } from './diff-folders.js';
import type { PartsDiff, SnapshotDiff } from './model.js';
import { loadSnapshot, type LoadedSnapshot } from './load-snapshot.js';
import { describeRef, resolveSnapshotId, type ReadOptions, type SnapshotRef } from './store.js';
import { withDefined } from '../with-defined.js';

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
  return {
    a: refA,
    b: refB,
    ...diffParts(
      loadedA,
      loadedB,
      () =>
        withoutExport([
          [refA, loadedA],
          [refB, loadedB],
        ]),
      () => `snapshot ${describeRef(loadedA.accounts ? refB : refA)} holds no users and groups`,
    ),
  };
}

/** The parts a diff compares: an automation export (bytes), folder ACLs, users and groups. */
export type SavedParts = Pick<LoadedSnapshot, 'automationXml' | 'folders' | 'accounts'>;

/**
 * A → B for two sets of parts (pure); `notCompared` says why when a side holds no automation
 * export, `accountsNotCompared` why a side holds no users and groups (absent: neither holds any).
 */
export function diffParts(a: SavedParts, b: SavedParts, notCompared: () => string, accountsNotCompared?: () => string | undefined): PartsDiff {
  const folders = diffSavedFolders(a.folders, b.folders);
  const accounts = a.accounts && b.accounts ? diffSavedAccounts(a.accounts, b.accounts) : undefined;
  const accountsWhy = accounts === undefined && (a.accounts || b.accounts) ? accountsNotCompared?.() : undefined;
  const accountParts = withDefined({ accounts, accountsNotCompared: accountsWhy });
  if (a.automationXml && b.automationXml) {
    const { kinds } = diffConfigs(parseConfigXml(a.automationXml.toString('utf8')), parseConfigXml(b.automationXml.toString('utf8')));
    return { kinds, folders, ...accountParts };
  }
  return { automationNotCompared: notCompared(), folders, ...accountParts };
}

function withoutExport(snapshots: ReadonlyArray<readonly [SnapshotRef, LoadedSnapshot]>): string {
  const missing = snapshots.filter(([, s]) => s.automationXml === undefined).map(([ref]) => describeRef(ref));
  return missing.length === 1 ? `snapshot ${missing[0]} holds no automation export` : 'neither snapshot holds an automation export';
}
