import { createInterface } from 'node:readline';
import { DEFAULT_CONFIG_FILE, loadConfig, resolveService, selectEnvironment } from '../../config/load-config.js';
import type { EnvironmentSettings, ResolvedService, ServiceName } from '../../config/model.js';
import { ConfigError } from '../../errors.js';
import { folderKey, uniqueFolderPaths } from '../../folder-path.js';
import type { LiveFolder } from '../../live/model.js';
import type { Logger } from '../../log.js';
import { hasErrors } from '../../manifest/diagnostics.js';
import type { FolderPermissionsManifest } from '../../manifest/types.js';
import { compareText } from '../../order.js';
import type { ReadonlyTransferClient } from '../../services/index.js';
import type { SavedAclEntry, SavedFolder, SnapshotInfo } from '../../snapshot/model.js';
import type { CommandIo } from '../io.js';
import type { GlobalOptions } from '../main.js';
import { openClients, openReadonlyClients } from './clients.js';
import { loggerFor, openEnvironment, resolveServices } from './common.js';

/**
 * `mftops snapshot save | list | verify ID | diff A B | restore ID`. The store itself is
 * src/snapshot/; these functions only load the configuration, open clients, call it and render.
 */

export interface SnapshotSaveOptions {
  /**
   * Transfer folders to save; default: the folders the environment's FolderPermissions manifests
   * manage and every folder under its `scope.folders`.
   */
  readonly folder?: readonly string[];
}

export interface SnapshotIdOptions {
  readonly id: string;
}

export interface SnapshotDiffOptions {
  readonly a: string;
  readonly b: string;
}

export interface SnapshotRestoreOptions {
  readonly id: string;
  readonly autoApprove?: boolean;
  /** Restore only this part of the snapshot; default every part it holds. */
  readonly service?: ServiceName;
  /**
   * Ask a question on the terminal and answer the line typed (undefined at end of input).
   * Default: read a line from the process's stdin. Tests inject their own.
   */
  readonly ask?: (question: string) => Promise<string | undefined>;
}

/** Requests in flight while snapshot save reads the transfer folders. */
const SAVE_PARALLELISM = 10;

/** Saves every service of the environment: the automation export, the transfer folders' ACLs. */
export async function runSnapshotSave(g: GlobalOptions, opts: SnapshotSaveOptions, io: CommandIo): Promise<number> {
  const { config, env } = openEnvironment(g, io);
  const services = resolveServices(config, env, io);
  const automation = services.find((s) => s.name === 'automation');
  const transfer = services.find((s) => s.name === 'transfer');
  const named = opts.folder ?? [];
  if (named.length > 0 && !transfer) throw new ConfigError(`--folder needs a transfer service in environment "${env.name}" of ${config.file}`);
  const logger = loggerFor(g, io);
  // The manifests are read before any request, as plan does.
  const managed = transfer && named.length === 0 ? await managedFolders(env, io, logger) : [];
  if (transfer && named.length === 0 && managed.length === 0 && env.scope.folders.length === 0) {
    logger.warn(
      `no folder permissions saved: environment "${env.name}" has no FolderPermissions manifests and no scope.folders in ${config.file} (name folders with --folder, or set scope.folders)`,
    );
  }
  const { saveSnapshot } = await import('../../snapshot/save-snapshot.js');
  const clients = await openReadonlyClients(services, g, io, { parallelism: SAVE_PARALLELISM });
  try {
    const reader = clients.readers.automation;
    const info = reader ? await reader.info() : undefined;
    const foldersRead = clients.readers.transfer && named.length === 0 ? await readEnvironmentFolders(clients.readers.transfer, managed, env) : undefined;
    const saved = await saveSnapshot({
      ...(reader && automation ? { automation: reader, automationUrl: automation.url } : {}),
      ...(info?.appVersion !== undefined ? { serverVersion: info.appVersion } : {}),
      ...(clients.readers.transfer ? { transfer: clients.readers.transfer } : {}),
      ...(transfer ? { transferUrl: transfer.url } : {}),
      folders: named,
      ...(foldersRead ? { foldersRead } : {}),
      env: env.name,
      dir: config.snapshots.dir,
      keep: config.snapshots.keep,
      processEnv: io.env,
      logger,
    });
    io.stdout(g.format === 'json' ? `${JSON.stringify(saved, null, 2)}\n` : await savedText(saved));
    return 0;
  } finally {
    await clients.close();
  }
}

export async function runSnapshotList(g: GlobalOptions, io: CommandIo): Promise<number> {
  const config = loadConfig(g.config ?? DEFAULT_CONFIG_FILE, io.cwd);
  // With several environments and no --env, list them all rather than ask.
  const envName = g.env !== undefined || config.environments.size === 1 ? selectEnvironment(config, g.env).name : undefined;
  const { listSnapshots } = await import('../../snapshot/store.js');
  const { renderSnapshotListJson, renderSnapshotListText } = await import('../../snapshot/render.js');
  const list = listSnapshots(config.snapshots.dir, envName);
  io.stdout(g.format === 'json' ? renderSnapshotListJson(list) : renderSnapshotListText(list));
  return 0;
}

/** Exit 0 when the snapshot matches its snapshot.json, 1 (with the file named) when not. */
export async function runSnapshotVerify(g: GlobalOptions, opts: SnapshotIdOptions, io: CommandIo): Promise<number> {
  const { config, env } = openEnvironment(g, io);
  const { verifySnapshot, resolveSnapshotId, describeRef } = await import('../../snapshot/store.js');
  const { SnapshotIntegrityError } = await import('../../snapshot/errors.js');
  const { renderVerifiedText } = await import('../../snapshot/render.js');
  const ref = resolveSnapshotId(config.snapshots.dir, opts.id, env.name);
  try {
    const verified = await verifySnapshot(config.snapshots.dir, `${ref.env}/${ref.id}`, { env: env.name, processEnv: io.env });
    io.stdout(g.format === 'json' ? `${JSON.stringify({ ok: true, ...verified }, null, 2)}\n` : renderVerifiedText(verified));
    return 0;
  } catch (err) {
    if (!(err instanceof SnapshotIntegrityError)) throw err;
    io.stdout(
      g.format === 'json'
        ? `${JSON.stringify({ ok: false, snapshot: describeRef(ref), file: err.file, error: err.message }, null, 2)}\n`
        : `Snapshot ${describeRef(ref)} FAILED verification: ${err.message}\n`,
    );
    return 1;
  }
}

export async function runSnapshotDiff(g: GlobalOptions, opts: SnapshotDiffOptions, io: CommandIo): Promise<number> {
  const { config, env } = openEnvironment(g, io);
  const { diffSnapshots } = await import('../../snapshot/diff-snapshots.js');
  const { renderSnapshotDiffJson, renderSnapshotDiffText } = await import('../../snapshot/render.js');
  const diff = diffSnapshots(config.snapshots.dir, opts.a, opts.b, { env: env.name, processEnv: io.env });
  io.stdout(g.format === 'json' ? renderSnapshotDiffJson(diff) : renderSnapshotDiffText(diff));
  return 0;
}

/**
 * Check the snapshot, say what will be replaced, ask on a terminal (`yes`), refuse without one
 * unless --auto-approve; then restore each part it holds, or the one --service names (which
 * snapshots the same services first).
 */
export async function runSnapshotRestore(g: GlobalOptions, opts: SnapshotRestoreOptions, io: CommandIo): Promise<number> {
  const { config, env } = openEnvironment(g, io);
  const { resolveSnapshotId, describeRef } = await import('../../snapshot/store.js');
  const { loadSnapshot } = await import('../../snapshot/load-snapshot.js');
  const { describePart, describeSnapshot } = await import('../../snapshot/render.js');
  const ref = resolveSnapshotId(config.snapshots.dir, opts.id, env.name);
  // Check it now: a damaged snapshot is refused before the question, not after.
  const loaded = loadSnapshot(config.snapshots.dir, ref, io.env);
  const held = loaded.info.services;
  if (opts.service !== undefined && !held.includes(opts.service)) {
    throw new ConfigError(`snapshot ${describeRef(ref)} holds no ${describePart(opts.service)} (it holds the ${held.map(describePart).join(' and ')})`);
  }
  const parts = opts.service !== undefined ? [opts.service] : held;
  const automation = parts.includes('automation') ? resolveService(config, env, 'automation', io.env) : undefined;
  if (parts.includes('automation') && !automation) {
    const hint = held.includes('transfer') ? ' (restore its folder ACLs alone with --service transfer)' : '';
    throw new ConfigError(`snapshot ${describeRef(ref)} holds the automation export, but environment "${env.name}" has no automation service${hint}`);
  }
  const folders = parts.includes('transfer') ? loaded.folders : [];
  const transfer = parts.includes('transfer') ? resolveService(config, env, 'transfer', io.env) : undefined;
  if (folders.length > 0 && !transfer) {
    const hint = automation ? ' (restore the automation export alone with --service automation)' : '';
    throw new ConfigError(`snapshot ${describeRef(ref)} holds transfer folder ACLs, but environment "${env.name}" has no transfer service${hint}`);
  }
  // A transfer part that saved no folder has nothing to put back.
  const services = parts.filter((s) => s !== 'transfer' || transfer !== undefined);
  if (services.length === 0) throw new ConfigError(`nothing to restore: snapshot ${describeRef(ref)} holds the ACLs of no transfer folder`);

  if (!opts.autoApprove) {
    const interactive = io.isTty && (opts.ask !== undefined || Boolean(process.stdin.isTTY));
    const what = automation ? 'replaces the whole automation configuration' : `resets the ACLs of ${folders.length} transfer folder(s)`;
    if (!interactive) throw new ConfigError(`snapshot restore ${what}: run it on a terminal to confirm, or pass --auto-approve`);
    io.stdout(
      [
        `Restoring ${describeSnapshot(loaded.info)} taken ${loaded.info.createdAt}`,
        ...(automation ? [`  replaces the whole automation configuration of ${automation.url}`] : []),
        ...(folders.length > 0 ? [`  ${automation ? 'and resets' : 'resets'} the ACLs of ${folders.length} transfer folder(s) on ${transfer!.url}`] : []),
        '  A snapshot of the current state is taken first.',
        '',
      ].join('\n'),
    );
    const answer = await (opts.ask ?? askOnStdin)('Type "yes" to restore: ');
    if (answer?.trim() !== 'yes') {
      io.stderr('Restore cancelled.\n');
      return 1;
    }
  }

  const { restoreSnapshot } = await import('../../snapshot/restore-snapshot.js');
  const opened = await openClients([automation, transfer].filter((s): s is ResolvedService => s !== undefined), g, io);
  const clients = { ...opened.full, close: opened.close };
  try {
    const info = clients.automation ? await clients.automation.info() : undefined;
    const result = await restoreSnapshot({
      dir: config.snapshots.dir,
      env: env.name,
      id: `${ref.env}/${ref.id}`,
      services,
      ...(clients.automation && automation ? { automation: clients.automation, automationUrl: automation.url } : {}),
      ...(info?.appVersion !== undefined ? { serverVersion: info.appVersion } : {}),
      ...(clients.transfer ? { transfer: clients.transfer } : {}),
      ...(transfer ? { transferUrl: transfer.url } : {}),
      keep: config.snapshots.keep,
      processEnv: io.env,
      logger: loggerFor(g, io),
    });
    if (g.format === 'json') {
      io.stdout(`${JSON.stringify(result, null, 2)}\n`);
    } else {
      const lines = [`Saved the state before the restore as ${describeSnapshot(result.preRestore)}.`];
      if (result.services.includes('automation')) lines.push(`Restored the automation configuration from ${describeRef(ref)}.`);
      if (result.services.includes('transfer')) lines.push(`Folder ACLs of ${result.folders.length} transfer folder(s) from ${describeRef(ref)}:`);
      for (const f of result.folders) {
        const counts = `${f.put} entries put back, ${f.deleted} removed${f.kept > 0 ? `, ${f.kept} left alone` : ''}`;
        switch (f.outcome) {
          case 'restored':
            lines.push(`  ${f.path}: ${counts}${f.createdSince ? ' (the folder did not exist then; it stays, without those entries)' : ''}`);
            break;
          case 'unchanged':
            lines.push(`  ${f.path}: already as saved`);
            break;
          case 'absent':
            lines.push(`  ${f.path}: did not exist then and does not now`);
            break;
          case 'missing':
          case 'failed':
            lines.push(`  ${f.path}: NOT restored: ${f.error ?? f.outcome}`);
            break;
          default: {
            const never: never = f.outcome;
            throw new Error(`unknown folder outcome ${String(never)}`);
          }
        }
      }
      if (!result.complete) lines.push(`Restore incomplete; to undo it: mftops snapshot restore ${result.preRestore.id}`);
      io.stdout(`${lines.join('\n')}\n`);
    }
    return result.complete ? 0 : 1;
  } finally {
    await clients.close();
  }
}

// --- helpers ------------------------------------------------------------------------------------

/**
 * The environment's FolderPermissions manifests (their names are the folders they manage).
 * Manifests with errors are a warning, not a refusal: a backup must not wait for a typo.
 */
async function managedFolders(env: EnvironmentSettings, io: CommandIo, logger: Logger): Promise<FolderPermissionsManifest[]> {
  if (env.manifests.length === 0) return [];
  const { loadManifests } = await import('../../manifest/load.js');
  const set = await loadManifests(env.manifests, { cwd: io.cwd });
  if (hasErrors(set.diagnostics)) {
    logger.warn(`the manifests of environment "${env.name}" have errors (see mftops validate): only the folders of the FolderPermissions manifests without errors are saved`);
  }
  return set.manifests.filter((m): m is FolderPermissionsManifest => m.kind === 'FolderPermissions');
}

/**
 * The managed folders (and the previous paths they are still at) and every folder under
 * `scope.folders` (the roots included), with their
 * ACL entries, read as plan reads them for a prune (folder list or walk, `SAVE_PARALLELISM` at a
 * time). A folder that does not exist is saved with no id, as apply saves a folder to create.
 */
async function readEnvironmentFolders(transfer: ReadonlyTransferClient, managed: readonly FolderPermissionsManifest[], env: EnvironmentSettings): Promise<SavedFolder[]> {
  if (managed.length === 0 && env.scope.folders.length === 0) return [];
  const { readLiveState } = await import('../../live/read-live-state.js');
  const live = await readLiveState({ manifests: managed, transfer, scope: env.scope, prune: ['FolderPermissions'], parallelism: SAVE_PARALLELISM });
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

async function savedText(s: SnapshotInfo): Promise<string> {
  const { describeSnapshot } = await import('../../snapshot/render.js');
  const lines = [`Saved snapshot ${describeSnapshot(s)}`, `  ${s.path}`];
  if (s.sha256 !== undefined) lines.push(`  sha256 ${s.sha256}`);
  if (s.services.includes('transfer')) lines.push(`  folder permissions of ${s.folderCount} transfer folder(s) saved`);
  return `${lines.join('\n')}\n`;
}

function askOnStdin(question: string): Promise<string | undefined> {
  return new Promise((resolveAnswer) => {
    const rl = createInterface({ input: process.stdin, output: process.stdout, terminal: true });
    let answered = false;
    rl.question(question, (line) => {
      answered = true;
      rl.close();
      resolveAnswer(line);
    });
    rl.on('close', () => {
      if (!answered) resolveAnswer(undefined);
    });
  });
}

