import { compareText } from '../../order.js';
import type { TransferGroup } from '../../services/transfer/types.js';
import { formatAddress } from '../address.js';
import type { ManifestDraft } from '../kind-import.js';

/** A live group as import and policies read it: the group, and its members' usernames (undefined: the server did not tell them). */
export interface LiveGroupMembers {
  readonly group: TransferGroup;
  readonly members: readonly string[] | undefined;
}

/**
 * The spec of a live group's minimal manifest, and what it cannot say (pure; `groupManifestOf` makes
 * the draft of it): its description when it has one, its members sorted,
 * `mode: exact` (a plan of it changes nothing). A group whose members the server does not tell is
 * written `additive` with no members, so that a plan leaves them alone.
 */
export function groupManifestSpec(live: LiveGroupMembers): { readonly spec: Record<string, unknown>; readonly notes: string[] } {
  const { group, members } = live;
  const notes: string[] = [];
  if (members === undefined) notes.push('its members could not be read: none are listed, and the mode is additive so that plan leaves them alone');
  const spec = {
    ...(group.description !== undefined && group.description !== '' ? { description: group.description } : {}),
    mode: members === undefined ? 'additive' : 'exact',
    members: [...(members ?? [])].sort((a, b) => compareText(a.toLowerCase(), b.toLowerCase())),
  };
  return { spec, notes };
}

/** A live transfer group as its minimal manifest (`groupManifestSpec`). */
export function groupManifestOf(live: LiveGroupMembers): ManifestDraft {
  const { spec, notes } = groupManifestSpec(live);
  return { kind: 'Group', name: live.group.name, address: formatAddress('Group', live.group.name), metadataName: live.group.name, spec, notes };
}
