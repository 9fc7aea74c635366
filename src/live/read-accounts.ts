import { ApiError } from '../services/errors.js';
import type { AutomationReader, TransferReader } from './read-live-state.js';
import type { AccountsLiveState, AccountsRead, LiveState } from './model.js';

/** Statuses that mean "this account may not, or this server cannot, answer the list": reported, never a failed run. */
const NOT_READABLE = [401, 403, 404, 405, 501];

/**
 * The accounts the guard on privileged accounts judges, read only (GETs): every transfer user
 * (the client's cached list, so no second request when the plan read it already) and the members
 * of the automation user group `adminGroup` (found case-insensitively in `GET /usergroups`, which
 * only an administrator may read). A list the account may not read is data, not an error.
 */
export async function readAccounts(
  clients: { readonly automation?: AutomationReader; readonly transfer?: TransferReader },
  adminGroup: string,
  live?: LiveState,
): Promise<AccountsLiveState> {
  // The plan's read of the user groups, when it made one that holds the group, answers for a second.
  const known = live?.automation?.userGroupMembers?.members.get(adminGroup.toLowerCase());
  const [transfer, automation] = await Promise.all([
    clients.transfer ? readOrSay(() => clients.transfer!.listUsers(), 'the account may not list transfer users') : undefined,
    known !== undefined
      ? ({ state: 'read', value: { group: adminGroup, members: known } } as const)
      : clients.automation
        ? readAdministrators(clients.automation, adminGroup)
        : undefined,
  ]);
  return { ...(transfer ? { transfer } : {}), ...(automation ? { automation } : {}) };
}

async function readAdministrators(client: AutomationReader, adminGroup: string): Promise<NonNullable<AccountsLiveState['automation']>> {
  const groups = await readOrSay(() => client.listUserGroups(), 'the account may not read the user groups (an administrator may)');
  if (groups.state === 'unreadable') return groups;
  const group = groups.value.find((g) => g.name === adminGroup) ?? groups.value.find((g) => g.name.toLowerCase() === adminGroup.toLowerCase());
  if (group === undefined) return { state: 'unreadable', message: `the automation server has no user group named ${adminGroup}` };
  if (group.members === undefined) return { state: 'unreadable', message: `the automation server does not list the members of ${group.name}` };
  return { state: 'read', value: { group: group.name, members: group.members } };
}

async function readOrSay<T>(read: () => Promise<T>, refused: string): Promise<AccountsRead<T>> {
  try {
    return { state: 'read', value: await read() };
  } catch (err) {
    if (!(err instanceof ApiError) || !NOT_READABLE.includes(err.status)) throw err;
    return { state: 'unreadable', httpStatus: err.status, message: `${refused}: ${err.status}` };
  }
}
