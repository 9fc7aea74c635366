import type { ResourceGroupAcl } from '../../services/automation/types.js';
import { formatAddress } from '../address.js';
import type { ManifestDraft } from '../kind-import.js';
import { grantedPermissions } from './plan.js';

/** `Finance` + `Finance Operators` → `finance-finance-operators`: a label only, the pair is the identity. */
export function aclLabel(acl: Pick<ResourceGroupAcl, 'ResourceGroupName' | 'UserGroupName'>): string {
  const label = `${acl.ResourceGroupName}-${acl.UserGroupName}`
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return label === '' ? 'acl' : label;
}

/** A live resource-group ACL as its minimal manifest (pure): the pair and the granted permissions, labelled `label`. */
export function aclManifestOf(acl: ResourceGroupAcl, label: string = aclLabel(acl)): ManifestDraft {
  const spec = { resourceGroup: acl.ResourceGroupName, userGroup: acl.UserGroupName, permissions: grantedPermissions(acl) };
  return {
    kind: 'ResourceGroupAcl',
    name: `${acl.ResourceGroupName}/${acl.UserGroupName}`,
    address: formatAddress('ResourceGroupAcl', label),
    metadataName: label,
    spec,
    notes: [],
  };
}
