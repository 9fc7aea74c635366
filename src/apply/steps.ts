import type { Change, FolderPermissionsPayload, JsonObject, Payload } from '../plan/model.js';

/**
 * A change as the requests it takes, in order: the data the executor's state machine walks. One
 * step is one write request; `operations.ts` says how each is sent and how it is re-read when
 * its outcome is unknown.
 */
export type Step =
  /** POST /tasks. `name` finds the task again after an unknown outcome. */
  | { readonly op: 'task-create'; readonly name: string; readonly body: JsonObject }
  /** PUT /tasks/{id} with the whole task. */
  | { readonly op: 'task-update'; readonly id: string; readonly body: JsonObject }
  | { readonly op: 'task-delete'; readonly id: string }
  /** POST /resourcegroups/acls; the (resource group, user group) pair is its identity. */
  | { readonly op: 'acl-create'; readonly resourceGroup: string; readonly userGroup: string; readonly permissions: Readonly<Record<string, 0 | 1>> }
  /** PUT /resourcegroups/acls/{id} with the permissions only. */
  | { readonly op: 'acl-update'; readonly id: string; readonly permissions: Readonly<Record<string, 0 | 1>> }
  | { readonly op: 'acl-delete'; readonly id: string }
  /** POST /folders/{parentId}/subfolders; the parent's id is looked up when the step runs. */
  | { readonly op: 'folder-create'; readonly path: string; readonly parentPath: string; readonly name: string; readonly inheritPermissions: 'None' | 'CopyOnly' | 'Always' }
  /** PATCH /folders/{id} `{name}`: rename in place; `path` (the new one) finds it again after an unknown outcome. */
  | { readonly op: 'folder-rename'; readonly path: string; readonly from: string; readonly name: string }
  /** PUT /folders/{id}/acls: create or update one entry. The folder's id is known by the time it runs. */
  | { readonly op: 'entry-set'; readonly folderPath: string; readonly entry: EntrySet }
  /** DELETE /folders/{id}/acls with `{type, id}`. */
  | { readonly op: 'entry-remove'; readonly folderPath: string; readonly entry: EntryRef };

export type StepOp = Step['op'];
export type EntrySet = FolderPermissionsPayload['set'][number];
export type EntryRef = FolderPermissionsPayload['remove'][number];

/**
 * The steps of a write change, from its payload (secrets already resolved). A change whose data
 * cannot be sent (no payload where one is needed, no live id for an update) is a bug in the plan:
 * the error says which change.
 */
export function planSteps(change: Change, payload: Payload | undefined): Step[] {
  const bug = (what: string): never => {
    throw new Error(`${change.address}: cannot ${change.action} (${what}); make the plan again`);
  };
  const liveId = (): string => change.liveId ?? bug('no live id in the plan');
  switch (change.kind) {
    case 'Task': {
      if (change.action === 'delete') return [{ op: 'task-delete', id: liveId() }];
      if (payload?.kind !== 'Task') return bug('no task payload');
      const name = typeof payload.body.Name === 'string' ? payload.body.Name : change.name;
      switch (change.action) {
        case 'create':
          return [{ op: 'task-create', name, body: payload.body }];
        case 'update':
          return [{ op: 'task-update', id: liveId(), body: payload.body }];
        case 'replace':
          return [
            { op: 'task-delete', id: liveId() },
            { op: 'task-create', name, body: payload.body },
          ];
        default:
          return bug(`action ${change.action}`);
      }
    }
    case 'ResourceGroupAcl': {
      if (change.action === 'delete') return [{ op: 'acl-delete', id: liveId() }];
      if (payload?.kind !== 'ResourceGroupAcl') return bug('no ACL payload');
      switch (change.action) {
        case 'create':
          return [{ op: 'acl-create', resourceGroup: payload.resourceGroup, userGroup: payload.userGroup, permissions: payload.permissions }];
        case 'update':
          return [{ op: 'acl-update', id: liveId(), permissions: payload.permissions }];
        default:
          return bug(`action ${change.action}`);
      }
    }
    case 'FolderPermissions': {
      if (payload?.kind !== 'FolderPermissions') return bug('no folder payload');
      const steps: Step[] = [];
      if (payload.create) steps.push({ op: 'folder-create', path: payload.path, ...payload.create });
      else if (change.liveId === undefined) bug('no live id in the plan');
      // The folder's own entries (and anything below it) are written once it has its new path.
      if (payload.rename) steps.push({ op: 'folder-rename', path: payload.path, ...payload.rename });
      for (const entry of payload.set) steps.push({ op: 'entry-set', folderPath: payload.path, entry });
      for (const entry of payload.remove) steps.push({ op: 'entry-remove', folderPath: payload.path, entry });
      return steps;
    }
    default: {
      const never: never = change.kind;
      throw new Error(`unknown kind ${String(never)}`);
    }
  }
}
