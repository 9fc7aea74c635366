import { folderKey } from '../folder-path.js';
import type { ExportBaseline, ExportContents, ExportItem, LiveItem, SavedFolder } from './model.js';

/**
 * Whether a snapshot holds the server apply is about to write (pure). An export can be
 * well-formed and still not a backup: a server (or a proxy) that answers an empty or partial
 * configuration right after its lists named the objects. Counts may be higher in the export (it
 * holds what the lists do not show the account), never lower; and every object the plan
 * changes must be in it by id.
 */

/** Missing objects named in a message; the rest are counted. */
const NAMED_MISSING = 5;

/** What the snapshot lacks, one sentence each; empty when it holds the baseline. */
export function findSnapshotGaps(
  held: { readonly automation?: ExportContents; readonly folders?: readonly SavedFolder[] },
  baseline: ExportBaseline,
): string[] {
  const gaps: string[] = [];
  if (held.automation) {
    if (baseline.tasks) gaps.push(...listGaps('task', 'tasks', held.automation.tasks, baseline.tasks.live, baseline.tasks.touched));
    if (baseline.acls) gaps.push(...listGaps('resource-group ACL', 'resource-group ACLs', held.automation.acls, baseline.acls.live, baseline.acls.touched));
  }
  if (held.folders && baseline.folders) gaps.push(...folderGaps(held.folders, baseline.folders));
  return gaps;
}

function listGaps(one: string, many: string, held: readonly ExportItem[], live: readonly LiveItem[], touched: readonly string[]): string[] {
  const ids = new Set(held.flatMap((item) => (item.id !== undefined ? [item.id] : [])));
  const changed = new Set(touched);
  // The objects this apply changes first: they are the ones a restore would need.
  const missing = [...live.filter((item) => changed.has(item.id)), ...live.filter((item) => !changed.has(item.id))].filter((item) => !ids.has(item.id));
  if (held.length < live.length) {
    return [
      `the automation export holds ${held.length} ${held.length === 1 ? one : many} but the server lists ${live.length}${missing.length > 0 ? ` (missing: ${nameSome(missing)})` : ''}`,
    ];
  }
  const lacking = touched.filter((id) => !ids.has(id));
  if (lacking.length === 0) return [];
  const byId = new Map(live.map((item) => [item.id, item]));
  return [
    `the automation export lacks ${lacking.length === 1 ? `the ${one}` : `${lacking.length} ${many}`} this apply changes (${nameSome(lacking.map((id) => byId.get(id) ?? { id, name: '' }))})`,
  ];
}

function nameSome(items: readonly LiveItem[]): string {
  const shown = items.slice(0, NAMED_MISSING).map((item) => (item.name !== '' ? `${item.name} (ID ${item.id})` : `ID ${item.id}`));
  return items.length > NAMED_MISSING ? `${shown.join(', ')}, … ${items.length - NAMED_MISSING} more` : shown.join(', ');
}

function folderGaps(saved: readonly SavedFolder[], live: NonNullable<ExportBaseline['folders']>): string[] {
  const byKey = new Map(saved.map((f) => [folderKey(f.path), f]));
  const gaps: string[] = [];
  for (const want of live) {
    const got = byKey.get(folderKey(want.path));
    if (got === undefined) gaps.push(`the snapshot lacks folder ${want.path}`);
    else if (got.id !== want.id) gaps.push(`folder ${want.path} is ${describeId(got.id)} in the snapshot but was ${describeId(want.id)} a moment before`);
    else if (got.entries.length < want.entries)
      gaps.push(`the snapshot holds ${got.entries.length} ACL entries of folder ${want.path} but the server listed ${want.entries}`);
  }
  return gaps;
}

function describeId(id: string | null): string {
  return id === null ? 'absent' : `id ${id}`;
}
