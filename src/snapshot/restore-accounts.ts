import { isMftopsError } from '../errors.js';
import { accountKey, RESTORABLE_USER_FIELDS, type RestorableUserField } from './diff-accounts.js';
import type { AccountsRestore, SavedAccounts, SavedMember } from './model.js';

/**
 * What a restore of users and groups writes through. Structural on purpose: the transfer
 * client's writers of users and groups (`PATCH /users/{id}`, `POST /groups/{id}/members`,
 * `DELETE /groups/{id}/members/{userId}`) are given by the caller; without them a restore
 * compares and reports the accounts and writes nothing.
 */
export interface AccountRestoreTarget {
  patchUser(id: string, body: Record<string, unknown>): Promise<unknown>;
  addGroupMembers(groupId: string, userIds: readonly string[]): Promise<unknown>;
  removeGroupMember(groupId: string, userId: string): Promise<unknown>;
}

/** One live user's fields to put back, as `PATCH /users/{id}` takes them. */
export interface UserPatch {
  readonly userId: string;
  readonly username: string;
  readonly body: Readonly<Partial<Record<RestorableUserField, string>>>;
}

/** One live group's members to add and remove (live user ids). */
export interface MembershipWork {
  readonly groupId: string;
  readonly group: string;
  readonly add: readonly SavedMember[];
  readonly remove: readonly SavedMember[];
}

/**
 * The groups whose members git only observes (`spec.manage: observe`: another system, a
 * directory sync or HR, owns them), so a restore must not put their members back: lower-cased
 * group name → where its manifest says so (`FILE:LINE`). `unknown`: the environment's manifests
 * could not be read, so which groups are observed is not known and no group's members are written.
 */
export type ObservedGroups = { readonly byName: ReadonlyMap<string, string> } | { readonly unknown: string };

/** No group observed: an environment without Group manifests. */
export const NO_OBSERVED_GROUPS: ObservedGroups = { byName: new Map() };

/** What a restore writes to make the live accounts the saved ones, and what it cannot. */
export interface AccountRestorePlan {
  readonly patches: readonly UserPatch[];
  readonly memberships: readonly MembershipWork[];
  /** One sentence each; a restore that leaves any of these is incomplete. */
  readonly notRestorable: readonly string[];
  readonly leftAlone: readonly string[];
  readonly warnings: readonly string[];
}

/**
 * The writes that make `live` the `saved` accounts (pure). Users and groups are matched by name
 * (case-insensitively): the API cannot rename either. A user deleted and re-created under the
 * same name (another id) may be another person: it is given neither the saved account's fields
 * (its permission) nor its groups, and is listed as not restorable instead. Nothing is
 * created or deleted: a deleted user cannot be re-created with its password, a deleted group not
 * with its id, and this API release cannot update or delete a group; those are listed instead.
 * The members of an `observed` group are left alone.
 */
export function planAccountRestore(saved: SavedAccounts, live: SavedAccounts, observed: ObservedGroups = NO_OBSERVED_GROUPS): AccountRestorePlan {
  const liveUsers = new Map(live.users.map((u) => [accountKey(u.username), u]));
  const savedUsers = new Set(saved.users.map((u) => accountKey(u.username)));
  const liveGroups = new Map(live.groups.map((g) => [accountKey(g.name), g]));
  const savedGroups = new Set(saved.groups.map((g) => accountKey(g.name)));
  const patches: UserPatch[] = [];
  const memberships: MembershipWork[] = [];
  const notRestorable: string[] = [];
  const leftAlone: string[] = [];
  const warnings: string[] = [];
  const recreated = new Set<string>();

  for (const user of saved.users) {
    const now = liveUsers.get(accountKey(user.username));
    if (!now) {
      notRestorable.push(`user ${user.username} no longer exists: passwords cannot be restored: re-create ${user.username} by hand or through a User manifest`);
      continue;
    }
    if (now.id !== user.id) {
      recreated.add(accountKey(user.username));
      notRestorable.push(
        `user ${user.username} was deleted and re-created since the snapshot (id ${user.id}, now ${now.id}): another account may have the name, so it gets neither the saved fields nor the saved groups; set them by hand or through a User manifest`,
      );
      continue;
    }
    const body: Partial<Record<RestorableUserField, string>> = {};
    for (const f of RESTORABLE_USER_FIELDS) {
      const value = user[f];
      if (value !== undefined && now[f] !== value) body[f] = value;
    }
    if (Object.keys(body).length > 0) patches.push({ userId: now.id, username: now.username, body });
  }
  for (const user of live.users) {
    if (!savedUsers.has(accountKey(user.username)))
      leftAlone.push(`user ${user.username} was created since the snapshot: left alone (a restore deletes no user)`);
  }

  for (const group of saved.groups) {
    const now = liveGroups.get(accountKey(group.name));
    if (!now) {
      notRestorable.push(`group ${group.name} no longer exists: a group cannot be re-created with its id; re-create it by hand or through a Group manifest`);
      continue;
    }
    if (now.id !== group.id)
      warnings.push(`group ${group.name} was deleted and re-created since the snapshot (id ${group.id}, now ${now.id}): matched by name`);
    if ((now.description ?? '') !== (group.description ?? '')) {
      notRestorable.push(
        `group ${group.name}: description ${JSON.stringify(group.description ?? '')} cannot be put back (now ${JSON.stringify(now.description ?? '')}): this API release cannot update a group`,
      );
    }
    const observedAt = 'unknown' in observed ? undefined : observed.byName.get(accountKey(group.name));
    if ('unknown' in observed || observedAt !== undefined) {
      leftAlone.push(
        `group ${group.name}: members left alone: ${'unknown' in observed ? observed.unknown : `git only observes them (spec.manage: observe at ${observedAt})`}`,
      );
      continue;
    }
    if (group.members === null || now.members === null) {
      leftAlone.push(`group ${group.name}: members ${group.members === null ? 'were not read when the snapshot was taken' : 'cannot be read now'}: left alone`);
      continue;
    }
    const liveMembers = new Set(now.members.map((m) => accountKey(m.username)));
    const savedMembers = new Set(group.members.map((m) => accountKey(m.username)));
    const add: SavedMember[] = [];
    for (const member of group.members) {
      if (liveMembers.has(accountKey(member.username))) continue;
      const user = liveUsers.get(accountKey(member.username));
      if (user && recreated.has(accountKey(member.username)))
        notRestorable.push(`${member.username} not put back in group ${group.name}: the user was re-created since the snapshot`);
      else if (user) add.push({ id: user.id, username: user.username });
      else notRestorable.push(`${member.username} not put back in group ${group.name}: the user no longer exists`);
    }
    const remove = now.members.filter((m) => !savedMembers.has(accountKey(m.username)));
    if (add.length + remove.length > 0) memberships.push({ groupId: now.id, group: now.name, add, remove });
  }
  for (const group of live.groups) {
    if (!savedGroups.has(accountKey(group.name))) {
      leftAlone.push(`group ${group.name} was created since the snapshot: left alone (this API release cannot delete a group)`);
    }
  }
  return { patches, memberships, notRestorable, leftAlone, warnings };
}

/** The writes an {@link AccountRestorePlan} needs, counted. */
export function countAccountWork(plan: AccountRestorePlan): { usersPatched: number; membersAdded: number; membersRemoved: number } {
  return {
    usersPatched: plan.patches.length,
    membersAdded: plan.memberships.reduce((n, m) => n + m.add.length, 0),
    membersRemoved: plan.memberships.reduce((n, m) => n + m.remove.length, 0),
  };
}

/**
 * Carry out a plan through `target`, one write at a time; a refused write is recorded and the
 * others go on (as a folder that cannot be restored does not stop the next). Without a target,
 * nothing is written and the outcome is `notWritten`.
 */
export async function writeAccountRestore(plan: AccountRestorePlan, target: AccountRestoreTarget | undefined): Promise<AccountsRestore> {
  const said = { notRestorable: plan.notRestorable, leftAlone: plan.leftAlone, warnings: plan.warnings };
  const work = countAccountWork(plan);
  if (work.usersPatched + work.membersAdded + work.membersRemoved === 0) return { outcome: 'unchanged', ...work, ...said, errors: [] };
  if (!target) return { outcome: 'notWritten', ...work, ...said, errors: [] };
  const errors: string[] = [];
  const done = { usersPatched: 0, membersAdded: 0, membersRemoved: 0 };
  const attempt = async (what: string, write: () => Promise<unknown>): Promise<boolean> => {
    try {
      await write();
      return true;
    } catch (err) {
      if (!isMftopsError(err)) throw err;
      errors.push(`${what}: ${err.message}`);
      return false;
    }
  };
  for (const p of plan.patches) {
    if (await attempt(`user ${p.username}: ${Object.keys(p.body).join(', ')} not put back`, () => target.patchUser(p.userId, { ...p.body })))
      done.usersPatched++;
  }
  for (const m of plan.memberships) {
    if (m.add.length > 0) {
      const names = m.add.map((u) => u.username).join(', ');
      if (
        await attempt(`group ${m.group}: ${names} not added`, () =>
          target.addGroupMembers(
            m.groupId,
            m.add.map((u) => u.id),
          ),
        )
      )
        done.membersAdded += m.add.length;
    }
    for (const u of m.remove) {
      if (await attempt(`group ${m.group}: ${u.username} not removed`, () => target.removeGroupMember(m.groupId, u.id))) done.membersRemoved++;
    }
  }
  return { outcome: errors.length > 0 ? 'failed' : 'restored', ...done, ...said, errors };
}

/** What is left to write after a restore, read back, as mismatches (empty when the accounts match the snapshot). */
export function accountMismatches(plan: AccountRestorePlan): string[] {
  return [
    ...plan.patches.map((p) => `user ${p.username} differs from the snapshot (${Object.keys(p.body).join(', ')})`),
    ...plan.memberships.flatMap((m) => [
      ...m.add.map((u) => `group ${m.group}: ${u.username} is not a member as in the snapshot`),
      ...m.remove.map((u) => `group ${m.group}: ${u.username} is a member the snapshot does not have`),
    ]),
  ];
}
