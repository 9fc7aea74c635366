import { matchesNameMask } from '../../glob.js';
import type { Manifest } from '../../manifest/types.js';
import type { TransferUser } from '../../services/transfer/types.js';
import { withDefined } from '../../with-defined.js';
import { formatAddress } from '../address.js';
import type { KindDefinition, PlanContext } from '../kind.js';
import { fingerprintOf, sourceRef, withOrigins } from '../source.js';
import { fingerprintUser, isPrivileged, permissionBasis, planUser } from './plan.js';
import type { LiveUser } from './plan.js';
import { resolveUser } from './resolve.js';
import { USER_IMPORT } from './import.js';

/**
 * Users of the transfer service, named by username (case aside). Ranked before every other kind
 * (folder entries and groups refer to users; Group takes -1): created first, deleted last, after
 * the folder entries that name them are gone.
 */
export const USER: KindDefinition<'User'> = {
  kind: 'User',
  service: 'transfer',
  rank: -2,
  schema: 'user.schema.json',
  identityOf: (m) => m.name.toLowerCase(),
  scopeKey: 'users',
  prunable: true,
  references: [],
  resolve: (m) => resolveUser(m),
  nameOf: (d) => d.username,

  unmanagedDetail: (change, live) => {
    const user = change.liveId !== undefined ? live.transfer?.users?.byId.get(change.liveId) : undefined;
    return { kind: 'User', ...withDefined({ permission: text(user?.permission), status: text(user?.status), lastLoginStamp: text(user?.lastLoginStamp) }) };
  },
  describeUnmanaged: (detail, words) =>
    [
      'user',
      ...(detail.permission !== undefined ? [`permission ${words.escape(detail.permission)}`] : []),
      ...(detail.status !== undefined && detail.status !== 'Active' ? [words.escape(detail.status)] : []),
      detail.lastLoginStamp !== undefined ? `last sign-on ${words.escape(detail.lastLoginStamp)}` : 'never signed on',
    ].join(', '),

  plan: (context) => {
    const users = context.live.transfer?.users;
    const details = context.live.transfer?.userDetails;
    const liveOf = (user: TransferUser): LiveUser => ({ user, ...withDefined({ details: details?.get(user.id) }) });
    for (const desired of context.desired) {
      const m = desired.manifest;
      const found = users?.byName.get(m.name.toLowerCase());
      const previous = found ? undefined : m.previousNames.map((old) => users?.byName.get(old.toLowerCase())).find((u) => u !== undefined);
      const user = found ?? previous;
      const live = user ? liveOf(user) : undefined;
      const outcome = planUser(desired, live, context.rotatePasswords, previous?.username);
      const address = formatAddress('User', m.name);
      addAccountBasis(context, address, m.name, permissionBasis(m.spec, live));
      context.add({
        address,
        kind: 'User',
        name: m.name,
        service: 'transfer',
        action: outcome.action,
        ...withDefined({ reason: outcome.reason, previousName: previous?.username, liveId: user?.id }),
        ...(live ? fingerprintOf(outcome.action, () => fingerprintUser(live.user, live.details)) : {}),
        fields: withOrigins(outcome.fields, m, context.cwd),
        source: sourceRef(m.source, context.cwd),
        ...withDefined({ payload: outcome.payload }),
      });
    }
  },

  prune: (context) => {
    const masks = context.scope.users ?? [];
    if (masks.length === 0) return;
    const managed = new Set<string>();
    const manifests: readonly Manifest[] = [...context.desired.map((d) => d.manifest), ...context.skipped];
    for (const m of manifests) if (m.kind === 'User') for (const n of [m.name, ...m.previousNames]) managed.add(n.toLowerCase());
    // The account mftops signs in with is never deleted: the apply would lock itself out halfway.
    const own = context.serverAccounts.transfer?.toLowerCase();
    for (const user of context.live.transfer?.users?.items ?? []) {
      const name = user.username;
      if (name === '' || user.id === '' || managed.has(name.toLowerCase()) || name.toLowerCase() === own || !masks.some((mask) => matchesNameMask(mask, name)))
        continue;
      const address = formatAddress('User', name);
      if (isPrivileged(text(user.permission))) context.bases.set(address, { kind: 'account', user: name, before: text(user.permission), after: undefined });
      context.add({
        address,
        kind: 'User',
        name,
        service: 'transfer',
        action: 'delete',
        reason: { code: 'user-pruned', scope: [...masks] },
        liveId: user.id,
        fingerprint: fingerprintUser(user),
        fields: [],
      });
    }
  },

  payloadKeys: { keys: ['kind', 'username', 'create', 'patch'] },
  aliasesOf: () => [],
  createsNeeded: () => [],
  isBlockedPrune: () => false,
  comparedSpec: (m) => m.spec,
  principalLists: [],
  audit: undefined,
  unauditedNote: undefined,
  importer: USER_IMPORT,
};

/** A permission change that grants or takes away a privileged level: the access report shows it, flagged when granted. */
function addAccountBasis(context: PlanContext<'User'>, address: string, user: string, basis: { before: string | undefined; after: string } | undefined): void {
  if (basis === undefined || basis.before?.toLowerCase() === basis.after.toLowerCase()) return;
  if (!isPrivileged(basis.after) && !isPrivileged(basis.before)) return;
  context.bases.set(address, { kind: 'account', user, before: basis.before, after: basis.after });
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}
