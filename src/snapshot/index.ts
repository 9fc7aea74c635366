/**
 * The backup store (DESIGN.md §5 steps 2 and 5): save, list, verify, diff and restore snapshots of
 * the automation export, of transfer folder ACLs and of transfer users, groups and memberships.
 * `apply` calls saveSnapshot before its first write and stops when it throws.
 */
export { checkConfigXml, inspectConfigXml, parseConfigXml } from './config-xml.js';
export type { XmlElement } from './config-xml.js';
export { readSnapshotKey, SNAPSHOT_KEY_VARIABLE } from './crypto.js';
export type { SnapshotKey } from './crypto.js';
export { diffConfigs } from './diff-configs.js';
export { diffSavedAccounts } from './diff-accounts.js';
export { diffSavedFolders } from './diff-folders.js';
export { diffSnapshots } from './diff-snapshots.js';
export { SnapshotError, SnapshotIntegrityError } from './errors.js';
export * from './model.js';
export { readLiveAccounts } from './read-accounts.js';
export type { AccountsSource } from './read-accounts.js';
export { planAccountRestore, writeAccountRestore } from './restore-accounts.js';
export type { AccountRestorePlan, AccountRestoreTarget } from './restore-accounts.js';
export { restoreSnapshot } from './restore-snapshot.js';
export type { RestoreAutomationTarget, RestoreSnapshotOptions, RestoreTransferTarget } from './restore-snapshot.js';
export { saveSnapshot, toSnapshotId } from './save-snapshot.js';
export type { SaveSnapshotOptions, SnapshotAutomationSource, SnapshotTransferSource } from './save-snapshot.js';
export { loadSnapshot } from './load-snapshot.js';
export type { LoadedSnapshot } from './load-snapshot.js';
export { describeRef, listSnapshotRefs, listSnapshots, pruneSnapshots, readManifest, resolveSnapshotId, snapshotPath, verifySnapshot } from './store.js';
export type { ReadOptions, SnapshotRef } from './store.js';
