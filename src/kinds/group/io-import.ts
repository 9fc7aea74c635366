import type { ImportReadContext } from '../kind-io.js';
import { importReader } from '../kind-io.js';
import type { GroupImportPart } from './import.js';

/** Every group with its members' usernames, in whichever form the server tells them (T-16). */
export async function readGroupsForImport(context: ImportReadContext): Promise<GroupImportPart> {
  const transfer = importReader(context.transfer, 'groups', 'transfer');
  const [users, groups] = await Promise.all([transfer.listUsers(), transfer.listGroups()]);
  const membership = groups.length > 0 ? await transfer.listGroupMembers(groups.map((g) => g.id)) : undefined;
  const username = new Map(users.map((u) => [u.id, u.username]));
  return {
    groups: groups.map((group) => {
      const ids = membership?.members.get(group.id);
      return { group, members: ids?.flatMap((id) => username.get(id) ?? []) };
    }),
  };
}
