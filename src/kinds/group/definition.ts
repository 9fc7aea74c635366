import { withDefined } from '../../with-defined.js';
import type { KindDefinition } from '../kind.js';
import { compareText } from '../../order.js';
import { isUnmanagedGroup, planGroups, pruneGroups } from './plan.js';
import { resolveGroup } from './resolve.js';
import { GROUP_IMPORT } from './import.js';

/**
 * Groups of the transfer service and their members, a group named by its name (case aside).
 * Planned after users (its members may be users this plan creates) and before folder
 * permissions (whose entries name groups); the API deletes no group, so a prune blocks.
 */
export const GROUP: KindDefinition<'Group'> = {
  kind: 'Group',
  service: 'transfer',
  rank: -1,
  schema: 'group.schema.json',
  identityOf: (m) => m.name.toLowerCase(),
  // Groups are not bound by a scope: `prune: [Group]` names every group the account can see.
  scopeKey: 'folders',
  prunable: true,
  references: ['user'],
  resolve: (m, live, declared) => resolveGroup(m, live.transfer!, declared),
  nameOf: (d) => d.name,
  unmanagedDetail: (change, live) => {
    const group = change.liveId === undefined ? undefined : live.transfer?.groups?.byId.get(change.liveId);
    const known = live.transfer?.groupMembers?.members.get(change.name.toLowerCase())?.length;
    return withDefined({ kind: 'Group' as const, members: known ?? group?.membersCount });
  },
  describeUnmanaged: (detail) =>
    detail.members === undefined ? 'group, members unknown' : `group, ${detail.members} ${detail.members === 1 ? 'member' : 'members'}`,
  plan: planGroups,
  prune: pruneGroups,

  payloadKeys: {
    keys: ['kind', 'name', 'create', 'add', 'remove'],
    inner: { create: { keys: ['description'] }, add: { keys: ['username', 'id', 'createdBy'] }, remove: { keys: ['username', 'id', 'createdBy'] } },
  },
  aliasesOf: () => [],
  createsNeeded: (change) => (change.payload?.kind === 'Group' ? change.payload.add.flatMap((m) => (m.createdBy !== undefined ? [m.createdBy] : [])) : []),
  isBlockedPrune: isUnmanagedGroup,
  // Members are a set: compared in one order, whatever order each manifest lists them in.
  comparedSpec: (m) => ({ ...m.spec, members: [...m.spec.members].sort((a, b) => compareText(a.toLowerCase(), b.toLowerCase())) }),
  principalLists: [],
  nameSets: ['members'],
  audit: undefined,
  unauditedNote: undefined,
  importer: GROUP_IMPORT,
};
