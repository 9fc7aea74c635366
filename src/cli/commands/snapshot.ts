import { createInterface } from 'node:readline';
import { DEFAULT_CONFIG_FILE, loadConfig, resolveService, selectEnvironment } from '../../config/load-config.js';
import type { EnvironmentSettings, MftopsConfig, ResolvedService } from '../../config/model.js';
import { ConfigError } from '../../errors.js';
import type { ReadonlyTransferClient } from '../../services/index.js';
import type { SnapshotInfo } from '../../snapshot/model.js';
import type { CommandIo } from '../io.js';
import type { GlobalOptions } from '../main.js';
import { openClients, openReadonlyClients } from './clients.js';
import { loggerFor, openEnvironment } from './common.js';

/**
 * `mftops snapshot save | list | verify ID | diff A B | restore ID`. The store itself is
 * src/snapshot/; these functions only load the configuration, open clients, call it and render.
 */

export interface SnapshotSaveOptions {
  /** Transfer folders to save; default: every folder under the environment's `scope.folders`. */
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
  /**
   * Ask a question on the terminal and answer the line typed (undefined at end of input).
   * Default: read a line from the process's stdin. Tests inject their own.
   */
  readonly ask?: (question: string) => Promise<string | undefined>;
}

/** Folders a whole-scope save walks at most (a bigger scope needs --folder). */
const MAX_SCOPE_FOLDERS = 5000;

export async function runSnapshotSave(g: GlobalOptions, opts: SnapshotSaveOptions, io: CommandIo): Promise<number> {
  const { config, env } = openEnvironment(g, io);
  const automation = requireAutomation(config, env, io);
  const transfer = resolveService(config, env, 'transfer', io.env);
  if (opts.folder && opts.folder.length > 0 && !transfer) throw new ConfigError(`--folder needs a transfer service in environment "${env.name}" of ${config.file}`);
  const services = transfer ? [automation, transfer] : [automation];
  const logger = loggerFor(g, io);
  const { saveSnapshot } = await import('../../snapshot/save-snapshot.js');
  const clients = await openReadonlyClients(services, g, io);
  try {
    const reader = clients.readers.automation!;
    const info = await reader.info();
    const folders = opts.folder && opts.folder.length > 0 ? [...opts.folder] : clients.readers.transfer ? await scopeFolders(clients.readers.transfer, env) : [];
    const saved = await saveSnapshot({
      automation: reader,
      automationUrl: automation.url,
      ...(info.appVersion !== undefined ? { serverVersion: info.appVersion } : {}),
      ...(clients.readers.transfer ? { transfer: clients.readers.transfer } : {}),
      ...(transfer ? { transferUrl: transfer.url } : {}),
      folders,
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
 * unless --auto-approve; then restore (which snapshots the current state first).
 */
export async function runSnapshotRestore(g: GlobalOptions, opts: SnapshotRestoreOptions, io: CommandIo): Promise<number> {
  const { config, env } = openEnvironment(g, io);
  const automation = requireAutomation(config, env, io);
  const { resolveSnapshotId, describeRef } = await import('../../snapshot/store.js');
  const { loadSnapshot } = await import('../../snapshot/load-snapshot.js');
  const { describeSnapshot } = await import('../../snapshot/render.js');
  const ref = resolveSnapshotId(config.snapshots.dir, opts.id, env.name);
  // Check it now: a damaged snapshot is refused before the question, not after.
  const loaded = loadSnapshot(config.snapshots.dir, ref, io.env);
  const transfer = resolveService(config, env, 'transfer', io.env);
  if (loaded.folders.length > 0 && !transfer) {
    throw new ConfigError(`snapshot ${describeRef(ref)} holds transfer folder ACLs, but environment "${env.name}" has no transfer service`);
  }

  if (!opts.autoApprove) {
    const interactive = io.isTty && (opts.ask !== undefined || Boolean(process.stdin.isTTY));
    if (!interactive) throw new ConfigError('snapshot restore replaces the whole automation configuration: run it on a terminal to confirm, or pass --auto-approve');
    io.stdout(
      [
        `Restoring ${describeSnapshot(loaded.info)} taken ${loaded.info.createdAt}`,
        `  replaces the whole automation configuration of ${automation.url}`,
        ...(loaded.folders.length > 0 ? [`  and resets the ACLs of ${loaded.folders.length} transfer folder(s) on ${transfer!.url}`] : []),
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
  const opened = await openClients(transfer && loaded.folders.length > 0 ? [automation, transfer] : [automation], g, io);
  const clients = { ...opened.full, close: opened.close };
  try {
    const info = await clients.automation!.info();
    const result = await restoreSnapshot({
      dir: config.snapshots.dir,
      env: env.name,
      id: `${ref.env}/${ref.id}`,
      automation: clients.automation!,
      automationUrl: automation.url,
      ...(info.appVersion !== undefined ? { serverVersion: info.appVersion } : {}),
      ...(clients.transfer ? { transfer: clients.transfer } : {}),
      ...(transfer ? { transferUrl: transfer.url } : {}),
      keep: config.snapshots.keep,
      processEnv: io.env,
      logger: loggerFor(g, io),
    });
    if (g.format === 'json') {
      io.stdout(`${JSON.stringify(result, null, 2)}\n`);
    } else {
      const lines = [`Saved the state before the restore as ${describeSnapshot(result.preRestore)}.`, `Restored the automation configuration from ${describeRef(ref)}.`];
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


function requireAutomation(config: MftopsConfig, env: EnvironmentSettings, io: CommandIo): ResolvedService {
  const s = resolveService(config, env, 'automation', io.env);
  if (!s) throw new ConfigError(`environment "${env.name}" of ${config.file} has no automation service: snapshots hold its configuration export`);
  return s;
}


async function savedText(s: SnapshotInfo): Promise<string> {
  const { describeSnapshot } = await import('../../snapshot/render.js');
  return `Saved snapshot ${describeSnapshot(s)}\n  ${s.path}\n  sha256 ${s.sha256}\n`;
}

/** Every folder under the scope's folders (the roots included), breadth first. */
async function scopeFolders(transfer: ReadonlyTransferClient, env: EnvironmentSettings): Promise<string[]> {
  const out: string[] = [];
  const queue: Array<{ id: string; path: string }> = [];
  for (const path of env.scope.folders) {
    const root = await transfer.findFolderByPath(path);
    if (!root) {
      out.push(path);
      continue;
    }
    queue.push({ id: root.id, path: root.path || path });
  }
  while (queue.length > 0) {
    const f = queue.shift()!;
    if (out.includes(f.path)) continue;
    out.push(f.path);
    if (out.length > MAX_SCOPE_FOLDERS) throw new ConfigError(`more than ${MAX_SCOPE_FOLDERS} folders in scope; name the ones to save with --folder`);
    for (const child of await transfer.listSubfolders(f.id)) queue.push({ id: child.id, path: child.path });
  }
  return out;
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

