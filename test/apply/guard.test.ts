import { describe, expect, it } from 'vitest';
import { checkPermissions, checkPlanTarget } from '../../src/apply/guard.js';
import type { EnvironmentSettings } from '../../src/config/model.js';
import { change, planOf, taskCreate } from './helpers.js';

const env = (overrides: Partial<EnvironmentSettings> = {}): EnvironmentSettings => ({
  name: 'lab',
  automation: { url: 'https://automation.example.com', username: 'admin', password: { kind: 'env', name: 'P' } },
  transfer: { url: 'https://transfer.example.com', username: 'admin', password: { kind: 'env', name: 'P' } },
  manifests: [],
  scope: { taskGroups: [], folders: [] },
  prune: [],
  ...overrides,
});
const deleteTask = (name: string) => change({ kind: 'Task', name, action: 'delete', liveId: '1' });

describe('checkPlanTarget', () => {
  it('accepts the plan of this environment and these servers (trailing slash and host case aside)', () => {
    const plan = planOf([taskCreate('A')], { servers: { automation: { url: 'https://AUTOMATION.example.com/', username: 'reader' } } });
    expect(checkPlanTarget(plan, env())).toEqual([]);
  });

  it('refuses a plan of another environment, naming both', () => {
    expect(checkPlanTarget(planOf([taskCreate('A')], { environment: 'staging' }), env())).toEqual([
      'the plan was made for environment "staging", not "lab": apply it with --env staging, or make a plan for lab',
    ]);
  });

  it('refuses a plan read from another server, and one that changes a service the environment lacks', () => {
    const other = planOf([taskCreate('A')], { servers: { automation: { url: 'https://other.example.com', username: 'admin' } } });
    expect(checkPlanTarget(other, env())).toEqual([
      'the plan was made against the automation server https://other.example.com, but environment "lab" uses https://automation.example.com',
    ]);
    const { automation: _, ...withoutAutomation } = env();
    expect(checkPlanTarget(planOf([taskCreate('A')]), withoutAutomation)).toEqual([
      'the plan changes the automation server https://automation.example.com, but environment "lab" has no automation service',
    ]);
  });
});

describe('checkPermissions', () => {
  const allowAll = { allowDelete: true, allowReplace: true, maxDeletes: 10 };

  it('needs --allow-delete for deletes and --allow-replace for replaces, naming the objects', () => {
    const plan = planOf([deleteTask('Old'), change({ kind: 'Task', name: 'Moved', action: 'replace', liveId: '2' })]);
    expect(checkPermissions(plan, { ...allowAll, allowDelete: false, allowReplace: false })).toEqual([
      'the plan deletes 1 object (Task/Old): pass --allow-delete to apply it',
      'the plan replaces 1 object (deleted and created again: Task/Moved): pass --allow-replace to apply it',
    ]);
    expect(checkPermissions(plan, allowAll)).toEqual([]);
  });

  it('stops a deletion larger than --max-deletes, and lists at most five names', () => {
    const plan = planOf(Array.from({ length: 7 }, (_, i) => deleteTask(`T${i}`)));
    expect(checkPermissions(plan, { ...allowAll, maxDeletes: 6 })).toEqual([
      'the plan deletes 7 objects, more than --max-deletes 6: check the plan, then raise --max-deletes',
    ]);
    expect(checkPermissions(plan, { ...allowAll, allowDelete: false, maxDeletes: 7 })).toEqual([
      'the plan deletes 7 objects (Task/T0, Task/T1, Task/T2, Task/T3, Task/T4 and 2 more): pass --allow-delete to apply it',
    ]);
  });
});
