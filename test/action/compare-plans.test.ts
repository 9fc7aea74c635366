import { describe, expect, it } from 'vitest';
import { comparePlans, findUnreviewedChanges } from '../../src/action/compare-plans.js';
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
      changes: reviewed.changes.map((c) => ({
        ...c,
        fingerprint: `sha256:${'f'.repeat(64)}`,
        ...(c.payload?.kind === 'Task' ? { payload: { kind: 'Task' as const, body: { Name: c.name, extra: 1 } } } : {}),
      })),
    };
    expect(comparePlans(reviewed, now)).toEqual([]);
  });

  it('names an object the new plan changes and the reviewed one did not', () => {
    const now = withChange(reviewed, 'Task/Acme outbound', (c) => ({ ...c, action: 'update', fields: [{ path: 'Active', before: 1, after: 0 }] }));
    expect(comparePlans(reviewed, now)).toEqual([
      { address: 'Task/Acme outbound', kind: 'added', detail: 'Task/Acme outbound: not in the reviewed plan, now update' },
    ]);
  });

  it('names an object the reviewed plan changed and the new one no longer does', () => {
    const now = withChange(reviewed, 'Task/Globex inbound', () => undefined);
    expect(comparePlans(reviewed, now)).toEqual([
      { address: 'Task/Globex inbound', kind: 'dropped', detail: 'Task/Globex inbound: reviewed as create, now nothing to do' },
    ]);
  });

  it('names an action that changed (an update became a replace)', () => {
    const now = withChange(reviewed, 'Task/Payroll to bank', (c) => ({ ...c, action: 'replace' }));
    expect(comparePlans(reviewed, now)).toEqual([
      { address: 'Task/Payroll to bank', kind: 'action', detail: 'Task/Payroll to bank: reviewed as update, now replace' },
    ]);
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
    expect(comparePlans(reviewed, { ...reviewed, environment: 'staging' }).map((d) => d.detail)).toEqual([
      'the reviewed plan is for environment "prod", the new one for "staging"',
    ]);
  });
});

describe('the review rule of an apply that catches up: every write of the plan made now is in a reviewed plan', () => {
  const PAYROLL = 'Task/Payroll to bank';
  /** The reviewed plan cut in two pull requests: the payroll task's first field in one, the rest in the other. */
  function split(): [Plan, Plan] {
    const first = withChange(reviewed, PAYROLL, (c) => ({ ...c, fields: c.fields.slice(0, 1) }));
    const second = withChange(reviewed, PAYROLL, (c) => ({ ...c, fields: c.fields.slice(1) }));
    return [{ ...first, changes: first.changes.filter((c) => c.address === PAYROLL) }, second];
  }

  it('accepts the union of two reviewed plans that each changed part of one object, and what was applied meanwhile', () => {
    const [a, b] = split();
    expect(findUnreviewedChanges([a, b], reviewed)).toEqual([]);
    // One pull request's part is on the server already: the plan made now no longer has it.
    expect(
      findUnreviewedChanges(
        [a, b],
        withChange(reviewed, PAYROLL, (c) => ({ ...c, fields: c.fields.slice(1) })),
      ),
    ).toEqual([]);
    expect(
      findUnreviewedChanges(
        [a, b],
        withChange(reviewed, 'Task/Globex inbound', () => undefined),
      ),
    ).toEqual([]);
  });

  it('refuses a value no reviewer saw written, and a write over a value no reviewer saw on the server', () => {
    const [a, b] = split();
    const written = withChange(reviewed, PAYROLL, (c) => ({ ...c, fields: c.fields.map((f, i) => (i === 1 ? { ...f, after: '04:00' } : f)) }));
    expect(findUnreviewedChanges([a, b], written)).toEqual([
      { address: PAYROLL, kind: 'fields', detail: `${PAYROLL}: update of Schedules.Schedule[0].Frequency.Interval[0].StartTime is not in a reviewed plan` },
    ]);
    // Someone set 02:30 in the admin UI after the review: the reviewed 03:30 is not written over it unseen.
    const overwritten = withChange(reviewed, PAYROLL, (c) => ({ ...c, fields: c.fields.map((f, i) => (i === 1 ? { ...f, before: '02:30' } : f)) }));
    expect(findUnreviewedChanges([a, b], overwritten).map((d) => d.kind)).toEqual(['fields']);
  });

  it('refuses an object no reviewed plan changes, or with another action', () => {
    const [a, b] = split();
    const added = withChange(reviewed, 'Task/Acme outbound', (c) => ({ ...c, action: 'update', fields: [{ path: 'Active', before: 1, after: 0 }] }));
    expect(findUnreviewedChanges([a, b], added)).toEqual([
      { address: 'Task/Acme outbound', kind: 'added', detail: 'Task/Acme outbound: not in any reviewed plan, now update' },
    ]);
    const replaced = withChange(reviewed, PAYROLL, (c) => ({ ...c, action: 'replace' }));
    expect(findUnreviewedChanges([a, b], replaced).map((d) => d.detail)).toEqual([`${PAYROLL}: reviewed as update, now replace`]);
  });

  it('writes an object that moved since its review only when another reviewed plan changes it (an earlier merge was applied)', () => {
    const moved = withChange(reviewed, PAYROLL, (c) => ({ ...c, fingerprint: `sha256:${'1'.repeat(64)}` }));
    expect(findUnreviewedChanges([reviewed], moved)).toEqual([
      { address: PAYROLL, kind: 'moved', detail: `${PAYROLL}: changed on the server since the review, and no other reviewed plan changes it` },
    ]);
    const [a, b] = split();
    expect(findUnreviewedChanges([a, b], moved)).toEqual([]);
  });
});
