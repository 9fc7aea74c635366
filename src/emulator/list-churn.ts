import { userIdFor } from './seed.js';
import type { FolderAclEntry, TransferFolder, TransferState, TransferUser } from './state.js';
import { newTransferUser } from './state.js';

/**
 * Another client writing while mftops reads (register B-10): every `every`-th page request of a
 * churned list (each folder's ACL list, the user list; counted per list) first adds an entry at
 * the front of that list, `times` times per list, or for ever when `times` is undefined. A new
 * user `0-churn-N` (sorting before any letter) is created; on an ACL list it also gets an entry
 * (read-only) in that folder. The added entries stay: a re-read sees them and can be consistent.
 */
export interface ListChurn {
  readonly every: number;
  readonly times: number | undefined;
  /** Page requests seen and entries added, by list (`acls:FOLDERID`, `users`). */
  readonly lists: Map<string, { requests: number; added: number }>;
}

/** A `ListChurn` from its options; `every` must be a positive integer, `times` 0 or more. */
export function createListChurn(every: number, times: number | undefined): ListChurn {
  return { every, times, lists: new Map() };
}

/** Counts a page request of `list` and adds an entry when its turn has come; true when one was added. */
function due(churn: ListChurn, list: string): boolean {
  const count = churn.lists.get(list) ?? { requests: 0, added: 0 };
  churn.lists.set(list, count);
  count.requests++;
  if (count.requests % churn.every !== 0) return false;
  if (churn.times !== undefined && count.added >= churn.times) return false;
  count.added++;
  return true;
}

function addChurnUser(t: TransferState): TransferUser {
  const n = t.users.filter((u) => u.username.startsWith('0-churn-')).length + 1;
  const username = `0-churn-${n}`;
  const user = newTransferUser({ id: userIdFor(username), username, password: `churn-${n}`, fullName: `0 churn ${n}` });
  t.users.unshift(user);
  return user;
}

/** Before a page of the user list is answered. */
export function churnUsers(churn: ListChurn | undefined, t: TransferState): void {
  if (churn && due(churn, 'users')) addChurnUser(t);
}

/** Before a page of `folder`'s ACL list is answered; `readOnly` are the permissions the entry gets. */
export function churnAcl(churn: ListChurn | undefined, t: TransferState, folder: TransferFolder, readOnly: FolderAclEntry['permissions']): void {
  if (!churn || !due(churn, `acls:${folder.id}`)) return;
  const user = addChurnUser(t);
  folder.acl.unshift({ type: 'User', id: user.id, permissions: readOnly, isEditable: true, isDeletable: true });
}
