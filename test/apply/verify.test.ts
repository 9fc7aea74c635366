import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { executeChanges } from '../../src/apply/execute.js';
import { scheduleChanges } from '../../src/plan/execution-order.js';
import { memoryLedger } from '../../src/apply/ledger.js';
import { findUnconverged, verifyPayloads } from '../../src/apply/verify.js';
import { startHarness } from '../plan/helpers.js';
import type { Harness } from '../plan/helpers.js';
import { change, entryFlags, planOf, resolvedSecrets, taskCreate } from './helpers.js';

describe('findUnconverged', () => {
  it('wants every applied address in sync in the re-plan, and every deleted one gone', () => {
    const applied = [
      taskCreate('Made'),
      change({ kind: 'Task', name: 'Changed', action: 'update', liveId: '1' }),
      change({ kind: 'Task', name: 'Removed', action: 'delete', liveId: '2' }),
      change({ kind: 'Task', name: 'Still there', action: 'delete', liveId: '3' }),
      change({ kind: 'Task', name: 'Vanished', action: 'update', liveId: '4' }),
      change({ kind: 'Task', name: 'Advanced', action: 'update', liveId: '5' }),
    ];
    const replan = planOf([
      change({ kind: 'Task', name: 'made', action: 'no-op' }),
      change({ kind: 'Task', name: 'Changed', action: 'replace', reason: { code: 'task-group-immutable', lostSecrets: [] } }),
      change({ kind: 'Task', name: 'Still there', action: 'delete' }),
      change({ kind: 'Task', name: 'Advanced', action: 'blocked' }),
    ]);
    expect(findUnconverged(applied, replan)).toEqual([
      { address: 'Task/Changed', action: 'replace', reason: '`Group` cannot change after creation: the task is deleted and created again' },
      { address: 'Task/Still there', action: 'delete' },
      { address: 'Task/Vanished', action: 'missing', reason: 'not in the re-plan: the manifests or the server no longer have it' },
    ]);
  });
});

describe('verifyPayloads', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await startHarness();
  });
  afterEach(() => h.close());

  it('reads back what each applied change sent, and names what no longer holds', async () => {
    const team = (await h.transfer.listGroups()).find((g) => g.name === 'Finance Team')!;
    const changes = [
      taskCreate('Verified task', { Parameters: { Key: { value: '${env:VERIFY_KEY}', DisplayValue: '(suppressed)' } } }),
      change({
        kind: 'ResourceGroupAcl',
        name: 'finance-auditors',
        action: 'create',
        payload: { kind: 'ResourceGroupAcl', resourceGroup: 'Finance', userGroup: 'Auditors', permissions: { TaskRun: 1, TaskEditExisting: 0 } },
      }),
      change({
        kind: 'FolderPermissions',
        name: '/Finance/Verified',
        action: 'create',
        payload: {
          kind: 'FolderPermissions',
          path: '/Finance/Verified',
          create: { parentPath: '/Finance', name: 'Verified', inheritPermissions: 'None' },
          set: [{ type: 'Group', id: team.id, name: 'Finance Team', permissions: entryFlags(['listFiles']) }],
          remove: [],
        },
      }),
    ];
    const clients = { automation: h.automation, transfer: h.transfer };
    const scheduled = scheduleChanges(changes);
    const out = await executeChanges({
      changes: scheduled,
      clients,
      ledger: memoryLedger(),
      parallelism: 2,
      secrets: resolvedSecrets(scheduled, { VERIFY_KEY: 'k' }),
    });
    const applied = changes.map((c, i) => ({ change: c, result: out.results[i]! }));
    expect(out.results.map((r) => r.status)).toEqual(['ok', 'ok', 'ok']);
    expect(await verifyPayloads(applied, clients, 2)).toEqual([]);

    const task = (await h.automation.listTasks({ name: 'Verified task' }))[0]!;
    await h.automation.updateTask(String(task.ID), { ...task, Info: { Description: 'edited by hand' } });
    await h.transfer.setFolderAcl(out.results[2]!.ids!.folder!, { type: 'Group', id: team.id, permissions: { readFiles: true } });
    expect(await verifyPayloads(applied, clients, 2)).toEqual([
      { address: 'Task/Verified task', action: 'create', reason: 'the server does not hold what was sent (task-create)' },
      { address: 'FolderPermissions/Finance/Verified', action: 'create', reason: 'the server does not hold what was sent (entry-set)' },
    ]);
  });
});
