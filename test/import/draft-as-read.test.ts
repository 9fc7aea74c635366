import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createDraftAsRead } from '../../src/import/draft-as-read.js';
import type { ImportKind, ImportSelection, ImportSource } from '../../src/import/model.js';
import { importObjects } from '../../src/import/select.js';
import { planImportPaths } from '../../src/import/write-files.js';
import type { PlannedPath } from '../../src/import/write-files.js';
import type { LiveFolder } from '../../src/live/model.js';

const folder = (path: string): LiveFolder => ({
  folder: { id: path, name: path.split('/').pop() ?? '', path },
  acl: [{ type: 'User', id: 'u1', name: 'alice', permissions: { listFiles: true } }],
});

/** Names whose file names collide (`-2`, `-3` across parts), a secret parameter, and a server value that reads as a reference. */
const source: ImportSource = {
  origin: 'test',
  tasks: [
    ...Array.from({ length: 23 }, (_, i) => ({ Name: `Task ${i % 7}${i >= 7 ? '!'.repeat(Math.floor(i / 7)) : ''}`, Group: ['Finance'] })),
    { Name: 'Payroll to bank', Group: ['Finance'], Parameters: { Token: { value: '(suppressed)' }, Plain: { value: 'x' } } },
    { Name: 'Sneaky', Group: ['Finance'], Info: { Description: '${env:HOME}' } },
  ],
  hosts: [],
  scripts: [],
  dateLists: [],
  acls: [
    { ACLID: '1', ResourceGroupName: 'Finance', UserGroupName: 'Operators', Permissions: {} },
    { ACLID: '2', ResourceGroupName: 'Finance', UserGroupName: 'operators!', Permissions: {} },
  ],
  folders: ['/A', '/A/B', '/a/b', '/C/D', '/C/D/E'].map(folder),
};

const KINDS: readonly ImportKind[] = ['Task', 'ResourceGroupAcl', 'FolderPermissions'];
const PARTS: Record<string, Partial<ImportSource>> = {
  Task: { tasks: source.tasks, hosts: [], scripts: [], dateLists: [] },
  ResourceGroupAcl: { acls: source.acls },
  FolderPermissions: { folders: source.folders },
};
const selection: ImportSelection = { kinds: [...KINDS], all: true, scope: { taskGroups: [], folders: [] } };

const shown = (paths: readonly PlannedPath[]) => paths.map((p) => ({ relPath: p.relPath, path: p.path, address: p.address, text: p.render() }));

describe('createDraftAsRead', () => {
  it('makes, in any order of arrival and in parts of any size, what importObjects and planImportPaths make of the whole source', async () => {
    const whole = importObjects(source, selection);
    const wholePaths = shown(planImportPaths(whole.manifests, '/out'));
    expect(whole.secrets).toHaveLength(1);
    expect(whole.skipped).toEqual([expect.stringMatching(/^Task\/Sneaky not imported/)]);
    expect(wholePaths.filter((p) => p.relPath.startsWith('tasks/task-0')).map((p) => p.relPath)).toEqual([
      'tasks/task-0.yaml',
      'tasks/task-0-2.yaml',
      'tasks/task-0-3.yaml',
      'tasks/task-0-4.yaml',
    ]);
    await fc.assert(
      fc.asyncProperty(fc.shuffledSubarray([...KINDS], { minLength: 3, maxLength: 3 }), fc.integer({ min: 1, max: 9 }), async (arrival, chunk) => {
        const staged: PlannedPath[] = [];
        const drafter = createDraftAsRead(selection, 'test', '/out', (files) => staged.push(...files), { chunk });
        await Promise.all(arrival.map((kind) => drafter.arrive(kind, PARTS[kind]!)));
        const drafted = drafter.result();
        expect(drafted).toBeDefined();
        expect(drafted!.result.manifests.map((m) => m.address)).toEqual(whole.manifests.map((m) => m.address));
        expect(drafted!.result.secrets).toEqual(whole.secrets);
        expect(drafted!.result.skipped).toEqual(whole.skipped);
        expect(shown(drafted!.paths)).toEqual(wholePaths);
        expect(shown(staged)).toEqual(wholePaths);
      }),
      { numRuns: 40 },
    );
  });

  it('lets the event loop turn between parts, and settles each arrival once what it let be drafted is staged', async () => {
    const staged: PlannedPath[] = [];
    const drafter = createDraftAsRead(selection, 'test', '/out', (files) => staged.push(...files), { chunk: 5 });
    // An immediate that re-queues itself runs once per turn of the event loop: what it sees
    // staged shows whether other work ran between parts (no clock involved, so no flake).
    const seen: number[] = [];
    let ticking = true;
    const tick = () => {
      seen.push(staged.length);
      if (ticking) setImmediate(tick);
    };
    setImmediate(tick);
    const arrival = drafter.arrive('Task', PARTS.Task!);
    expect(staged.length).toBeLessThanOrEqual(5);
    await arrival;
    ticking = false;
    expect(staged).toHaveLength(24);
    expect(seen.filter((n) => n > 0 && n < 24).length).toBeGreaterThanOrEqual(3);
  });
});
