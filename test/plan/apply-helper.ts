import type { Change, JsonValue } from '../../src/plan/model.js';
import { parseSecretRef } from '../../src/secret.js';
import type { Harness } from './helpers.js';

/** Secret references replaced by a stand-in value, the way apply resolves them before sending. */
function resolveRefs(x: JsonValue): JsonValue {
  if (typeof x === 'string') return parseSecretRef(x) ? 'resolved-secret-value' : x;
  if (Array.isArray(x)) return x.map(resolveRefs);
  if (x !== null && typeof x === 'object') return Object.fromEntries(Object.entries(x).map(([k, v]) => [k, resolveRefs(v)]));
  return x;
}

/**
 * A minimal stand-in for apply (src/apply is not this area's): sends each change's payload with
 * the full clients, in plan order. Tests use it to check that payloads converge: plan, send,
 * plan again → nothing left to do.
 */
export async function sendPlan(h: Harness, changes: readonly Change[]): Promise<void> {
  for (const c of changes) {
    const p = c.payload;
    switch (c.action) {
      case 'no-op':
      case 'blocked':
        continue;
      case 'delete':
        if (c.kind === 'Task') await h.automation.deleteTask(c.liveId!);
        else if (c.kind === 'ResourceGroupAcl') await h.automation.deleteResourceGroupAcl(c.liveId!);
        else if (p?.kind === 'FolderPermissions') for (const r of p.remove) await h.transfer.deleteFolderAcl(c.liveId!, { type: r.type, id: r.id });
        continue;
      default:
        break;
    }
    if (p?.kind === 'Task') {
      const body = resolveRefs(p.body) as Record<string, unknown>;
      if (c.action === 'create') await h.automation.createTask(body);
      else if (c.action === 'replace') {
        await h.automation.deleteTask(c.liveId!);
        await h.automation.createTask(body);
      } else await h.automation.updateTask(c.liveId!, body);
    } else if (p?.kind === 'ResourceGroupAcl') {
      if (c.action === 'create')
        await h.automation.createResourceGroupAcl({ ResourceGroupName: p.resourceGroup, UserGroupName: p.userGroup, Permissions: p.permissions });
      else await h.automation.updateResourceGroupAcl(c.liveId!, { Permissions: p.permissions });
    } else if (p?.kind === 'FolderPermissions') {
      let id = c.liveId;
      if (p.create) {
        const parent = await h.transfer.findFolderByPath(p.create.parentPath);
        const made = await h.transfer.createSubfolder(parent!.id, { name: p.create.name, inheritPermissions: p.create.inheritPermissions });
        id = made.id;
      }
      for (const s of p.set) await h.transfer.setFolderAcl(id!, { type: s.type, id: s.id, permissions: s.permissions });
      for (const r of p.remove) await h.transfer.deleteFolderAcl(id!, { type: r.type, id: r.id });
    }
  }
}
