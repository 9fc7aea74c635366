/** The key of a resource-group ACL: the (resource group, user group) pair, case-folded. */
export function aclKey(resourceGroup: string, userGroup: string): string {
  return `${resourceGroup.toLowerCase()}\u0000${userGroup.toLowerCase()}`;
}
