import { folderKey } from '../live/model.js';
import { entryPermissions } from '../kinds/folder-permissions/plan.js';
import { isRecord } from '../is-record.js';
import { taskId } from '../kinds/task/plan.js';
import { MftopsError } from '../errors.js';
import type { AutomationClient } from '../services/automation/client.js';
import type { ResourceGroupAcl, Task } from '../services/automation/types.js';
import { ApiError } from '../services/errors.js';
import type { TransferClient } from '../services/transfer/client.js';
import type { FolderAclEntry, FolderPermissions } from '../services/transfer/types.js';
import { holdsSent } from './match.js';
import type { ChangeIds } from './model.js';
import type { Step } from './steps.js';

/**
 * The client calls of apply, per step, in one place: how each step is sent, and how the object
 * is read back by its identity when a write's outcome is unknown. Nothing else in src/apply
 * calls a write method.
 */

/** What apply needs of the automation client: its writes and the reads that identify objects. */
export type AutomationWriter = Pick<
  AutomationClient,
  'listTasks' | 'getTask' | 'createTask' | 'updateTask' | 'deleteTask' | 'listResourceGroupAcls' | 'getResourceGroupAcl' | 'createResourceGroupAcl' | 'updateResourceGroupAcl' | 'deleteResourceGroupAcl'
>;
export type TransferWriter = Pick<TransferClient, 'findFolderByPath' | 'createSubfolder' | 'renameFolder' | 'listFolderAcls' | 'setFolderAcl' | 'deleteFolderAcl'>;

export interface WriteClients {
  readonly automation?: AutomationWriter;
  readonly transfer?: TransferWriter;
}

/** Shared by all changes of one apply. */
export interface StepContext {
  readonly clients: WriteClients;
  /** Folder ids by `folderKey(path)`: live ids from the plan and the folders created so far. */
  readonly folderIds: Map<string, string>;
}

/** A step that cannot be sent for a reason that is not an HTTP answer (a missing parent folder). */
export class StepError extends MftopsError {}

/**
 * What a re-read found after a write with an unknown outcome.
 * - `done`: the write took effect; nothing more to send.
 * - `resend`: it did not (or not as wanted): send `step` (the same one, or — when a create did
 *   take effect but the object differs — an update of what was created, never a second create).
 * - `fail`: the object went away under us; the change fails with `message`.
 */
export type Confirmation =
  | { readonly kind: 'done'; readonly ids: ChangeIds }
  | { readonly kind: 'resend'; readonly step: Step }
  | { readonly kind: 'fail'; readonly message: string };

export async function sendStep(step: Step, ctx: StepContext): Promise<ChangeIds> {
  switch (step.op) {
    case 'task-create': {
      const created = await automation(ctx).createTask(step.body as Task);
      const id = created ? taskId(created) : '';
      if (id !== '') return { task: id };
      // A server that answers without the task: find it by its name.
      const found = await findTaskByName(ctx, step.name);
      return found ? { task: taskId(found) } : {};
    }
    case 'task-update':
      await automation(ctx).updateTask(step.id, step.body as Task);
      return { task: step.id };
    case 'task-delete':
      await automation(ctx).deleteTask(step.id);
      return { task: step.id };
    case 'acl-create': {
      const created = await automation(ctx).createResourceGroupAcl({ ResourceGroupName: step.resourceGroup, UserGroupName: step.userGroup, Permissions: step.permissions });
      const id = created?.ACLID ?? (await findAcl(ctx, step.resourceGroup, step.userGroup))?.ACLID;
      return id !== undefined ? { acl: String(id) } : {};
    }
    case 'acl-update':
      await automation(ctx).updateResourceGroupAcl(step.id, { Permissions: step.permissions });
      return { acl: step.id };
    case 'acl-delete':
      await automation(ctx).deleteResourceGroupAcl(step.id);
      return { acl: step.id };
    case 'folder-create': {
      const parentId = ctx.folderIds.get(folderKey(step.parentPath)) ?? (await transfer(ctx).findFolderByPath(step.parentPath))?.id;
      if (parentId === undefined) throw new StepError(`cannot create ${step.path}: its parent folder ${step.parentPath} does not exist`);
      const folder = await transfer(ctx).createSubfolder(parentId, { name: step.name, inheritPermissions: step.inheritPermissions });
      ctx.folderIds.set(folderKey(step.path), folder.id);
      return { folder: folder.id };
    }
    case 'folder-rename': {
      const id = folderId(ctx, step.path);
      await transfer(ctx).renameFolder(id, step.name);
      return { folder: id };
    }
    case 'entry-set': {
      const id = folderId(ctx, step.folderPath);
      await transfer(ctx).setFolderAcl(id, { type: step.entry.type, id: step.entry.id, permissions: step.entry.permissions as FolderPermissions });
      return { folder: id };
    }
    case 'entry-remove': {
      const id = folderId(ctx, step.folderPath);
      await transfer(ctx).deleteFolderAcl(id, { type: step.entry.type, id: step.entry.id });
      return { folder: id };
    }
    default: {
      const never: never = step;
      throw new Error(`unknown step ${String(never)}`);
    }
  }
}

/** Read the step's object by identity: did the write take effect? Read errors are thrown. */
export async function confirmStep(step: Step, ctx: StepContext): Promise<Confirmation> {
  switch (step.op) {
    case 'task-create': {
      const found = await findTaskByName(ctx, step.name);
      if (!found) return { kind: 'resend', step };
      const id = taskId(found);
      return holdsSent(step.body, found) ? { kind: 'done', ids: { task: id } } : { kind: 'resend', step: { op: 'task-update', id, body: step.body } };
    }
    case 'task-update': {
      const task = await readOrNull(() => automation(ctx).getTask(step.id));
      if (!task) return { kind: 'fail', message: `task ${step.id} no longer exists` };
      return holdsSent(step.body, task) ? { kind: 'done', ids: { task: step.id } } : { kind: 'resend', step };
    }
    case 'task-delete': {
      const task = await readOrNull(() => automation(ctx).getTask(step.id));
      return task ? { kind: 'resend', step } : { kind: 'done', ids: { task: step.id } };
    }
    case 'acl-create': {
      const found = await findAcl(ctx, step.resourceGroup, step.userGroup);
      if (!found) return { kind: 'resend', step };
      const id = String(found.ACLID);
      return aclHolds(step.permissions, found) ? { kind: 'done', ids: { acl: id } } : { kind: 'resend', step: { op: 'acl-update', id, permissions: step.permissions } };
    }
    case 'acl-update': {
      const acl = await readOrNull(() => automation(ctx).getResourceGroupAcl(step.id));
      if (!acl) return { kind: 'fail', message: `resource-group ACL ${step.id} no longer exists` };
      return aclHolds(step.permissions, acl) ? { kind: 'done', ids: { acl: step.id } } : { kind: 'resend', step };
    }
    case 'acl-delete': {
      const acl = await readOrNull(() => automation(ctx).getResourceGroupAcl(step.id));
      return acl ? { kind: 'resend', step } : { kind: 'done', ids: { acl: step.id } };
    }
    case 'folder-create': {
      const folder = await transfer(ctx).findFolderByPath(step.path);
      if (!folder) return { kind: 'resend', step };
      ctx.folderIds.set(folderKey(step.path), folder.id);
      return { kind: 'done', ids: { folder: folder.id } };
    }
    case 'folder-rename': {
      const id = folderId(ctx, step.path);
      const folder = await transfer(ctx).findFolderByPath(step.path);
      if (!folder) return { kind: 'resend', step };
      return folder.id === id ? { kind: 'done', ids: { folder: id } } : { kind: 'fail', message: `${step.path} is now another folder (id ${folder.id}), not the one renamed from ${step.from} (id ${id})` };
    }
    case 'entry-set': {
      const id = folderId(ctx, step.folderPath);
      const entry = findEntry(await transfer(ctx).listFolderAcls(id), step.entry.type, step.entry.id);
      return entry && sameEntryPermissions(step.entry.permissions, entry.permissions) ? { kind: 'done', ids: { folder: id } } : { kind: 'resend', step };
    }
    case 'entry-remove': {
      const id = folderId(ctx, step.folderPath);
      const entry = findEntry(await transfer(ctx).listFolderAcls(id), step.entry.type, step.entry.id);
      return entry ? { kind: 'resend', step } : { kind: 'done', ids: { folder: id } };
    }
    default: {
      const never: never = step;
      throw new Error(`unknown step ${String(never)}`);
    }
  }
}

function automation(ctx: StepContext): AutomationWriter {
  if (!ctx.clients.automation) throw new StepError('the automation service is not configured for this environment');
  return ctx.clients.automation;
}

function transfer(ctx: StepContext): TransferWriter {
  if (!ctx.clients.transfer) throw new StepError('the transfer service is not configured for this environment');
  return ctx.clients.transfer;
}

function folderId(ctx: StepContext, path: string): string {
  const id = ctx.folderIds.get(folderKey(path));
  if (id === undefined) throw new StepError(`folder ${path} has no known id (was it created?)`);
  return id;
}

/** The task with exactly this name (the server folds case); the list filter narrows the read. */
async function findTaskByName(ctx: StepContext, name: string): Promise<Task | undefined> {
  const tasks = await automation(ctx).listTasks({ name });
  return tasks.find((t) => typeof t.Name === 'string' && t.Name.toLowerCase() === name.toLowerCase());
}

async function findAcl(ctx: StepContext, resourceGroup: string, userGroup: string): Promise<ResourceGroupAcl | undefined> {
  const acls = await automation(ctx).listResourceGroupAcls({ resourceGroupName: resourceGroup, userGroupName: userGroup });
  return acls.find((a) => a.ResourceGroupName.toLowerCase() === resourceGroup.toLowerCase() && a.UserGroupName.toLowerCase() === userGroup.toLowerCase());
}

/** The object, or null when the server says it does not exist (404) or may not be seen (403). */
async function readOrNull<T>(read: () => Promise<T>): Promise<T | null> {
  try {
    return await read();
  } catch (err) {
    if (err instanceof ApiError && (err.status === 404 || err.status === 403)) return null;
    throw err;
  }
}

function aclHolds(sent: Readonly<Record<string, 0 | 1>>, acl: ResourceGroupAcl): boolean {
  const read: Record<string, unknown> = isRecord(acl.Permissions) ? acl.Permissions : {};
  return Object.entries(sent).every(([k, v]) => {
    const r = read[k];
    const granted = r === 1 || r === true || r === '1' || r === 'true';
    return (v === 1) === granted;
  });
}

function findEntry(acl: readonly FolderAclEntry[], type: string, id: string): FolderAclEntry | undefined {
  return acl.find((e) => e.type === type && String(e.id) === id);
}

function sameEntryPermissions(sent: unknown, read: FolderPermissions): boolean {
  const a = entryPermissions(sent as FolderPermissions);
  const b = entryPermissions(read);
  const same = (x: readonly string[], y: readonly string[]) => x.length === y.length && x.every((v) => y.includes(v));
  return same(a.permissions, b.permissions) && same(a.sharePermissions, b.sharePermissions);
}
