import { isMftopsError } from '../errors.js';
import type { Logger } from '../log.js';
import type { AclEntryType, AutomationClient, FolderAclEntry, FolderPermissions, TransferClient } from '../services/index.js';
import { SnapshotError } from './errors.js';
import type { SavedAclEntry, SavedFolder, SnapshotInfo } from './model.js';
import { saveSnapshot } from './save-snapshot.js';
import { loadSnapshot } from './load-snapshot.js';
import { describeRef, resolveSnapshotId } from './store.js';
import { describePart } from './render.js';
import { canonicalJson } from '../resources/common.js';
import type { ServiceName } from '../vocabulary.js';

export type RestoreAutomationTarget = Pick<AutomationClient, 'exportConfig' | 'importConfig'>;
export type RestoreTransferTarget = Pick<TransferClient, 'findFolderByPath' | 'listFolderAcls' | 'setFolderAcl' | 'deleteFolderAcl'>;

export interface RestoreSnapshotOptions {
  readonly dir: string;
  readonly env: string;
  /** Snapshot id, unique prefix or `latest`, within `env`. */
  readonly id: string;
  /** The parts to restore; default every part the snapshot holds. A part it does not hold is an error. */
  readonly services?: readonly ServiceName[];
  /** Needed when the automation part is restored. */
  readonly automation?: RestoreAutomationTarget;
  readonly automationUrl?: string;
  readonly serverVersion?: string;
  /** Needed when the transfer part restored has folders. */
  readonly transfer?: RestoreTransferTarget;
  readonly transferUrl?: string;
  /** Retention for the pre-restore snapshot (the restored one is never deleted by it). */
  readonly keep: number;
  readonly now?: Date;
  readonly processEnv?: NodeJS.ProcessEnv;
  readonly logger?: Logger;
}

/** What happened to one saved folder's ACL. */
export interface FolderRestore {
  readonly path: string;
  /**
   * `restored`: entries put back (`put`) and removed (`deleted`); `unchanged`: already as saved;
   * `absent`: no folder then and none now; `missing`: the folder existed then and is gone now
   * (folders cannot be created back from a snapshot); `failed`: see `error`.
   */
  readonly outcome: 'restored' | 'unchanged' | 'absent' | 'missing' | 'failed';
  readonly put: number;
  readonly deleted: number;
  /** Live entries left alone: not editable, not deletable, or of a type mftops never touches. */
  readonly kept: number;
  /** The folder did not exist when the snapshot was taken: its entries were removed, the folder stays. */
  readonly createdSince?: boolean;
  readonly error?: string;
}

export interface RestoreResult {
  readonly restored: SnapshotInfo;
  /** The parts put back, automation first. */
  readonly services: readonly ServiceName[];
  /** The snapshot of the state the restore replaced. */
  readonly preRestore: SnapshotInfo;
  readonly folders: readonly FolderRestore[];
  /** True when every folder was restored (or needed nothing). */
  readonly complete: boolean;
}

const MANAGED_TYPES: readonly string[] = ['User', 'Group'] satisfies readonly AclEntryType[];

/**
 * Put a snapshot back, part by part: check it, take a fresh snapshot of the same services (what
 * the restore replaces), `PUT /config` with the saved bytes, then make each saved folder's ACL
 * what it was (PUT the saved entries that differ, DELETE editable live entries the snapshot does
 * not have). Nothing is written when the check or the fresh snapshot fails; a failed import is
 * an error naming the fresh snapshot.
 */
export async function restoreSnapshot(opts: RestoreSnapshotOptions): Promise<RestoreResult> {
  const ref = resolveSnapshotId(opts.dir, opts.id, opts.env);
  const loaded = loadSnapshot(opts.dir, ref, opts.processEnv);
  const services = opts.services ?? loaded.info.services;
  for (const s of services) {
    if (!loaded.info.services.includes(s)) throw new SnapshotError(`snapshot ${describeRef(ref)} holds no ${describePart(s)}`);
  }
  const automationXml = services.includes('automation') ? loaded.automationXml : undefined;
  const folders = services.includes('transfer') ? loaded.folders : [];
  if (automationXml && !opts.automation) {
    throw new SnapshotError(`snapshot ${describeRef(ref)} holds the automation export, but the environment has no automation service`);
  }
  if (folders.length > 0 && !opts.transfer) {
    throw new SnapshotError(`snapshot ${describeRef(ref)} holds ${folders.length} transfer folder(s), but the environment has no transfer service`);
  }
  const preRestore = await saveSnapshot({
    ...(automationXml ? { automation: opts.automation!, ...(opts.automationUrl !== undefined ? { automationUrl: opts.automationUrl } : {}) } : {}),
    ...(opts.serverVersion !== undefined ? { serverVersion: opts.serverVersion } : {}),
    ...(services.includes('transfer') && opts.transfer ? { transfer: opts.transfer } : {}),
    ...(opts.transferUrl !== undefined ? { transferUrl: opts.transferUrl } : {}),
    folders: folders.map((f) => f.path),
    env: opts.env,
    dir: opts.dir,
    keep: opts.keep,
    protect: [ref.id],
    ...(opts.now ? { now: opts.now } : {}),
    note: `before restoring ${ref.id}`,
    ...(opts.processEnv ? { processEnv: opts.processEnv } : {}),
    ...(opts.logger ? { logger: opts.logger } : {}),
  });

  if (automationXml) {
    try {
      await opts.automation!.importConfig(automationXml);
    } catch (err) {
      if (!isMftopsError(err)) throw err;
      throw new SnapshotError(`restore of ${describeRef(ref)} failed: ${err.message} (the state before the restore is in snapshot ${preRestore.id})`, { cause: err });
    }
  }

  const restored: FolderRestore[] = [];
  for (const saved of folders) restored.push(await restoreFolder(saved, opts.transfer!));
  return {
    restored: loaded.info,
    services: loaded.info.services.filter((s) => services.includes(s)),
    preRestore,
    folders: restored,
    complete: restored.every((f) => f.outcome !== 'failed' && f.outcome !== 'missing'),
  };
}

async function restoreFolder(saved: SavedFolder, transfer: RestoreTransferTarget): Promise<FolderRestore> {
  const base = { path: saved.path, put: 0, deleted: 0, kept: 0 };
  try {
    const live = await transfer.findFolderByPath(saved.path);
    if (!live) {
      return saved.id === null
        ? { ...base, outcome: 'absent' }
        : { ...base, outcome: 'missing', error: `the folder no longer exists; its ${saved.entries.length} entries were not restored` };
    }
    const liveEntries = await transfer.listFolderAcls(live.id);
    const liveByKey = new Map(liveEntries.map((e) => [entryKey(e), e]));
    const savedKeys = new Set(saved.entries.map(entryKey));
    let put = 0;
    let deleted = 0;
    let kept = 0;
    for (const entry of saved.entries) {
      if (!MANAGED_TYPES.includes(entry.type)) continue;
      const current = liveByKey.get(entryKey(entry));
      if (current?.isEditable === false || entry.isEditable === false) continue;
      if (current && samePermissions(current.permissions, entry.permissions)) continue;
      await transfer.setFolderAcl(live.id, { type: entry.type as AclEntryType, id: entry.id, permissions: entry.permissions as FolderPermissions });
      put++;
    }
    for (const entry of liveEntries) {
      if (savedKeys.has(entryKey(entry))) continue;
      if (!MANAGED_TYPES.includes(entry.type) || entry.isEditable === false || entry.isDeletable === false) {
        kept++;
        continue;
      }
      await transfer.deleteFolderAcl(live.id, { type: entry.type as AclEntryType, id: entry.id });
      deleted++;
    }
    return {
      ...base,
      outcome: put + deleted > 0 ? 'restored' : 'unchanged',
      put,
      deleted,
      kept,
      ...(saved.id === null ? { createdSince: true } : {}),
    };
  } catch (err) {
    if (!isMftopsError(err)) throw err;
    return { ...base, outcome: 'failed', error: err.message };
  }
}

function entryKey(e: SavedAclEntry | FolderAclEntry): string {
  return `${e.type}:${e.id}`;
}

function samePermissions(a: Readonly<Record<string, unknown>>, b: Readonly<Record<string, unknown>>): boolean {
  return canonicalJson(a) === canonicalJson(b);
}
