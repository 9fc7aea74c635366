import { afterEach, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import type { TransferClient } from '../../src/services/index.js';
import { startSeededEmulator, transferClientFor } from './helpers.js';

/** Group members through the transfer client, in every form the emulator serves (T-16). */
let emulator: RunningEmulator | undefined;
let client: TransferClient | undefined;
afterEach(async () => {
  await client?.close();
  await emulator?.close();
  client = undefined;
  emulator = undefined;
});

async function membersOf(form: 'members' | 'userField' | 'usersFilter' | 'none', groupNames: readonly string[]) {
  emulator = await startSeededEmulator({ variants: { 'transfer.groupMembers': form } });
  client = transferClientFor(emulator);
  const [users, groups] = await Promise.all([client.listUsers(), client.listGroups()]);
  const wanted = groups.filter((g) => groupNames.includes(g.name));
  const before = client.requestCount;
  const membership = await client.listGroupMembers(wanted.map((g) => g.id));
  const names = new Map<string, string[] | undefined>();
  for (const g of wanted)
    names.set(
      g.name,
      membership.members
        .get(g.id)
        ?.map((id) => users.find((u) => u.id === id)!.username)
        .sort(),
    );
  return { form: membership.form, names, requests: client.requestCount - before };
}

describe('group members (T-16)', () => {
  it.each(['members', 'userField', 'usersFilter'] as const)('reads the members of each group a server lists with %s', async (form) => {
    const r = await membersOf(form, ['Acme Partners', 'Finance Team']);
    expect(r.form).toBe(form);
    expect(r.names.get('Acme Partners')).toEqual(['acme-svc', 'bob']);
    expect(r.names.get('Finance Team')).toEqual(['alice', 'carol']);
  });

  it('reads the user field with no request beyond the user and group lists, the other forms with one request per group', async () => {
    expect((await membersOf('userField', ['Acme Partners', 'Finance Team'])).requests).toBe(0);
    await client!.close();
    await emulator!.close();
    expect((await membersOf('members', ['Acme Partners', 'Finance Team'])).requests).toBe(2);
  });

  it('answers no members, without failing, from a server that lists them in no form (the ignored groupId filter is not taken for membership)', async () => {
    const r = await membersOf('none', ['Acme Partners']);
    expect(r.form).toBe('none');
    expect(r.names.get('Acme Partners')).toBeUndefined();
  });
});
