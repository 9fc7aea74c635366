import { describe, expect, it } from 'vitest';
import { findSnapshotGaps } from '../../src/snapshot/export-check.js';
import type { ExportBaseline, ExportContents } from '../../src/snapshot/model.js';

/** Issue 23 finding 4: a snapshot must hold what the server held a moment before apply writes. */

const LIVE_TASKS = [
  { id: '1', name: 'Nightly payroll' },
  { id: '2', name: 'Acme inbound' },
  { id: '3', name: 'Acme outbound' },
];
const LIVE_ACLS = [{ id: '7', name: 'Finance / Auditors' }];
const FULL: ExportContents = { tasks: LIVE_TASKS.map((t) => ({ ...t })), acls: [{ id: '7', name: 'Finance / Auditors' }] };

describe('findSnapshotGaps', () => {
  it('a whole export, or one holding more than the lists show: no gap', () => {
    const baseline: ExportBaseline = { tasks: { live: LIVE_TASKS, touched: ['2'] }, acls: { live: LIVE_ACLS, touched: ['7'] } };
    expect(findSnapshotGaps({ automation: FULL }, baseline)).toEqual([]);
    expect(findSnapshotGaps({ automation: { ...FULL, tasks: [...FULL.tasks, { id: '4', name: 'hidden from the list' }] } }, baseline)).toEqual([]);
  });

  it('an export with fewer tasks than the list: the count, and the missing ones, those this apply changes first', () => {
    const baseline: ExportBaseline = { tasks: { live: LIVE_TASKS, touched: ['3'] } };
    expect(findSnapshotGaps({ automation: { tasks: [{ id: '1', name: 'Nightly payroll' }], acls: [] } }, baseline)).toEqual([
      'the automation export holds 1 task but the server lists 3 (missing: Acme outbound (ID 3), Acme inbound (ID 2))',
    ]);
  });

  it('as many tasks as the list but not the one this apply changes (another id in its place): named', () => {
    const swapped: ExportContents = { tasks: [FULL.tasks[0]!, FULL.tasks[1]!, { id: '30', name: 'Acme outbound' }], acls: FULL.acls };
    expect(findSnapshotGaps({ automation: swapped }, { tasks: { live: LIVE_TASKS, touched: ['3'] }, acls: { live: LIVE_ACLS, touched: [] } })).toEqual([
      'the automation export lacks the task this apply changes (Acme outbound (ID 3))',
    ]);
  });

  it('ACLs are checked the same way; more than five missing are counted', () => {
    const live = Array.from({ length: 8 }, (_, i) => ({ id: String(i), name: `RG${i} / UG` }));
    expect(findSnapshotGaps({ automation: { tasks: [], acls: [] } }, { acls: { live, touched: [] } })).toEqual([
      'the automation export holds 0 resource-group ACLs but the server lists 8 (missing: RG0 / UG (ID 0), RG1 / UG (ID 1), RG2 / UG (ID 2), RG3 / UG (ID 3), RG4 / UG (ID 4), … 3 more)',
    ]);
  });

  it('transfer folders: the same folder with at least the entries the stale check read', () => {
    const entry = { type: 'User', id: 'u1', permissions: {} };
    const baseline: ExportBaseline = {
      folders: [
        { path: '/Finance/Payroll', id: '10', entries: 2 },
        { path: '/Finance/New', id: null, entries: 0 },
        { path: '/Acme', id: '12', entries: 1 },
      ],
    };
    expect(
      findSnapshotGaps(
        {
          folders: [
            { path: '/finance/payroll', id: '10', entries: [entry] },
            { path: '/Finance/New', id: null, entries: [] },
            { path: '/Acme', id: '13', entries: [entry] },
          ],
        },
        baseline,
      ),
    ).toEqual([
      'the snapshot holds 1 ACL entries of folder /Finance/Payroll but the server listed 2',
      'folder /Acme is id 13 in the snapshot but was id 12 a moment before',
    ]);
    expect(findSnapshotGaps({ folders: [] }, baseline)).toHaveLength(3);
  });
});
