import {
  SENSITIVE,
  type AccountRestorePreview,
  type AccountsDiff,
  type AccountsRestore,
  type FieldChange,
  type DiffEntry,
  type DiffKind,
  type PartsDiff,
  type RestoreResult,
  type SnapshotDiff,
  type SnapshotInfo,
  type SnapshotList,
  type VerifiedSnapshot,
} from '../snapshot/model.js';
import { ACL_PERMISSIONS } from '../vocabulary.js';
import { describeFieldValue, type ValueVocabulary } from '../manifest/value-words.js';
import { renderJsonOutput } from './json-output.js';
import { withWords } from './values.js';

/** Renderers of the snapshot commands' results: pure, and given only data that holds no secret. */

const MAX_VALUE = 160;

/**
 * How a diff says the values of the fields it shows, as plan says them: a task's 0/1 flag as
 * `true`/`false`, an enumerated code with its meaning (`1 (delete)`), from the task schema
 * (`getValueVocabulary('Task')`); a resource-group ACL's permissions as flags; a whole number
 * bare, any other text quoted. Without a vocabulary, tasks' values are only quoted or bare.
 */
export interface DiffWording {
  readonly task?: ValueVocabulary;
}

export function renderSnapshotDiffText(diff: SnapshotDiff, wording: DiffWording = {}): string {
  const body = diffLines(
    diff,
    { a: 'A', b: 'B', absentA: 'when A was taken', absentB: 'when B was taken', both: 'saved in both snapshots', onlyInOne: 'saved in one snapshot only' },
    wording,
  );
  return `${[`Snapshot diff ${diff.a.env}/${diff.a.id} → ${diff.b.env}/${diff.b.id}`, '', ...body].join('\n')}\n`;
}

/**
 * What a restore changes, shown before it asks: the live configuration (A) → the snapshot (B),
 * so `+` is put back and `-` is removed by the restore.
 */
export function renderRestoreDiffText(diff: PartsDiff, snapshot: string, wording: DiffWording = {}): string {
  const body = diffLines(
    diff,
    {
      a: 'the live servers',
      b: 'the snapshot',
      absentA: 'now',
      absentB: 'when the snapshot was taken',
      both: 'compared',
      onlyInOne: 'compared on one side only',
    },
    wording,
  );
  return `${[`What the restore changes (live → ${snapshot}; + put back, - removed, ~ changed):`, ...body].join('\n')}\n`;
}

/** How the sides of a diff are named in its lines. */
interface DiffSides {
  readonly a: string;
  readonly b: string;
  /** When a folder absent on that side did not exist: `when A was taken`, `now`. */
  readonly absentA: string;
  readonly absentB: string;
  /** After the count of folders both sides hold: `saved in both snapshots`. */
  readonly both: string;
  readonly onlyInOne: string;
}

function diffLines(diff: PartsDiff, sides: DiffSides, wording: DiffWording): string[] {
  const lines: string[] = [];
  let added = 0;
  let removed = 0;
  let changed = 0;
  if (diff.automationNotCompared !== undefined) lines.push(`Automation configuration: not compared (${diff.automationNotCompared})`);
  for (const k of diff.kinds ?? []) {
    added += k.added.length;
    removed += k.removed.length;
    changed += k.changed.length;
    lines.push(`${kindLabel(k.kind)}: ${countsText(k.added.length, k.removed.length, k.changed.length)}`);
    for (const name of k.added) lines.push(`  + ${name}`);
    for (const name of k.removed) lines.push(`  - ${name}`);
    for (const c of k.changed) {
      lines.push(`  ~ ${c.name}`);
      for (const f of c.fields) lines.push(`      ${f.path}: ${showValue(f.before, k.kind, f.path, wording)} → ${showValue(f.after, k.kind, f.path, wording)}`);
    }
  }
  const f = diff.folders;
  changed += f.changed.length;
  const onlyInOne = f.onlyInA.length + f.onlyInB.length;
  lines.push(`Folder ACLs: ${countsText(0, 0, f.changed.length)} (${f.compared} folder(s) ${sides.both})`);
  for (const folder of f.changed) {
    const absent = folder.absentIn === undefined ? '' : ` (the folder did not exist ${folder.absentIn === 'a' ? sides.absentA : sides.absentB})`;
    lines.push(`  ~ ${folder.path}${absent}`);
    for (const e of folder.added) lines.push(`      + ${entryLabel(e)}: ${permissionsText(e)}`);
    for (const e of folder.removed) lines.push(`      - ${entryLabel(e)}: ${permissionsText(e)}`);
    for (const e of folder.changed) lines.push(`      ~ ${entryLabel(e)}: ${permissionsText(e.before)} → ${permissionsText(e.after)}`);
  }
  for (const path of f.onlyInA) lines.push(`  < ${path}: saved only in ${sides.a}`);
  for (const path of f.onlyInB) lines.push(`  > ${path}: saved only in ${sides.b}`);
  if (diff.accountsNotCompared !== undefined) lines.push(`Users and groups: not compared (${diff.accountsNotCompared})`);
  if (diff.accounts) {
    lines.push(...accountLines(diff.accounts));
    added += diff.accounts.users.added.length + diff.accounts.groups.added.length;
    removed += diff.accounts.users.removed.length + diff.accounts.groups.removed.length;
    changed += diff.accounts.users.changed.length + diff.accounts.groups.changed.length;
  }
  lines.push('');
  const objects = diff.kinds ? ['tasks', 'hosts', 'resource-group ACLs', 'folder ACLs'] : ['folder ACLs'];
  if (diff.accounts) objects.push('users', 'groups');
  const what = `${objects.slice(0, -1).join(', ')} or ${objects.at(-1)!}`.replace(/^ or /, '');
  const summary = added + removed + changed === 0 ? `No differences in ${what}.` : `${added} added, ${removed} removed, ${changed} changed.`;
  lines.push(onlyInOne > 0 ? `${summary} ${onlyInOne} folder(s) ${sides.onlyInOne}.` : summary);
  return lines;
}

/** Users and groups of a diff: `+` added, `-` removed, `~` changed (fields, id, members). */
function accountLines(d: AccountsDiff): string[] {
  const lines: string[] = [];
  lines.push(`Users: ${countsText(d.users.added.length, d.users.removed.length, d.users.changed.length)}`);
  for (const name of d.users.added) lines.push(`  + ${name}`);
  for (const name of d.users.removed) lines.push(`  - ${name}`);
  for (const u of d.users.changed) {
    lines.push(`  ~ ${u.username}`);
    if (u.recreated) lines.push(`      deleted and re-created (id ${u.recreated.before} → ${u.recreated.after})`);
    for (const f of u.fields) lines.push(`      ${fieldText(f)}`);
  }
  lines.push(`Groups: ${countsText(d.groups.added.length, d.groups.removed.length, d.groups.changed.length)}`);
  for (const name of d.groups.added) lines.push(`  + ${name}`);
  for (const name of d.groups.removed) lines.push(`  - ${name}`);
  for (const g of d.groups.changed) {
    lines.push(`  ~ ${g.name}`);
    if (g.recreated) lines.push(`      deleted and re-created (id ${g.recreated.before} → ${g.recreated.after})`);
    for (const f of g.fields) lines.push(`      ${fieldText(f)}`);
    for (const m of g.membersAdded) lines.push(`      + member ${m}`);
    for (const m of g.membersRemoved) lines.push(`      - member ${m}`);
  }
  if (d.membersNotCompared.length > 0) lines.push(`  members not compared (not read on one side): ${d.membersNotCompared.join(', ')}`);
  return lines;
}

function fieldText(f: FieldChange): string {
  const show = (v: string | undefined): string => (v === undefined ? '(absent)' : JSON.stringify(v));
  return `${f.path}: ${show(f.before)} → ${show(f.after)}`;
}

/**
 * What a restore will do to users and groups, said before it asks: the writes, what cannot be
 * put back (deleted users: passwords cannot be restored), what is left alone, and, when this
 * mftops cannot write them, that they are only compared.
 */
export function renderAccountPreviewLines(p: AccountRestorePreview): string[] {
  const writes = `${p.usersPatched} user(s) with fields to put back, ${p.membersAdded} member(s) to add, ${p.membersRemoved} to remove`;
  return [
    p.writable
      ? `Users and groups: ${writes}.`
      : `Users and groups: ${writes}; compared only: this restore was given no writer of users and groups, so nothing is written to them.`,
    ...notesLines(p),
  ];
}

/** What a restore did to users and groups. */
export function renderAccountRestoreLines(r: AccountsRestore): string[] {
  const counts = `${r.usersPatched} user(s) patched, ${r.membersAdded} member(s) added, ${r.membersRemoved} removed`;
  const head = ((): string => {
    switch (r.outcome) {
      case 'restored':
        return `Users and groups: ${counts}.`;
      case 'unchanged':
        return 'Users and groups: user fields and members already as saved.';
      case 'notWritten':
        return `Users and groups: NOT written (this restore was given no writer of users and groups); the restore would have: ${counts}.`;
      case 'failed':
        return `Users and groups: ${counts}; NOT all restored:`;
      default: {
        const never: never = r.outcome;
        throw new Error(`unknown accounts outcome ${String(never)}`);
      }
    }
  })();
  return [head, ...r.errors.map((e) => `  ${e}`), ...notesLines(r)];
}

function notesLines(n: Pick<AccountRestorePreview, 'notRestorable' | 'leftAlone' | 'warnings'>): string[] {
  return [...n.notRestorable.map((m) => `  cannot be restored: ${m}`), ...n.warnings.map((m) => `  warning: ${m}`), ...n.leftAlone.map((m) => `  ${m}`)];
}

/** The `mftops.snapshot.diff` document: the diff as data. */
export function renderSnapshotDiffJson(diff: SnapshotDiff): string {
  return renderJsonOutput('mftops.snapshot.diff', diff);
}

export function renderSnapshotListText(list: SnapshotList): string {
  if (list.snapshots.length === 0 && list.unreadable.length === 0) return 'No snapshots.\n';
  const rows = [['ENV', 'ID', 'TASKS', 'SIZE', 'FOLDERS', 'USERS', 'GROUPS', 'ENCRYPTED', 'SHA256', 'NOTE']];
  // A part the snapshot does not hold has nothing to show in its columns.
  const none = '-';
  for (const s of list.snapshots) {
    rows.push([
      s.env,
      s.id,
      s.taskCount !== undefined ? String(s.taskCount) : none,
      s.bytes !== undefined ? formatBytes(s.bytes) : none,
      s.services.includes('transfer') ? String(s.folderCount) : none,
      s.userCount !== undefined ? String(s.userCount) : none,
      s.groupCount !== undefined ? String(s.groupCount) : none,
      s.encrypted ? 'yes' : 'no',
      s.sha256?.slice(0, 12) ?? none,
      s.note ?? '',
    ]);
  }
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  const out = rows.map((r) =>
    r
      .map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd(),
  );
  for (const u of list.unreadable) out.push(`unreadable: ${u.env}/${u.id}: ${u.reason}`);
  return `${out.join('\n')}\n`;
}

/** The `mftops.snapshot.list` document: `snapshots` oldest first, `unreadable`. */
export function renderSnapshotListJson(list: SnapshotList): string {
  return renderJsonOutput('mftops.snapshot.list', list);
}

/** The `mftops.snapshot.save` document: the snapshot saved. */
export function renderSavedJson(snapshot: SnapshotInfo): string {
  return renderJsonOutput('mftops.snapshot.save', { snapshot });
}

/** The `mftops.snapshot.verify` document of a snapshot that matches its `snapshot.json`. */
export function renderVerifiedJson(v: VerifiedSnapshot): string {
  return renderJsonOutput('mftops.snapshot.verify', { ok: true, snapshot: v.snapshot, files: v.files });
}

/** The `mftops.snapshot.verify` document of an altered snapshot: `ref` (`env/id`), the file and what is wrong with it. */
export function renderAlteredJson(altered: { readonly ref: string; readonly file: string; readonly error: string }): string {
  return renderJsonOutput('mftops.snapshot.verify', { ok: false, ref: altered.ref, file: altered.file, error: altered.error });
}

/** The `mftops.snapshot.restore` document: what was put back, and the snapshot taken first. */
export function renderRestoredJson(result: RestoreResult): string {
  return renderJsonOutput('mftops.snapshot.restore', result);
}

export function renderVerifiedText(v: VerifiedSnapshot): string {
  const files = v.files.map((f) => `  ${f.file}: ${formatBytes(f.bytes)}, sha256 ${f.sha256}`);
  const contents = [...(v.snapshot.taskCount !== undefined ? [`${v.snapshot.taskCount} tasks`] : []), ...folderPart(v.snapshot)];
  return [
    `Snapshot ${v.snapshot.env}/${v.snapshot.id} verified: ${[...contents, `${v.files.length} file(s) match snapshot.json.`].join(', ')}`,
    ...files,
    '',
  ].join('\n');
}

/** `lab/<id> (8 tasks, 14.2 KiB, 3 transfer folder(s), encrypted)`: the parts it holds. */
export function describeSnapshot(s: SnapshotInfo): string {
  const parts = s.taskCount !== undefined && s.bytes !== undefined ? [`${s.taskCount} tasks`, formatBytes(s.bytes)] : [];
  parts.push(...folderPart(s));
  if (s.encrypted) parts.push('encrypted');
  return `${s.env}/${s.id} (${parts.join(', ')})`;
}

/** `3 transfer folder(s)`, then `12 users, 3 groups` when the snapshot holds them. */
function folderPart(s: SnapshotInfo): string[] {
  if (!s.services.includes('transfer')) return [];
  const accounts = s.userCount !== undefined && s.groupCount !== undefined ? [`${s.userCount} users, ${s.groupCount} groups`] : [];
  return [`${s.folderCount} transfer folder(s)`, ...accounts];
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / (1024 * 1024)).toFixed(1)} MiB`;
}

function kindLabel(kind: DiffKind): string {
  switch (kind) {
    case 'task':
      return 'Tasks';
    case 'host':
      return 'Hosts';
    case 'resourceGroupAcl':
      return 'Resource-group ACLs';
    default: {
      const never: never = kind;
      throw new Error(`unknown diff kind ${String(never)}`);
    }
  }
}

function countsText(added: number, removed: number, changed: number): string {
  const counts = [added && `${added} added`, removed && `${removed} removed`, changed && `${changed} changed`].filter(Boolean);
  return counts.length > 0 ? counts.join(', ') : 'no changes';
}

/** `User bob`, or `User 42` when the snapshot has no name for the entry. */
function entryLabel(e: Pick<DiffEntry, 'type' | 'id' | 'name'>): string {
  return `${e.type} ${e.name ?? e.id}`;
}

function permissionsText(p: Pick<DiffEntry, 'permissions' | 'sharePermissions'>): string {
  const main = p.permissions.length > 0 ? p.permissions.join(', ') : '(no permissions)';
  return p.sharePermissions.length > 0 ? `${main}; share: ${p.sharePermissions.join(', ')}` : main;
}

function showValue(v: string | undefined, kind: DiffKind, path: string, wording: DiffWording): string {
  if (v === undefined) return '(absent)';
  if (v === SENSITIVE) return SENSITIVE;
  const said = valueWords(v, kind, path, wording);
  // The export has no types: a whole number is shown as plan shows a number, anything else as text.
  const quoted = /^-?(0|[1-9]\d{0,14})$/.test(v) ? v : JSON.stringify(v);
  return withWords(quoted.length > MAX_VALUE ? `${quoted.slice(0, MAX_VALUE - 2)}…"` : quoted, said?.form, said?.text);
}

/**
 * The words of a value at an export path: a task's by its manifest field (steps are written as
 * their step elements, so `Source.DeleteOrig` is the manifest's `steps.Source.DeleteOrig`); an
 * ACL's permission attribute as a flag.
 */
function valueWords(v: string, kind: DiffKind, path: string, wording: DiffWording): ReturnType<typeof describeFieldValue> {
  switch (kind) {
    case 'task': {
      if (wording.task === undefined) return undefined;
      const key = path.replace(/\[[^\]]*\]/g, '');
      return describeFieldValue(wording.task, key, v) ?? describeFieldValue(wording.task, `steps.${key}`, v);
    }
    case 'resourceGroupAcl':
      return (ACL_PERMISSIONS as readonly string[]).includes(path.split('.').at(-1) ?? '') && (v === '0' || v === '1')
        ? { form: 'flag', text: String(v === '1') }
        : undefined;
    case 'host':
      return undefined;
    default: {
      const never: never = kind;
      throw new Error(`unknown diff kind ${String(never)}`);
    }
  }
}
