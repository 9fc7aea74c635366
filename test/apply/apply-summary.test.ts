import { describe, expect, it } from 'vitest';
import type { ApplyReport, ChangeResult } from '../../src/apply/model.js';
import { renderApplySummaryJson, renderApplySummaryText } from '../../src/render/apply-summary.js';

const stats = { writes: 0, unknownOutcomes: 0, confirmedByReread: 0, retriedAfterReread: 0, wallMs: 5 };
const result = (address: string, kind: ChangeResult['kind'], action: ChangeResult['action'], status: ChangeResult['status'], error?: string): ChangeResult => ({
  address,
  kind,
  action,
  status,
  ...(error !== undefined ? { error } : {}),
  writes: status === 'skipped' ? 0 : 1,
  unknownOutcomes: 0,
  confirmedByReread: 0,
});
const base: ApplyReport = { environment: 'prod', outcome: 'applied', problems: [], stale: [], results: [], stats };

describe('renderApplySummaryText', () => {
  it('counts per kind, lists failures and blocked changes, and says where the snapshot and ledger are', () => {
    const report: ApplyReport = {
      ...base,
      results: [
        result('Task/A', 'Task', 'create', 'ok'),
        result('Task/B', 'Task', 'update', 'failed', 'automation: PUT /api/v1/tasks/2: 422 Invalid Input: RetryCount must be at most 32000'),
        result('Task/C', 'Task', 'blocked', 'skipped', 'blocked: advanced (TT=COS) tasks cannot be changed through the API'),
        result('FolderPermissions/X', 'FolderPermissions', 'update', 'ok'),
      ],
      snapshot: { id: '2026-11-22T02-30-00.000Z', path: '/s/prod/2026-11-22T02-30-00.000Z' },
      ledger: '/s/prod/2026-11-22T02-30-00.000Z/ledger.jsonl',
      verification: { mode: 'replan', unconverged: [{ address: 'Task/A', action: 'update', reason: 'server default' }] },
      stats: { ...stats, unknownOutcomes: 3, confirmedByReread: 2, retriedAfterReread: 1 },
    };
    expect(renderApplySummaryText(report).split('\n')).toEqual([
      'Apply finished with errors for environment "prod": 2 applied, 1 failed, 1 skipped.',
      '  Task: 1 applied, 1 failed, 1 skipped',
      '  FolderPermissions: 1 applied',
      'Failed:',
      '  x Task/B (update): automation: PUT /api/v1/tasks/2: 422 Invalid Input: RetryCount must be at most 32000',
      'Blocked (1), a person must make these changes:',
      '  ! Task/C: advanced (TT=COS) tasks cannot be changed through the API',
      'Unknown outcomes: 3 write(s) got no clear answer; re-reading showed 2 had taken effect, 1 were sent again.',
      'Snapshot: /s/prod/2026-11-22T02-30-00.000Z',
      'Ledger:   /s/prod/2026-11-22T02-30-00.000Z/ledger.jsonl',
      'Not in sync after apply (1 of 2, re-planned from the manifests):',
      '  Task/A: still to update (server default)',
      '',
    ]);
  });

  it('says why nothing was written', () => {
    expect(
      renderApplySummaryText({
        ...base,
        outcome: 'stale',
        stale: [
          { address: 'Task/A', how: 'changed' },
          { address: 'Task/B', how: 'gone', detail: 'task ID 4' },
        ],
      }),
    ).toBe(
      [
        'The plan is stale; nothing was written: 2 objects moved on the servers since the plan was made.',
        '  ~ Task/A: changed since the plan',
        '  - Task/B: no longer exists (task ID 4)',
        'Make a new plan (mftops plan --out FILE), review it, and apply that one.',
        '',
      ].join('\n'),
    );
    expect(renderApplySummaryText({ ...base, outcome: 'refused', problems: ['the plan deletes 1 object (Task/A): pass --allow-delete to apply it'] })).toBe(
      'Apply refused; nothing was written:\n  - the plan deletes 1 object (Task/A): pass --allow-delete to apply it\n',
    );
    expect(renderApplySummaryText({ ...base, outcome: 'nothing' })).toBe('Nothing to apply.\n');
  });

  it('tells a payload check from a re-plan and keeps control characters out of the terminal', () => {
    const text = renderApplySummaryText({
      ...base,
      results: [result('Task/A', 'Task', 'create', 'failed', 'bad\u001b[31m red')],
      verification: { mode: 'payloads', note: 'the manifests changed since the plan was made', unconverged: [] },
    });
    expect(text).not.toContain('\u001b');
    expect(text).toContain('Note: the manifests changed since the plan was made');
  });
});

it('renderApplySummaryJson carries the counts and the exit code', () => {
  const json = JSON.parse(
    renderApplySummaryJson({ ...base, results: [result('Task/A', 'Task', 'create', 'ok'), result('Task/B', 'Task', 'update', 'failed', 'x')] }),
  ) as Record<string, unknown>;
  expect(json).toMatchObject({
    environment: 'prod',
    outcome: 'applied',
    exitCode: 1,
    counts: { ok: 1, failed: 1, skipped: 0 },
    perKind: { Task: { ok: 1, failed: 1, skipped: 0 } },
  });
});
