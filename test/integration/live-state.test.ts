import { afterEach, describe, expect, it, vi } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import type { AutomationClient, TransferClient } from '../../src/services/index.js';
import { SEED_LOGINS, automationClientFor, startSeededEmulator, transferClientFor } from './helpers.js';
import { advanceClock, readServerTime } from '../helpers/emulator-test-api.js';

/**
 * Everything of the example estate that mftops manages or refers to, read through the clients.
 * Folders are walked from the root so every folder and every ACL list is read.
 */
async function readEverything(a: AutomationClient, t: TransferClient): Promise<Record<string, unknown>> {
  const [info, tasks, hosts, custom, standard, dateLists, params, groups, acls] = await Promise.all([
    a.info(),
    a.listTasks(),
    a.listHosts(),
    a.listCustomScripts(),
    a.listStandardScripts(),
    a.listDateLists(),
    a.listGlobalParameters(),
    a.listResourceGroups(),
    a.listResourceGroupAcls(),
  ]);
  const [users, tgroups, root] = await Promise.all([t.listUsers(), t.listGroups(), t.findFolderByPath('/')]);
  const folders: Record<string, unknown> = {};
  const queue = [root!];
  while (queue.length > 0) {
    const batch = queue.splice(0);
    await Promise.all(
      batch.map(async (f) => {
        const [subs, entries] = await Promise.all([t.listSubfolders(f.id), t.listFolderAcls(f.id)]);
        folders[f.path] = { id: f.id, entries };
        queue.push(...subs);
      }),
    );
  }
  return { info, tasks, hosts, custom, standard, dateLists, params, groups, acls, users, tgroups, folders };
}

let running: RunningEmulator[] = [];
let clients: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  vi.useRealTimers();
  await Promise.all(clients.map((c) => c.close()));
  await Promise.all(running.map((e) => e.close()));
  running = [];
  clients = [];
});

async function seeded(profile: 'current' | 'legacy', accessTtlSeconds?: number) {
  const emulator = await startSeededEmulator({ profile, ...(accessTtlSeconds ? { accessTtlSeconds } : {}) });
  const a = automationClientFor(emulator);
  const t = transferClientFor(emulator);
  running.push(emulator);
  clients.push(a, t);
  return { emulator, a, t };
}

describe('reading the live state of the example estate', () => {
  it('reads the same state from the legacy wire variants as from the current ones', async () => {
    const current = await seeded('current');
    const legacy = await seeded('legacy');
    const fromCurrent = await readEverything(current.a, current.t);
    const fromLegacy = await readEverything(legacy.a, legacy.t);
    // The legacy server names the transfer-server host type xferLock; the client keeps what the
    // server sent, so only that differs.
    // The legacy Parameters shape ({Parameter: [{Name, value}]}) has no DisplayValue for plain
    // values, and the legacy server reports its own version: those differ by design. So does
    // `lastLoginStamp`: the time each server's users (mftops' own account) last signed on.
    const comparable = (state: Record<string, unknown>, legacyHost: boolean): unknown =>
      JSON.parse(
        JSON.stringify({ ...state, info: undefined }, (key, value: unknown) =>
          (key === 'DisplayValue' && value !== '(suppressed)') || key === 'lastLoginStamp' ? undefined : value,
        ).replaceAll(legacyHost ? '"xferLock"' : '"\u0000"', '"siLock"'),
      );
    expect(comparable(fromLegacy, true)).toEqual(comparable(fromCurrent, false));
    // And the legacy server really used its variants: the /webadmin base path was probed.
    expect(legacy.emulator.requestLog().some((r) => r.path.startsWith('/automation/webadmin/api/v1/'))).toBe(true);
  });

  it('takes a known, small number of requests for the whole estate', async () => {
    const { emulator, a, t } = await seeded('current');
    await readEverything(a, t);
    await a.close();
    await t.close();
    const log = emulator.requestLog();
    const tokenCalls = log.filter((r) => r.isTokenCall).length;
    const folders = log.filter((r) => /\/folders\/[^/]+\/acls$/.test(r.path)).length;
    // 9 automation lists + 3 transfer reads + 2 per folder (subfolders and ACLs); 2 sign-ins, 4 revokes.
    expect(log.length - tokenCalls).toBe(9 + 3 + 2 * folders);
    expect(tokenCalls).toBe(2 + 4);
    expect(log.every((r) => r.method === 'GET' || r.isTokenCall)).toBe(true);
    process.stdout.write(`whole seed read: ${log.length} requests (${tokenCalls} token calls, ${folders} folders)\n`);
  });

  it('keeps working through many access-token expiries (2 s lifetime, 5 s of calls), by refreshing', async () => {
    // The emulator's clock, for the server and the clients: 50 rounds of calls 100 ms apart, moved
    // forward instead of waited for. `Date` stands still, so real time (long on a loaded machine)
    // never ages a token between the client's check and the server's.
    vi.useFakeTimers({ toFake: ['Date'] });
    const emulator = await startSeededEmulator({ profile: 'current', accessTtlSeconds: 2 });
    running.push(emulator);
    const now = () => readServerTime(emulator);
    const a = automationClientFor(emulator, SEED_LOGINS.automationAdmin, { now });
    const t = transferClientFor(emulator, { now });
    clients.push(a, t);
    let calls = 0;
    for (let round = 0; round < 50; round++) {
      await Promise.all([a.listTasks({ fields: ['ID'] }), t.currentUser()]);
      calls++;
      advanceClock(emulator, 100);
    }
    expect(calls).toBe(50);
    const log = emulator.requestLog();
    expect(log.filter((r) => r.status === 401)).toEqual([]);
    // Two password grants (one per service), the rest refresh grants.
    expect(a.tokenRequestCount + t.tokenRequestCount).toBeGreaterThanOrEqual(2 + 4);
  });
});
