import { relative } from 'node:path';
import { DEFAULT_CONFIG_FILE, loadConfig, resolveEnvironmentServices, selectEnvironment } from '../config/load-config.js';
import type { EnvironmentSettings, MftopsConfig, ResolvedService, ServiceName } from '../config/model.js';
import { ConfigError } from '../errors.js';
import { folderKey, uniqueFolderPaths } from '../folder-path.js';
import type { LiveFolder } from '../live/model.js';
import type { FolderPermissionsManifest } from '../manifest/types.js';
import type { ObservedGroups } from '../snapshot/restore-accounts.js';
import { compareText } from '../order.js';
import type { ReadonlyTransferClient } from '../services/index.js';
import {
  describePart,
  type AccountRestorePreview,
  type PartsDiff,
  type RestoreResult,
  type SavedAclEntry,
  type SavedFolder,
  type SnapshotDiff,
  type SnapshotInfo,
  type SnapshotList,
  type VerifiedSnapshot,
} from '../snapshot/model.js';
import { listSnapshots, verifySnapshot, resolveSnapshotId, describeRef, type SnapshotRef } from '../snapshot/store.js';
import { openClients, openReadonlyClients } from './clients.js';
import type { AppContext, EnvironmentChoice } from './context.js';
import { DEFAULTS } from './defaults.js';
import { loadEnvironmentManifests, manifestEnvironmentOf, openEnvironment, resolveServices } from './environment.js';
import { withDefined } from '../with-defined.js';
import { SnapshotIntegrityError } from '../snapshot/errors.js';

/**
 * Snapshots of an environment: save, list, verify, diff, restore. The store itself is
 * src/snapshot/; these use cases choose the environment, its folders and its clients.
 *
 * One module for five commands, so each use case imports the heavy part of the store it alone
 * needs when it runs (a dispatch, as src/cli/main.ts does for commands): measured with
 * `snapshot list`, static imports of them made it load 88 modules of mftops instead of 47, and
 * with them undici, fast-xml-parser and cel-js, none of which listing needs.
 */

export interface SnapshotSaveOptions extends EnvironmentChoice {
  /**
   * Transfer folders to save; default: the folders the environment's FolderPermissions manifests
   * manage and every folder under its `scope.folders`.
   */
  readonly folders?: readonly string[];
  /** Folder reads in flight while the default folders are found. */
  readonly parallelism?: number;
}

/**
 * Save every service of the environment: the automation export, the transfer folders' ACLs. A
 * manifest with errors or an environment with no folder to save is a warning, not a refusal: a
 * backup must not wait for a typo.
 */
export async function saveEnvironmentSnapshot(options: SnapshotSaveOptions, ctx: AppContext): Promise<SnapshotInfo> {
  const { config, env } = openEnvironment(options, ctx);
  const services = resolveServices(config, env, ctx);
  const automation = services.find((s) => s.name === 'automation');
  const transfer = services.find((s) => s.name === 'transfer');
  const named = options.folders ?? [];
  const parallelism = options.parallelism ?? DEFAULTS.readParallelism;
  if (named.length > 0 && !transfer) throw new ConfigError(`--folder needs a transfer service in environment "${env.name}" of ${config.file}`);
  // The manifests are read before any request, as plan does.
  const managed = transfer && named.length === 0 ? await managedFolders(config, env, ctx) : [];
  if (transfer && named.length === 0 && managed.length === 0 && env.scope.folders.length === 0) {
    ctx.emit({
      kind: 'warning',
      message: `no folder permissions saved: environment "${env.name}" has no FolderPermissions manifests and no scope.folders in ${config.file} (name folders with --folder, or set scope.folders)`,
    });
  }
  const { saveSnapshot } = await import('../snapshot/save-snapshot.js');
  const clients = await openReadonlyClients(services, ctx, { parallelism });
  try {
    const reader = clients.readers.automation;
    const info = reader ? await reader.info() : undefined;
    const foldersRead =
      clients.readers.transfer && named.length === 0 ? await readEnvironmentFolders(clients.readers.transfer, managed, env, parallelism) : undefined;
    return await saveSnapshot({
      ...(reader && automation ? { automation: reader, automationUrl: automation.url } : {}),
      ...withDefined({ serverVersion: info?.appVersion, transfer: clients.readers.transfer, transferUrl: transfer?.url }),
      folders: named,
      ...withDefined({ foldersRead }),
      env: env.name,
      dir: config.snapshots.dir,
      keep: config.snapshots.keep,
      ...withDefined({ now: ctx.now?.() }),
      processEnv: ctx.env,
      logger: ctx.logger,
    });
  } finally {
    await clients.close();
  }
}

/** The saved snapshots of the chosen environment; with several environments and none chosen, of them all (rather than ask). */
export async function listEnvironmentSnapshots(choice: EnvironmentChoice, ctx: Pick<AppContext, 'cwd'>): Promise<SnapshotList> {
  const config = loadConfig(choice.configFile ?? DEFAULT_CONFIG_FILE, ctx.cwd, choice.configFileFrom);
  const envName =
    choice.environment !== undefined || config.environments.size === 1 ? selectEnvironment(config, choice.environment, choice.environmentFrom).name : undefined;
  return listSnapshots(config.snapshots.dir, envName);
}

export interface SnapshotIdOptions extends EnvironmentChoice {
  /** Snapshot id, unique prefix or `latest`. */
  readonly id: string;
}

/**
 * - `verified`: every file matches `snapshot.json`.
 * - `altered`: `file` (inside the snapshot folder) does not; `error` says how.
 */
export type SnapshotVerifyResult =
  | { readonly status: 'verified'; readonly verified: VerifiedSnapshot }
  | { readonly status: 'altered'; readonly snapshot: string; readonly file: string; readonly error: string };

/** Check a snapshot: the sha256 of every file, well-formed XML. An altered snapshot is a result, not an exception. */
export async function verifyEnvironmentSnapshot(options: SnapshotIdOptions, ctx: Pick<AppContext, 'cwd' | 'env'>): Promise<SnapshotVerifyResult> {
  const { config, env } = openEnvironment(options, ctx);
  const ref = resolveSnapshotId(config.snapshots.dir, options.id, env.name);
  try {
    return { status: 'verified', verified: await verifySnapshot(config.snapshots.dir, describeRef(ref), { env: env.name, processEnv: ctx.env }) };
  } catch (err) {
    if (!(err instanceof SnapshotIntegrityError)) throw err;
    return { status: 'altered', snapshot: describeRef(ref), file: err.file, error: err.message };
  }
}

export interface SnapshotDiffOptions extends EnvironmentChoice {
  /** The older snapshot (id, prefix, `latest`). */
  readonly a: string;
  /** The newer one. */
  readonly b: string;
}

/** What changed between two snapshots of the environment: tasks, hosts, resource-group ACLs, folder ACL entries. */
export async function diffEnvironmentSnapshots(options: SnapshotDiffOptions, ctx: Pick<AppContext, 'cwd' | 'env'>): Promise<SnapshotDiff> {
  const { config, env } = openEnvironment(options, ctx);
  const { diffSnapshots } = await import('../snapshot/diff-snapshots.js');
  return diffSnapshots(config.snapshots.dir, options.a, options.b, { env: env.name, processEnv: ctx.env });
}

/** What a restore will replace: the facts a view shows before asking. */
export interface RestoreDescription {
  /** The snapshot to put back. */
  readonly snapshot: SnapshotInfo;
  /** The automation server whose whole configuration is replaced; absent when that part is not restored. */
  readonly automationUrl?: string;
  /** Transfer folders whose ACLs are reset (0: none), on `transferUrl`. */
  readonly folderCount: number;
  readonly transferUrl?: string;
  /** The users and groups compared and put back (user fields, memberships), when the snapshot holds them. */
  readonly accounts?: { readonly userCount: number; readonly groupCount: number };
}

/** What the live servers and the snapshot compared say a restore will change (reads only). */
export interface RestorePreview {
  /** The live servers → the snapshot. */
  readonly diff: PartsDiff;
  /** What will be written to users and groups, and what cannot be put back (deleted users: passwords cannot be restored). */
  readonly accountsPreview?: AccountRestorePreview;
}

export interface SnapshotRestoreOptions extends SnapshotIdOptions {
  /** Restore only this part of the snapshot; default every part it holds. */
  readonly service?: ServiceName;
  /**
   * Called after every check of the snapshot and before the first request: it throws to refuse
   * (a view with no one to ask). Absent: nothing to check.
   */
  readonly precheck?: (description: RestoreDescription) => void;
  /**
   * Asked after the live servers were read and compared with the snapshot (`diff`: live → snapshot)
   * and before the first write; false cancels. Absent: approved.
   */
  readonly approve?: (description: RestoreDescription & RestorePreview) => Promise<boolean>;
  /** Read the live servers and compare them with the snapshot, then stop: `previewed`, nothing written, no snapshot taken. */
  readonly dryRun?: boolean;
}

/**
 * - `cancelled`: `approve` said no; nothing was written (the servers were read, for the diff).
 * - `restored`: what was put back (`complete` false when a folder could not be; `verified` false
 *   when what was read back does not match the snapshot), from `ref`.
 */
export type SnapshotRestoreResult =
  | { readonly status: 'cancelled' }
  | ({ readonly status: 'previewed'; readonly ref: SnapshotRef; readonly description: RestoreDescription } & RestorePreview)
  | { readonly status: 'restored'; readonly ref: SnapshotRef; readonly result: RestoreResult };

/**
 * Put a snapshot back: each part it holds, or the one `service` names. The snapshot is checked
 * and every service it needs resolved before `precheck` and the first request: a damaged
 * snapshot or a missing service is refused before anything is read. Then the live servers are
 * compared with the snapshot and `approve` is asked with that diff; then a snapshot of the same
 * services is taken, the parts are written, and read back to verify them.
 */
export async function restoreEnvironmentSnapshot(options: SnapshotRestoreOptions, ctx: AppContext): Promise<SnapshotRestoreResult> {
  const { config, env } = openEnvironment(options, ctx);
  const ref = resolveSnapshotId(config.snapshots.dir, options.id, env.name);
  const { loadSnapshot } = await import('../snapshot/load-snapshot.js');
  const loaded = loadSnapshot(config.snapshots.dir, ref, ctx.env);
  const held = loaded.info.services;
  if (options.service !== undefined && !held.includes(options.service)) {
    throw new ConfigError(`snapshot ${describeRef(ref)} holds no ${describePart(options.service)} (it holds the ${held.map(describePart).join(' and ')})`);
  }
  const parts = options.service !== undefined ? [options.service] : held;
  // Both services' credentials at once: every missing variable is named.
  const credentials = resolveEnvironmentServices(config, env, parts, ctx.env);
  const automation = credentials.find((s) => s.name === 'automation');
  if (parts.includes('automation') && !automation) {
    const hint = held.includes('transfer') ? ' (restore its folder ACLs alone with --service transfer)' : '';
    throw new ConfigError(`snapshot ${describeRef(ref)} holds the automation export, but environment "${env.name}" has no automation service${hint}`);
  }
  const folders = parts.includes('transfer') ? loaded.folders : [];
  const accounts = parts.includes('transfer') ? loaded.accounts : undefined;
  const transfer = parts.includes('transfer') ? credentials.find((s) => s.name === 'transfer') : undefined;
  if ((folders.length > 0 || accounts) && !transfer) {
    const hint = automation ? ' (restore the automation export alone with --service automation)' : '';
    const what = folders.length > 0 ? 'transfer folder ACLs' : 'transfer users and groups';
    throw new ConfigError(`snapshot ${describeRef(ref)} holds ${what}, but environment "${env.name}" has no transfer service${hint}`);
  }
  // A transfer part that saved no folder and no accounts has nothing to put back.
  const services = parts.filter((s) => s !== 'transfer' || transfer !== undefined);
  if (services.length === 0) throw new ConfigError(`nothing to restore: snapshot ${describeRef(ref)} holds the ACLs of no transfer folder`);

  const description: RestoreDescription = {
    snapshot: loaded.info,
    ...withDefined({ automationUrl: automation?.url }),
    folderCount: folders.length,
    ...withDefined({ transferUrl: transfer?.url }),
    ...(accounts ? { accounts: { userCount: accounts.users.length, groupCount: accounts.groups.length } } : {}),
  };
  options.precheck?.(description);

  const { prepareRestore, applyRestore } = await import('../snapshot/restore-snapshot.js');
  const opened = await openClients(
    [automation, transfer].filter((s): s is ResolvedService => s !== undefined),
    ctx,
  );
  try {
    const { automation: automationClient, transfer: transferClient } = opened.full;
    const observedGroups = accounts ? await observedGroupsOf(config, env, ctx) : undefined;
    const restore = {
      dir: config.snapshots.dir,
      env: env.name,
      id: describeRef(ref),
      services,
      ...(automationClient && automation ? { automation: automationClient, automationUrl: automation.url } : {}),
      // The same client puts users' fields and groups' members back.
      ...withDefined({ transfer: transferClient, accounts: transferClient, observedGroups, transferUrl: transfer?.url }),
      keep: config.snapshots.keep,
      ...withDefined({ now: ctx.now?.() }),
      processEnv: ctx.env,
      logger: ctx.logger,
    };
    const prepared = await prepareRestore(restore);
    const preview: RestorePreview = { diff: prepared.diff, ...withDefined({ accountsPreview: prepared.accounts }) };
    if (options.dryRun === true) return { status: 'previewed', ref, description, ...preview };
    if (options.approve !== undefined && !(await options.approve({ ...description, ...preview }))) return { status: 'cancelled' };
    const info = automationClient ? await automationClient.info() : undefined;
    const result = await applyRestore(prepared, { ...restore, ...withDefined({ serverVersion: info?.appVersion }) });
    return { status: 'restored', ref, result };
  } finally {
    await opened.close();
  }
}

// --- helpers ------------------------------------------------------------------------------------

/**
 * The environment's FolderPermissions manifests (their names are the folders they manage).
 * Manifests with errors are a warning, not a refusal: a backup must not wait for a typo.
 */
async function managedFolders(config: MftopsConfig, env: EnvironmentSettings, ctx: AppContext): Promise<FolderPermissionsManifest[]> {
  if (env.manifests.length === 0) return [];
  const { ok, manifests } = await loadEnvironmentManifests(env.manifests, ctx, manifestEnvironmentOf(config, env));
  if (!ok) {
    ctx.emit({
      kind: 'warning',
      message: `the manifests of environment "${env.name}" have errors (see mftops validate): only the folders of the FolderPermissions manifests without errors are saved`,
    });
  }
  return manifests.manifests.filter((m): m is FolderPermissionsManifest => m.kind === 'FolderPermissions');
}

/**
 * The groups the environment's Group manifests only observe (`spec.manage: observe`), whose
 * members a restore leaves alone. Manifests with errors leave it unknown, and then no group's
 * members are written: the restore cannot tell which ones another system owns.
 */
async function observedGroupsOf(config: MftopsConfig, env: EnvironmentSettings, ctx: AppContext): Promise<ObservedGroups> {
  if (env.manifests.length === 0) return { byName: new Map() };
  const { ok, manifests } = await loadEnvironmentManifests(env.manifests, ctx, manifestEnvironmentOf(config, env));
  if (!ok) {
    return {
      unknown: `the manifests of environment "${env.name}" have errors (see mftops validate), so which groups git only observes is not known`,
    };
  }
  const byName = new Map<string, string>();
  for (const m of manifests.manifests) {
    if (m.kind === 'Group' && m.spec.manage === 'observe') {
      const at = m.sourceMap.locate(['spec', 'manage']);
      byName.set(m.name.toLowerCase(), `${relative(ctx.cwd, at.file) || at.file}:${at.line}`);
    }
  }
  return { byName };
}

/**
 * The managed folders (and the previous paths they are still at) and every folder under
 * `scope.folders` (the roots included), with their ACL entries, read as plan reads them for a
 * prune (folder list or walk, `parallelism` at a time). A folder that does not exist is saved
 * with no id, as apply saves a folder to create.
 */
async function readEnvironmentFolders(
  transfer: ReadonlyTransferClient,
  managed: readonly FolderPermissionsManifest[],
  env: EnvironmentSettings,
  parallelism: number,
): Promise<SavedFolder[]> {
  if (managed.length === 0 && env.scope.folders.length === 0) return [];
  const { readLiveState } = await import('../live/read-live-state.js');
  const live = await readLiveState({ manifests: managed, transfer, scope: env.scope, prune: ['FolderPermissions'], parallelism });
  const found = live.transfer?.folders ?? new Map<string, LiveFolder | null>();
  const walked = (live.transfer?.scopeFolders ?? []).map((k) => found.get(k)?.folder.path ?? k);
  // A folder not renamed yet is still at one of its previous paths: its entries are the ones an apply would change.
  const previous = managed.flatMap((m) => m.previousNames).filter((p) => found.get(folderKey(p)));
  const paths = uniqueFolderPaths([...managed.map((m) => m.name), ...previous, ...env.scope.folders, ...walked]);
  return paths
    .map((path): SavedFolder => {
      const f = found.get(folderKey(path));
      return f ? { path: f.folder.path || path, id: f.folder.id, entries: f.acl.map((e) => ({ ...e }) as SavedAclEntry) } : { path, id: null, entries: [] };
    })
    .sort((a, b) => compareText(folderKey(a.path), folderKey(b.path)));
}
