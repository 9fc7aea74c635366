import { isRecord } from '../is-record.js';
import { compareText } from '../order.js';
import { ApiError } from '../services/errors.js';
import type { TransferClient, TransferGroup, TransferUser } from '../services/index.js';
import { withDefined } from '../with-defined.js';
import { SNAPSHOT_FORMAT_VERSION, type SavedAccounts, type SavedGroup, type SavedMember, type SavedUser } from './model.js';

/** What reading the accounts needs of the transfer client (the read-only view has it). */
export type AccountsSource = Pick<TransferClient, 'listUsers' | 'listGroups' | 'listGroupMembers'>;

/** The SimpleUserModel fields a snapshot keeps, besides `id` and `username`: an allow-list, so that no other field (a password) is ever saved. */
const USER_FIELDS = ['fullName', 'permission', 'email', 'status', 'lastLoginStamp'] as const;

/**
 * Every transfer user, group and membership; `fresh` reads the lists again instead of the client's
 * (restore, after its writes). A save takes the client's: apply's stale check has just read them afresh. A users or groups list the account may not read (403, 404) is
 * an answer, not an error: `{ notRead }` says why, and the snapshot is saved without accounts.
 */
export async function readLiveAccounts(
  source: AccountsSource,
  options: { readonly fresh?: boolean } = {},
): Promise<SavedAccounts | { readonly notRead: string }> {
  let users: TransferUser[];
  let groups: TransferGroup[];
  try {
    [users, groups] = await Promise.all([source.listUsers({ fresh: options.fresh === true }), source.listGroups({ fresh: options.fresh === true })]);
  } catch (err) {
    if (err instanceof ApiError && [403, 404].includes(err.status)) return { notRead: `the transfer account cannot list users and groups (${err.message})` };
    throw err;
  }
  const membership = await source.listGroupMembers(groups.map((g) => g.id));
  const byId = new Map(users.map((u) => [u.id, u.username]));
  return {
    formatVersion: SNAPSHOT_FORMAT_VERSION,
    membersForm: membership.form,
    users: users.map(toSavedUser).sort((a, b) => compareText(a.username.toLowerCase(), b.username.toLowerCase())),
    groups: groups
      .map((g): SavedGroup => {
        const ids = membership.members.get(g.id);
        const members = ids
          ?.map((id): SavedMember => ({ id, username: byId.get(id) ?? id }))
          .sort((a, b) => compareText(a.username.toLowerCase(), b.username.toLowerCase()));
        return {
          id: g.id,
          name: g.name,
          ...withDefined({ description: typeof g.description === 'string' ? g.description : undefined }),
          members: members ?? null,
        };
      })
      .sort((a, b) => compareText(a.name.toLowerCase(), b.name.toLowerCase())),
  };
}

function toSavedUser(u: TransferUser): SavedUser {
  const fields: Record<string, string> = {};
  for (const f of USER_FIELDS) {
    const v = u[f];
    if (typeof v === 'string') fields[f] = v;
  }
  return { id: u.id, username: u.username, ...fields };
}

/** `transfer-accounts.json` parsed and checked, or what is wrong with it. */
export function parseSavedAccounts(bytes: Buffer): SavedAccounts | string {
  let raw: unknown;
  try {
    raw = JSON.parse(bytes.toString('utf8'));
  } catch {
    return 'not valid JSON';
  }
  if (!isRecord(raw) || !Array.isArray(raw.users) || !Array.isArray(raw.groups) || typeof raw.membersForm !== 'string') {
    return 'expected an object with "membersForm", "users" and "groups"';
  }
  for (const [i, u] of raw.users.entries()) {
    if (!isRecord(u) || typeof u.id !== 'string' || typeof u.username !== 'string') return `users[${i}] must have id and username`;
  }
  for (const [i, g] of raw.groups.entries()) {
    if (!isRecord(g) || typeof g.id !== 'string' || typeof g.name !== 'string' || !(g.members === null || Array.isArray(g.members))) {
      return `groups[${i}] must have id, name and members`;
    }
    for (const m of (g.members as unknown[] | null) ?? []) {
      if (!isRecord(m) || typeof m.id !== 'string' || typeof m.username !== 'string') return `groups[${i}] (${g.name}) has a member without id and username`;
    }
  }
  return raw as unknown as SavedAccounts;
}
