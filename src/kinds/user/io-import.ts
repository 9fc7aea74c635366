import { mapWithConcurrency } from '../../map-with-concurrency.js';
import type { ImportReadContext } from '../kind-io.js';
import { importReader } from '../kind-io.js';
import type { UserImportPart } from './import.js';
import { selectUsers } from './import.js';

/** The users the selection names, and the details of each (one `GET /users/{id}` per user, `parallelism` at once). */
export async function readUsersForImport(context: ImportReadContext): Promise<UserImportPart> {
  const transfer = importReader(context.transfer, 'users', 'transfer');
  const users = selectUsers({ users: await transfer.listUsers() }, context.selection);
  const details = await mapWithConcurrency(users, context.parallelism ?? 10, (u) => transfer.getUser(u.id));
  return { users, userDetails: new Map(users.map((u, i) => [u.id, details[i]!])) };
}
