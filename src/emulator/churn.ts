import type { EmulatorState, TransferUser } from './state.js';
import { newTransferUser } from './state.js';
import { userIdFor } from './seed.js';

/**
 * List churn (fault `list-churn`): another client creates a transfer user while a paged read of
 * `/users` is between its pages. The name sorts before every seeded one, so each later page starts
 * one item further back: the last user of the page just read is answered again, as a real server
 * answers a list that grew under an offset-paged reader. Returns the user added.
 */
export function addChurnUser(state: EmulatorState): TransferUser {
  const t = state.transfer;
  let n = t.users.length;
  while (t.users.some((u) => u.username === `000-churn-${n}`)) n++;
  const username = `000-churn-${n}`;
  const model = t.users[0];
  const user = newTransferUser({
    id: userIdFor(username),
    username,
    password: `churn-${n}-Pa55!`,
    fullName: `Churn ${n}`,
    email: `${username}@example.test`,
    permission: 'User',
    status: model?.status ?? 'Active',
    orgID: model?.orgID ?? 0,
  });
  t.users.push(user);
  return user;
}

/** Whether a request reads a later page of a list that churn may grow (`GET /users?page=N`, N ≥ 2). */
export function readsLaterPage(service: 'automation' | 'transfer' | 'other', method: string, sub: string, query: URLSearchParams): boolean {
  if (service !== 'transfer' || method !== 'GET' || sub !== '/users') return false;
  const page = Number(query.get('page') ?? '1');
  return Number.isInteger(page) && page >= 2;
}
