import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { executeChanges } from '../../src/apply/execute.js';
import type { ExecuteInput } from '../../src/apply/execute.js';
import { memoryLedger } from '../../src/apply/ledger.js';
import type { AutomationWriter, TransferWriter, WriteClients } from '../../src/apply/operations.js';
import { checkExecutionOrder, scheduleChanges } from '../../src/plan/execution-order.js';
import type { Change } from '../../src/plan/model.js';
import { ApiError, NetworkError } from '../../src/services/errors.js';
import type { Folder } from '../../src/services/transfer/types.js';
import { startHarness } from '../plan/helpers.js';
import type { Harness } from '../plan/helpers.js';
import { advanceClock, listWrites, readFolder, readFolders } from '../helpers/emulator-test-api.js';
import { change, entryFlags, resolvedSecrets, taskCreate, tasksNamed } from './helpers.js';

/**
 * The executor against the emulator, with faults injected around the real clients so that each
 * case is deterministic: `before` fails a write without sending it (a 503), `after` sends it and
 * then loses the answer (a reset after the write took effect).
 */
type Fault = 'before' | 'after';

function withFaults<T extends object>(client: T, faults: Partial<Record<keyof T, Fault[]>>): T {
  return new Proxy(client, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      if (typeof value !== 'function') return value;
      const queue = faults[prop as keyof T];
      return async (...args: unknown[]) => {
        const fault = queue?.shift();
        const label = { service: 'automation' as const, method: 'POST' as const, path: `/${String(prop)}` };
        if (fault === 'before') throw new ApiError({ ...label, status: 503, body: { title: 'Service Unavailable', fieldErrors: [] } });
        const result = await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
        if (fault === 'after') throw new NetworkError({ ...label, code: 'ECONNRESET', reason: 'connection reset', outcome: 'unknown' });
        return result;
      };
    },
  });
}

const noSleep = { sleep: async () => {}, random: () => 0 };

/**
 * What the fakes below do instead of sleeping: answer on the next turn of the event loop, once
 * every change the executor can start without waiting for an answer has started. Which calls
 * overlap is then fixed by the executor's rules, not by how long a timer took on a busy machine.
 */
const settle = () => new Promise((r) => setImmediate(r));

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(() => h.close());

/** The executor on these changes, in the order the planner gives them (as a plan carries it). */
function run(
  changes: readonly Change[],
  clients: WriteClients = { automation: h.automation, transfer: h.transfer },
  extra: Partial<ExecuteInput> = {},
  env: NodeJS.ProcessEnv = {},
) {
  const ledger = memoryLedger();
  const scheduled = scheduleChanges(changes);
  const done = executeChanges({
    changes: scheduled,
    clients,
    ledger,
    parallelism: 4,
    retry: noSleep,
    ...extra,
    secrets: extra.secrets ?? resolvedSecrets(scheduled, env),
  });
  return { ledger, done };
}

function writes(): string[] {
  return listWrites(h.emulator);
}

describe('a write whose outcome is unknown is re-read by identity before anything is sent again', () => {
  it('a task create that took effect is found by its name: one POST, one task', async () => {
    const automation = withFaults<AutomationWriter>(h.automation, { createTask: ['after'] });
    h.emulator.resetRequestLog();
    const { done } = run([taskCreate('Unknown outcome task')], { automation });
    const [result] = (await done).results;
    expect(result).toMatchObject({ status: 'ok', writes: 1, unknownOutcomes: 1, confirmedByReread: 1 });
    expect(tasksNamed(h.emulator, 'Unknown outcome task')).toHaveLength(1);
    expect(writes().filter((w) => w.startsWith('POST'))).toHaveLength(1);
    expect(result!.ids?.task).toBe(String(tasksNamed(h.emulator, 'Unknown outcome task')[0]!['ID']));
  });

  it('a task create that did not take effect is found missing and sent again: one task', async () => {
    const automation = withFaults<AutomationWriter>(h.automation, { createTask: ['before', 'before'] });
    const { done } = run([taskCreate('Retried task')], { automation });
    const out = await done;
    expect(out.results[0]).toMatchObject({ status: 'ok', writes: 3, unknownOutcomes: 2, confirmedByReread: 0 });
    expect(out.retriedAfterReread).toBe(2);
    expect(tasksNamed(h.emulator, 'Retried task')).toHaveLength(1);
  });

  it('ACL, folder and entry writes that took effect are confirmed, never repeated', async () => {
    const groups = await h.transfer.listGroups();
    const financeTeam = groups.find((g) => g.name === 'Finance Team')!;
    const payroll = (await h.transfer.findFolderByPath('/Finance/Payroll'))!;
    const carol = (await h.transfer.listFolderAcls(payroll.id)).find((e) => e.type === 'User')!;
    const acl = (await h.automation.listResourceGroupAcls({ resourceGroupName: 'Operations' }))[0]!;
    const automation = withFaults<AutomationWriter>(h.automation, { createResourceGroupAcl: ['after'], deleteResourceGroupAcl: ['after'] });
    const transfer = withFaults<TransferWriter>(h.transfer, { createSubfolder: ['after'], setFolderAcl: ['after', 'after'], deleteFolderAcl: ['after'] });
    const changes = [
      change({
        kind: 'FolderPermissions',
        name: '/Finance/Archive',
        action: 'create',
        payload: {
          kind: 'FolderPermissions',
          path: '/Finance/Archive',
          create: { parentPath: '/Finance', name: 'Archive', inheritPermissions: 'None' },
          set: [{ type: 'Group', id: financeTeam.id, name: 'Finance Team', permissions: entryFlags(['listFiles', 'readFiles']) }],
          remove: [],
        },
      }),
      change({
        kind: 'FolderPermissions',
        name: '/Finance/Payroll',
        action: 'update',
        liveId: payroll.id,
        payload: {
          kind: 'FolderPermissions',
          path: '/Finance/Payroll',
          set: [{ type: 'Group', id: financeTeam.id, name: 'Finance Team', permissions: entryFlags(['listFiles']) }],
          remove: [{ type: 'User', id: carol.id, name: 'carol' }],
        },
      }),
      change({
        kind: 'ResourceGroupAcl',
        name: 'finance-auditors',
        action: 'create',
        payload: { kind: 'ResourceGroupAcl', resourceGroup: 'Finance', userGroup: 'Auditors', permissions: { TaskRun: 1 } },
      }),
      change({ kind: 'ResourceGroupAcl', name: 'Operations/Auditors', action: 'delete', liveId: String(acl.ACLID) }),
    ];
    h.emulator.resetRequestLog();
    const out = await run(changes, { automation, transfer }).done;
    expect(out.results.map((r) => [r.address, r.status, r.unknownOutcomes, r.confirmedByReread])).toEqual([
      ['FolderPermissions/Finance/Archive', 'ok', 2, 2],
      ['FolderPermissions/Finance/Payroll', 'ok', 2, 2],
      ['ResourceGroupAcl/finance-auditors', 'ok', 1, 1],
      ['ResourceGroupAcl/Operations/Auditors', 'ok', 1, 1],
    ]);
    // One request per write, none repeated.
    expect(writes().sort()).toEqual(
      [
        'POST /transfer/api/v1/folders/' + (await h.transfer.findFolderByPath('/Finance'))!.id + '/subfolders',
        `PUT /transfer/api/v1/folders/${out.results[0]!.ids!.folder!}/acls`,
        `PUT /transfer/api/v1/folders/${payroll.id}/acls`,
        `DELETE /transfer/api/v1/folders/${payroll.id}/acls`,
        'POST /automation/api/v1/resourcegroups/acls',
        `DELETE /automation/api/v1/resourcegroups/acls/${acl.ACLID}`,
      ].sort(),
    );
    expect(readFolders(h.emulator, (f) => f.path === '/Finance/Archive')).toHaveLength(1);
    const archiveAcl = await h.transfer.listFolderAcls(out.results[0]!.ids!.folder!);
    expect(archiveAcl.map((e) => e.name)).toEqual(['Finance Team']);
  });

  it('a folder rename is re-read at its new path: one that took effect is done, one that did not is sent again; the entries follow', async () => {
    const acmeTeam = (await h.transfer.listGroups()).find((g) => g.name === 'Acme Partners')!;
    const rename = (from: string, name: string): Change => {
      const path = `${from.slice(0, from.lastIndexOf('/'))}/${name}`;
      const id = readFolder(h.emulator, from)!.id;
      const set = [{ type: 'Group' as const, id: acmeTeam.id, name: 'Acme Partners', permissions: entryFlags(['listFiles']) }];
      return change({
        kind: 'FolderPermissions',
        name: path,
        action: 'update',
        previousName: from,
        liveId: String(id),
        payload: { kind: 'FolderPermissions', path, rename: { from, name }, set, remove: [] },
      });
    };
    const transfer = withFaults<TransferWriter>(h.transfer, { renameFolder: ['after', 'before'] });
    h.emulator.resetRequestLog();
    const out = await run(
      [rename('/Distribution/Acme/Inbound', 'Incoming'), rename('/Distribution/Globex/Inbound', 'Incoming')],
      { transfer },
      { parallelism: 1 },
    ).done;
    expect(out.results.map((r) => [r.address, r.status, r.writes, r.unknownOutcomes, r.confirmedByReread])).toEqual([
      ['FolderPermissions/Distribution/Acme/Incoming', 'ok', 2, 1, 1],
      ['FolderPermissions/Distribution/Globex/Incoming', 'ok', 3, 1, 0],
    ]);
    const paths = readFolders(h.emulator).map((f) => f.path);
    expect(paths).toEqual(expect.arrayContaining(['/Distribution/Acme/Incoming', '/Distribution/Globex/Incoming']));
    expect(paths).not.toEqual(expect.arrayContaining(['/Distribution/Acme/Inbound']));
    expect(paths).not.toEqual(expect.arrayContaining(['/Distribution/Globex/Inbound']));
    const [acme, globex] = out.results.map((r) => r.ids!.folder!);
    expect(writes()).toEqual([
      `PATCH /transfer/api/v1/folders/${acme}`,
      `PUT /transfer/api/v1/folders/${acme}/acls`,
      `PATCH /transfer/api/v1/folders/${globex}`,
      `PUT /transfer/api/v1/folders/${globex}/acls`,
    ]);
  });

  it('waits a full-jitter backoff before each re-read and each resend, doubling up to maxDelayMs', async () => {
    const automation = withFaults<AutomationWriter>(h.automation, { createTask: ['before', 'before', 'before'] });
    const delays: number[] = [];
    const retry = { maxAttempts: 3, baseDelayMs: 1000, maxDelayMs: 1500, random: () => 0.5, sleep: async (ms: number) => void delays.push(ms) };
    const out = await run([taskCreate('Backed off')], { automation }, { retry }).done;
    expect(out.results[0]).toMatchObject({ status: 'failed', writes: 3 });
    // After send n: the re-read waits, then the resend waits, both half (random 0.5) of min(1500, 1000 * 2^(n-1)).
    expect(delays).toEqual([500, 500, 750, 750, 750]);
  });

  it('gives up after the configured number of sends, with the last error', async () => {
    const automation = withFaults<AutomationWriter>(h.automation, { createTask: ['before', 'before', 'before'] });
    const out = await run([taskCreate('Never created')], { automation }, { retry: { ...noSleep, maxAttempts: 3 } }).done;
    expect(out.results[0]).toMatchObject({ status: 'failed', writes: 3, unknownOutcomes: 3 });
    expect(out.results[0]!.error).toBe('automation: POST /createTask: 503 Service Unavailable (gave up after 3 attempts)');
    expect(tasksNamed(h.emulator, 'Never created')).toEqual([]);
  });
});

it('a token that expires mid-apply is refreshed by the session (401, refresh, same request again): nothing fails, nothing is duplicated', async () => {
  let calls = 0;
  const automation = new Proxy(h.automation, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      if (prop !== 'createTask' || typeof value !== 'function')
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      return async (...args: unknown[]) => {
        // Before the third create, ten minutes pass: the access token is now expired on the server.
        if (++calls === 3) advanceClock(h.emulator, 10 * 60 * 1000);
        return (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
      };
    },
  });
  h.emulator.resetRequestLog();
  const changes = Array.from({ length: 5 }, (_, i) => taskCreate(`Token ${i}`));
  const out = await run(changes, { automation }, { parallelism: 1 }).done;
  expect(out.results.map((r) => r.status)).toEqual(['ok', 'ok', 'ok', 'ok', 'ok']);
  const log = h.emulator.requestLog();
  expect(log.filter((r) => r.status === 401)).toHaveLength(1);
  expect(log.filter((r) => r.isTokenCall && r.method === 'POST').length).toBeGreaterThanOrEqual(1);
  for (let i = 0; i < 5; i++) expect(tasksNamed(h.emulator, `Token ${i}`)).toHaveLength(1);
});

describe('failures', () => {
  it('a change the server refuses fails with its message once; the others are still applied', async () => {
    const bad = taskCreate('Bad host task', { steps: [{ Source: { HostID: '999999', Path: '/x', FileMask: '*' } }] });
    const { ledger, done } = run([taskCreate('Good task 1'), bad, taskCreate('Good task 2')]);
    const out = await done;
    expect(out.results.map((r) => r.status)).toEqual(['ok', 'failed', 'ok']);
    expect(out.results[1]).toMatchObject({ writes: 1, unknownOutcomes: 0 });
    expect(out.results[1]!.error).toMatch(/^automation: POST \/automation\/api\/v1\/tasks: 422 .*no host has this ID/);
    const lines = ledger.entries.filter((e) => e.event === 'change' && e.address === 'Task/Bad host task');
    expect(lines.map((e) => (e.event === 'change' ? e.status : ''))).toEqual(['pending', 'failed']);
  });

  it('never sends a change whose secrets were not resolved beforehand: the reference text is not a password', async () => {
    const withSecret = taskCreate('Secret task', { Parameters: { ApiKey: { value: '${env:APPLY_MISSING_KEY}', DisplayValue: '(suppressed)' } } });
    h.emulator.resetRequestLog();
    const out = await run([withSecret], undefined, { secrets: { payloads: new Map(), values: [] } }).done;
    expect(out.results[0]).toMatchObject({
      status: 'failed',
      writes: 0,
      error: 'internal error: Task/Secret task: its secrets were not resolved before the apply',
    });
    expect(writes()).toEqual([]);
  });

  it('a replace whose create fails says that the task was deleted and not created again', async () => {
    const live = (await h.automation.listTasks({ name: 'Acme inbound' }))[0]!;
    const replace = change({
      kind: 'Task',
      name: 'Acme inbound',
      action: 'replace',
      liveId: String(live.ID),
      payload: { kind: 'Task', body: { Name: 'Acme inbound', Group: ['Finance'], steps: [{ Source: { HostID: '999999', Path: '/x' } }] } },
    });
    const out = await run([replace]).done;
    expect(out.results[0]!.status).toBe('failed');
    expect(out.results[0]!.error).toMatch(/422 .*\(after 1 of 2 requests of this change had succeeded: the task was deleted but not created again\)$/);
  });

  it('messages never hold a resolved secret, even when the server echoes it', async () => {
    const echo = withFaults<AutomationWriter>(
      {
        ...h.automation,
        createTask: async (task) => {
          const params = task.Parameters as Record<string, { value: string }>;
          throw new ApiError({
            service: 'automation',
            method: 'POST',
            path: '/tasks',
            status: 422,
            body: { title: 'Invalid', detail: `bad key ${params['Key']!.value}`, fieldErrors: [] },
          });
        },
      },
      {},
    );
    const c = taskCreate('Echo', { Parameters: { Key: { value: '${env:ECHO_SECRET}', DisplayValue: '(suppressed)' } } });
    const out = await run([c], { automation: echo }, {}, { ECHO_SECRET: 'echo-secret-42' }).done;
    expect(out.results[0]!.error).toBe('automation: POST /tasks: 422 Invalid: bad key (sensitive)');
  });
});

describe('order and concurrency', () => {
  /** An in-memory transfer server that records the order of calls and holds each call open for a turn of the event loop. */
  function fakeTransfer(opts: { failCreateOf?: string; failRenameOf?: string } = {}) {
    const calls: string[] = [];
    const folders = new Map<string, Folder>([
      ['/a', { id: '1', name: 'a', path: '/a' }],
      ['/a/old', { id: '2', name: 'old', path: '/a/old' }],
    ]);
    let next = 10;
    const client: TransferWriter = {
      findFolderByPath: async (p) => folders.get(p) ?? null,
      createSubfolder: async (parentId, f) => {
        const parent = [...folders.values()].find((x) => x.id === String(parentId))!;
        const path = `${parent.path}/${f.name}`;
        calls.push(`create ${path} start`);
        await settle();
        if (path === opts.failCreateOf)
          throw new ApiError({ service: 'transfer', method: 'POST', path: '/subfolders', status: 409, body: { title: 'Conflict', fieldErrors: [] } });
        const folder = { id: String(next++), name: f.name, path };
        folders.set(path, folder);
        calls.push(`create ${path} done`);
        return folder;
      },
      renameFolder: async (id, name) => {
        const folder = [...folders.values()].find((x) => x.id === String(id))!;
        calls.push(`rename ${folder.path} start`);
        await settle();
        if (folder.path === opts.failRenameOf)
          throw new ApiError({ service: 'transfer', method: 'PATCH', path: '/folders', status: 409, body: { title: 'Conflict', fieldErrors: [] } });
        const renamed = { ...folder, name, path: `${folder.path.slice(0, folder.path.lastIndexOf('/'))}/${name}` };
        folders.delete(folder.path);
        folders.set(renamed.path, renamed);
        calls.push(`rename ${folder.path} done`);
        return renamed;
      },
      listFolderAcls: async () => [],
      setFolderAcl: async (id) => {
        calls.push(`set ${id}`);
        return [];
      },
      deleteFolderAcl: async (id) => {
        calls.push(`delete-entry ${id}`);
      },
      findUser: async () => null,
      listUsers: async () => [],
      getUser: async () => {
        throw new Error('no users here');
      },
      createUser: async () => {
        throw new Error('no users here');
      },
      patchUser: async () => {
        throw new Error('no users here');
      },
      deleteUser: async () => undefined,
      listGroups: async () => [],
      listGroupMembers: async () => ({ form: 'none', members: new Map() }),
      createGroup: async () => {
        throw new Error('no group is written in these tests');
      },
      addGroupMembers: async () => {
        throw new Error('no group is written in these tests');
      },
      removeGroupMember: async () => {
        throw new Error('no group is written in these tests');
      },
    };
    return { client, calls };
  }
  const createFolder = (path: string): Change => {
    const i = path.lastIndexOf('/');
    return change({
      kind: 'FolderPermissions',
      name: path,
      action: 'create',
      payload: {
        kind: 'FolderPermissions',
        path,
        create: { parentPath: path.slice(0, i) || '/', name: path.slice(i + 1), inheritPermissions: 'None' },
        set: [],
        remove: [],
      },
    });
  };
  const pruneFolder = (path: string, id: string): Change =>
    change({
      kind: 'FolderPermissions',
      name: path,
      action: 'delete',
      liveId: id,
      payload: { kind: 'FolderPermissions', path, set: [], remove: [{ type: 'User', id: '7', name: 'x' }] },
    });

  it('a folder under a folder being created waits for that create; deletes run after everything else, deepest first', async () => {
    const { client, calls } = fakeTransfer();
    const changes = [createFolder('/a/b'), createFolder('/a/b/c'), createFolder('/a/d'), pruneFolder('/a', '1'), pruneFolder('/a/x/y', '5')];
    const out = await run(changes, { transfer: client }, { parallelism: 8 }).done;
    expect(out.results.map((r) => r.status)).toEqual(['ok', 'ok', 'ok', 'ok', 'ok']);
    expect(calls.indexOf('create /a/b/c start')).toBeGreaterThan(calls.indexOf('create /a/b done'));
    // /a/d does not wait for /a/b: it starts before /a/b is done.
    expect(calls.indexOf('create /a/d start')).toBeLessThan(calls.indexOf('create /a/b done'));
    expect(calls.slice(-2)).toEqual(['delete-entry 5', 'delete-entry 1']);
    const waves = scheduleChanges(changes).map((c) => c.wave);
    expect(waves.slice(0, 3)).toEqual([0, 0, 0]);
    expect(waves[4]).toBeGreaterThan(0);
    expect(waves[3]).toBeGreaterThan(waves[4]!);
  });

  it('runs the waves the plan gives, as given: it works out no order of its own', async () => {
    const { client, calls } = fakeTransfer();
    // The planner deletes the deeper folder's entries first; this plan, whose order holds too, says the other way round.
    const changes = [
      { ...pruneFolder('/a', '1'), wave: 0 },
      { ...pruneFolder('/a/x/y', '5'), wave: 1 },
    ];
    expect(checkExecutionOrder(changes)).toEqual([]);
    const out = await executeChanges({
      changes,
      clients: { transfer: client },
      ledger: memoryLedger(),
      parallelism: 8,
      secrets: resolvedSecrets(changes),
      retry: noSleep,
    });
    expect(out.results.map((r) => r.status)).toEqual(['ok', 'ok']);
    expect(calls).toEqual(['delete-entry 1', 'delete-entry 5']);
  });

  it('any change may wait for another by address, not only a folder for its parent: it starts after it succeeded, and not at all when it failed', async () => {
    const calls: string[] = [];
    const automation = {
      createTask: async (body: { Name: string }) => {
        calls.push(`create ${body.Name}`);
        await settle();
        if (body.Name === 'Refused')
          throw new ApiError({ service: 'automation', method: 'POST', path: '/tasks', status: 400, body: { title: 'Bad Request', fieldErrors: [] } });
        return { ...body, ID: calls.length };
      },
    } as unknown as AutomationWriter;
    const chain = (first: string, second: string): Change[] => {
      const a = { ...taskCreate(first), wave: 0 };
      return [a, { ...taskCreate(second), wave: 0, needs: a.address }];
    };
    const changes = [...chain('Refused', 'After refused'), ...chain('Made', 'After made')];
    const out = await executeChanges({
      changes,
      clients: { automation },
      ledger: memoryLedger(),
      parallelism: 8,
      secrets: resolvedSecrets(changes),
      retry: noSleep,
    });
    expect(out.results.map((r) => r.status)).toEqual(['failed', 'failed', 'ok', 'ok']);
    expect(out.results[1]).toMatchObject({ writes: 0, error: 'not started: creating Task/Refused (which it needs) failed' });
    expect(calls).toEqual(['create Refused', 'create Made', 'create After made']);
  });

  it('a folder whose parent could not be created is not started, and says why', async () => {
    const { client, calls } = fakeTransfer({ failCreateOf: '/a/b' });
    const out = await run([createFolder('/a/b'), createFolder('/a/b/c')], { transfer: client }).done;
    expect(out.results[1]).toMatchObject({ status: 'failed', writes: 0, error: 'not started: creating its parent folder (FolderPermissions/a/b) failed' });
    expect(calls.some((c) => c.includes('/a/b/c'))).toBe(false);
  });

  const renameOld = (): Change =>
    change({
      kind: 'FolderPermissions',
      name: '/a/new',
      action: 'update',
      previousName: '/a/old',
      liveId: '2',
      payload: {
        kind: 'FolderPermissions',
        path: '/a/new',
        rename: { from: '/a/old', name: 'new' },
        set: [{ type: 'User', id: '7', name: 'x', permissions: entryFlags(['listFiles']) }],
        remove: [],
      },
    });

  it('a renamed folder is renamed before its entries are written, and a folder below its new path waits for the rename', async () => {
    const { client, calls } = fakeTransfer();
    const changes = [renameOld(), createFolder('/a/new/c')];
    expect(scheduleChanges(changes).map((c) => [c.wave, c.needs])).toEqual([
      [0, undefined],
      [0, 'FolderPermissions/a/new'],
    ]);
    const out = await run(changes, { transfer: client }, { parallelism: 8 }).done;
    expect(out.results.map((r) => r.status)).toEqual(['ok', 'ok']);
    expect(calls.indexOf('set 2')).toBeGreaterThan(calls.indexOf('rename /a/old done'));
    expect(calls.indexOf('create /a/new/c start')).toBeGreaterThan(calls.indexOf('rename /a/old done'));
  });

  it('a folder below a folder whose rename failed is not started, and says why', async () => {
    const { client, calls } = fakeTransfer({ failRenameOf: '/a/old' });
    const out = await run([renameOld(), createFolder('/a/new/c')], { transfer: client }).done;
    expect(out.results[0]).toMatchObject({ status: 'failed', writes: 1 });
    expect(out.results[1]).toMatchObject({ status: 'failed', writes: 0, error: 'not started: renaming its parent folder (FolderPermissions/a/new) failed' });
    expect(calls).not.toContain('set 2');
    expect(calls.some((c) => c.includes('/a/new/c'))).toBe(false);
  });

  it('keeps at most `parallelism` changes in flight', async () => {
    let inFlight = 0;
    let most = 0;
    const automation = {
      ...h.automation,
      createTask: async () => {
        inFlight++;
        most = Math.max(most, inFlight);
        await settle();
        inFlight--;
        return { ID: '1', Name: 'x' };
      },
    } as AutomationWriter;
    const changes = Array.from({ length: 12 }, (_, i) => taskCreate(`Parallel ${i}`));
    await run(changes, { automation }, { parallelism: 3 }).done;
    expect(most).toBe(3);
  });

  it('Ctrl-C: changes in flight finish, nothing new starts, and the ledger says so', async () => {
    const controller = new AbortController();
    const started: string[] = [];
    const automation = {
      ...h.automation,
      createTask: async (t: { Name?: string }) => {
        started.push(String(t.Name));
        if (started.length === 2) controller.abort();
        await settle();
        return { ID: String(started.length), Name: t.Name };
      },
    } as AutomationWriter;
    const changes = Array.from({ length: 6 }, (_, i) => taskCreate(`Interrupted ${i}`));
    const { ledger, done } = run(changes, { automation }, { parallelism: 2, signal: controller.signal });
    const out = await done;
    expect(out.interrupted).toBe(true);
    expect(started).toEqual(['Interrupted 0', 'Interrupted 1']);
    expect(out.results.map((r) => r.status)).toEqual(['ok', 'ok', 'skipped', 'skipped', 'skipped', 'skipped']);
    expect(out.results[2]!.error).toBe('interrupted before it started');
    const statuses = ledger.entries.flatMap((e) => (e.event === 'change' ? [`${e.address} ${e.status}`] : []));
    expect(statuses.filter((s) => s.endsWith('skipped'))).toHaveLength(4);
    expect(statuses.filter((s) => s.endsWith('pending'))).toHaveLength(2);
  });
});
