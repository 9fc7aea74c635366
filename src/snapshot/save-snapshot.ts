import { readFileSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, open, readFile, rename, rm, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../atomic-file.js';
import { isMftopsError, systemError, systemErrorOf } from '../errors.js';
import { folderKey, uniqueFolderPaths } from '../folder-path.js';
import { silentLogger, type Logger } from '../log.js';
import type { AutomationClient, TransferClient } from '../services/index.js';
import { VERSION } from '../version.js';
import { decryptBuffer, encryptBuffer, readSnapshotKey, type SnapshotKey } from './crypto.js';
import { encryptFileTo, passEncryptedFile, passPlainFile, settleExportXml, type ExportPass } from './export-pass.js';
import { SnapshotError } from './errors.js';
import { findSnapshotGaps } from './export-check.js';
import {
  ACCOUNTS_FILE,
  AUTOMATION_FILE,
  ENCRYPTED_SUFFIX,
  ENVIRONMENT_NAME,
  type ExportBaseline,
  type ExportContents,
  FOLDERS_FILE,
  MANIFEST_FILE,
  SNAPSHOT_FORMAT_VERSION,
  type SavedAccounts,
  type SavedAclEntry,
  type SavedFolder,
  type SavedFolders,
  type SnapshotFile,
  type SnapshotInfo,
  type SnapshotManifest,
} from './model.js';
import { pruneSnapshots, sha256Hex, toInfo } from './store.js';
import { withDefined } from '../with-defined.js';
import { readLiveAccounts, type AccountsSource } from './read-accounts.js';

/** What saving needs of the automation client (the read-only view has it). */
export type SnapshotAutomationSource = Pick<AutomationClient, 'exportConfig'>;
/** What saving needs of the transfer client (the read-only view has it): folder ACLs, users, groups and members. */
export type SnapshotTransferSource = Pick<TransferClient, 'findFolderByPath' | 'listFolderAcls'> & AccountsSource;

export interface SaveSnapshotOptions {
  /** Given: the automation export is saved. At least one part (this, or the transfer one) is needed. */
  readonly automation?: SnapshotAutomationSource;
  /** The automation service's base URL, recorded in snapshot.json; required with `automation`. */
  readonly automationUrl?: string;
  /** `appVersion` of the automation service, recorded in snapshot.json. */
  readonly serverVersion?: string;
  /**
   * Given (or `foldersRead`): the transfer part is saved, with the ACL entries of `folders` and
   * `foldersRead`, possibly none. Needed when `folders` is not empty. Given, the users, groups and
   * memberships are saved too (`transfer-accounts.json`; a warning when the account may not list them).
   */
  readonly transfer?: SnapshotTransferSource;
  readonly transferUrl?: string;
  /** Transfer folder paths whose ACL entries are read and saved (apply: the folders its plan touches). */
  readonly folders?: readonly string[];
  /** Folders the caller already read with their entries (snapshot save reads them as plan does): saved as given, after `folders`. */
  readonly foldersRead?: readonly SavedFolder[];
  /** Environment name: the subfolder of `dir`. */
  readonly env: string;
  /** The configuration's `snapshots.dir` (absolute). */
  readonly dir: string;
  /** The configuration's `snapshots.keep`: older snapshots of `env` are deleted after the save. */
  readonly keep: number;
  /** Snapshot ids retention must not delete (restore protects the one it restores). */
  readonly protect?: readonly string[];
  /** The time the id is made of; default now. */
  readonly now?: Date;
  /** Recorded in snapshot.json, e.g. why the snapshot was taken. */
  readonly note?: string;
  /** `MFTOPS_SNAPSHOT_KEY` is read from here; default `process.env`. */
  readonly processEnv?: NodeJS.ProcessEnv;
  /** Retention problems are warnings (the snapshot itself is saved by then). */
  readonly logger?: Logger;
  /**
   * What the server held a moment before (apply: the lists it just read, the objects it will
   * change): a snapshot that lacks any of it is not saved (see export-check.ts). A promise is
   * awaited after the reads, before anything is kept: apply starts the export with its stale
   * check, and a rejection (the check did not pass) leaves nothing behind, as any failure does.
   */
  readonly baseline?: ExportBaseline | Promise<ExportBaseline>;
}

/**
 * Take a verified snapshot of the services given: the automation export streamed byte for byte,
 * the named folders' ACL entries, `snapshot.json`; all in a private temporary folder that is
 * renamed into place only when every file is written, synced and read back. On any failure nothing is left behind and a
 * {@link SnapshotError} says why: the caller must not go on to write.
 */
export async function saveSnapshot(opts: SaveSnapshotOptions): Promise<SnapshotInfo> {
  // Awaited only after the reads: a baseline refused meanwhile is handled there, not unhandled now.
  if (opts.baseline instanceof Promise) opts.baseline.catch(() => undefined);
  if (!ENVIRONMENT_NAME.test(opts.env)) throw new SnapshotError(`snapshot not saved: "${opts.env}" is not an environment name`);
  const key = readSnapshotKey(opts.processEnv ?? process.env);
  if (!Number.isInteger(opts.keep) || opts.keep < 1) throw new SnapshotError(`snapshots.keep must be a whole number of at least 1, not ${opts.keep}`);
  const folders = uniqueFolderPaths(opts.folders ?? []);
  if (folders.length > 0 && !opts.transfer) throw new SnapshotError(`snapshot not saved: ${folders.length} transfer folder(s) to save but no transfer service`);
  const saveTransfer = opts.transfer !== undefined || opts.foldersRead !== undefined;
  if (!opts.automation && !saveTransfer) throw new SnapshotError('snapshot not saved: neither the automation nor the transfer service to save');
  if (opts.automation && opts.automationUrl === undefined) throw new Error('saveSnapshot: automationUrl is required with automation');

  const envDir = join(opts.dir, opts.env);
  try {
    await mkdir(envDir, { recursive: true, mode: 0o700 });
  } catch (err) {
    throw new SnapshotError(systemError(`snapshot not saved: cannot create ${envDir}`, err).message);
  }
  const when = opts.now ?? new Date();
  let tmp: string;
  try {
    tmp = await mkdtemp(join(envDir, `.tmp-${toSnapshotId(when)}-`));
    await chmod(tmp, 0o700);
  } catch (err) {
    throw new SnapshotError(systemError(`snapshot not saved: cannot create a folder in ${envDir}`, err).message);
  }

  try {
    const automation = opts.automation ? await saveAutomation(tmp, opts.automation, opts, key) : undefined;
    const named = opts.transfer ? await readNamedFolders(opts.transfer, folders) : [];
    const saved = [...named, ...unnamed(opts.foldersRead ?? [], folders)];
    const accountsRead = opts.transfer ? await readLiveAccounts(opts.transfer) : undefined;
    if (accountsRead && 'notRead' in accountsRead) (opts.logger ?? silentLogger).warn(`users and groups not saved in the snapshot: ${accountsRead.notRead}`);
    const baseline = await opts.baseline;
    if (baseline) {
      const gaps = findSnapshotGaps({ ...(automation ? { automation: automation.contents } : {}), ...(saveTransfer ? { folders: saved } : {}) }, baseline);
      if (gaps.length > 0) throw new SnapshotError(`snapshot not saved: ${gaps.join('; ')}: not a backup of this server`);
    }
    const transfer = saveTransfer ? await saveFolders(tmp, saved, key) : undefined;
    const accounts = accountsRead && !('notRead' in accountsRead) ? await saveAccounts(tmp, accountsRead, key) : undefined;
    const id = await freeId(envDir, when);
    const manifest: SnapshotManifest = {
      formatVersion: SNAPSHOT_FORMAT_VERSION,
      id,
      environment: opts.env,
      createdAt: fromSnapshotId(id),
      toolVersion: VERSION,
      ...withDefined({ note: opts.note }),
      ...withDefined({ automation: automation?.file }),
      ...(transfer ? { transfer: { ...transfer, ...withDefined({ url: opts.transferUrl, accounts }) } } : {}),
      ...(key ? { encryption: { algorithm: 'aes-256-gcm' as const, keyCheck: key.check } } : {}),
    };
    await writing(join(tmp, MANIFEST_FILE), () => writeFileAtomic(join(tmp, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`, { mode: 0o600 }));
    await syncFolder(tmp);
    const final = join(envDir, id);
    await rename(tmp, final);
    await syncFolder(envDir);
    pruneAfterSave(opts, id);
    return toInfo(manifest, final);
  } catch (err) {
    await rm(tmp, { recursive: true, force: true }).catch(() => undefined);
    if (isMftopsError(err))
      throw new SnapshotError(err.message.startsWith('snapshot not saved') ? err.message : `snapshot not saved: ${err.message}`, { cause: err });
    if (isFsError(err)) throw new SnapshotError(systemError(`snapshot not saved: cannot write in ${envDir}`, err).message, { cause: err });
    throw err;
  }
}

/** `2026-11-22T02:30:00.123Z` → `2026-11-22T02-30-00.123Z`. */
export function toSnapshotId(when: Date): string {
  return when.toISOString().replace(/:/g, '-');
}

function fromSnapshotId(id: string): string {
  return id.replace(/^(\d{4}-\d{2}-\d{2}T\d{2})-(\d{2})-/, '$1:$2:');
}

async function saveAutomation(
  tmp: string,
  source: SnapshotAutomationSource,
  opts: SaveSnapshotOptions,
  key: SnapshotKey | undefined,
): Promise<{ file: NonNullable<SnapshotManifest['automation']>; contents: ExportContents }> {
  const part = join(tmp, `${AUTOMATION_FILE}.part`);
  // Named as the file it becomes: the `.part` suffix is ours, not the user's concern.
  const shown = join(tmp, key ? `${AUTOMATION_FILE}${ENCRYPTED_SUFFIX}` : AUTOMATION_FILE);
  let received;
  try {
    received = await source.exportConfig(part);
  } catch (err) {
    // The client words a file error as its own; the cause is the disk's (ENOSPC, EDQUOT, EROFS…).
    const disk = systemErrorOf(err) ?? systemErrorOf((err as { cause?: unknown } | undefined)?.cause);
    if (disk) throw new SnapshotError(systemError(`snapshot not saved: cannot write snapshot ${shown}`, disk).message, { cause: err });
    throw err;
  }
  // Read back what is on disk (the hash must be of the stored bytes, not only of the received
  // ones), hash and check it in one streaming pass while the thread pool syncs it.
  const stored = await writing(shown, () => whileSyncing(part, () => passPlainFile(part)));
  if (stored.bytes !== received.bytes || stored.sha256 !== received.sha256) {
    throw new SnapshotError(`snapshot not saved: ${AUTOMATION_FILE} on disk differs from what the server sent (${stored.bytes} of ${received.bytes} bytes)`);
  }
  const checked = await settleExportXml(stored, () => readFileSync(part, 'utf8'), true);
  if ('problem' in checked) {
    // `problem` is then DECLARATION_PROBLEM: named through the verdict, so that this module does not
    // load fast-xml-parser's 11 files for one string (apply's snapshot, measured: issue 29).
    if (checked.declaration) throw new SnapshotError(`snapshot not saved: the automation export from ${opts.automationUrl} ${checked.problem}`);
    throw new SnapshotError(`snapshot not saved: the export from ${opts.automationUrl} is not well-formed XML: ${checked.problem}`);
  }
  const taskCount = checked.taskCount;

  let file = AUTOMATION_FILE;
  if (key) {
    file = `${AUTOMATION_FILE}${ENCRYPTED_SUFFIX}`;
    await writing(shown, () => writeEncryptedExport(part, join(tmp, file), stored, key));
    await unlink(part);
  } else {
    await rename(part, join(tmp, file));
  }
  return {
    file: {
      file,
      bytes: stored.bytes,
      sha256: stored.sha256,
      url: opts.automationUrl!,
      ...withDefined({ serverVersion: opts.serverVersion }),
      taskCount,
    },
    contents: checked.contents ?? { tasks: [], acls: [] },
  };
}

/** `work` writing `path`: a file-system error says the path and the cause (`no space left on the device (ENOSPC)`). */
async function writing<T>(path: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (!isFsError(err)) throw err;
    throw new SnapshotError(systemError(`snapshot not saved: cannot write snapshot ${path}`, err).message, { cause: err });
  }
}

/**
 * `work` run while `path` is made private and synced on the thread pool: the sync of a 100 MB
 * file and the pass over it overlap. A failed sync wins over the work's answer or error.
 */
async function whileSyncing<T>(path: string, work: () => T): Promise<T> {
  const handle = await open(path, 'r+');
  try {
    await handle.chmod(0o600);
    const synced = handle.sync();
    let result: T;
    try {
      result = work();
    } finally {
      await synced;
    }
    return result;
  } finally {
    await handle.close();
  }
}

/**
 * The export encrypted into `path` (written atomically), then decrypted back
 * from disk and compared with the plaintext's size and sha256: a key problem shows now, not at
 * restore time.
 */
async function writeEncryptedExport(plainPath: string, path: string, plain: ExportPass, key: SnapshotKey): Promise<void> {
  await writeFileAtomic(path, (file) => encryptFileTo(plainPath, file.fd, key, AUTOMATION_FILE), { mode: 0o600 });
  const back = passEncryptedFile(path, key, AUTOMATION_FILE, 'new snapshot', false);
  if (back.bytes !== plain.bytes || back.sha256 !== plain.sha256) {
    throw new SnapshotError(`snapshot not saved: ${AUTOMATION_FILE}${ENCRYPTED_SUFFIX} does not decrypt to what was written`);
  }
}

/** The ACL entries of each folder named (a folder that does not exist is saved with no id). */
export async function readNamedFolders(
  transfer: Pick<TransferClient, 'findFolderByPath' | 'listFolderAcls'>,
  paths: readonly string[],
): Promise<SavedFolder[]> {
  const folders: SavedFolder[] = [];
  for (const path of paths) {
    const folder = await transfer.findFolderByPath(path);
    if (!folder) {
      folders.push({ path, id: null, entries: [] });
      continue;
    }
    const entries = await transfer.listFolderAcls(folder.id);
    folders.push({ path, id: folder.id, entries: entries.map((e) => ({ ...e }) as SavedAclEntry) });
  }
  return folders;
}

/** The folders read by the caller that are not also named (the named ones were just read). */
function unnamed(read: readonly SavedFolder[], named: readonly string[]): SavedFolder[] {
  const keys = new Set(named.map(folderKey));
  return read.filter((f) => !keys.has(folderKey(f.path)));
}

async function saveFolders(tmp: string, folders: readonly SavedFolder[], key: SnapshotKey | undefined): Promise<SnapshotFile & { folderCount: number }> {
  const body: SavedFolders = { formatVersion: SNAPSHOT_FORMAT_VERSION, folders };
  return { ...(await saveJsonPart(tmp, FOLDERS_FILE, body, key)), folderCount: folders.length };
}

async function saveAccounts(
  tmp: string,
  accounts: SavedAccounts,
  key: SnapshotKey | undefined,
): Promise<SnapshotFile & { userCount: number; groupCount: number }> {
  return { ...(await saveJsonPart(tmp, ACCOUNTS_FILE, accounts, key)), userCount: accounts.users.length, groupCount: accounts.groups.length };
}

/** One JSON part, 0600, encrypted with the key when there is one. */
async function saveJsonPart(tmp: string, plainName: string, body: unknown, key: SnapshotKey | undefined): Promise<SnapshotFile> {
  const plain = Buffer.from(`${JSON.stringify(body, null, 2)}\n`, 'utf8');
  const file = key ? `${plainName}${ENCRYPTED_SUFFIX}` : plainName;
  const path = join(tmp, file);
  await writing(path, () => (key ? writeEncrypted(path, plain, plainName, key) : writeFileAtomic(path, plain, { mode: 0o600 })));
  return { file, bytes: plain.length, sha256: sha256Hex(plain) };
}

/** Encrypt, write, and decrypt what landed on disk: a key problem shows now, not at restore time. */
async function writeEncrypted(path: string, plain: Buffer, plainName: string, key: SnapshotKey): Promise<void> {
  await writeFileAtomic(path, encryptBuffer(key, plain, plainName), { mode: 0o600 });
  const back = decryptBuffer(key, await readFile(path), plainName, 'new snapshot');
  if (!back.equals(plain)) throw new SnapshotError(`snapshot not saved: ${plainName}${ENCRYPTED_SUFFIX} does not decrypt to what was written`);
}

/** fsync a folder so that a rename in it survives a crash (not possible on every platform). */
async function syncFolder(path: string): Promise<void> {
  let handle;
  try {
    handle = await open(path, 'r');
    await handle.sync();
  } catch {
    // Windows cannot open folders; the rename is still atomic there.
  } finally {
    await handle?.close();
  }
}

/** The id for `when`, one millisecond later per clash (two saves in the same millisecond). */
async function freeId(envDir: string, when: Date): Promise<string> {
  for (let t = when.getTime(); ; t++) {
    const id = toSnapshotId(new Date(t));
    try {
      await stat(join(envDir, id));
    } catch (err) {
      if (code(err) === 'ENOENT') return id;
      throw err;
    }
  }
}

function pruneAfterSave(opts: SaveSnapshotOptions, id: string): void {
  const logger = opts.logger ?? silentLogger;
  try {
    const deleted = pruneSnapshots(opts.dir, opts.env, opts.keep, [id, ...(opts.protect ?? [])]);
    if (deleted.length > 0) logger.debug(`snapshots: deleted ${deleted.length} older than the newest ${opts.keep} of ${opts.env}`);
  } catch (err) {
    logger.warn(`snapshot ${opts.env}/${id} saved, but older snapshots could not be deleted (${isMftopsError(err) ? err.message : code(err)})`);
  }
}

function code(err: unknown): string {
  return (err as NodeJS.ErrnoException | undefined)?.code ?? (err instanceof Error ? err.message : 'error');
}

function isFsError(err: unknown): boolean {
  return typeof (err as NodeJS.ErrnoException | undefined)?.code === 'string' && typeof (err as NodeJS.ErrnoException).syscall === 'string';
}
