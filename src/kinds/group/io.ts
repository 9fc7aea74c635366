import type { GroupManifest } from '../../manifest/types.js';
import type { GroupMemberRef } from '../../resources/model.js';
import type { TransferGroup } from '../../services/transfer/types.js';
import { describeNeededChange, needReader, planBug, StepError, transferWriter } from '../kind-io.js';
import type { KindIo, StepContext, TransferWriter } from '../kind-io.js';
import { fingerprintGroup } from './plan.js';
import type { LiveGroupView } from './plan.js';
import { readGroupsForImport } from './io-import.js';

/**
 * The requests of a group change, in order: create the group, add the members it lacks (one
 * request), remove the members `mode: exact` does not keep (one request each). The group's id is
 * taken from the table of the apply's ids (`StepContext.created`) when a step runs, so the steps
 * after a create use the id it returned; a member created by this plan is added with the id its
 * User change produced.
 */
export type GroupStep =
  /** POST /groups `{name, description}`. */
  | { readonly op: 'group-create'; readonly address: string; readonly name: string; readonly description?: string }
  /** POST /groups/{id}/members `{id, userIds}`. */
  | { readonly op: 'group-members-add'; readonly address: string; readonly name: string; readonly members: readonly GroupMemberRef[] }
  /** DELETE /groups/{id}/members/{userId}. */
  | { readonly op: 'group-member-remove'; readonly address: string; readonly name: string; readonly member: GroupMemberRef };

/** The touched groups as they are now: by lower-cased name, each with its member ids (undefined: unreadable). */
export interface GroupTouched {
  readonly groups: ReadonlyMap<string, LiveGroupView>;
  /** Groups by id, for changes of groups the plan found (renamed groups still match by id). */
  readonly byId: ReadonlyMap<string, LiveGroupView>;
}

export const GROUP_IO: KindIo<'Group'> = {
  kind: 'Group',
  idsOf: (id) => ({ group: id }),
  idIn: (ids) => ids.group,

  readAhead: 'none',
  liveNeeds(manifests) {
    const groups = manifests.filter((m): m is GroupManifest => m.kind === 'Group');
    // Groups are not bound by a scope: only an environment that manages some looks for unmanaged ones (see `pruneGroups`).
    if (groups.length === 0) return {};
    // The users list resolves members; the members of the managed groups are read (every form, T-16).
    return { transfer: { users: groups.length > 0, groups: true, groupNames: groups.map((m) => m.name) } };
  },

  planSteps(change, payload) {
    if (payload?.kind !== 'Group') return planBug(change, 'no group payload');
    const address = change.address;
    const steps: GroupStep[] = [];
    if (payload.create) steps.push({ op: 'group-create', address, name: payload.name, ...payload.create });
    else if (change.liveId === undefined) planBug(change, 'no live id in the plan');
    if (payload.add.length > 0) steps.push({ op: 'group-members-add', address, name: payload.name, members: payload.add });
    for (const member of payload.remove) steps.push({ op: 'group-member-remove', address, name: payload.name, member });
    return steps;
  },

  async sendStep(step, ctx) {
    const writer = transferWriter(ctx);
    switch (step.op) {
      case 'group-create': {
        const group = await writer.createGroup({ name: step.name, ...(step.description !== undefined ? { description: step.description } : {}) });
        return { group: group.id };
      }
      case 'group-members-add': {
        const id = groupId(ctx, step);
        await writer.addGroupMembers(id, memberIds(step.members, step.name, ctx));
        return { group: id };
      }
      case 'group-member-remove': {
        const id = groupId(ctx, step);
        await writer.removeGroupMember(id, memberId(step.member, step.name, ctx));
        return { group: id };
      }
      default: {
        const never: never = step;
        throw new Error(`unknown step ${String(never)}`);
      }
    }
  },

  async confirmStep(step, ctx) {
    const writer = transferWriter(ctx);
    switch (step.op) {
      case 'group-create': {
        const group = findByName(await writer.listGroups({ fresh: true }), step.name);
        return group ? { kind: 'done', ids: { group: group.id } } : { kind: 'resend', step };
      }
      case 'group-members-add': {
        const id = groupId(ctx, step);
        const now = await readMemberIds(writer, id, step.name);
        const missing = step.members.filter((m) => !now.includes(memberId(m, step.name, ctx)));
        // Only the members still missing are sent again: adding one twice is not asked of the server.
        return missing.length === 0 ? { kind: 'done', ids: { group: id } } : { kind: 'resend', step: { ...step, members: missing } };
      }
      case 'group-member-remove': {
        const id = groupId(ctx, step);
        const now = await readMemberIds(writer, id, step.name);
        return now.includes(memberId(step.member, step.name, ctx)) ? { kind: 'resend', step } : { kind: 'done', ids: { group: id } };
      }
      default: {
        const never: never = step;
        throw new Error(`unknown step ${String(never)}`);
      }
    }
  },

  verifySteps: (change) => GROUP_IO.planSteps(change, change.payload),

  async readTouched(changes, readers) {
    const transfer = needReader(readers.transfer, 'transfer');
    const [users, groups] = await Promise.all([transfer.listUsers({ fresh: true }), transfer.listGroups({ fresh: true })]);
    const ids = changes.flatMap((c) => (c.liveId !== undefined ? [c.liveId] : []));
    const membership = ids.length > 0 ? await transfer.listGroupMembers(ids) : { form: 'none' as const, members: new Map<string, readonly string[]>() };
    const username = new Map(users.map((u) => [u.id, u.username]));
    const views = groups.map((g): LiveGroupView => {
      const memberIds = membership.members.get(g.id);
      return {
        id: g.id,
        name: g.name,
        description: g.description ?? '',
        members: memberIds?.map((id) => ({ username: username.get(id) ?? id, id })),
      };
    });
    return { groups: new Map(views.map((v) => [v.name.toLowerCase(), v])), byId: new Map(views.map((v) => [v.id, v])) };
  },

  findStale(c, now) {
    if (c.action === 'create') {
      const found = now.groups.get(c.name.toLowerCase());
      return found ? [{ how: 'appeared', detail: `group ${found.name} now exists (id ${found.id})` }] : [];
    }
    const found = c.liveId === undefined ? undefined : now.byId.get(c.liveId);
    if (!found) return [{ how: 'gone', detail: `group id ${c.liveId ?? '?'}` }];
    if (found.members === undefined) return [{ how: 'changed', detail: 'its members can no longer be read' }];
    return fingerprintGroup(found) === c.fingerprint ? [] : [{ how: 'changed', detail: 'its members or description changed since the plan' }];
  },

  describeLeftUndone: (change) =>
    change.payload?.kind === 'Group' && change.payload.create !== undefined ? 'the group was created without all of its members' : undefined,
  describeNeeded: describeNeededChange,

  // Usernames and ids: nothing in them can be a reference.
  mapPayloadStrings: (payload) => payload,
  readForImport: readGroupsForImport,
};

/** The id this apply knows for the step's group (from the plan, or its create). */
function groupId(ctx: StepContext, step: { readonly address: string; readonly name: string }): string {
  const id = ctx.created.idOf(step.address);
  if (id === undefined) throw new StepError(`group ${step.name} has no known id (was it created?)`);
  return id;
}

/** A member's user id: the live one from the plan, or the one its User change of this apply produced. */
function memberId(m: GroupMemberRef, group: string, ctx: StepContext): string {
  if (m.id !== undefined) return m.id;
  if (m.createdBy !== undefined) return ctx.created.require(m.createdBy, `add ${m.username} to group ${group}`);
  throw new StepError(`member ${m.username} of group ${group} has no user id in the plan; make the plan again`);
}

function memberIds(members: readonly GroupMemberRef[], group: string, ctx: StepContext): string[] {
  return members.map((m) => memberId(m, group, ctx));
}

/** The group's member ids as the server tells them now (the lists read afresh); a refusal when it does not. */
async function readMemberIds(writer: TransferWriter, id: string, name: string): Promise<readonly string[]> {
  await Promise.all([writer.listUsers({ fresh: true }), writer.listGroups({ fresh: true })]);
  const members = (await writer.listGroupMembers([id])).members.get(id);
  if (members === undefined) throw new StepError(`the members of group ${name} cannot be read back: the outcome is not known`);
  return members;
}

/** The group named `name`: exactly, else the only one of that name case aside. */
function findByName(groups: readonly TransferGroup[], name: string): TransferGroup | undefined {
  const exact = groups.find((g) => g.name === name);
  if (exact) return exact;
  const loose = groups.filter((g) => g.name.toLowerCase() === name.toLowerCase());
  return loose.length === 1 ? loose[0] : undefined;
}
