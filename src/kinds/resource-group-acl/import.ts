import { matchesNameMask } from '../../glob.js';
import type { ResourceGroupAcl } from '../../services/automation/types.js';
import { sortByName } from '../kind-import.js';
import type { ImportSelection, ImportSource, KindImport } from '../kind-import.js';
import { aclLabel, aclManifestOf } from './to-manifest.js';

/** The live objects import reads for resource-group ACLs. */
export interface AclImportPart {
  readonly acls: readonly ResourceGroupAcl[];
}

/**
 * What `mftops import` takes of resource-group ACLs: by `--name` (a name mask on the resource
 * group or the user group), else those on the resource groups of `scope.taskGroups`, every one
 * with `--all`. Two pairs whose labels coincide get `-2`, `-3`… in name order.
 */
export const RESOURCE_GROUP_ACL_IMPORT: KindImport<'ResourceGroupAcl'> = {
  plural: 'ACLs',
  folder: 'access',
  askedForOnly: false,
  nothingRead: { acls: [] },
  draft(source, selection) {
    const labels = new Set<string>();
    const drafts = sortByName(selectAcls(source, selection), (a) => `${a.ResourceGroupName}/${a.UserGroupName}`).map((acl) => {
      const base = aclLabel(acl);
      let label = base;
      for (let n = 2; labels.has(label); n++) label = `${base}-${n}`;
      labels.add(label);
      return aclManifestOf(acl, label);
    });
    return { drafts, skipped: [] };
  },
  unmatched: (entry, source) => (source.acls.some((a) => a.ResourceGroupName.toLowerCase() === entry.toLowerCase()) ? undefined : 'no resource-group ACL'),
  inSnapshot: { where: 'export' },
  liveDrafts(live) {
    const aclsById = new Map([...(live.automation?.acls?.values() ?? [])].map((a) => [a.ACLID, a]));
    return (change) => {
      const acl = change.liveId === undefined ? undefined : aclsById.get(change.liveId);
      return acl === undefined ? undefined : aclManifestOf(acl);
    };
  },
  showsRemoved: true,
};

function selectAcls(source: ImportSource, s: ImportSelection): readonly ResourceGroupAcl[] {
  const groups = new Set(s.scope.taskGroups.map((g) => g.toLowerCase()));
  return source.acls.filter((a) => {
    if (s.name !== undefined) return matchesNameMask(s.name, a.ResourceGroupName) || matchesNameMask(s.name, a.UserGroupName);
    return s.all || groups.has(a.ResourceGroupName.toLowerCase());
  });
}
