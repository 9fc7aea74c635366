import type { Change } from '../../plan/model.js';
import type { JsonObject } from '../../resources/model.js';
import { fingerprintTask, taskId } from './plan.js';
import type { Task } from '../../services/automation/types.js';
import { automationWriter, describeNeededChange, liveIdOf, needReader, planBug, readOrNull } from '../kind-io.js';
import type { KindIo, StaleFinding, StepContext } from '../kind-io.js';
import { holdsSent } from './io-match.js';
import { readTasksForImport } from './io-import.js';

/** The requests of a task change. */
export type TaskStep =
  /** POST /tasks. `name` finds the task again after an unknown outcome. */
  | { readonly op: 'task-create'; readonly name: string; readonly body: JsonObject }
  /** PUT /tasks/{id} with the whole task. */
  | { readonly op: 'task-update'; readonly id: string; readonly body: JsonObject }
  | { readonly op: 'task-delete'; readonly id: string };

/** Every task now (the list answers whole tasks, as the plan read them), by id and by lower-cased name (first one wins). */
export interface TaskTouched {
  readonly list: readonly Task[];
  readonly byId: ReadonlyMap<string, Task>;
  readonly byName: ReadonlyMap<string, Task>;
}

export const TASK_IO: KindIo<'Task'> = {
  kind: 'Task',
  idsOf: (id) => ({ task: id }),
  idIn: (ids) => ids.task,

  readAhead: 'task-lists',
  liveNeeds(manifests, scope, prune) {
    const pruned = prune.includes('Task') && scope.taskGroups.length > 0;
    if (manifests.length === 0 && !pruned) return {};
    // A pruned task is shown as a manifest would write it: host, script and date-list names.
    return { automation: { tasks: true, catalogs: true, resourceGroups: manifests.length > 0 } };
  },

  planSteps(change, payload) {
    if (change.action === 'delete') return [{ op: 'task-delete', id: liveIdOf(change) }];
    if (payload?.kind !== 'Task') return planBug(change, 'no task payload');
    const name = typeof payload.body.Name === 'string' ? payload.body.Name : change.name;
    switch (change.action) {
      case 'create':
        return [{ op: 'task-create', name, body: payload.body }];
      case 'update':
        return [{ op: 'task-update', id: liveIdOf(change), body: payload.body }];
      case 'replace':
        return [
          { op: 'task-delete', id: liveIdOf(change) },
          { op: 'task-create', name, body: payload.body },
        ];
      default:
        return planBug(change, `action ${change.action}`);
    }
  },

  async sendStep(step, ctx) {
    switch (step.op) {
      case 'task-create': {
        const created = await automationWriter(ctx).createTask(step.body as Task);
        const id = created ? taskId(created) : '';
        if (id !== '') return { task: id };
        // A server that answers without the task: find it by its name.
        const found = await findTaskByName(ctx, step.name);
        return found ? { task: taskId(found) } : {};
      }
      case 'task-update':
        await automationWriter(ctx).updateTask(step.id, step.body as Task);
        return { task: step.id };
      case 'task-delete':
        await automationWriter(ctx).deleteTask(step.id);
        return { task: step.id };
      default: {
        const never: never = step;
        throw new Error(`unknown step ${String(never)}`);
      }
    }
  },

  async confirmStep(step, ctx) {
    switch (step.op) {
      case 'task-create': {
        const found = await findTaskByName(ctx, step.name);
        if (!found) return { kind: 'resend', step };
        const id = taskId(found);
        return holdsSent(step.body, found) ? { kind: 'done', ids: { task: id } } : { kind: 'resend', step: { op: 'task-update', id, body: step.body } };
      }
      case 'task-update': {
        const task = await readOrNull(() => automationWriter(ctx).getTask(step.id));
        if (!task) return { kind: 'fail', message: `task ${step.id} no longer exists` };
        return holdsSent(step.body, task) ? { kind: 'done', ids: { task: step.id } } : { kind: 'resend', step };
      }
      case 'task-delete': {
        const task = await readOrNull(() => automationWriter(ctx).getTask(step.id));
        return task ? { kind: 'resend', step } : { kind: 'done', ids: { task: step.id } };
      }
      default: {
        const never: never = step;
        throw new Error(`unknown step ${String(never)}`);
      }
    }
  },

  verifySteps(change, ids) {
    // A replace's delete is not checked: the task it created has the same name; an update is checked on the task the apply wrote.
    const steps = TASK_IO.planSteps(change, change.payload).filter(
      (s, i, all) => !(change.action === 'replace' && s.op === 'task-delete' && i < all.length - 1),
    );
    return steps.map((s) => (s.op === 'task-update' && ids?.task !== undefined ? { ...s, id: ids.task } : s));
  },

  async readTouched(_changes, readers) {
    const tasks = await needReader(readers.automation, 'automation').listTasks();
    const byName = new Map<string, Task>();
    for (const t of tasks) if (typeof t.Name === 'string' && !byName.has(t.Name.toLowerCase())) byName.set(t.Name.toLowerCase(), t);
    return { list: tasks, byId: new Map(tasks.map((t) => [taskId(t), t])), byName };
  },

  findStale(c, now) {
    if (c.action === 'create') {
      const other = now.byName.get(c.name.toLowerCase());
      return other ? [{ how: 'appeared', detail: `a task named ${other.Name ?? c.name} now exists (ID ${taskId(other)})` }] : [];
    }
    const live = c.liveId !== undefined ? now.byId.get(c.liveId) : undefined;
    if (!live) return [{ how: 'gone', detail: `task ID ${c.liveId ?? '?'}` }];
    if (fingerprintTask(live) !== c.fingerprint) return [{ how: 'changed' }];
    if (c.previousName !== undefined) return renameCollision(c, now);
    return [];
  },

  describeLeftUndone: (change) => (change.action === 'replace' ? 'the task was deleted but not created again' : undefined),
  describeNeeded: describeNeededChange,

  mapPayloadStrings(payload, walk) {
    return payload.kind === 'Task' ? { kind: 'Task', body: walk(payload.body) as JsonObject } : payload;
  },
  readForImport: readTasksForImport,
};

function renameCollision(c: Change, now: TaskTouched): StaleFinding[] {
  const other = now.byName.get(c.name.toLowerCase());
  return other && taskId(other) !== c.liveId ? [{ how: 'appeared', detail: `another task named ${c.name} now exists (ID ${taskId(other)})` }] : [];
}

/** The task with exactly this name (the server folds case); the list filter narrows the read. */
async function findTaskByName(ctx: StepContext, name: string): Promise<Task | undefined> {
  const tasks = await automationWriter(ctx).listTasks({ name });
  return tasks.find((t) => typeof t.Name === 'string' && t.Name.toLowerCase() === name.toLowerCase());
}
