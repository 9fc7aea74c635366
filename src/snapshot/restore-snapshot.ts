import { chmod, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { isMftopsError } from '../errors.js';
import type { Logger } from '../log.js';
import type { AclEntryType, AutomationClient, FolderAclEntry, FolderPermissions, TransferClient } from '../services/index.js';
import { parseConfigXml } from './config-xml.js';
import { diffConfigs } from './diff-configs.js';
import { diffParts, type SavedParts } from './diff-snapshots.js';
import { SnapshotError } from './errors.js';
import {
  describePart,
  type AccountRestorePreview,
  type AccountsRestore,
  type DiffKind,
  type FolderRestore,
  type PartsDiff,
  type RestoreResult,
  type SavedAccounts,
  type SavedAclEntry,
  type SavedFolder,
} from './model.js';
import { readNamedFolders, saveSnapshot } from './save-snapshot.js';
import { loadSnapshot, type LoadedSnapshot } from './load-snapshot.js';
import { describeRef, resolveSnapshotId, type SnapshotRef } from './store.js';
import { canonicalJson } from '../resources/common.js';
import type { ServiceName } from '../vocabulary.js';
import { withDefined } from '../with-defined.js';
import { readLiveAccounts, type AccountsSource } from './read-accounts.js';
import {
  accountMismatches,
  countAccountWork,
  planAccountRestore,
  writeAccountRestore,
  type AccountRestoreTarget,
  type ObservedGroups,
} from './restore-accounts.js';

export type RestoreAutomationTarget = Pick<AutomationClient, 'exportConfig' | 'importConfig'>;
/** What a restore reads before it writes (the diff): read-only clients do. */
export type RestoreAutomationSource = Pick<AutomationClient, 'exportConfig'>;
export type RestoreTransferSource = Pick<TransferClient, 'findFolderByPath' | 'listFolderAcls'> & AccountsSource;
export type RestoreTransferTarget = Pick<TransferClient, 'findFolderByPath' | 'listFolderAcls' | 'setFolderAcl' | 'deleteFolderAcl'> & AccountsSource;

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
  /** Needed when the transfer part restored has folders or accounts. */
  readonly transfer?: RestoreTransferTarget;
  /**
   * Writes users' fields and group members back. Absent: the accounts are compared and reported
   * (`notWritten`), never written.
   */
  readonly accounts?: AccountRestoreTarget;
  /** Groups whose members are not put back (their manifests observe them); default none. */
  readonly observedGroups?: ObservedGroups;
  readonly transferUrl?: string;
  /** Retention for the pre-restore snapshot (the restored one is never deleted by it). */
  readonly keep: number;
  readonly now?: Date;
  readonly processEnv?: NodeJS.ProcessEnv;
  readonly logger?: Logger;
}

/** A restore checked and compared with the live servers, before anything is written. */
export interface PreparedRestore {
  readonly ref: SnapshotRef;
  readonly snapshot: LoadedSnapshot;
  /** The parts to put back. */
  readonly services: readonly ServiceName[];
  /** The live configuration (A) → the snapshot (B): what the restore will change. */
  readonly diff: PartsDiff;
  /** What the restore will write to users and groups and what it cannot put back, when it restores them. */
  readonly accounts?: AccountRestorePreview;
}

const MANAGED_TYPES: readonly string[] = ['User', 'Group'] satisfies readonly AclEntryType[];

/**
 * Check a snapshot and compare it with the live servers (reads only): the live automation
 * export and the live ACLs of the folders it saved (A) against the snapshot (B). A view shows
 * the diff and asks before `applyRestore`.
 */
export async function prepareRestore(
  opts: Omit<RestoreSnapshotOptions, 'automation' | 'transfer'> & { readonly automation?: RestoreAutomationSource; readonly transfer?: RestoreTransferSource },
): Promise<PreparedRestore> {
  // `accounts` (the writer) only tells whether users and groups will be written; nothing is written here.
  const ref = resolveSnapshotId(opts.dir, opts.id, opts.env);
  const loaded = loadSnapshot(opts.dir, ref, opts.processEnv);
  const services = opts.services ?? loaded.info.services;
  for (const s of services) {
    if (!loaded.info.services.includes(s)) throw new SnapshotError(`snapshot ${describeRef(ref)} holds no ${describePart(s)}`);
  }
  const parts = partsToRestore(loaded, services);
  if (parts.automationXml && !opts.automation) {
    throw new SnapshotError(`snapshot ${describeRef(ref)} holds the automation export, but the environment has no automation service`);
  }
  if (parts.folders.length > 0 && !opts.transfer) {
    throw new SnapshotError(`snapshot ${describeRef(ref)} holds ${parts.folders.length} transfer folder(s), but the environment has no transfer service`);
  }
  if (parts.accounts && !opts.transfer) {
    throw new SnapshotError(`snapshot ${describeRef(ref)} holds transfer users and groups, but the environment has no transfer service`);
  }
  const liveAccounts = parts.accounts ? await readLiveAccounts(opts.transfer!, { fresh: true }) : undefined;
  const live: SavedParts = {
    ...(parts.automationXml ? { automationXml: await readLiveExport(opts.automation!, join(opts.dir, opts.env)) } : {}),
    folders:
      parts.folders.length > 0
        ? await readNamedFolders(
            opts.transfer!,
            parts.folders.map((f) => f.path),
          )
        : [],
    ...(liveAccounts && !('notRead' in liveAccounts) ? { accounts: liveAccounts } : {}),
  };
  const diff = diffParts(
    live,
    parts,
    () => `the automation configuration is not restored`,
    () => (liveAccounts && 'notRead' in liveAccounts ? liveAccounts.notRead : undefined),
  );
  const plan = parts.accounts && live.accounts ? planAccountRestore(parts.accounts, live.accounts, opts.observedGroups) : undefined;
  const accounts: AccountRestorePreview | undefined = plan && {
    ...countAccountWork(plan),
    notRestorable: plan.notRestorable,
    leftAlone: plan.leftAlone,
    warnings: plan.warnings,
    writable: opts.accounts !== undefined,
  };
  return { ref, snapshot: loaded, services, diff, ...withDefined({ accounts }) };
}

/**
 * Put a prepared snapshot back, part by part: take a fresh snapshot of the same services (what
 * the restore replaces), `PUT /config` with the saved bytes, then make each saved folder's ACL
 * what it was (PUT the saved entries that differ, DELETE editable live entries the snapshot does
 * not have); then read it all back and compare with the snapshot (`verified`). Nothing is
 * written when the fresh snapshot fails; a failed import is an error naming the fresh snapshot.
 */
export async function applyRestore(prepared: PreparedRestore, opts: RestoreSnapshotOptions): Promise<RestoreResult> {
  const { ref, snapshot: loaded, services } = prepared;
  const { automationXml, folders, accounts: savedAccounts } = partsToRestore(loaded, services);
  const preRestore = await saveSnapshot({
    ...(automationXml ? { automation: opts.automation!, ...withDefined({ automationUrl: opts.automationUrl }) } : {}),
    ...withDefined({ serverVersion: opts.serverVersion }),
    ...(services.includes('transfer') && opts.transfer ? { transfer: opts.transfer } : {}),
    ...withDefined({ transferUrl: opts.transferUrl }),
    folders: folders.map((f) => f.path),
    env: opts.env,
    dir: opts.dir,
    keep: opts.keep,
    protect: [ref.id],
    ...withDefined({ now: opts.now }),
    note: `before restoring ${ref.id}`,
    ...withDefined({ processEnv: opts.processEnv, logger: opts.logger }),
  });

  if (automationXml) {
    try {
      await opts.automation!.importConfig(automationXml);
    } catch (err) {
      if (!isMftopsError(err)) throw err;
      throw new SnapshotError(`restore of ${describeRef(ref)} failed: ${err.message} (the state before the restore is in snapshot ${preRestore.id})`, {
        cause: err,
      });
    }
  }

  const restored: FolderRestore[] = [];
  for (const saved of folders) restored.push(await restoreFolder(saved, opts.transfer!));
  const accounts = savedAccounts ? await restoreAccounts(savedAccounts, opts) : undefined;
  const mismatches = await verifyRestore(automationXml, folders, restored, opts);
  if (savedAccounts && accounts && accounts.outcome !== 'notWritten')
    mismatches.push(...(await verifyAccounts(savedAccounts, opts.transfer!, opts.observedGroups)));
  return {
    restored: loaded.info,
    services: loaded.info.services.filter((s) => services.includes(s)),
    diff: prepared.diff,
    preRestore,
    folders: restored,
    ...withDefined({ accounts }),
    complete:
      restored.every((f) => f.outcome !== 'failed' && f.outcome !== 'missing') &&
      (accounts === undefined || ((accounts.outcome === 'restored' || accounts.outcome === 'unchanged') && accounts.notRestorable.length === 0)),
    verified: mismatches.length === 0,
    mismatches,
  };
}

/** Check, compare, put back and verify, without a question in between (a caller that has already decided). */
export async function restoreSnapshot(opts: RestoreSnapshotOptions): Promise<RestoreResult> {
  return applyRestore(await prepareRestore(opts), opts);
}

/** The parts of `loaded` that `services` restores. */
function partsToRestore(loaded: LoadedSnapshot, services: readonly ServiceName[]): SavedParts {
  return {
    ...(services.includes('automation') && loaded.automationXml ? { automationXml: loaded.automationXml } : {}),
    folders: services.includes('transfer') ? loaded.folders : [],
    ...(services.includes('transfer') && loaded.accounts ? { accounts: loaded.accounts } : {}),
  };
}

/**
 * Put the saved users' fields and group members back, read afresh just before (the state the
 * pre-restore snapshot holds). Accounts the live server does not let this account read are not
 * written: the restore is then incomplete and says why.
 */
async function restoreAccounts(saved: SavedAccounts, opts: RestoreSnapshotOptions): Promise<AccountsRestore> {
  const unread = (why: string): AccountsRestore => ({
    outcome: 'failed',
    usersPatched: 0,
    membersAdded: 0,
    membersRemoved: 0,
    notRestorable: [],
    leftAlone: [],
    warnings: [],
    errors: [`the users and groups could not be read: ${why}`],
  });
  let live: Awaited<ReturnType<typeof readLiveAccounts>>;
  try {
    live = await readLiveAccounts(opts.transfer!, { fresh: true });
  } catch (err) {
    // As a folder that cannot be read: the other parts are already written, so this is a result, not an exception.
    if (!isMftopsError(err)) throw err;
    return unread(err.message);
  }
  return 'notRead' in live ? unread(live.notRead) : writeAccountRestore(planAccountRestore(saved, live, opts.observedGroups), opts.accounts);
}

/** What, read back, still differs from the saved users and members. */
async function verifyAccounts(saved: SavedAccounts, transfer: AccountsSource, observed: ObservedGroups | undefined): Promise<string[]> {
  try {
    const live = await readLiveAccounts(transfer, { fresh: true });
    return 'notRead' in live ? [`the users and groups could not be read back: ${live.notRead}`] : accountMismatches(planAccountRestore(saved, live, observed));
  } catch (err) {
    if (!isMftopsError(err)) throw err;
    return [`the users and groups could not be read back: ${err.message}`];
  }
}

/**
 * The live automation export, in memory. It holds secrets, so it goes through a private folder
 * in the environment's snapshot folder (as a snapshot's does), removed straight after.
 */
async function readLiveExport(source: RestoreAutomationSource, envDir: string): Promise<Buffer> {
  await mkdir(envDir, { recursive: true, mode: 0o700 });
  const tmp = await mkdtemp(join(envDir, '.tmp-live-'));
  try {
    await chmod(tmp, 0o700);
    const path = join(tmp, 'config.xml');
    await source.exportConfig(path);
    return await readFile(path);
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

/** What, read back after the writes, does not match the snapshot; empty when all does. */
async function verifyRestore(
  automationXml: Buffer | undefined,
  saved: readonly SavedFolder[],
  restored: readonly FolderRestore[],
  opts: RestoreSnapshotOptions,
): Promise<string[]> {
  const mismatches: string[] = [];
  if (automationXml) {
    try {
      const after = await readLiveExport(opts.automation!, join(opts.dir, opts.env));
      const { kinds } = diffConfigs(parseConfigXml(automationXml.toString('utf8')), parseConfigXml(after.toString('utf8')));
      for (const k of kinds) {
        for (const name of k.added) mismatches.push(`${KIND_WORDS[k.kind]} ${name} is on the server but not in the snapshot`);
        for (const name of k.removed) mismatches.push(`${KIND_WORDS[k.kind]} ${name} is in the snapshot but not on the server`);
        for (const c of k.changed) mismatches.push(`${KIND_WORDS[k.kind]} ${c.name} differs from the snapshot (${c.fields.map((f) => f.path).join(', ')})`);
      }
    } catch (err) {
      if (!isMftopsError(err)) throw err;
      mismatches.push(`the automation configuration could not be read back: ${err.message}`);
    }
  }
  for (const [i, f] of restored.entries()) {
    if (f.outcome !== 'restored' && f.outcome !== 'unchanged') continue;
    try {
      const live = await opts.transfer!.findFolderByPath(f.path);
      if (!live) {
        mismatches.push(`folder ${f.path} is gone`);
        continue;
      }
      const left = folderWork(saved[i]!, await opts.transfer!.listFolderAcls(live.id));
      for (const e of left.put) mismatches.push(`folder ${f.path}: ${e.type} ${e.name ?? e.id} does not have the permissions of the snapshot`);
      for (const e of left.remove) mismatches.push(`folder ${f.path}: ${e.type} ${e.name ?? e.id} has an entry the snapshot does not`);
    } catch (err) {
      if (!isMftopsError(err)) throw err;
      mismatches.push(`folder ${f.path} could not be read back: ${err.message}`);
    }
  }
  return mismatches;
}

const KIND_WORDS: Readonly<Record<DiffKind, string>> = { task: 'task', host: 'host', resourceGroupAcl: 'resource-group ACL' };

/**
 * What a restore does to one folder's live entries (pure): `put` the saved entries that are
 * missing or differ, `remove` the editable live entries the snapshot does not have; `kept`: live
 * entries left alone (not editable, not deletable, of a type mftops never touches). Read back
 * after a restore, both lists are empty.
 */
function folderWork(saved: SavedFolder, liveEntries: readonly FolderAclEntry[]): { put: SavedAclEntry[]; remove: FolderAclEntry[]; kept: number } {
  const liveByKey = new Map(liveEntries.map((e) => [entryKey(e), e]));
  const savedKeys = new Set(saved.entries.map(entryKey));
  const put: SavedAclEntry[] = [];
  const remove: FolderAclEntry[] = [];
  let kept = 0;
  for (const entry of saved.entries) {
    if (!MANAGED_TYPES.includes(entry.type)) continue;
    const current = liveByKey.get(entryKey(entry));
    if (current?.isEditable === false || entry.isEditable === false) continue;
    if (current && samePermissions(current.permissions, entry.permissions)) continue;
    put.push(entry);
  }
  for (const entry of liveEntries) {
    if (savedKeys.has(entryKey(entry))) continue;
    if (!MANAGED_TYPES.includes(entry.type) || entry.isEditable === false || entry.isDeletable === false) kept++;
    else remove.push(entry);
  }
  return { put, remove, kept };
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
    const work = folderWork(saved, await transfer.listFolderAcls(live.id));
    for (const entry of work.put)
      await transfer.setFolderAcl(live.id, { type: entry.type as AclEntryType, id: entry.id, permissions: entry.permissions as FolderPermissions });
    for (const entry of work.remove) await transfer.deleteFolderAcl(live.id, { type: entry.type as AclEntryType, id: entry.id });
    const put = work.put.length;
    const deleted = work.remove.length;
    return {
      ...base,
      outcome: put + deleted > 0 ? 'restored' : 'unchanged',
      put,
      deleted,
      kept: work.kept,
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
