import { createInterface } from 'node:readline';
import {
  diffEnvironmentSnapshots,
  listEnvironmentSnapshots,
  restoreEnvironmentSnapshot,
  saveEnvironmentSnapshot,
  verifyEnvironmentSnapshot,
  type RestoreDescription,
  type RestorePreview,
} from '../../app/snapshot.js';
import type { ServiceName } from '../../config/model.js';
import { ConfigError } from '../../errors.js';
import { hasDifferences, type RestoreResult, type SnapshotInfo } from '../../snapshot/model.js';
import { describeRef, type SnapshotRef } from '../../snapshot/store.js';
import {
  renderSnapshotListJson,
  renderSnapshotListText,
  renderVerifiedJson,
  renderVerifiedText,
  renderAlteredJson,
  renderSnapshotDiffJson,
  renderSnapshotDiffText,
  describeSnapshot,
  renderRestoreDiffText,
  renderSavedJson,
  renderRestoredJson,
  renderAccountPreviewLines,
  renderAccountRestoreLines,
  type DiffWording,
} from '../../render/snapshot.js';
import { cliContext, environmentChoice, type CliContext } from '../app-context.js';
import type { CommandIo, GlobalOptions } from '../io.js';
import { writeError } from './common.js';
import { getValueVocabulary } from '../../manifest/schemas.js';
import { withDefined } from '../../with-defined.js';

/**
 * `mftops snapshot save | list | verify ID | diff A B | restore ID`: the views of the snapshot use
 * cases in src/app/snapshot.ts.
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
  /** Show what the restore would change (reads only) and stop: nothing written, exit 0. */
  readonly dryRun?: boolean;
  /** Restore only this part of the snapshot; default every part it holds. */
  readonly service?: ServiceName;
  /**
   * Ask a question on the terminal and answer the line typed (undefined at end of input).
   * Default: read a line from the process's stdin. Tests inject their own.
   */
  readonly ask?: (question: string) => Promise<string | undefined>;
}

/** Saves every service of the environment: the automation export, the transfer folders' ACLs. */
export async function runSnapshotSave(g: GlobalOptions, opts: SnapshotSaveOptions, io: CommandIo): Promise<number> {
  const ctx = snapshotContext(g, io);
  let saved: SnapshotInfo;
  try {
    saved = await saveEnvironmentSnapshot({ ...environmentChoice(g), ...withDefined({ folders: opts.folder }) }, ctx);
  } finally {
    ctx.finish();
  }
  io.stdout(g.format === 'json' ? renderSavedJson(saved) : savedText(saved));
  return 0;
}

export async function runSnapshotList(g: GlobalOptions, io: CommandIo): Promise<number> {
  const list = await listEnvironmentSnapshots(environmentChoice(g), io);
  io.stdout(g.format === 'json' ? renderSnapshotListJson(list) : renderSnapshotListText(list));
  return 0;
}

/** Exit 0 when the snapshot matches its snapshot.json, 1 (with the file named) when not. */
export async function runSnapshotVerify(g: GlobalOptions, opts: SnapshotIdOptions, io: CommandIo): Promise<number> {
  const result = await verifyEnvironmentSnapshot({ ...environmentChoice(g), id: opts.id }, io);
  switch (result.status) {
    case 'verified': {
      io.stdout(g.format === 'json' ? renderVerifiedJson(result.verified) : renderVerifiedText(result.verified));
      return 0;
    }
    case 'altered': {
      io.stdout(
        g.format === 'json'
          ? renderAlteredJson({ ref: result.snapshot, file: result.file, error: result.error })
          : `Snapshot ${result.snapshot} FAILED verification: ${result.error}\n`,
      );
      return 1;
    }
    default: {
      const never: never = result;
      throw new Error(`unknown verify result ${JSON.stringify(never)}`);
    }
  }
}

/** Exit 0 when the snapshots hold the same, 2 when they differ (as plan --detailed-exitcode, drift and diff-env). */
export async function runSnapshotDiff(g: GlobalOptions, opts: SnapshotDiffOptions, io: CommandIo): Promise<number> {
  const diff = await diffEnvironmentSnapshots({ ...environmentChoice(g), a: opts.a, b: opts.b }, io);
  io.stdout(g.format === 'json' ? renderSnapshotDiffJson(diff) : renderSnapshotDiffText(diff, diffWording()));
  return hasDifferences(diff) ? 2 : 0;
}

/**
 * Say what will be replaced and what differs between the live servers and the snapshot (reads
 * only); then with --dry-run stop there (exit 0), off a terminal without --auto-approve refuse
 * (exit 1), on one ask (`yes`; --auto-approve does not ask); then print what was put back and
 * whether it read back as the snapshot. Exit 0 when everything was restored and verified, else 1.
 */
export async function runSnapshotRestore(g: GlobalOptions, opts: SnapshotRestoreOptions, io: CommandIo): Promise<number> {
  const interactive = io.isTty && (opts.ask !== undefined || Boolean(process.stdin.isTTY));
  const preview = (d: RestoreDescription & RestorePreview): void => {
    io.stdout(
      [
        `${opts.dryRun === true ? 'Dry run: restoring' : 'Restoring'} ${describeSnapshot(d.snapshot)} taken ${d.snapshot.createdAt}`,
        ...(d.automationUrl !== undefined ? [`  replaces the whole automation configuration of ${d.automationUrl}`] : []),
        ...(d.folderCount > 0
          ? [`  ${d.automationUrl !== undefined ? 'and resets' : 'resets'} the ACLs of ${d.folderCount} transfer folder(s) on ${d.transferUrl}`]
          : []),
        ...(d.accounts
          ? [`  and puts back the fields of its ${d.accounts.userCount} users and the members of its ${d.accounts.groupCount} groups on ${d.transferUrl}`]
          : []),
        '  A snapshot of the current state is taken first.',
        '',
        renderRestoreDiffText(d.diff, `${d.snapshot.env}/${d.snapshot.id}`, diffWording()),
        ...(d.accountsPreview ? [...renderAccountPreviewLines(d.accountsPreview), ''] : []),
      ].join('\n'),
    );
  };
  const approve = async (d: RestoreDescription & RestorePreview): Promise<boolean> => {
    // With --format json the one document carries the diff (or the refusal): no text beside it.
    if (g.format !== 'json') preview(d);
    if (opts.autoApprove) return true;
    if (!interactive) {
      const what =
        d.automationUrl !== undefined
          ? 'replaces the whole automation configuration'
          : d.folderCount > 0 || !d.accounts
            ? `resets the ACLs of ${d.folderCount} transfer folder(s)`
            : 'puts back transfer users and group members';
      throw new ConfigError(`snapshot restore ${what}: run it on a terminal to confirm, or pass --auto-approve (--dry-run only shows what it would change)`);
    }
    const answer = await (opts.ask ?? askOnStdin)('Type "yes" to restore: ');
    return answer?.trim() === 'yes';
  };
  const ctx = snapshotContext(g, io);
  let restored: Awaited<ReturnType<typeof restoreEnvironmentSnapshot>>;
  try {
    restored = await restoreEnvironmentSnapshot(
      { ...environmentChoice(g), id: opts.id, ...withDefined({ service: opts.service }), approve, ...(opts.dryRun === true ? { dryRun: true } : {}) },
      ctx,
    );
  } finally {
    ctx.finish();
  }
  switch (restored.status) {
    case 'cancelled':
      writeError(g, io, 'restore cancelled', 'Restore cancelled.');
      return 1;
    case 'previewed': {
      if (g.format === 'json') {
        // The mftops.snapshot.diff document, from the live servers (`a`, id `live`) to the snapshot.
        io.stdout(renderSnapshotDiffJson({ ...restored.diff, a: { env: restored.ref.env, id: 'live' }, b: { env: restored.ref.env, id: restored.ref.id } }));
      } else {
        preview({ ...restored.description, diff: restored.diff, ...withDefined({ accountsPreview: restored.accountsPreview }) });
        io.stdout(
          `Dry run: nothing was written. To restore: mftops snapshot restore ${restored.ref.id}${opts.service !== undefined ? ` --service ${opts.service}` : ''}\n`,
        );
      }
      return 0;
    }
    case 'restored': {
      const { result, ref } = restored;
      io.stdout(g.format === 'json' ? renderRestoredJson(result) : restoredText(result, ref));
      return result.complete && result.verified ? 0 : 1;
    }
    default: {
      const never: never = restored;
      throw new Error(`unknown restore result ${JSON.stringify(never)}`);
    }
  }
}

// --- output -------------------------------------------------------------------------------------

/** The CLI context of the snapshot commands: their warnings keep the `warning: ` form of the log lines they were. */
function snapshotContext(g: GlobalOptions, io: CommandIo): CliContext {
  return cliContext(g, io, (event) => {
    if (event.kind !== 'warning') return false;
    io.stderr(`warning: ${event.message}\n`);
    return true;
  });
}

/** The words plan says task values in, for the diffs of snapshot diff and restore. */
function diffWording(): DiffWording {
  return { task: getValueVocabulary('Task') };
}

function savedText(s: SnapshotInfo): string {
  const lines = [`Saved snapshot ${describeSnapshot(s)}`, `  ${s.path}`];
  if (s.sha256 !== undefined) lines.push(`  sha256 ${s.sha256}`);
  if (s.services.includes('transfer')) lines.push(`  folder permissions of ${s.folderCount} transfer folder(s) saved`);
  if (s.userCount !== undefined)
    lines.push(
      `  ${s.userCount} transfer users and ${s.groupCount ?? 0} groups with their members saved (no password: passwords cannot be read, nor restored)`,
    );
  return `${lines.join('\n')}\n`;
}

function restoredText(result: RestoreResult, ref: SnapshotRef): string {
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
  if (result.accounts) lines.push(...renderAccountRestoreLines(result.accounts));
  const unwritten = result.accounts?.outcome === 'notWritten' ? ' (users and groups were not written, so not read back)' : '';
  if (result.verified) lines.push(`Verified: read back, the restored parts match ${describeRef(ref)}${unwritten}.`);
  else lines.push(`NOT verified: read back, the servers do not match ${describeRef(ref)}:`, ...result.mismatches.map((m) => `  ${m}`));
  if (!result.complete || !result.verified) lines.push(`Restore incomplete; to undo it: mftops snapshot restore ${result.preRestore.id}`);
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
