import { describe, expect, it } from 'vitest';
import type { LiveState } from '../../src/live/model.js';
import type { FolderPermissionsPayload, Plan } from '../../src/plan/model.js';
import type { ResourceGroupAcl, Task } from '../../src/services/automation/types.js';
import { automationState, entry, manifestsFrom, planFrom, taskYaml, transferState } from '../resources/fixtures.js';

const task = (id: string, name: string, group: string, extra: Partial<Task> = {}): Task => ({
  ID: id,
  Name: name,
  Group: [group],
  Active: 1,
  Info: { Description: name },
  ...extra,
});
const acl = (id: string, rg: string, ug: string): ResourceGroupAcl => ({ ACLID: id, ResourceGroupName: rg, UserGroupName: ug, Permissions: { TaskRun: 1 } });
const folderDoc = (path: string, extra = '', mode = 'exact') =>
  `apiVersion: mftops/v1\nkind: FolderPermissions\nmetadata: { name: ${path} }\nspec:\n${extra}  mode: ${mode}\n  entries:\n    - user: alice\n      permissions: [listFiles]\n`;
const aclDoc = (name: string, rg: string, ug: string) =>
  `apiVersion: mftops/v1\nkind: ResourceGroupAcl\nmetadata: { name: ${name} }\nspec:\n  resourceGroup: ${rg}\n  userGroup: ${ug}\n  permissions: [TaskRun]\n`;
const docs = (...d: string[]) => manifestsFrom(d.join('---\n'));
const summaryOf = (p: Plan) => p.changes.map((c) => `${c.action} ${c.address}`);

describe('computePlan: the plan', () => {
  it('carries the run metadata, counts per action and the manifest position relative to cwd', () => {
    const { plan } = planFrom(docs(taskYaml('New', '  Active: 1\n')), { automation: automationState() }, { cwd: '/work', environment: 'prod' });
    expect(plan).toMatchObject({ toolVersion: '0.0.0-test', createdAt: '2026-11-22T00:00:00.000Z', environment: 'prod' });
    expect(plan.summary).toEqual({ create: 1, update: 0, replace: 0, delete: 0, 'no-op': 0, blocked: 0 });
    expect(plan.changes[0]).toMatchObject({
      address: 'Task/New',
      kind: 'Task',
      name: 'New',
      service: 'automation',
      source: { file: 'manifests/test.yaml', line: 1, col: 1 },
    });
  });

  it('is errored when plan-time errors left objects out, and applyable only when not errored and something is written', () => {
    expect(planFrom(docs(taskYaml('New', '  Active: 1\n')), { automation: automationState() }).plan).toMatchObject({ errored: false, applyable: true });
    const same = planFrom(docs(taskYaml('Same', '  Active: 1\n')), { automation: automationState({ tasks: [task('1', 'Same', 'Finance')] }) });
    expect(same.plan).toMatchObject({ errored: false, applyable: false });
    // A folder the plan cannot create: the rest is planned, the plan says it is incomplete.
    const missing = planFrom(docs(taskYaml('New', '  Active: 1\n'), folderDoc('/Gone')), {
      automation: automationState(),
      transfer: transferState([], { missing: ['/Gone'] }),
    });
    expect(missing.diagnostics.map((d) => d.code)).toEqual(['MF408']);
    expect(summaryOf(missing.plan)).toEqual(['create Task/New']);
    expect(missing.plan).toMatchObject({ errored: true, applyable: false });
    // A name the server does not know: the manifest is left out by the resolution, the plan is errored too.
    const unknown = planFrom(docs(taskYaml('New', '  Active: 1\n'), taskYaml('Typo', '  steps:\n    - Source: { Host: no-such-host, Path: /x }\n')), {
      automation: automationState(),
    });
    expect(unknown.diagnostics.map((d) => d.code)).toEqual(['MF401']);
    expect(summaryOf(unknown.plan)).toEqual(['create Task/New']);
    expect(unknown.plan).toMatchObject({ errored: true, applyable: false });
  });

  it('lists no-ops too: every managed object has a change', () => {
    const { plan } = planFrom(docs(taskYaml('Same', '  Active: 1\n')), { automation: automationState({ tasks: [task('1', 'Same', 'Finance')] }) });
    expect(summaryOf(plan)).toEqual(['no-op Task/Same']);
  });
});

describe('computePlan: renames', () => {
  it('renames through previousNames: an update with the old name, never delete + create', () => {
    const manifests = docs(taskYaml('Month-end report', '  Active: 1\n', '  previousNames: [Old name, Monthly report]\n'));
    const live: LiveState = { automation: automationState({ tasks: [task('7', 'Monthly report', 'Finance')] }) };
    const { plan } = planFrom(manifests, live, { prune: ['Task'] });
    expect(summaryOf(plan)).toEqual(['update Task/Month-end report']);
    const c = plan.changes[0]!;
    expect(c.previousName).toBe('Monthly report');
    expect(c.liveId).toBe('7');
    expect(c.fields).toEqual([{ path: 'Name', before: 'Monthly report', after: 'Month-end report' }]);
    expect((c.payload as unknown as { body: { Name: string; ID: string } }).body).toMatchObject({ Name: 'Month-end report', ID: '7' });
  });

  it('prefers the current name when both the current and an old name exist', () => {
    const live: LiveState = { automation: automationState({ tasks: [task('7', 'Monthly report', 'Finance'), task('8', 'Month-end report', 'Finance')] }) };
    const { plan } = planFrom(docs(taskYaml('Month-end report', '  Active: 1\n', '  previousNames: [Monthly report]\n')), live, { prune: ['Task'] });
    expect(summaryOf(plan)).toEqual(['no-op Task/Month-end report']);
  });
});

describe('computePlan: folder renames', () => {
  const renamedDoc = (path: string, previous: string[], extra = '', mode = 'exact') =>
    folderDoc(path, extra, mode).replace(`metadata: { name: ${path} }`, `metadata: { name: ${path}, previousNames: [${previous.join(', ')}] }`);
  const inbound = (acl = [entry('User', 'u-alice', 'alice', ['listFiles'])]) => ({ path: '/Distribution/Acme/Inbound', id: '5', acl });

  it('renames a folder found at a previous path (case-insensitive): one update with the path change and a rename in the payload, never a create', () => {
    const live: LiveState = { transfer: transferState([inbound()], { missing: ['/Distribution/Acme/Incoming'] }) };
    const { plan, diagnostics } = planFrom(
      docs(renamedDoc('/Distribution/Acme/Incoming', ['/distribution/acme/INBOUND'], '  createIfMissing: { inheritPermissions: None }\n')),
      live,
    );
    expect(diagnostics).toEqual([]);
    expect(summaryOf(plan)).toEqual(['update FolderPermissions/Distribution/Acme/Incoming']);
    const c = plan.changes[0]!;
    expect(c).toMatchObject({ previousName: '/Distribution/Acme/Inbound', liveId: '5', fingerprint: expect.stringMatching(/^sha256:/) });
    expect(c.fields).toEqual([{ path: 'path', before: '/Distribution/Acme/Inbound', after: '/Distribution/Acme/Incoming' }]);
    expect(c.entries).toEqual([
      {
        principal: { type: 'User', name: 'alice' },
        action: 'no-op',
        before: { permissions: ['listFiles'], sharePermissions: [] },
        after: { permissions: ['listFiles'], sharePermissions: [] },
      },
    ]);
    expect(c.payload).toEqual({
      kind: 'FolderPermissions',
      path: '/Distribution/Acme/Incoming',
      rename: { from: '/Distribution/Acme/Inbound', name: 'Incoming' },
      set: [],
      remove: [],
    });
  });

  it('compares the entries with those of the folder at the previous path', () => {
    const live: LiveState = {
      transfer: transferState([inbound([entry('User', 'u-alice', 'alice', ['readFiles']), entry('User', 'u-bob', 'bob', ['listFiles'])])], {
        missing: ['/Distribution/Acme/Incoming'],
      }),
    };
    const c = planFrom(docs(renamedDoc('/Distribution/Acme/Incoming', ['/Distribution/Acme/Inbound'])), live).plan.changes[0]!;
    expect(c.entries?.map((e) => `${e.action} ${e.principal.name}`)).toEqual(['update alice', 'delete bob']);
    expect(c.payload).toMatchObject({
      rename: { from: '/Distribution/Acme/Inbound', name: 'Incoming' },
      set: [expect.objectContaining({ id: 'u-alice' })],
      remove: [{ type: 'User', id: 'u-bob', name: 'bob' }],
    });
  });

  it('blocks a previous path under another parent: a move, which the API cannot do', () => {
    const live: LiveState = { transfer: transferState([{ path: '/Distribution/Globex/Inbound', id: '6' }], { missing: ['/Distribution/Acme/Incoming'] }) };
    const { plan } = planFrom(docs(renamedDoc('/Distribution/Acme/Incoming', ['/Distribution/Globex/Inbound'])), live);
    expect(summaryOf(plan)).toEqual(['blocked FolderPermissions/Distribution/Acme/Incoming']);
    expect(plan.changes[0]!.reason).toEqual({ code: 'folder-move', from: '/Distribution/Globex/Inbound', to: '/Distribution/Acme/Incoming' });
    expect(plan.changes[0]!.payload).toBeUndefined();
  });

  it('plans the folder at its path when the previous one exists too, and warns about the previous one (never a rename onto a folder)', () => {
    const live: LiveState = {
      transfer: transferState([inbound(), { path: '/Distribution/Acme/Incoming', id: '9', acl: [entry('User', 'u-alice', 'alice', ['listFiles'])] }]),
    };
    const { plan, diagnostics } = planFrom(docs(renamedDoc('/Distribution/Acme/Incoming', ['/Distribution/Acme/Inbound'])), live);
    expect(summaryOf(plan)).toEqual(['no-op FolderPermissions/Distribution/Acme/Incoming']);
    expect(diagnostics.map((d) => [d.severity, d.code, d.line, d.summary])).toEqual([
      [
        'warning',
        'MF412',
        3,
        'previous name /Distribution/Acme/Inbound of folder /Distribution/Acme/Incoming still exists on the transfer server (id 5): the plan manages /Distribution/Acme/Incoming and leaves /Distribution/Acme/Inbound alone',
      ],
    ]);
  });

  it('never prunes the entries of the previous path while the folder is renamed', () => {
    const live: LiveState = {
      transfer: transferState([{ path: '/Distribution/Acme', id: '4' }, inbound([entry('User', 'u-bob', 'bob', ['listFiles'])])], {
        missing: ['/Distribution/Acme/Incoming'],
        scopeFolders: ['/Distribution/Acme', '/Distribution/Acme/Inbound'],
      }),
    };
    const { plan } = planFrom(
      docs(renamedDoc('/Distribution/Acme/Incoming', ['/Distribution/Acme/Inbound'], '', 'additive'), folderDoc('/Distribution/Acme', '', 'additive')),
      live,
      { prune: ['FolderPermissions'] },
    );
    expect(summaryOf(plan)).toEqual(['update FolderPermissions/Distribution/Acme', 'update FolderPermissions/Distribution/Acme/Incoming']);
  });

  it('moves folders below along with a renamed parent: renamed only where their own name changes', () => {
    const live: LiveState = {
      transfer: transferState(
        [
          inbound(),
          { path: '/Distribution/Acme/Inbound/Archive', id: '7', acl: [entry('User', 'u-alice', 'alice', ['listFiles'])] },
          { path: '/Distribution/Acme/Inbound/Archive/2025', id: '8', acl: [entry('User', 'u-alice', 'alice', ['listFiles'])] },
        ],
        {
          missing: ['/Distribution/Acme/Incoming', '/Distribution/Acme/Incoming/Archive', '/Distribution/Acme/Incoming/Archive/Y2025'],
        },
      ),
    };
    const { plan, diagnostics } = planFrom(
      docs(
        renamedDoc('/Distribution/Acme/Incoming/Archive/Y2025', ['/Distribution/Acme/Inbound/Archive/2025']),
        renamedDoc('/Distribution/Acme/Incoming/Archive', ['/Distribution/Acme/Inbound/Archive']),
        renamedDoc('/Distribution/Acme/Incoming', ['/Distribution/Acme/Inbound']),
      ),
      live,
    );
    expect(diagnostics).toEqual([]);
    expect(plan.changes.map((c) => [c.action, c.name, c.previousName, (c.payload as FolderPermissionsPayload).rename?.name])).toEqual([
      ['update', '/Distribution/Acme/Incoming', '/Distribution/Acme/Inbound', 'Incoming'],
      ['update', '/Distribution/Acme/Incoming/Archive', '/Distribution/Acme/Inbound/Archive', undefined],
      ['update', '/Distribution/Acme/Incoming/Archive/Y2025', '/Distribution/Acme/Inbound/Archive/2025', 'Y2025'],
    ]);
  });

  it('says how to follow the rename when a managed folder below the previous path keeps its old path', () => {
    const live: LiveState = {
      transfer: transferState([inbound(), { path: '/Distribution/Acme/Inbound/Archive', id: '7' }], { missing: ['/Distribution/Acme/Incoming'] }),
    };
    const { plan, diagnostics } = planFrom(
      docs(renamedDoc('/Distribution/Acme/Incoming', ['/Distribution/Acme/Inbound']), folderDoc('/Distribution/Acme/Inbound/Archive')),
      live,
    );
    expect(summaryOf(plan)).toEqual(['update FolderPermissions/Distribution/Acme/Incoming']);
    expect(diagnostics.map((d) => [d.severity, d.code, d.summary, d.hint])).toEqual([
      [
        'error',
        'MF408',
        'folder /Distribution/Acme/Inbound/Archive will not exist after this plan: /Distribution/Acme/Inbound above it is renamed to /Distribution/Acme/Incoming',
        'name it /Distribution/Acme/Incoming/Archive, with /Distribution/Acme/Inbound/Archive in previousNames',
      ],
    ]);
  });

  it('brings along the rename of the parent a targeted new folder below it needs', () => {
    const live: LiveState = { transfer: transferState([inbound()], { missing: ['/Distribution/Acme/Incoming', '/Distribution/Acme/Incoming/New'] }) };
    const { plan, diagnostics } = planFrom(
      docs(
        renamedDoc('/Distribution/Acme/Incoming', ['/Distribution/Acme/Inbound']),
        folderDoc('/Distribution/Acme/Incoming/New', '  createIfMissing: { inheritPermissions: CopyOnly }\n'),
      ),
      live,
      { targets: ['FolderPermissions/Distribution/Acme/Incoming/New'] },
    );
    expect(diagnostics).toEqual([]);
    expect(summaryOf(plan)).toEqual(['update FolderPermissions/Distribution/Acme/Incoming', 'create FolderPermissions/Distribution/Acme/Incoming/New']);
  });
});

describe('computePlan: prune', () => {
  const live = (): LiveState => ({
    automation: automationState({
      tasks: [task('1', 'Managed', 'Finance'), task('2', 'Stray', 'Finance'), task('3', 'Elsewhere', 'Marketing'), task('4', 'Renamed away', 'Partners')],
      acls: [acl('51', 'Finance', 'Finance Operators'), acl('52', 'Finance', 'Auditors'), acl('53', 'Marketing', 'Auditors')],
    }),
    transfer: transferState(
      [
        { path: '/Distribution/Acme', id: '10', acl: [entry('User', 'u-alice', 'alice', ['listFiles'])] },
        {
          path: '/Distribution/Acme/In',
          id: '11',
          acl: [entry('User', 'u-bob', 'bob', ['readFiles']), entry('User', 'u-carol', 'carol', ['admin'], { isEditable: false })],
        },
        { path: '/Distribution/Empty', id: '12', acl: [] },
      ],
      { scopeFolders: ['/Distribution/Acme', '/Distribution/Acme/In', '/Distribution/Empty'] },
    ),
  });
  const manifests = () =>
    docs(
      taskYaml('Managed', '  Active: 1\n'),
      taskYaml('Renamed', '  Active: 1\n', '  previousNames: [Renamed away]\n'),
      aclDoc('ops', 'Finance', 'Finance Operators'),
      folderDoc('/Distribution/Acme'),
    );

  it('deletes only unmanaged objects in scope, of the kinds listed in prune', () => {
    const { plan } = planFrom(manifests(), live(), { prune: ['Task', 'ResourceGroupAcl', 'FolderPermissions'] });
    const deletes = plan.changes.filter((c) => c.action === 'delete');
    expect(deletes.map((c) => c.address)).toEqual(['Task/Stray', 'ResourceGroupAcl/Finance/Auditors', 'FolderPermissions/Distribution/Acme/In']);
    expect(deletes.map((c) => c.liveId)).toEqual(['2', '52', '11']);
    expect(deletes.every((c) => c.source === undefined && c.fingerprint?.startsWith('sha256:'))).toBe(true);
    // The non-editable entry stays.
    expect((deletes[2]!.payload as FolderPermissionsPayload).remove).toEqual([{ type: 'User', id: 'u-bob', name: 'bob' }]);
  });

  it('fingerprints only the objects it writes: no-ops carry none (apply never re-reads them)', () => {
    const { plan } = planFrom(manifests(), live(), { prune: ['Task'] });
    const noops = plan.changes.filter((c) => c.action === 'no-op');
    const written = plan.changes.filter((c) => c.action !== 'no-op' && c.action !== 'create');
    expect(noops.length).toBeGreaterThan(0);
    expect(written.length).toBeGreaterThan(0);
    expect(noops.filter((c) => c.fingerprint !== undefined).map((c) => c.address)).toEqual([]);
    expect(noops.every((c) => c.liveId !== undefined)).toBe(true);
    expect(written.filter((c) => !c.fingerprint?.startsWith('sha256:')).map((c) => c.address)).toEqual([]);
  });

  it('deletes nothing without prune', () => {
    const { plan } = planFrom(manifests(), live());
    expect(plan.changes.some((c) => c.action === 'delete')).toBe(false);
  });

  it('never prunes what a manifest manages, even one whose references do not resolve', () => {
    const broken = docs(taskYaml('Stray', '  steps:\n    - Source: { Host: no-such-host }\n'));
    const { plan, diagnostics } = planFrom(broken, live(), { prune: ['Task'] });
    expect(diagnostics.map((d) => d.code)).toEqual(['MF401']);
    expect(plan.changes.map((c) => c.address)).not.toContain('Task/Stray');
  });
});

describe('computePlan: folders to create', () => {
  it('creates a missing folder with createIfMissing under its existing parent', () => {
    const live: LiveState = {
      transfer: transferState([{ path: '/Finance', acl: [entry('Group', '8', 'Finance Team', ['readFiles'])] }], { missing: ['/Finance/Reports'] }),
    };
    const { plan, diagnostics } = planFrom(docs(folderDoc('/Finance/Reports', '  createIfMissing: { inheritPermissions: None }\n')), live);
    expect(diagnostics).toEqual([]);
    const c = plan.changes[0]!;
    expect(c.action).toBe('create');
    expect(c.liveId).toBeUndefined();
    expect(c.payload).toEqual({
      kind: 'FolderPermissions',
      path: '/Finance/Reports',
      create: { parentPath: '/Finance', name: 'Reports', inheritPermissions: 'None' },
      set: [expect.objectContaining({ type: 'User', id: 'u-alice', name: 'alice' })],
      remove: [],
    });
  });

  it('removes, in exact mode, the entries a copy of the parent would bring', () => {
    const live: LiveState = {
      transfer: transferState([{ path: '/Finance', acl: [entry('Group', '8', 'Finance Team', ['readFiles'])] }], { missing: ['/Finance/Reports'] }),
    };
    const { plan } = planFrom(docs(folderDoc('/Finance/Reports', '  createIfMissing: { inheritPermissions: CopyOnly }\n')), live);
    const c = plan.changes[0]!;
    expect((c.payload as FolderPermissionsPayload).remove).toEqual([{ type: 'Group', id: '8', name: 'Finance Team' }]);
    expect(c.reason).toEqual({ code: 'folder-copies-parent', parentPath: '/Finance', inheritPermissions: 'CopyOnly' });
    expect(c.entries).toContainEqual(expect.objectContaining({ action: 'delete', reason: { code: 'entry-copied-from-parent' } }));
    const additive = planFrom(docs(folderDoc('/Finance/Reports', '  createIfMissing: { inheritPermissions: CopyOnly }\n', 'additive')), live).plan.changes[0]!;
    expect((additive.payload as FolderPermissionsPayload).remove).toEqual([]);
  });

  it('creates a parent before its child when both are missing', () => {
    const live: LiveState = { transfer: transferState([{ path: '/Finance' }], { missing: ['/Finance/A', '/Finance/A/B'] }) };
    const how = '  createIfMissing: { inheritPermissions: None }\n';
    const { plan, diagnostics } = planFrom(docs(folderDoc('/Finance/A/B', how), folderDoc('/Finance/A', how)), live);
    expect(diagnostics).toEqual([]);
    expect(summaryOf(plan)).toEqual(['create FolderPermissions/Finance/A', 'create FolderPermissions/Finance/A/B']);
  });

  it('says what to do when the folder is missing without createIfMissing, or its parent is missing', () => {
    const live: LiveState = { transfer: transferState([], { missing: ['/Nowhere/A', '/Gone'] }) };
    const { plan, diagnostics } = planFrom(docs(folderDoc('/Gone'), folderDoc('/Nowhere/A', '  createIfMissing: { inheritPermissions: None }\n')), live);
    expect(plan.changes).toEqual([]);
    expect(diagnostics.map((d) => [d.code, d.line, d.summary])).toEqual([
      ['MF408', 3, 'folder /Gone does not exist on the transfer server; add createIfMissing to create it'],
      ['MF408', 12, 'cannot create folder /Nowhere/A: its parent /Nowhere does not exist on the transfer server'],
    ]);
  });
});

describe('computePlan: --target', () => {
  const manifests = () => docs(taskYaml('One', '  Active: 1\n'), taskYaml('Two', '  Active: 1\n'), aclDoc('ops', 'Finance', 'Finance Operators'));
  const live = (): LiveState => ({ automation: automationState() });

  it('limits the plan to the targeted objects (addresses compare without regard to case)', () => {
    const { plan, diagnostics } = planFrom(manifests(), live(), { targets: ['Task/two'] });
    expect(diagnostics).toEqual([]);
    expect(summaryOf(plan)).toEqual(['create Task/Two']);
    expect(plan.targets).toEqual(['Task/two']);
  });

  it('finds an ACL by its label or by resourceGroup/userGroup', () => {
    expect(summaryOf(planFrom(manifests(), live(), { targets: ['ResourceGroupAcl/ops'] }).plan)).toEqual(['create ResourceGroupAcl/ops']);
    expect(summaryOf(planFrom(manifests(), live(), { targets: ['ResourceGroupAcl/Finance/Finance Operators'] }).plan)).toEqual(['create ResourceGroupAcl/ops']);
  });

  it('warns about an address that names nothing, with a suggestion; one that is not an address is an error', () => {
    const { plan, diagnostics } = planFrom(manifests(), live(), { targets: ['Task/Tow', 'Nonsense'] });
    expect(plan.changes).toEqual([]);
    expect(diagnostics.map((d) => [d.severity, d.code, d.address, d.file, d.line, d.summary])).toEqual([
      ['warning', 'MF409', 'Task/Tow', undefined, undefined, '--target names nothing in this plan — did you mean `Task/Two`?'],
      ['error', 'MF409', 'Nonsense', undefined, undefined, '--target names nothing in this plan'],
    ]);
  });

  it('limited to addresses that name nothing, plans nothing: no change to apply, not an errored plan', () => {
    const { plan, diagnostics } = planFrom(manifests(), live(), { targets: ['Task/Tow'] });
    expect(plan.changes).toEqual([]);
    expect(plan.errored).toBe(false);
    expect(diagnostics.map((d) => d.severity)).toEqual(['warning']);
  });

  it('brings along the creation of the parent folder a targeted new folder needs', () => {
    const live: LiveState = { transfer: transferState([{ path: '/Finance' }], { missing: ['/Finance/A', '/Finance/A/B'] }) };
    const how = '  createIfMissing: { inheritPermissions: None }\n';
    const { plan } = planFrom(docs(folderDoc('/Finance/A', how), folderDoc('/Finance/A/B', how), folderDoc('/Finance', '', 'additive')), live, {
      targets: ['FolderPermissions/Finance/A/B'],
    });
    expect(summaryOf(plan)).toEqual(['create FolderPermissions/Finance/A', 'create FolderPermissions/Finance/A/B']);
  });
});

describe('computePlan: order', () => {
  it('orders folders (parents first), then ACLs, then tasks, then deletes in reverse', () => {
    const manifests = docs(
      taskYaml('T1', '  Active: 1\n'),
      aclDoc('a1', 'Finance', 'Finance Operators'),
      folderDoc('/Distribution/Acme/In'),
      folderDoc('/Distribution/Acme'),
      taskYaml('T2', '  Active: 0\n'),
    );
    const live: LiveState = {
      automation: automationState({ tasks: [task('9', 'Old task', 'Finance')], acls: [acl('59', 'Finance', 'Auditors')] }),
      transfer: transferState(
        [
          { path: '/Distribution/Acme' },
          { path: '/Distribution/Acme/In' },
          { path: '/Distribution/Old', acl: [entry('User', 'u-bob', 'bob', ['readFiles'])] },
          { path: '/Distribution/Old/Sub', acl: [entry('User', 'u-bob', 'bob', ['readFiles'])] },
        ],
        { scopeFolders: ['/Distribution/Acme', '/Distribution/Acme/In', '/Distribution/Old', '/Distribution/Old/Sub'] },
      ),
    };
    const { plan } = planFrom(manifests, live, { prune: ['Task', 'ResourceGroupAcl', 'FolderPermissions'] });
    expect(plan.changes.map((c) => c.address)).toEqual([
      'FolderPermissions/Distribution/Acme',
      'FolderPermissions/Distribution/Acme/In',
      'ResourceGroupAcl/a1',
      'Task/T1',
      'Task/T2',
      'Task/Old task',
      'ResourceGroupAcl/Finance/Auditors',
      'FolderPermissions/Distribution/Old/Sub',
      'FolderPermissions/Distribution/Old',
    ]);
  });
});
