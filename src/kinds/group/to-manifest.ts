import { finish } from '../../import/to-manifest.js';
import type { ImportedManifest } from '../../import/model.js';
import { compareText } from '../../order.js';
import type { TransferGroup } from '../../services/transfer/types.js';
import { formatAddress } from '../address.js';

/** A live group as import and policies read it: the group, and its members' usernames (undefined: the server did not tell them). */
export interface LiveGroupMembers {
  readonly group: TransferGroup;
  readonly members: readonly string[] | undefined;
}

/**
 * The minimal Group manifest of a live group (pure): its description when it has one, its
 * members sorted, `mode: exact` (a plan of it changes nothing). A group whose members the server
 * does not tell is written `additive` with no members, so that a plan leaves them alone.
 */
export function groupToManifest(live: LiveGroupMembers): ImportedManifest {
  const { group, members } = live;
  const notes: string[] = [];
  if (members === undefined) notes.push('its members could not be read: none are listed, and the mode is additive so that plan leaves them alone');
  const spec = {
    ...(group.description !== undefined && group.description !== '' ? { description: group.description } : {}),
    mode: members === undefined ? 'additive' : 'exact',
    members: [...(members ?? [])].sort((a, b) => compareText(a.toLowerCase(), b.toLowerCase())),
  };
  return finish('Group', group.name, formatAddress('Group', group.name), group.name, spec, notes);
}

/** The live groups with their members by username, from the transfer live state's lists (pure). */
export function liveGroupMembers(groups: readonly TransferGroup[], members: ReadonlyMap<string, readonly string[]> | undefined): LiveGroupMembers[] {
  return groups.map((group) => ({ group, members: members?.get(group.name.toLowerCase()) }));
}
