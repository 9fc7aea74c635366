import { checkConfigBytes, DECLARATION_PROBLEM } from './config-xml.js';
import { SnapshotIntegrityError } from './errors.js';
import { AUTOMATION_FILE, type SavedAccounts, type SavedFolder, type SnapshotInfo, type SnapshotManifest } from './model.js';
import { openSnapshot, readAccounts, readChecked, readFolders, toInfo, type SnapshotRef } from './store.js';
import { withDefined } from '../with-defined.js';

/*
 * Reading a snapshot whole, for restore, diff and import. Apart from store.ts because it needs
 * fast-xml-parser at hand (a synchronous fallback of the XML check), which save, list and verify
 * load only when the streaming checker refuses an export.
 */

/** A snapshot's contents, checked against its manifest and decrypted. */
export interface LoadedSnapshot {
  readonly info: SnapshotInfo;
  readonly manifest: SnapshotManifest;
  /** The automation export, byte for byte; absent when the snapshot has no automation part. */
  readonly automationXml?: Buffer;
  /** Empty when the snapshot saved no transfer folder. */
  readonly folders: readonly SavedFolder[];
  /** The transfer users, groups and memberships; absent in snapshots without them (older ones, or saved by an account that could not list them). */
  readonly accounts?: SavedAccounts;
}

/**
 * Read every file of a snapshot, decrypt it, and check it against `snapshot.json` (size, sha256,
 * XML well-formedness, folder and accounts JSON). Any mismatch is a {@link SnapshotIntegrityError} naming the file.
 */
export function loadSnapshot(dir: string, ref: SnapshotRef, processEnv: NodeJS.ProcessEnv = process.env): LoadedSnapshot {
  const { manifest, folder, where, key } = openSnapshot(dir, ref, processEnv);
  let automationXml: Buffer | undefined;
  if (manifest.automation) {
    automationXml = readChecked(folder, manifest.automation, AUTOMATION_FILE, key, where);
    const problem = checkConfigBytes(automationXml);
    if (problem)
      throw new SnapshotIntegrityError(
        `${where}: ${manifest.automation.file} ${problem === DECLARATION_PROBLEM ? problem : `is not well-formed XML: ${problem}`}`,
        manifest.automation.file,
      );
  }
  const folders = readFolders(folder, manifest, key, where);
  const accounts = readAccounts(folder, manifest, key, where);
  return { info: toInfo(manifest, folder), manifest, ...withDefined({ automationXml }), folders, ...withDefined({ accounts }) };
}
