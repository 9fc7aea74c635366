import { matchesNameMask } from '../../glob.js';
import type { Task } from '../../services/automation/types.js';
import { sortByName } from '../kind-import.js';
import type { ImportSelection, ImportSource, KindImport } from '../kind-import.js';
import { createImportCatalog, taskManifestOf } from './to-manifest.js';

/**
 * What `mftops import` takes of tasks: by `--name` (the automation API's name mask on the task
 * name), else those in `scope.taskGroups`, every one with `--all`; a task without a name never.
 */
export const TASK_IMPORT: KindImport<'Task'> = {
  plural: 'tasks',
  folder: 'tasks',
  askedForOnly: false,
  nothingRead: { tasks: [], hosts: [], scripts: [], dateLists: [] },
  draft(source, selection, secrets) {
    const catalog = createImportCatalog(source);
    return {
      drafts: sortByName(selectTasks(source, selection), (t) => String(t.Name ?? '')).map((task) => taskManifestOf(task, catalog, secrets)),
      skipped: [],
    };
  },
  unmatched: (entry, source) => {
    const group = entry.toLowerCase();
    const found = source.tasks.some((t) => String(t.Name ?? '') !== '' && Array.isArray(t.Group) && t.Group.some((g) => String(g).toLowerCase() === group));
    return found ? undefined : 'no task';
  },
  inSnapshot: { where: 'export' },
  liveDrafts(live, secrets) {
    const catalog = createImportCatalog({
      hosts: live.automation?.hosts?.items ?? [],
      scripts: live.automation?.scripts?.items ?? [],
      dateLists: live.automation?.dateLists?.items ?? [],
    });
    return (change) => {
      const task = change.liveId === undefined ? undefined : live.automation?.tasks?.byId.get(change.liveId);
      return task === undefined ? undefined : taskManifestOf(task, catalog, secrets);
    };
  },
  showsRemoved: true,
};

function selectTasks(source: ImportSource, s: ImportSelection): readonly Task[] {
  const groups = new Set(s.scope.taskGroups.map((g) => g.toLowerCase()));
  return source.tasks.filter((t) => {
    const name = String(t.Name ?? '');
    if (name === '') return false;
    if (s.name !== undefined) return matchesNameMask(s.name, name);
    return s.all || (Array.isArray(t.Group) && t.Group.some((g) => groups.has(String(g).toLowerCase())));
  });
}
