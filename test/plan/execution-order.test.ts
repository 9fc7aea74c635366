import { describe, expect, it } from 'vitest';
import { checkExecutionOrder, scheduleChanges } from '../../src/plan/execution-order.js';
import type { Change } from '../../src/plan/model.js';
import { change } from '../apply/helpers.js';

const folder = (path: string, action: Change['action'], extra: Partial<Change> = {}): Change =>
  change({ kind: 'FolderPermissions', name: path, action, ...extra });
const task = (name: string, action: Change['action']): Change => change({ kind: 'Task', name, action });
const acl = (name: string, action: Change['action']): Change => change({ kind: 'ResourceGroupAcl', name, action });
const orderOf = (changes: readonly Change[]) => changes.map((c) => `${c.address} ${c.wave ?? '-'}${c.needs !== undefined ? ` after ${c.needs}` : ''}`);

describe('scheduleChanges: the order apply runs a plan in', () => {
  it('puts creates and updates in wave 0, a folder below a new or renamed folder after that folder, deletes after: tasks, ACLs, folders deepest first', () => {
    const changes = [
      folder('/a', 'create'),
      folder('/a/b', 'create'),
      folder('/r', 'update', { previousName: '/old' }),
      folder('/r/s/t', 'update'),
      folder('/c', 'update'),
      acl('ops', 'update'),
      task('Same', 'no-op'),
      task('Advanced', 'blocked'),
      task('T', 'create'),
      task('Gone', 'delete'),
      acl('old', 'delete'),
      folder('/x/y', 'delete'),
      folder('/x', 'delete'),
    ];
    expect(orderOf(scheduleChanges(changes))).toEqual([
      'FolderPermissions/a 0',
      'FolderPermissions/a/b 0 after FolderPermissions/a',
      'FolderPermissions/r 0',
      'FolderPermissions/r/s/t 0 after FolderPermissions/r',
      'FolderPermissions/c 0',
      'ResourceGroupAcl/ops 0',
      'Task/Same -',
      'Task/Advanced -',
      'Task/T 0',
      'Task/Gone 1',
      'ResourceGroupAcl/old 2',
      'FolderPermissions/x/y 3',
      'FolderPermissions/x 4',
    ]);
  });

  it('numbers waves without gaps, and replaces an order a change already carried', () => {
    const scheduled = scheduleChanges([
      { ...task('Gone', 'delete'), wave: 7, needs: 'Task/x' },
      { ...task('Same', 'no-op'), wave: 2 },
    ]);
    expect(orderOf(scheduled)).toEqual(['Task/Gone 0', 'Task/Same -']);
    expect(checkExecutionOrder(scheduled)).toEqual([]);
  });
});

describe('checkExecutionOrder: apply follows the order as given, so it must hold', () => {
  const planned = () => scheduleChanges([folder('/a', 'create'), folder('/a/b', 'create'), task('T', 'update'), task('Gone', 'delete')]);

  it('accepts what the planner makes', () => {
    expect(checkExecutionOrder(planned())).toEqual([]);
  });

  it('refuses a child folder listed before the create of its parent', () => {
    const [parent, child, ...rest] = planned();
    expect(checkExecutionOrder([child!, parent!, ...rest])).toEqual([
      'FolderPermissions/a/b is listed before FolderPermissions/a, which makes the folder above it',
    ]);
  });

  it('refuses a child folder that does not wait for its parent, or waits for something else', () => {
    const [parent, child, t, gone] = planned();
    const { needs: _n, ...free } = child!;
    expect(checkExecutionOrder([parent!, free, t!, gone!])).toEqual([
      'FolderPermissions/a/b does not wait for FolderPermissions/a, which makes the folder above it',
    ]);
    expect(checkExecutionOrder([parent!, child!, { ...t!, needs: 'FolderPermissions/a' }, gone!])).toEqual([
      'Task/T waits for FolderPermissions/a, which makes no folder above it',
    ]);
  });

  it('refuses write changes without a wave, and a place in the order for what apply never runs', () => {
    const [parent, child, t, gone] = planned();
    const { wave: _w, ...unplaced } = t!;
    expect(checkExecutionOrder([parent!, child!, unplaced, gone!])).toEqual(['Task/T has no wave']);
    expect(checkExecutionOrder([...planned(), { ...task('Same', 'no-op'), wave: 0 }])).toEqual([
      'Task/Same is no-op, so apply never runs it, but it has a place in the order',
    ]);
  });

  it('refuses waves out of order, and deletes that do not come last', () => {
    const [parent, child, t, gone] = planned();
    expect(checkExecutionOrder([parent!, child!, { ...t!, wave: 1 }, { ...gone!, wave: 0 }])).toEqual([
      'Task/Gone (wave 0) is listed after a change of wave 1',
      'a delete runs in a wave with or before creates and updates',
    ]);
    expect(checkExecutionOrder([parent!, child!, t!, { ...gone!, wave: 0 }])).toEqual(['a delete runs in a wave with or before creates and updates']);
  });
});
