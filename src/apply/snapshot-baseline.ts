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
  touched: TouchedObjects,
  readers: StaleCheckReaders,
  folders: readonly string[],
): Promise<ExportBaseline> {
  const automation = readers.automation;
  const [tasks, acls] = automation
    ? await Promise.all([touched.kinds.Task?.list ?? automation.listTasks(), touched.kinds.ResourceGroupAcl?.list ?? automation.listResourceGroupAcls()])
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
