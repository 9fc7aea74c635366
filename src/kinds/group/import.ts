import { matchesNameMask } from '../../glob.js';
import { sortByName } from '../kind-import.js';
import type { ImportSelection, ImportSource, KindImport } from '../kind-import.js';
import type { LiveGroupMembers } from './to-manifest.js';
import { groupManifestOf } from './to-manifest.js';

/** The live objects import reads for groups. */
export interface GroupImportPart {
  /** Transfer groups with their members' usernames (absent: none were read). */
  readonly groups?: readonly LiveGroupMembers[];
}

/**
 * What `mftops import` takes of transfer groups: every group, or those whose name matches
 * `--name` (a name mask); the scope does not bound them. Imported only when `--kind` names them:
 * an environment with Group manifests looks for unmanaged groups (drift, prune), so adopting them
 * is a choice of its own rather than a side effect of importing the scope.
 */
export const GROUP_IMPORT: KindImport<'Group'> = {
  plural: 'groups',
  folder: 'groups',
  askedForOnly: true,
  nothingRead: {},
  draft: (source, selection) => ({ drafts: sortByName(selectGroups(source, selection), (g) => g.group.name).map(groupManifestOf), skipped: [] }),
  inSnapshot: { where: 'none' },
  liveDrafts: (live) => (change) => {
    const group = change.liveId === undefined ? undefined : live.transfer?.groups?.byId.get(change.liveId);
    const members = group === undefined ? undefined : live.transfer?.groupMembers?.members.get(group.name.toLowerCase());
    return group === undefined ? undefined : groupManifestOf({ group, members });
  },
  showsRemoved: true,
};

function selectGroups(source: ImportSource, s: ImportSelection): readonly LiveGroupMembers[] {
  const groups = (source.groups ?? []).filter((g) => g.group.name !== '');
  return s.name === undefined ? groups : groups.filter((g) => matchesNameMask(s.name!, g.group.name));
}
