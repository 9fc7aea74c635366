import { SENSITIVE, type DiffKind, type SnapshotDiff, type SnapshotInfo, type SnapshotList, type VerifiedSnapshot } from './model.js';

/** Renderers of the snapshot commands' results: pure, and given only data that holds no secret. */

const MAX_VALUE = 160;

export function renderSnapshotDiffText(diff: SnapshotDiff): string {
  const lines = [`Snapshot diff ${diff.a.env}/${diff.a.id} → ${diff.b.env}/${diff.b.id}`, ''];
  let added = 0;
  let removed = 0;
  let changed = 0;
  for (const k of diff.kinds) {
    added += k.added.length;
    removed += k.removed.length;
    changed += k.changed.length;
    const counts = [k.added.length && `${k.added.length} added`, k.removed.length && `${k.removed.length} removed`, k.changed.length && `${k.changed.length} changed`].filter(Boolean);
    lines.push(`${kindLabel(k.kind)}: ${counts.length > 0 ? counts.join(', ') : 'no changes'}`);
    for (const name of k.added) lines.push(`  + ${name}`);
    for (const name of k.removed) lines.push(`  - ${name}`);
    for (const c of k.changed) {
      lines.push(`  ~ ${c.name}`);
      for (const f of c.fields) lines.push(`      ${f.path}: ${showValue(f.before)} → ${showValue(f.after)}`);
    }
  }
  lines.push('');
  lines.push(added + removed + changed === 0 ? 'No differences in tasks, hosts or resource-group ACLs.' : `${added} added, ${removed} removed, ${changed} changed.`);
  return `${lines.join('\n')}\n`;
}

export function renderSnapshotDiffJson(diff: SnapshotDiff): string {
  return `${JSON.stringify(diff, null, 2)}\n`;
}

/** True when the diff found anything. */
export function renderSnapshotListText(list: SnapshotList): string {
  if (list.snapshots.length === 0 && list.unreadable.length === 0) return 'No snapshots.\n';
  const rows = [['ENV', 'ID', 'TASKS', 'SIZE', 'FOLDERS', 'ENCRYPTED', 'SHA256', 'NOTE']];
  for (const s of list.snapshots) {
    rows.push([s.env, s.id, String(s.taskCount), formatBytes(s.bytes), String(s.folderCount), s.encrypted ? 'yes' : 'no', s.sha256.slice(0, 12), s.note ?? '']);
  }
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  const out = rows.map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ').trimEnd());
  for (const u of list.unreadable) out.push(`unreadable: ${u.env}/${u.id}: ${u.reason}`);
  return `${out.join('\n')}\n`;
}

export function renderSnapshotListJson(list: SnapshotList): string {
  return `${JSON.stringify(list, null, 2)}\n`;
}

export function renderVerifiedText(v: VerifiedSnapshot): string {
  const files = v.files.map((f) => `  ${f.file}: ${formatBytes(f.bytes)}, sha256 ${f.sha256}`);
  return [`Snapshot ${v.snapshot.env}/${v.snapshot.id} verified: ${v.snapshot.taskCount} tasks, ${v.files.length} file(s) match snapshot.json.`, ...files, ''].join('\n');
}

export function describeSnapshot(s: SnapshotInfo): string {
  const parts = [`${s.taskCount} tasks`, formatBytes(s.bytes)];
  if (s.folderCount > 0) parts.push(`${s.folderCount} transfer folder(s)`);
  if (s.encrypted) parts.push('encrypted');
  return `${s.env}/${s.id} (${parts.join(', ')})`;
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

function showValue(v: string | undefined): string {
  if (v === undefined) return '(absent)';
  if (v === SENSITIVE) return SENSITIVE;
  const quoted = JSON.stringify(v);
  return quoted.length > MAX_VALUE ? `${quoted.slice(0, MAX_VALUE - 2)}…"` : quoted;
}
