import { withDefined } from '../../with-defined.js';
import type { Manifest } from '../../manifest/types.js';
import { formatAddress } from '../address.js';
import type { KindDefinition } from '../kind.js';
import { fingerprintOf, sourceRef, withOrigins } from '../source.js';
import { createTaskCatalog, fingerprintTask, planTask, taskId } from './plan.js';
import { resolveTask } from './resolve.js';
import { TASK_IMPORT } from './import.js';

/** Tasks of the automation service: named (case aside), planned last, deleted first. */
export const TASK: KindDefinition<'Task'> = {
  kind: 'Task',
  service: 'automation',
  rank: 2,
  schema: 'task.schema.json',
  identityOf: (m) => m.name.toLowerCase(),
  scopeKey: 'taskGroups',
  prunable: true,
  references: ['resourceGroup', 'dateList', 'host', 'script'],
  resolve: (m, live) => resolveTask(m, live.automation!),
  nameOf: (d) => d.manifest.name,

  unmanagedDetail: (change, live) => {
    const task = change.liveId !== undefined ? live.automation?.tasks?.byId.get(change.liveId) : undefined;
    return { kind: 'Task', groups: Array.isArray(task?.Group) ? task.Group.map(String) : [] };
  },
  describeUnmanaged: (detail, words) => (detail.groups.length === 0 ? 'task in no group' : `task in ${detail.groups.map(words.escape).join(', ')}`),

  plan: (context) => {
    const catalog = createTaskCatalog(context.live.automation, context.taskVocabulary);
    const liveTasks = context.live.automation?.tasks;
    for (const desired of context.desired) {
      const m = desired.manifest;
      let live = liveTasks?.byName.get(m.name.toLowerCase());
      let previousName: string | undefined;
      if (!live) {
        for (const old of m.previousNames) {
          live = liveTasks?.byName.get(old.toLowerCase());
          if (live) {
            previousName = live.Name ?? old;
            break;
          }
        }
      }
      const outcome = planTask(desired, live, catalog, previousName);
      context.add({
        address: formatAddress('Task', m.name),
        kind: 'Task',
        name: m.name,
        service: 'automation',
        action: outcome.action,
        ...withDefined({ reason: outcome.reason, previousName, liveId: live ? taskId(live) : undefined }),
        ...(live ? fingerprintOf(outcome.action, () => fingerprintTask(live)) : {}),
        fields: withOrigins(outcome.fields, m, context.cwd),
        source: sourceRef(m.source, context.cwd),
        ...withDefined({ payload: outcome.payload }),
      });
    }
  },

  prune: (context) => {
    const inScope = new Set(context.scope.taskGroups.map((g) => g.toLowerCase()));
    if (inScope.size === 0) return;
    const managed = new Set<string>();
    const manifests: readonly Manifest[] = [...context.desired.map((d) => d.manifest), ...context.skipped];
    for (const m of manifests) if (m.kind === 'Task') for (const n of [m.name, ...m.previousNames]) managed.add(n.toLowerCase());
    for (const task of context.live.automation?.tasks?.items ?? []) {
      const name = task.Name ?? '';
      const groups = Array.isArray(task.Group) ? task.Group : [];
      if (managed.has(name.toLowerCase()) || !groups.some((g) => inScope.has(String(g).toLowerCase()))) continue;
      context.add({
        address: formatAddress('Task', name),
        kind: 'Task',
        name,
        service: 'automation',
        action: 'delete',
        reason: { code: 'pruned', kind: 'Task', scope: [...context.scope.taskGroups] },
        liveId: taskId(task),
        fingerprint: fingerprintTask(task),
        fields: [],
      });
    }
  },

  payloadKeys: { keys: ['kind', 'body', 'refNames'], inner: { refNames: { keys: ['host', 'script', 'dateList'] } } },
  aliasesOf: () => [],
  createsNeeded: () => [],
  isBlockedPrune: () => false,
  comparedSpec: (m) => m.spec,
  principalLists: [],
  // A task deleted on the server is still found by its name.
  audit: { targetType: 'Task', nameField: 'TaskName' },
  unauditedNote: undefined,
  importer: TASK_IMPORT,
};
