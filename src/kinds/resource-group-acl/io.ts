import { isRecord } from '../../is-record.js';
import { aclKey } from '../../resource-group-acl-key.js';
import { fingerprintAcl } from './plan.js';
import type { ResourceGroupAclManifest } from '../../manifest/types.js';
import type { ResourceGroupAcl } from '../../services/automation/types.js';
import { automationWriter, describeNeededChange, liveIdOf, needReader, planBug, readOrNull } from '../kind-io.js';
import type { KindIo, StepContext } from '../kind-io.js';
import { readAclsForImport } from './io-import.js';

/** The requests of a resource-group ACL change. */
export type AclStep =
  /** POST /resourcegroups/acls; the (resource group, user group) pair is its identity. */
  | { readonly op: 'acl-create'; readonly resourceGroup: string; readonly userGroup: string; readonly permissions: Readonly<Record<string, 0 | 1>> }
  /** PUT /resourcegroups/acls/{id} with the permissions only. */
  | { readonly op: 'acl-update'; readonly id: string; readonly permissions: Readonly<Record<string, 0 | 1>> }
  | { readonly op: 'acl-delete'; readonly id: string };

/** Every resource-group ACL now, by ACLID and by `aclKey` of its pair. */
export interface AclTouched {
  readonly list: readonly ResourceGroupAcl[];
  readonly byId: ReadonlyMap<string, ResourceGroupAcl>;
  readonly byPair: ReadonlyMap<string, ResourceGroupAcl>;
}

export const RESOURCE_GROUP_ACL_IO: KindIo<'ResourceGroupAcl'> = {
  kind: 'ResourceGroupAcl',
  idsOf: (id) => ({ acl: id }),
  idIn: (ids) => ids.acl,

  readAhead: 'acl-lists',
  liveNeeds(manifests, scope, prune) {
    const acls = manifests.filter((m): m is ResourceGroupAclManifest => m.kind === 'ResourceGroupAcl');
    const pruned = prune.includes('ResourceGroupAcl') && scope.taskGroups.length > 0;
    if (acls.length === 0 && !pruned) return {};
    // User groups named by ACL manifests (looked up unless a live ACL already names them).
    const userGroups = [...new Set(acls.map((m) => m.spec.userGroup))];
    return { automation: { resourceGroups: acls.length > 0, acls: true, userGroups } };
  },

  planSteps(change, payload) {
    if (change.action === 'delete') return [{ op: 'acl-delete', id: liveIdOf(change) }];
    if (payload?.kind !== 'ResourceGroupAcl') return planBug(change, 'no ACL payload');
    switch (change.action) {
      case 'create':
        return [{ op: 'acl-create', resourceGroup: payload.resourceGroup, userGroup: payload.userGroup, permissions: payload.permissions }];
      case 'update':
        return [{ op: 'acl-update', id: liveIdOf(change), permissions: payload.permissions }];
      default:
        return planBug(change, `action ${change.action}`);
    }
  },

  async sendStep(step, ctx) {
    switch (step.op) {
      case 'acl-create': {
        const created = await automationWriter(ctx).createResourceGroupAcl({
          ResourceGroupName: step.resourceGroup,
          UserGroupName: step.userGroup,
          Permissions: step.permissions,
        });
        const id = created?.ACLID ?? (await findAcl(ctx, step.resourceGroup, step.userGroup))?.ACLID;
        return id !== undefined ? { acl: String(id) } : {};
      }
      case 'acl-update':
        await automationWriter(ctx).updateResourceGroupAcl(step.id, { Permissions: step.permissions });
        return { acl: step.id };
      case 'acl-delete':
        await automationWriter(ctx).deleteResourceGroupAcl(step.id);
        return { acl: step.id };
      default: {
        const never: never = step;
        throw new Error(`unknown step ${String(never)}`);
      }
    }
  },

  async confirmStep(step, ctx) {
    switch (step.op) {
      case 'acl-create': {
        const found = await findAcl(ctx, step.resourceGroup, step.userGroup);
        if (!found) return { kind: 'resend', step };
        const id = String(found.ACLID);
        return aclHolds(step.permissions, found)
          ? { kind: 'done', ids: { acl: id } }
          : { kind: 'resend', step: { op: 'acl-update', id, permissions: step.permissions } };
      }
      case 'acl-update': {
        const acl = await readOrNull(() => automationWriter(ctx).getResourceGroupAcl(step.id));
        if (!acl) return { kind: 'fail', message: `resource-group ACL ${step.id} no longer exists` };
        return aclHolds(step.permissions, acl) ? { kind: 'done', ids: { acl: step.id } } : { kind: 'resend', step };
      }
      case 'acl-delete': {
        const acl = await readOrNull(() => automationWriter(ctx).getResourceGroupAcl(step.id));
        return acl ? { kind: 'resend', step } : { kind: 'done', ids: { acl: step.id } };
      }
      default: {
        const never: never = step;
        throw new Error(`unknown step ${String(never)}`);
      }
    }
  },

  verifySteps: (change) => RESOURCE_GROUP_ACL_IO.planSteps(change, change.payload),

  async readTouched(_changes, readers) {
    const acls = await needReader(readers.automation, 'automation').listResourceGroupAcls();
    return {
      list: acls,
      byId: new Map(acls.map((a) => [String(a.ACLID), a])),
      byPair: new Map(acls.map((a) => [aclKey(a.ResourceGroupName, a.UserGroupName), a])),
    };
  },

  findStale(c, now) {
    if (c.action === 'create') {
      const p = c.payload?.kind === 'ResourceGroupAcl' ? c.payload : undefined;
      const other = p ? now.byPair.get(aclKey(p.resourceGroup, p.userGroup)) : undefined;
      return other ? [{ how: 'appeared', detail: `an ACL for ${other.ResourceGroupName} / ${other.UserGroupName} now exists (ACLID ${other.ACLID})` }] : [];
    }
    const live = c.liveId !== undefined ? now.byId.get(c.liveId) : undefined;
    if (!live) return [{ how: 'gone', detail: `ACLID ${c.liveId ?? '?'}` }];
    return fingerprintAcl(live) !== c.fingerprint ? [{ how: 'changed' }] : [];
  },

  describeLeftUndone: () => undefined,
  describeNeeded: describeNeededChange,

  // Permission flags and a pair of names: nothing in them can be a reference.
  mapPayloadStrings: (payload) => payload,
  readForImport: readAclsForImport,
};

async function findAcl(ctx: StepContext, resourceGroup: string, userGroup: string): Promise<ResourceGroupAcl | undefined> {
  const acls = await automationWriter(ctx).listResourceGroupAcls({ resourceGroupName: resourceGroup, userGroupName: userGroup });
  return acls.find((a) => a.ResourceGroupName.toLowerCase() === resourceGroup.toLowerCase() && a.UserGroupName.toLowerCase() === userGroup.toLowerCase());
}

function aclHolds(sent: Readonly<Record<string, 0 | 1>>, acl: ResourceGroupAcl): boolean {
  const read: Record<string, unknown> = isRecord(acl.Permissions) ? acl.Permissions : {};
  return Object.entries(sent).every(([k, v]) => {
    const r = read[k];
    const granted = r === 1 || r === true || r === '1' || r === 'true';
    return (v === 1) === granted;
  });
}
