import { compareText } from '../../order.js';
import type { TransferGroup } from '../../services/transfer/types.js';

/** A live group as import and policies read it: the group, and its members' usernames (undefined: the server did not tell them). */
export interface LiveGroupMembers {
  readonly group: TransferGroup;
  readonly members: readonly string[] | undefined;
}

/**
 * The spec of a live group's minimal manifest, and what it cannot say (pure; `groupToManifest` in
 * src/import makes the document of it): its description when it has one, its members sorted,
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
