import { describe, expect, it } from 'vitest';
import { comparePlans } from '../../src/action/compare-plans.js';
import type { Change, Plan } from '../../src/plan/model.js';
import { loadFixturePlan } from '../fixtures/plans/load.js';

/** The reviewed plan against the plan made at merge: what the gate lets through and what it stops. */

const reviewed = loadFixturePlan('every-action.json');

function withChange(plan: Plan, address: string, edit: (c: Change) => Change | undefined): Plan {
  const changes = plan.changes.flatMap((c) => {
    if (c.address !== address) return [c];
    const edited = edit(c);
    return edited === undefined ? [] : [edited];
  });
  return { ...plan, changes };
}

describe('comparing the reviewed plan with the plan made now', () => {
  it('finds nothing when only the time, tool version, fingerprints, digest and payloads differ', () => {
    const now: Plan = {
      ...reviewed,
      createdAt: '2026-03-05T12:00:00Z',
      toolVersion: '9.9.9',
      manifestDigest: `sha256:${'0'.repeat(64)}`,
      changes: reviewed.changes.map((c) => ({ ...c, fingerprint: `sha256:${'f'.repeat(64)}`, ...(c.payload?.kind === 'Task' ? { payload: { kind: 'Task' as const, body: { Name: c.name, extra: 1 } } } : {}) })),
    };
    expect(comparePlans(reviewed, now)).toEqual([]);
  });

  it('names an object the new plan changes and the reviewed one did not', () => {
    const now = withChange(reviewed, 'Task/Acme outbound', (c) => ({ ...c, action: 'update', fields: [{ path: 'Active', before: 1, after: 0 }] }));
    expect(comparePlans(reviewed, now)).toEqual([{ address: 'Task/Acme outbound', kind: 'added', detail: 'Task/Acme outbound: not in the reviewed plan, now update' }]);
  });

  it('names an object the reviewed plan changed and the new one no longer does', () => {
    const now = withChange(reviewed, 'Task/Globex inbound', () => undefined);
    expect(comparePlans(reviewed, now)).toEqual([{ address: 'Task/Globex inbound', kind: 'dropped', detail: 'Task/Globex inbound: reviewed as create, now nothing to do' }]);
  });

  it('names an action that changed (an update became a replace)', () => {
    const now = withChange(reviewed, 'Task/Payroll to bank', (c) => ({ ...c, action: 'replace' }));
    expect(comparePlans(reviewed, now)).toEqual([{ address: 'Task/Payroll to bank', kind: 'action', detail: 'Task/Payroll to bank: reviewed as update, now replace' }]);
  });

  it('names the fields whose values differ, on either side of the change', () => {
    const now = withChange(reviewed, 'ResourceGroupAcl/Finance/Finance Operators', (c) => ({
      ...c,
      fields: [{ path: 'permissions', before: ['TaskRun'], after: ['TaskRun', 'TaskEditExisting', 'TaskAddEditDelete'] }],
    }));
    expect(comparePlans(reviewed, now)).toEqual([
      {
        address: 'ResourceGroupAcl/Finance/Finance Operators',
        kind: 'fields',
        detail: 'ResourceGroupAcl/Finance/Finance Operators: update of permissions differs from the reviewed one',
      },
    ]);
  });

  it('names a folder ACL entry whose permissions differ, and ignores the order of permission names', () => {
    const folder = 'FolderPermissions/Distribution/Acme/Outbound';
    const original = reviewed.changes.find((c) => c.address === folder)!;
    const reordered = withChange(reviewed, folder, (c) => ({
      ...c,
      entries: (c.entries ?? []).map((e) => ({ ...e, ...(e.after ? { after: { ...e.after, permissions: [...e.after.permissions].reverse() } } : {}) })),
    }));
    expect(comparePlans(reviewed, reordered)).toEqual([]);
    const changedEntry = original.entries!.find((e) => e.action !== 'no-op' && e.after !== undefined)!;
    const widened = withChange(reviewed, folder, (c) => ({
      ...c,
      entries: (c.entries ?? []).map((e) => (e === changedEntry ? { ...e, after: { ...e.after!, permissions: [...e.after!.permissions, 'admin'] } } : e)),
    }));
    expect(comparePlans(reviewed, widened).map((d) => d.detail)).toEqual([
      `${folder}: update of entry ${changedEntry.principal.type} ${changedEntry.principal.name} differs from the reviewed one`,
    ]);
  });

  it('refuses a plan for another environment outright', () => {
    expect(comparePlans(reviewed, { ...reviewed, environment: 'staging' }).map((d) => d.detail)).toEqual(['the reviewed plan is for environment "prod", the new one for "staging"']);
  });
});
