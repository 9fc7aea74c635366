import { describe, expect, it } from 'vitest';
import type { DriftIgnoreRule, PrunableKind } from '../../src/config/model.js';
import { assembleDrift, attributeAuditRecords, auditQueriesFor, withAuditFailure, withLivePolicy } from '../../src/drift/assemble-drift.js';
import { driftExitCode } from '../../src/drift/model.js';
import { folderKey, indexByName } from '../../src/live/model.js';
import type { LiveState } from '../../src/live/model.js';
import { assemblePlan } from '../../src/plan/assemble-plan.js';
import type { Change, Plan } from '../../src/plan/model.js';
import type { Task } from '../../src/services/automation/types.js';
import { renderDriftMarkdown } from '../../src/render/drift-markdown.js';
import { renderDriftText } from '../../src/render/drift-text.js';

const NOW = new Date('2026-11-22T12:00:00Z');

const payroll: Change = {
  address: 'Task/Payroll to bank',
  kind: 'Task',
  name: 'Payroll to bank',
  service: 'automation',
  action: 'update',
  liveId: '401001',
  fields: [
    { path: 'Info.Description', before: 'Changed by hand', after: 'Nightly payroll file' },
    { path: 'Parameters.ApiKey', sensitive: true },
    { path: 'Schedules.Schedule[0].Frequency.Interval[0].StartTime', before: '03:00', after: '02:00' },
  ],
  source: { file: 'manifests/finance.yaml', line: 3, col: 1 },
};
const missingTask: Change = {
  address: 'Task/Month-end report',
  kind: 'Task',
  name: 'Month-end report',
  service: 'automation',
  action: 'create',
  fields: [{ path: 'Active', after: 1 }],
};
const quiet: Change = {
  address: 'Task/Acme inbound',
  kind: 'Task',
  name: 'Acme inbound',
  service: 'automation',
  action: 'no-op',
  liveId: '401004',
  fields: [],
};
const folder: Change = {
  address: 'FolderPermissions/Distribution/Acme/Outbound',
  kind: 'FolderPermissions',
  name: '/Distribution/Acme/Outbound',
  service: 'transfer',
  action: 'update',
  liveId: '7',
  fields: [],
  entries: [
    {
      principal: { type: 'Group', name: 'Acme Partners' },
      action: 'no-op',
      before: { permissions: ['listFiles'], sharePermissions: [] },
      after: { permissions: ['listFiles'], sharePermissions: [] },
    },
    { principal: { type: 'User', name: 'alice' }, action: 'create', after: { permissions: ['readFiles'], sharePermissions: [] } },
    {
      principal: { type: 'User', name: 'bob' },
      action: 'update',
      before: { permissions: ['readFiles', 'writeFiles'], sharePermissions: [] },
      after: { permissions: ['readFiles'], sharePermissions: [] },
    },
    { principal: { type: 'User', name: 'mallory' }, action: 'delete', before: { permissions: ['admin'], sharePermissions: [] } },
  ],
};
const handMade: Change = { address: 'Task/Hand made', kind: 'Task', name: 'Hand made', service: 'automation', action: 'delete', liveId: '501009', fields: [] };
const strayAcl: Change = {
  address: 'ResourceGroupAcl/Finance/Auditors',
  kind: 'ResourceGroupAcl',
  name: 'Finance/Auditors',
  service: 'automation',
  action: 'delete',
  liveId: '501077',
  fields: [],
};
const operatorsAcl: Change = {
  address: 'ResourceGroupAcl/finance-operators',
  kind: 'ResourceGroupAcl',
  name: 'finance-operators',
  service: 'automation',
  action: 'update',
  liveId: '501001',
  fields: [{ path: 'permissions', before: ['TaskEditExisting'], after: ['TaskRun', 'TaskEditExisting'] }],
};
const missingAcl: Change = {
  address: 'ResourceGroupAcl/partners-auditors',
  kind: 'ResourceGroupAcl',
  name: 'partners-auditors',
  service: 'automation',
  action: 'create',
  fields: [],
};
const strayFolder: Change = {
  address: 'FolderPermissions/Distribution/Umbrella',
  kind: 'FolderPermissions',
  name: '/Distribution/Umbrella',
  service: 'transfer',
  action: 'delete',
  liveId: '99',
  fields: [],
  entries: [{ principal: { type: 'User', name: 'carol' }, action: 'delete', before: { permissions: ['listFiles'], sharePermissions: [] } }],
};

function plan(changes: readonly Change[]): Plan {
  return assemblePlan({ toolVersion: 'test', createdAt: NOW.toISOString(), environment: 'prod', servers: {}, manifestDigest: 'sha256:0' }, changes, false);
}

const live: LiveState = {
  automation: {
    tasks: indexByName<Task>(
      [{ ID: '501009', Name: 'Hand made', Group: ['Finance'] }],
      (t) => t.Name,
      (t) => t.ID,
    ),
    acls: new Map([['finance\u0000auditors', { ACLID: '501077', ResourceGroupName: 'Finance', UserGroupName: 'Auditors', Permissions: { TaskRun: 1 } }]]),
  },
  transfer: {
    folders: new Map([
      [
        folderKey('/Distribution/Umbrella'),
        {
          folder: { id: '99', name: 'Umbrella', path: '/Distribution/Umbrella' },
          acl: [{ type: 'User', id: 'u3', name: 'carol', permissions: { listFiles: true } }],
        },
      ],
    ]),
  },
};

function assemble(changes: readonly Change[], options: { prune?: PrunableKind[]; ignore?: DriftIgnoreRule[] } = {}) {
  return assembleDrift({ plan: plan(changes), live, prune: options.prune ?? [], ignore: options.ignore ?? [], now: NOW });
}

describe('assembleDrift', () => {
  it('reads each difference as git (expected) → server (actual), and never reports a write-only secret', () => {
    const report = assemble([payroll]);
    expect(report.drifted).toHaveLength(1);
    expect(report.drifted[0]!.fields).toEqual([
      { path: 'Info.Description', expected: 'Nightly payroll file', actual: 'Changed by hand' },
      { path: 'Schedules.Schedule[0].Frequency.Interval[0].StartTime', expected: '02:00', actual: '03:00' },
    ]);
    expect(report.drifted[0]!.drift).toBe('changed');
    expect(report.drifted[0]!.source).toEqual(payroll.source);
  });

  it('says a managed object is missing without listing its fields', () => {
    const d = assemble([missingTask]).drifted[0]!;
    expect(d.drift).toBe('missing');
    expect(d.fields).toEqual([]);
  });

  it('lists folder entries that are missing, changed or extra, and leaves unchanged ones out', () => {
    const d = assemble([folder]).drifted[0]!;
    expect(d.entries.map((e) => [e.path, e.drift])).toEqual([
      ['entries.user:alice', 'missing'],
      ['entries.user:bob', 'changed'],
      ['entries.user:mallory', 'extra'],
    ]);
    expect(d.entries[1]).toMatchObject({ expected: { permissions: ['readFiles'] }, actual: { permissions: ['readFiles', 'writeFiles'] } });
  });

  it('lists unmanaged objects of every kind, pruned or not, and keeps deletes in the plan only for pruned kinds', () => {
    const report = assemble([quiet, handMade, strayAcl, strayFolder], { prune: ['FolderPermissions'] });
    expect(report.unmanaged.map((u) => [u.address, u.pruned])).toEqual([
      ['Task/Hand made', false],
      ['ResourceGroupAcl/Finance/Auditors', false],
      ['FolderPermissions/Distribution/Umbrella', true],
    ]);
    expect(report.unmanaged[0]!.detail).toEqual({ kind: 'Task', groups: ['Finance'] });
    expect(report.unmanaged[1]!.detail).toEqual({ kind: 'ResourceGroupAcl', resourceGroup: 'Finance', userGroup: 'Auditors', permissions: ['TaskRun'] });
    expect(report.unmanaged[2]!.detail).toEqual({
      kind: 'FolderPermissions',
      entries: [{ principal: { type: 'User', name: 'carol' }, grant: { permissions: ['listFiles'], sharePermissions: [] } }],
    });
    expect(report.plan.changes.map((c) => `${c.action} ${c.address}`)).toEqual(['no-op Task/Acme inbound', 'delete FolderPermissions/Distribution/Umbrella']);
    expect(report.plan.summary.delete).toBe(1);
    expect(report.status).toBe('drift');
    expect(driftExitCode(report)).toBe(2);
  });

  it('counts managed, in-sync and drifted objects', () => {
    const report = assemble([payroll, quiet, missingTask, handMade]);
    expect(report.summary).toEqual({ managed: 3, inSync: 1, drifted: 2, unmanaged: 1, acknowledged: 0, expired: 0 });
  });

  it('is in sync, exit 0, when every difference is acknowledged; the acknowledged ones are listed', () => {
    const ignore: DriftIgnoreRule[] = [
      { address: 'Task/Payroll*', path: 'Info.*', reason: 'wording', where: 'mftops.yaml:9:9' },
      { address: 'Task/Payroll*', path: 'Schedules', until: '2026-12-31', where: 'mftops.yaml:12:9' },
      { address: 'Task/Hand made', where: 'mftops.yaml:15:9' },
    ];
    const report = assemble([payroll, quiet, handMade], { ignore });
    expect(report.drifted).toEqual([]);
    expect(report.unmanaged).toEqual([]);
    expect(report.acknowledged.map((a) => [a.address, a.what, a.rule.where])).toEqual([
      ['Task/Payroll to bank', 'Info.Description', 'mftops.yaml:9:9'],
      ['Task/Payroll to bank', 'Schedules.Schedule[0].Frequency.Interval[0].StartTime', 'mftops.yaml:12:9'],
      ['Task/Hand made', 'unmanaged', 'mftops.yaml:15:9'],
    ]);
    expect(report.acknowledged[0]).toMatchObject({ expected: 'Nightly payroll file', actual: 'Changed by hand' });
    expect(report.status).toBe('in-sync');
    expect(driftExitCode(report)).toBe(0);
  });

  it('reports what an expired acknowledgement covered as drift again, with the expiry', () => {
    const ignore: DriftIgnoreRule[] = [
      { address: 'Task/Payroll to bank', path: 'Schedules.*', until: '2026-10-31', reason: 'migration', where: 'mftops.yaml:12:9' },
    ];
    const report = assemble([payroll], { ignore });
    const schedule = report.drifted[0]!.fields.find((f) => f.path.startsWith('Schedules'))!;
    expect(schedule.expired).toEqual({ until: '2026-10-31', reason: 'migration', where: 'mftops.yaml:12:9' });
    expect(report.summary.expired).toBe(1);
    expect(report.status).toBe('drift');
  });
});

describe('audit attribution', () => {
  it('asks for one task by id, several by type, newest first and bounded', () => {
    expect(auditQueriesFor(assemble([payroll]))).toEqual([
      { for: 'Task', predicate: 'TargetType=="Task";TargetID=="401001"', orderBy: '!LogTime', maxCount: 500 },
    ]);
    expect(auditQueriesFor(assemble([payroll, handMade])).map((q) => q.predicate)).toEqual(['TargetType=="Task"']);
    expect(auditQueriesFor(assemble([folder, quiet]))).toEqual([]);
  });

  it('asks for ACL records the same way, and for each kind once when tasks and ACLs both drifted', () => {
    expect(auditQueriesFor(assemble([operatorsAcl]))).toEqual([
      { for: 'ResourceGroupAcl', predicate: 'TargetType=="ACL";TargetID=="501001"', orderBy: '!LogTime', maxCount: 500 },
    ]);
    expect(auditQueriesFor(assemble([operatorsAcl, strayAcl])).map((q) => q.predicate)).toEqual(['TargetType=="ACL"']);
    expect(auditQueriesFor(assemble([payroll, operatorsAcl, strayAcl])).map((q) => [q.for, q.predicate])).toEqual([
      ['Task', 'TargetType=="Task";TargetID=="401001"'],
      ['ResourceGroupAcl', 'TargetType=="ACL"'],
    ]);
    // An ACL missing on the server has no id left to ask for: its records cannot be told apart.
    expect(auditQueriesFor(assemble([missingAcl]))).toEqual([]);
  });

  it('names the newest change of each task by id (runs are not changes), and by name when the task is gone', () => {
    const report = assemble([payroll, missingTask, handMade]);
    const records = [
      { LogTime: '2026-11-22T10:00:00Z', Username: 'operator', Action: 'Run', TargetType: 'Task', TargetID: '401001', TaskName: 'Payroll to bank' },
      { LogTime: '2026-11-22T09:00:00Z', Username: 'operator', Action: 'Edit', TargetType: 'Task', TargetID: '401001', TaskName: 'Payroll to bank' },
      { LogTime: '2026-11-21T09:00:00Z', Username: 'admin', Action: 'Edit', TargetType: 'Task', TargetID: '401001', TaskName: 'Payroll to bank' },
      { LogTime: '2026-11-20T08:00:00Z', Username: 'admin', Action: 'Delete', TargetType: 'Task', TargetID: '401099', TaskName: 'month-end REPORT' },
      { LogTime: '2026-11-19T08:00:00Z', Username: 'bob', Action: 'Add', TargetType: 'Task', TargetID: '501009', TaskName: 'Hand made' },
    ];
    const [query] = auditQueriesFor(report);
    const out = attributeAuditRecords(report, [{ query: query!, records }]);
    expect(out.drifted.map((d) => [d.address, d.lastChange])).toEqual([
      ['Task/Payroll to bank', { user: 'operator', time: '2026-11-22T09:00:00Z', action: 'Edit' }],
      ['Task/Month-end report', { user: 'admin', time: '2026-11-20T08:00:00Z', action: 'Delete' }],
    ]);
    expect(out.unmanaged[0]!.lastChange).toEqual({ user: 'bob', time: '2026-11-19T08:00:00Z', action: 'Add' });
    expect(out.audit).toEqual({ state: 'read', records: 5, queries: [query] });
  });

  it('names the newest change of each drifted or unmanaged ACL by id, never from a task record with the same id', () => {
    const report = assemble([payroll, operatorsAcl, strayAcl]);
    const [taskQuery, aclQuery] = auditQueriesFor(report);
    const taskRecords = [
      { LogTime: '2026-11-22T11:00:00Z', Username: 'operator', Action: 'Edit', TargetType: 'Task', TargetID: '401001', TaskName: 'Payroll to bank' },
    ];
    const aclRecords = [
      // A server that ignores the predicate: a task that happens to share the ACL's id.
      { LogTime: '2026-11-22T11:30:00Z', Username: 'mallory', Action: 'Edit', TargetType: 'Task', TargetID: '501001', TaskName: 'Other' },
      { LogTime: '2026-11-22T10:00:00Z', Username: 'secops', Action: 'Edit', TargetType: 'ACL', TargetID: '501001', TaskName: '' },
      { LogTime: '2026-11-02T10:00:00Z', Username: 'admin', Action: 'Add', TargetType: 'ACL', TargetID: '501001', TaskName: '' },
      { LogTime: '2026-11-18T07:00:00Z', Username: 'carol', Action: 'Add', TargetType: 'ACL', TargetID: '501077', TaskName: '' },
    ];
    const out = attributeAuditRecords(report, [
      { query: taskQuery!, records: taskRecords },
      { query: aclQuery!, records: aclRecords },
    ]);
    expect(out.drifted.map((d) => [d.address, d.lastChange])).toEqual([
      ['Task/Payroll to bank', { user: 'operator', time: '2026-11-22T11:00:00Z', action: 'Edit' }],
      ['ResourceGroupAcl/finance-operators', { user: 'secops', time: '2026-11-22T10:00:00Z', action: 'Edit' }],
    ]);
    expect(out.unmanaged.map((u) => [u.address, u.lastChange])).toEqual([
      ['ResourceGroupAcl/Finance/Auditors', { user: 'carol', time: '2026-11-18T07:00:00Z', action: 'Add' }],
    ]);
    expect(out.audit).toEqual({ state: 'read', records: 5, queries: [taskQuery, aclQuery] });
  });

  it('says once that the audit report is unreadable, and why', () => {
    const report = assemble([payroll]);
    expect(withAuditFailure(report, { httpStatus: 403 }).audit).toEqual({
      state: 'unreadable',
      httpStatus: 403,
      message: 'audit report not readable with this account: 403',
    });
    expect(withAuditFailure(report, { httpStatus: 404 }).audit).toMatchObject({ message: 'audit report not available on this server: 404' });
    expect(withAuditFailure(report, { detail: 'connection reset' }).audit).toMatchObject({ message: 'audit report could not be read (connection reset)' });
    expect(withAuditFailure(report, { httpStatus: 403 }).status).toBe('drift');
  });
});

describe('access on the server compared with git', () => {
  /** The plan's access report for `folder`: apply would take writeFiles from bob and admin from mallory, and grant alice readFiles. */
  function planWithAccess(): Plan {
    const p = plan([folder, payroll]);
    const base = { address: folder.address, service: 'transfer' as const, target: folder.name };
    return {
      ...p,
      access: {
        changes: [
          {
            ...base,
            who: { type: 'User', name: 'alice' },
            gained: ['readFiles'],
            lost: [],
            via: [{ type: 'User', name: 'alice' }],
            removed: false,
            flagged: [],
          },
          { ...base, who: { type: 'User', name: 'bob' }, gained: [], lost: ['writeFiles'], via: [{ type: 'User', name: 'bob' }], removed: false, flagged: [] },
          {
            ...base,
            who: { type: 'User', name: 'mallory' },
            gained: [],
            lost: ['admin'],
            via: [{ type: 'User', name: 'mallory' }],
            removed: true,
            flagged: [],
          },
        ],
        membersUnknown: [],
      },
    };
  }

  it('reads the access changes git → server: what apply would take away the server grants beyond git, flagged', () => {
    const report = assembleDrift({ plan: planWithAccess(), live, prune: [], ignore: [], now: NOW });
    expect(report.access!.changes.map((c) => [c.who.name, c.gained, c.lost, c.flagged])).toEqual([
      ['alice', [], ['readFiles'], []],
      ['bob', ['writeFiles'], [], []],
      ['mallory', ['admin'], [], ['admin']],
    ]);
    expect(report.plan.access).toEqual(planWithAccess().access);
    const text = renderDriftText(report, { color: false });
    expect(text).toContain('Access on the server compared with git: 2 users gain access, 1 loses access.');
    expect(text).toContain('  ! mallory gains admin on /Distribution/Acme/Outbound (via own entry) [grants admin]');
    expect(text.indexOf('Access on the server')).toBeLessThan(text.indexOf('Drifted (values read git → server):'));
    expect(renderDriftMarkdown(report)).toContain('### Access on the server compared with git');
  });

  it('leaves out the access of an acknowledged folder', () => {
    const report = assembleDrift({ plan: planWithAccess(), live, prune: [], ignore: [{ address: folder.address, where: 'mftops.yaml:1:1' }], now: NOW });
    expect(report.drifted.map((d) => d.address)).toEqual(['Task/Payroll to bank']);
    expect(report.access).toBeUndefined();
  });
});

describe('withLivePolicy', () => {
  const violation = (severity: 'deny' | 'warn') => ({
    policy: 'keep-originals',
    severity,
    outcome: 'violated' as const,
    message: 'partner originals are kept',
    address: 'Task/Acme inbound',
    source: { file: 'tasks.yaml', line: 3, col: 1 },
    expressionSource: { file: 'policies.yaml', line: 8, col: 19 },
  });

  it('a live object that breaks a deny policy is drift (exit 2), shown in text and markdown; a warn leaves an in-sync report in sync', () => {
    const inSync = assemble([quiet]);
    expect(inSync.status).toBe('in-sync');
    const denied = withLivePolicy(inSync, { policies: 1, violations: [violation('deny')] });
    expect(denied.status).toBe('drift');
    expect(driftExitCode(denied)).toBe(2);
    const text = renderDriftText(denied, { color: false });
    expect(text).toContain('Policy checks of the live objects: 1 violation of 1 policy (1 deny: counted as drift).');
    expect(text).toContain('  ✗ deny keep-originals: Task/Acme inbound — partner originals are kept (tasks.yaml:3:1)');
    expect(text).toContain('Drift: 0 objects differ, 0 unmanaged, 1 object breaks a deny policy.');
    expect(renderDriftMarkdown(denied)).toContain('> **Policy checks of the live objects: 1 violation of 1 policy (1 deny: counted as drift).**');
    const warned = withLivePolicy(inSync, { policies: 1, violations: [violation('warn')] });
    expect(driftExitCode(warned)).toBe(0);
    expect(renderDriftText(warned, { color: false })).toContain('  ! warn keep-originals: Task/Acme inbound');
  });
});
