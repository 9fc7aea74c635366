import type { TransferLiveState } from '../../live/model.js';
import type { Manifest } from '../../manifest/types.js';
import { sha256Of } from '../../resources/common.js';
import type { Change, ChangeReason, DesiredGroup, FieldChange, GroupMemberRef, GroupPayload } from '../../resources/model.js';
import { withDefined } from '../../with-defined.js';
import { formatAddress } from '../address.js';
import { createPlanWarning } from '../diagnostics.js';
import type { PlanContext } from '../kind.js';
import { fingerprintOf, sourceRef } from '../source.js';

/**
 * The Group kind (transfer-users-groups.md): a group named by its name (case aside), its members
 * compared as a set of usernames (case aside). The API creates a group and adds and removes
 * members, and nothing else: a different description of an existing group, and the delete of an
 * unmanaged one, are blocked. `mode: exact` removes the members the manifest does not list,
 * `additive` never removes one. `manage: observe` plans the group like any other and writes
 * nothing: its differences are a warning (MF417) and its change a no-op.
 */

/** A live group as the plan compares it. */
export interface LiveGroupView {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  /** Its members by username, with their user ids; undefined: the server did not tell them. */
  readonly members: readonly LiveMember[] | undefined;
}

export interface LiveMember {
  readonly username: string;
  readonly id: string;
}

/** The live group named `name` (case aside) with its members, or undefined when the server has none. */
export function viewLiveGroup(transfer: TransferLiveState | undefined, name: string): LiveGroupView | undefined {
  const group = transfer?.groups?.byName.get(name.toLowerCase());
  if (group === undefined) return undefined;
  const usernames = transfer?.groupMembers?.members.get(group.name.toLowerCase());
  const members = usernames?.map((username) => ({ username, id: transfer?.users?.byName.get(username.toLowerCase())?.id ?? '' }));
  // A member without a known user id could not be removed by id: the members count as unknown.
  const known = members?.every((m) => m.id !== '') === true ? members : undefined;
  return { id: group.id, name: group.name, description: group.description ?? '', members: known };
}

/** What a group's change is: its action, the differences shown, what apply sends, and the members before and after. */
export interface GroupOutcome {
  readonly action: 'create' | 'update' | 'no-op' | 'blocked';
  readonly reason?: ChangeReason;
  readonly fields: readonly FieldChange[];
  readonly payload?: GroupPayload;
  /** Usernames before and after the change, as the plan sees them (the access review's basis). */
  readonly before: readonly string[];
  readonly after: readonly string[];
}

/** A managed group against its live form (undefined: it does not exist, and is created). Pure. */
export function planGroup(desired: DesiredGroup, live: LiveGroupView | undefined): GroupOutcome {
  const wantedDescription = desired.manifest.spec.description;
  const wanted = desired.members.map((m) => m.username);
  if (live === undefined) {
    const fields: FieldChange[] = [
      ...(wantedDescription !== undefined && wantedDescription !== '' ? [{ path: 'description', after: wantedDescription }] : []),
      ...desired.members.map(addedField),
    ];
    const payload: GroupPayload = {
      kind: 'Group',
      name: desired.name,
      create: withDefined({ description: wantedDescription }),
      add: desired.members,
      remove: [],
    };
    return { action: 'create', fields, payload, before: [], after: wanted };
  }
  const liveMembers = live.members;
  if (liveMembers === undefined) return { action: 'blocked', reason: { code: 'group-members-unknown' }, fields: [], before: [], after: [] };
  const have = new Set(liveMembers.map((m) => m.username.toLowerCase()));
  const want = new Set(wanted.map((u) => u.toLowerCase()));
  const add = desired.members.filter((m) => !have.has(m.username.toLowerCase()));
  const remove: GroupMemberRef[] =
    desired.manifest.spec.mode === 'exact'
      ? liveMembers.filter((m) => !want.has(m.username.toLowerCase())).map((m) => ({ username: m.username, id: m.id }))
      : [];
  const describes = wantedDescription !== undefined && wantedDescription !== live.description;
  const descriptionField: FieldChange[] = describes ? [{ path: 'description', before: live.description, after: wantedDescription }] : [];
  const before = liveMembers.map((m) => m.username);
  const gone = new Set(remove.map((m) => m.username.toLowerCase()));
  const after = [...before.filter((u) => !gone.has(u.toLowerCase())), ...add.map((m) => m.username)];
  if (add.length > 0 || remove.length > 0) {
    return {
      action: 'update',
      ...withDefined({ reason: describes ? ({ code: 'group-not-updatable', partial: true } as const) : undefined }),
      fields: [...descriptionField, ...add.map(addedField), ...remove.map((m): FieldChange => ({ path: 'members', before: m.username }))],
      payload: { kind: 'Group', name: desired.name, add, remove },
      before,
      after,
    };
  }
  if (describes) return { action: 'blocked', reason: { code: 'group-not-updatable', partial: false }, fields: descriptionField, before, after };
  return { action: 'no-op', fields: [], before, after };
}

/** `+ members: "carol" (created by this plan)` for a member a User change of this plan creates. */
function addedField(m: GroupMemberRef): FieldChange {
  return {
    path: 'members',
    after: m.username,
    ...withDefined({ words: m.createdBy !== undefined ? { form: 'meaning' as const, after: 'created by this plan' } : undefined }),
  };
}

/** sha256 of the group's id, name, description and member ids (sorted): what apply's stale check compares. */
export function fingerprintGroup(live: LiveGroupView): string {
  const members = (live.members ?? []).map((m) => m.id).sort();
  return sha256Of({ id: live.id, name: live.name, description: live.description, members: live.members === undefined ? null : members });
}

/** The managed groups of a plan: one change each; an observed group's change is a no-op, its differences a warning. */
export function planGroups(context: PlanContext<'Group'>): void {
  const { cwd, diagnostics, bases } = context;
  for (const desired of context.desired) {
    const manifest = desired.manifest;
    const address = formatAddress('Group', desired.name);
    const live = viewLiveGroup(context.live.transfer, desired.name);
    const outcome = planGroup(desired, live);
    const base = {
      address,
      kind: 'Group' as const,
      name: desired.name,
      service: 'transfer' as const,
      source: sourceRef(manifest.source, cwd),
      ...withDefined({ liveId: live?.id }),
    };
    if (manifest.spec.manage === 'observe') {
      if (outcome.action !== 'no-op')
        diagnostics.push(
          createPlanWarning(
            'MF417',
            manifest.sourceMap.locate(['spec', 'manage']),
            `group ${desired.name} is observed, not managed: ${describeDifference(outcome)}; mftops never writes it`,
            {
              address,
              hint: 'change it where it is owned (its directory), or make the manifest say what the server has',
            },
          ),
        );
      context.add({ ...base, action: 'no-op', fields: [] });
      continue;
    }
    if (outcome.action === 'create' || outcome.action === 'update')
      bases.set(address, { kind: 'membership', group: desired.name, before: outcome.before, after: outcome.after });
    context.add({
      ...base,
      action: outcome.action,
      fields: outcome.fields,
      ...withDefined({ reason: outcome.reason, payload: outcome.payload }),
      ...(live === undefined ? {} : fingerprintOf(outcome.action, () => fingerprintGroup(live))),
    });
  }
}

/** An observed group's differences in words: `+carol, -dave`, `the server has no such group`. */
function describeDifference(outcome: GroupOutcome): string {
  if (outcome.action === 'create') return 'the transfer server has no such group';
  if (outcome.reason?.code === 'group-members-unknown') return 'the transfer server does not tell its members';
  const parts = outcome.fields.map((f) =>
    f.path === 'description' ? 'its description differs' : f.after !== undefined ? `+${String(f.after)}` : `-${String(f.before)}`,
  );
  return parts.join(', ');
}

/**
 * With `prune: [Group]`: every group on the transfer server that no manifest names is blocked,
 * since the API cannot delete a group (drift lists them as unmanaged). Groups are not bound by a
 * scope, so only an environment that manages some group (a Group manifest) looks for them: one
 * that manages folders alone does not see every group of the server as unmanaged.
 */
export function pruneGroups(context: PlanContext<'Group'>): void {
  const groups = context.live.transfer?.groups;
  const manifests: readonly Manifest[] = [...context.desired.map((d) => d.manifest), ...context.skipped];
  const managed = new Set(manifests.filter((m) => m.kind === 'Group').map((m) => m.name.toLowerCase()));
  if (groups === undefined || managed.size === 0) return;
  for (const group of groups.items) {
    if (group.name === '' || managed.has(group.name.toLowerCase())) continue;
    context.add({
      address: formatAddress('Group', group.name),
      kind: 'Group',
      name: group.name,
      service: 'transfer',
      liveId: group.id,
      action: 'blocked',
      reason: { code: 'group-not-deletable' },
      fields: [],
    });
  }
}

/** Whether `change` is an unmanaged group a prune would delete, were there a group delete: drift lists it as unmanaged. */
export function isUnmanagedGroup(change: Change): boolean {
  return change.kind === 'Group' && change.reason?.code === 'group-not-deletable';
}
