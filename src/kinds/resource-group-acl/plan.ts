import { ACL_PERMISSIONS } from '../../manifest/types.js';
import type { AclPermission } from '../../manifest/types.js';
import type { Action, DesiredAcl, FieldChange, ResourceGroupAclPayload } from '../../resources/model.js';
import type { ResourceGroupAcl } from '../../services/automation/types.js';
import { fieldChange, sha256Of } from '../../resources/common.js';

/**
 * The ResourceGroupAcl kind (gaps.md "Resource-group ACLs").
 *
 * Identity: the (resource group, user group) pair, case-insensitive (`aclKey` in live/model.ts);
 * `metadata.name` is only a label. The eight permissions compare as a set: those listed are
 * granted, every other one is 0, and a live `true` counts as 1. `ACLID` is server-numbered.
 */

/** Granted permissions of a live ACL, in the canonical order of `ACL_PERMISSIONS`. */
export function grantedPermissions(acl: ResourceGroupAcl): AclPermission[] {
  const p = acl.Permissions ?? {};
  return ACL_PERMISSIONS.filter((name) => {
    const v: unknown = p[name];
    return v === 1 || v === true || v === '1' || v === 'true';
  });
}

/** `permissions` in the canonical order, whatever order the manifest lists them in. */
export function canonicalPermissions(list: readonly AclPermission[]): AclPermission[] {
  return ACL_PERMISSIONS.filter((p) => list.includes(p));
}

/** sha256 of the ACL as read, permissions as the 0/1 set (so `true` and `1` fingerprint alike). */
export function fingerprintAcl(acl: ResourceGroupAcl): string {
  return sha256Of({
    ACLID: acl.ACLID,
    ResourceGroupName: acl.ResourceGroupName,
    UserGroupName: acl.UserGroupName,
    Permissions: permissionFlags(grantedPermissions(acl)),
  });
}

/** All eight permissions as 0/1. */
export function permissionFlags(granted: readonly AclPermission[]): Record<AclPermission, 0 | 1> {
  return Object.fromEntries(ACL_PERMISSIONS.map((p) => [p, granted.includes(p) ? 1 : 0])) as Record<AclPermission, 0 | 1>;
}

export interface AclOutcome {
  readonly action: Extract<Action, 'create' | 'update' | 'no-op'>;
  readonly fields: readonly FieldChange[];
  readonly payload?: ResourceGroupAclPayload;
}

export function planAcl(desired: DesiredAcl, live: ResourceGroupAcl | undefined): AclOutcome {
  const want = canonicalPermissions(desired.permissions);
  const payload: ResourceGroupAclPayload = {
    kind: 'ResourceGroupAcl',
    resourceGroup: desired.resourceGroup,
    userGroup: desired.userGroup,
    permissions: permissionFlags(want),
  };
  if (live === undefined) {
    return {
      action: 'create',
      fields: [
        fieldChange('resourceGroup', undefined, desired.resourceGroup),
        fieldChange('userGroup', undefined, desired.userGroup),
        fieldChange('permissions', undefined, want),
      ],
      payload,
    };
  }
  const have = grantedPermissions(live);
  if (have.length === want.length && have.every((p) => want.includes(p))) return { action: 'no-op', fields: [] };
  return { action: 'update', fields: [fieldChange('permissions', have, want)], payload };
}
