import { afterEach, describe, expect, it } from 'vitest';
import type { EmulatorOptions, RunningEmulator } from '../../src/emulator/index.js';
import { addTransferUser, readTransferUsers } from '../helpers/emulator-test-api.js';
import { XFER_ADMIN, login, transferBase, withEmulator } from './helpers.js';

let emu: RunningEmulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

async function start(options: EmulatorOptions) {
  emu = await withEmulator(options);
  return login(transferBase(emu), XFER_ADMIN);
}

/** 150 users more than the seed's, so the user list has two pages of 100. */
function addUsers(e: RunningEmulator): void {
  for (let i = 0; i < 150; i++) {
    addTransferUser(e, {
      id: `u${i}`,
      username: `user-${String(i).padStart(3, '0')}`,
      password: 'x',
      fullName: 'x',
      email: 'x@example.com',
      permission: 'User',
      status: 'Active',
      orgID: 0,
      homeFolderID: 0,
    });
  }
}

describe('transfer.maxPerPage (register B-9)', () => {
  it('rule 139: capped serves at most 100 a page and says so; echo serves 100 and reports the perPage asked', async () => {
    const capped = await start({ variants: { 'transfer.maxPerPage': 'capped' } });
    addUsers(emu!);
    const total = readTransferUsers(emu!).length;
    const page2 = await capped.get('/users?page=2&perPage=1000');
    expect(page2.body.items).toHaveLength(total - 100);
    expect(page2.body.paging).toEqual({ page: 2, perPage: 100, totalItems: total, totalPages: 2 });
    await emu!.close();

    const echo = await start({ variants: { 'transfer.maxPerPage': 'echo', 'transfer.envelope': 'flat' } });
    addUsers(emu!);
    const first = await echo.get('/users?page=1&perPage=1000');
    expect(first.body.items).toHaveLength(100);
    expect(first.body).toMatchObject({ currentPage: 1, itemsPerPage: 1000, totalItems: total });
    // Page 2 starts after the 100 served, whatever size is asked.
    const second = await echo.get('/users?page=2&perPage=1000');
    const names = [...first.body.items, ...second.body.items].map((u: { username: string }) => u.username);
    expect(new Set(names).size).toBe(total);
  });
});

describe('listChurn (register B-10)', () => {
  it('rule 140: every 2nd page request of a list adds an entry at its front, `times` times per list', async () => {
    const api = await start({ listChurn: { every: 2, times: 1 } });
    const folder = (await api.get('/folders?path=/Distribution/Acme/Outbound')).body.items[0];
    const acl = async () => ((await api.get(`/folders/${folder.id}/acls`)).body.items as { name: string }[]).map((e) => e.name);
    const before = await acl();
    const during = await acl();
    expect(during).toEqual(['0-churn-1', ...before]);
    expect(await acl()).toEqual(during);
    expect(await acl()).toEqual(during); // `times: 1`: the 4th request adds nothing
    // The user list is counted on its own: its 2nd request adds one (the ACL's user is there already).
    const users = async () => ((await api.get('/users')).body.items as { username: string }[]).map((u) => u.username);
    expect((await users()).filter((n) => n.startsWith('0-churn-'))).toEqual(['0-churn-1']);
    expect((await users()).filter((n) => n.startsWith('0-churn-'))).toEqual(['0-churn-1', '0-churn-2']);
  });

  it('without `times` it never settles, and bad options are refused', async () => {
    const api = await start({ listChurn: { every: 1 } });
    const sizes: number[] = [];
    for (let i = 0; i < 3; i++) sizes.push((await api.get('/users')).body.paging.totalItems as number);
    expect(sizes[1]! - sizes[0]!).toBe(1);
    expect(sizes[2]! - sizes[1]!).toBe(1);
    await expect(withEmulator({ listChurn: { every: 0 } })).rejects.toThrow('emulator: list churn: every must be a positive integer, not 0');
  });
});
