import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { CreatedIds } from '../../src/kinds/created-ids.js';
import { USER_IO } from '../../src/kinds/user/io.js';
import { toReadonlyTransferClient } from '../../src/services/transfer/client.js';
import type { TransferClient } from '../../src/services/transfer/client.js';
import { readTransferUser, startSeededEmulator } from '../helpers/emulator-test-api.js';
import { transferClientFor } from './helpers.js';

/* The transfer client's user calls and the User kind's re-reads against the emulator, in both spellings of the full name (T-12). */

describe.each(['fullName', 'realname'] as const)('transfer users, full name as %s', (form) => {
  let emulator: RunningEmulator;
  let client: TransferClient;
  beforeAll(async () => {
    emulator = await startSeededEmulator({ variants: { 'transfer.userName': form } });
    client = transferClientFor(emulator);
  });
  afterAll(async () => {
    await client.close();
    await emulator.close();
  });

  it('creates, reads, patches and deletes a user; every read gives fullName and no password', async () => {
    const created = await client.createUser({
      username: 'dana',
      fullName: 'Dana Ruiz',
      password: 'dana-Initial-Pa55',
      permission: 'User',
      forceChangePassword: true,
    });
    expect(created).toMatchObject({ username: 'dana', fullName: 'Dana Ruiz', permission: 'User', forceChangePassword: true });
    expect(readTransferUser(emulator, 'dana')?.password).toBe('dana-Initial-Pa55');
    const details = await client.getUser(created.id);
    expect(details).toMatchObject({ id: created.id, fullName: 'Dana Ruiz', folderQuota: 0, authMethod: 'MOVEitOnly' });
    expect(Object.keys(details)).not.toContain('password');
    expect((await client.listUsers()).find((u) => u.username === 'dana')?.fullName).toBe('Dana Ruiz');

    const patched = await client.patchUser(created.id, { status: 'Suspended', fullName: 'Dana R.' });
    expect(patched).toMatchObject({ status: 'Suspended', fullName: 'Dana R.' });
    expect((await client.findUser('DANA'))?.id).toBe(created.id);

    await client.deleteUser(created.id);
    expect(await client.findUser('dana')).toBeNull();
  });

  it('confirms a user write by reading the user back by username and id (after an unknown outcome, and in verification)', async () => {
    const ctx = { clients: { transfer: client }, created: new CreatedIds() };
    const address = 'User/erin';
    const create = { op: 'user-create', address, username: 'erin', body: { username: 'erin', fullName: 'Erin', password: 'erin-Pa55-value' } } as const;
    // Not created yet: send it.
    expect(await USER_IO.confirmStep(create, ctx)).toEqual({ kind: 'resend', step: create });
    const ids = await USER_IO.sendStep(create, ctx);
    ctx.created.record(address, ids.user!);
    expect(await USER_IO.confirmStep(create, ctx)).toEqual({ kind: 'done', ids });
    const patch = { op: 'user-patch', address, username: 'erin', body: { notes: 'contractor' } } as const;
    expect((await USER_IO.confirmStep(patch, ctx)).kind).toBe('resend');
    await USER_IO.sendStep(patch, ctx);
    expect(await USER_IO.confirmStep(patch, ctx)).toEqual({ kind: 'done', ids });
    // A password cannot be read back: after an unknown outcome it is sent again.
    const rotate = { op: 'user-patch', address, username: 'erin', body: { password: 'erin-New-Pa55' } } as const;
    expect((await USER_IO.confirmStep(rotate, ctx)).kind).toBe('resend');
    const remove = { op: 'user-delete', address, username: 'erin', id: ids.user! } as const;
    expect((await USER_IO.confirmStep(remove, ctx)).kind).toBe('resend');
    await USER_IO.sendStep(remove, ctx);
    expect(await USER_IO.confirmStep(remove, ctx)).toEqual({ kind: 'done', ids });
    expect(await USER_IO.confirmStep(patch, ctx)).toMatchObject({ kind: 'fail' });
  });

  it('finishes a create whose outcome was unknown: the account found gets the fields the server left out, by its id; a name differing only in case is no match', async () => {
    const ctx = { clients: { transfer: client }, created: new CreatedIds() };
    const address = 'User/finn';
    const create = { op: 'user-create', address, username: 'finn', body: { username: 'finn', fullName: 'Finn Example', password: 'finn-Pa55-value' } } as const;
    // The POST took effect but its answer was lost, and the server kept another full name.
    await client.createUser({ username: 'finn', fullName: 'finn example', password: 'finn-Pa55-value' });
    const confirmed = await USER_IO.confirmStep(create, ctx);
    // The full name is text: "finn example" is not "Finn Example".
    expect(confirmed).toMatchObject({ kind: 'resend', step: { op: 'user-patch', address, body: { fullName: 'Finn Example' } } });
    if (confirmed.kind !== 'resend') throw new Error('expected a resend');
    // No id was recorded by hand: the confirmation recorded the one it found.
    const ids = await USER_IO.sendStep(confirmed.step, ctx);
    expect((await client.findUser('finn'))?.fullName).toBe('Finn Example');
    expect(await USER_IO.confirmStep(confirmed.step, ctx)).toEqual({ kind: 'done', ids });
  });

  it('gives plan and drift no way to write a user: the read-only client has only getUser', () => {
    const readonly = toReadonlyTransferClient(client) as unknown as Record<string, unknown>;
    expect(typeof readonly.getUser).toBe('function');
    for (const write of ['createUser', 'patchUser', 'deleteUser']) expect(readonly[write]).toBeUndefined();
  });
});
