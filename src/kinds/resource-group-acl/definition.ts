import { aclKey } from '../../live/model.js';
import { withDefined } from '../../with-defined.js';
import { formatAddress } from '../address.js';
import type { KindDefinition } from '../kind.js';
import { fingerprintOf, sourceRef, withOrigins } from '../source.js';
import { canonicalPermissions, fingerprintAcl, grantedPermissions, planAcl } from './plan.js';
import { resolveAcl } from './resolve.js';
import { RESOURCE_GROUP_ACL_IMPORT } from './import.js';

/**
 * Resource-group ACLs of the automation service: a user group's permissions on a resource group,
 * the object being the pair (case aside); its `metadata.name` is a label. Planned before the tasks
 * that the permissions govern.
 */
export const RESOURCE_GROUP_ACL: KindDefinition<'ResourceGroupAcl'> = {
  kind: 'ResourceGroupAcl',
  service: 'automation',
  rank: 1,
  schema: 'resource-group-acl.schema.json',
  identityOf: (m) => `${m.spec.resourceGroup.toLowerCase()}\u0000${m.spec.userGroup.toLowerCase()}`,
  scopeKey: 'taskGroups',
  prunable: true,
  references: ['resourceGroup'],
  resolve: (m, live) => resolveAcl(m, live.automation!),
  nameOf: (d) => d.manifest.name,

  unmanagedDetail: (change, live) => {
    const acl = [...(live.automation?.acls?.values() ?? [])].find((a) => a.ACLID === change.liveId);
    const slash = change.name.indexOf('/');
    return {
      kind: 'ResourceGroupAcl',
      resourceGroup: acl?.ResourceGroupName ?? change.name.slice(0, Math.max(0, slash)),
      userGroup: acl?.UserGroupName ?? change.name.slice(slash + 1),
      permissions: acl ? grantedPermissions(acl) : [],
    };
  },
  describeUnmanaged: (detail, words) =>
    `${words.escape(detail.userGroup)} on ${words.escape(detail.resourceGroup)}: ${detail.permissions.length === 0 ? 'no permissions' : detail.permissions.join(', ')}`,

  plan: (context) => {
    const liveAcls = context.live.automation?.acls;
    for (const desired of context.desired) {
      const live = liveAcls?.get(aclKey(desired.resourceGroup, desired.userGroup));
      const outcome = planAcl(desired, live);
      const address = formatAddress('ResourceGroupAcl', desired.manifest.name);
      context.bases.set(address, {
        kind: 'acl',
        userGroup: desired.userGroup,
        resourceGroup: desired.resourceGroup,
        before: live ? grantedPermissions(live) : [],
        after: canonicalPermissions(desired.permissions),
      });
      context.add({
        address,
        kind: 'ResourceGroupAcl',
        name: desired.manifest.name,
        service: 'automation',
        action: outcome.action,
        ...(live ? { liveId: live.ACLID, ...fingerprintOf(outcome.action, () => fingerprintAcl(live)) } : {}),
        fields: withOrigins(outcome.fields, desired.manifest, context.cwd),
        source: sourceRef(desired.manifest.source, context.cwd),
        ...withDefined({ payload: outcome.payload }),
      });
    }
  },

  prune: (context) => {
    const inScope = new Set(context.scope.taskGroups.map((g) => g.toLowerCase()));
    if (inScope.size === 0) return;
    const managed = new Set<string>();
    for (const desired of context.desired) managed.add(aclKey(desired.resourceGroup, desired.userGroup));
    for (const m of context.skipped) if (m.kind === 'ResourceGroupAcl') managed.add(aclKey(m.spec.resourceGroup, m.spec.userGroup));
    for (const [key, acl] of context.live.automation?.acls ?? []) {
      if (managed.has(key) || !inScope.has(acl.ResourceGroupName.toLowerCase())) continue;
      const name = `${acl.ResourceGroupName}/${acl.UserGroupName}`;
      const address = formatAddress('ResourceGroupAcl', name);
      context.bases.set(address, {
        kind: 'acl',
        userGroup: acl.UserGroupName,
        resourceGroup: acl.ResourceGroupName,
        before: grantedPermissions(acl),
        after: [],
      });
      context.add({
        address,
        kind: 'ResourceGroupAcl',
        name,
        service: 'automation',
        action: 'delete',
        reason: { code: 'pruned', kind: 'ResourceGroupAcl', scope: [...context.scope.taskGroups] },
        liveId: acl.ACLID,
        fingerprint: fingerprintAcl(acl),
        fields: [],
      });
    }
  },

  payloadKeys: { keys: ['kind', 'resourceGroup', 'userGroup', 'permissions'] },
  aliasesOf: (change) =>
    change.payload?.kind === 'ResourceGroupAcl' ? [formatAddress('ResourceGroupAcl', `${change.payload.resourceGroup}/${change.payload.userGroup}`)] : [],
  createsNeeded: () => [],
  isBlockedPrune: () => false,
  comparedSpec: (m) => m.spec,
  principalLists: [],
  // An ACL's records name nothing but its id.
  audit: { targetType: 'ACL' },
  unauditedNote: undefined,
  importer: RESOURCE_GROUP_ACL_IMPORT,
};
