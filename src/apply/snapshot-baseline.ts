import { folderKey } from '../folder-path.js';
import type { Change } from '../plan/model.js';
import { taskId } from '../kinds/task/plan.js';
import type { ExportBaseline } from '../snapshot/model.js';
import type { StaleCheckReaders, TouchedObjects } from './stale-check.js';

/**
 * What the snapshot apply takes must hold (DESIGN.md §5 step 2: no backup, no write): the task
 * and resource-group ACL lists as the server answers them now (the stale check's reads when it
 * made them, else one read each), every task and ACL the writes update, replace or delete, and
 * the touched folders as the stale check found them. Any automation service is checked whole:
 * the export is a backup of all of it, whatever this plan changes.
 */
export async function readSnapshotBaseline(
  changes: readonly Change[],
  touchedRead: TouchedObjects | Promise<TouchedObjects>,
  readers: StaleCheckReaders,
  folders: readonly string[],
): Promise<ExportBaseline> {
  const automation = readers.automation;
  // A list the stale check does not read (no change of its kind) is read at once, beside it.
  const kinds = new Set(changes.map((c) => c.kind));
  const [touched, ownTasks, ownAcls] = await Promise.all([
    touchedRead,
    automation && !kinds.has('Task') ? automation.listTasks() : undefined,
    automation && !kinds.has('ResourceGroupAcl') ? automation.listResourceGroupAcls() : undefined,
  ]);
  const [tasks, acls] = automation
    ? await Promise.all([
        touched.kinds.Task?.list ?? ownTasks ?? automation.listTasks(),
        touched.kinds.ResourceGroupAcl?.list ?? ownAcls ?? automation.listResourceGroupAcls(),
      ])
    : [undefined, undefined];
  const changed = (kind: Change['kind']): string[] =>
    changes.flatMap((c) => (c.kind === kind && c.action !== 'create' && c.liveId !== undefined ? [c.liveId] : []));
  return {
    ...(tasks ? { tasks: { live: tasks.map((t) => ({ id: taskId(t), name: typeof t.Name === 'string' ? t.Name : '' })), touched: changed('Task') } } : {}),
    ...(acls
      ? {
          acls: { live: acls.map((a) => ({ id: String(a.ACLID), name: `${a.ResourceGroupName} / ${a.UserGroupName}` })), touched: changed('ResourceGroupAcl') },
        }
      : {}),
    ...(folders.length > 0
      ? {
          folders: folders.map((path) => {
            const live = touched.kinds.FolderPermissions?.folders.get(folderKey(path));
            return { path, id: live ? live.folder.id : null, entries: live ? live.acl.length : 0 };
          }),
        }
      : {}),
  };
}
