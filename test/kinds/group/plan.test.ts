import { describe, expect, it } from 'vitest';
import { resolveGroup } from '../../../src/kinds/group/resolve.js';
import { planGroup } from '../../../src/kinds/group/plan.js';
import { GROUP_IO } from '../../../src/kinds/group/io.js';
import type { GroupManifest } from '../../../src/manifest/types.js';
import type { Change, GroupPayload } from '../../../src/plan/model.js';
import { isWriteAction } from '../../../src/plan/model.js';
import { scheduleChanges, checkExecutionOrder } from '../../../src/plan/execution-order.js';
import { renderChangeText } from '../../../src/render/plan-text.js';
import type { TransferLiveState } from '../../../src/live/model.js';
import { manifestsFrom, planFrom, transferState } from '../../resources/fixtures.js';

function groupYaml(name: string, spec: string): string {
  return `apiVersion: mftops/v1\nkind: Group\nmetadata: { name: ${name} }\nspec:\n${spec}`;
}

/** The fixtures' users and groups, with Acme Partners (id 7) holding alice and bob. */
function live(members: Record<string, string[]> = { 'acme partners': ['alice', 'bob'] }): TransferLiveState {
  return { ...transferState([]), groupMembers: { form: 'members', members: new Map(Object.entries(members)) } };
}

function planOne(yaml: string, state = live()): { change: Change; warnings: string[] } {
  const { plan, diagnostics } = planFrom(manifestsFrom(yaml), { transfer: state });
  expect(diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  expect(plan.changes).toHaveLength(1);
  return { change: plan.changes[0]!, warnings: diagnostics.filter((d) => d.severity === 'warning').map((d) => `${d.code} ${d.summary}`) };
}

const payload = (c: Change) => c.payload as GroupPayload;

describe('Group plan', () => {
  it('creates a missing group with its description, then adds its members by user id', () => {
    const { change } = planOne(groupYaml('Ops Team', '  description: Night operators\n  mode: exact\n  members: [Alice, carol]\n'));
    expect(change.action).toBe('create');
    expect(change.address).toBe('Group/Ops Team');
    expect(payload(change)).toEqual({
      kind: 'Group',
      name: 'Ops Team',
      create: { description: 'Night operators' },
      add: [
        { username: 'Alice', id: 'u-alice' },
        { username: 'carol', id: 'u-carol' },
      ],
      remove: [],
    });
    expect(GROUP_IO.planSteps(change, change.payload).map((s) => s.op)).toEqual(['group-create', 'group-members-add']);
    expect(renderChangeText(change)).toEqual([
      '+ Group/Ops Team will be created',
      '    + description: "Night operators"',
      '    + members: "Alice"',
      '    + members: "carol"',
    ]);
  });

  it('is a no-op when the members match, without regard to case or order', () => {
    const { change } = planOne(groupYaml('acme partners', '  mode: exact\n  members: [BOB, alice]\n'));
    expect(change.action).toBe('no-op');
    expect(change.liveId).toBe('7');
    expect(change.payload).toBeUndefined();
  });

  it('adds the missing members in one request and, in exact mode, removes the others one by one', () => {
    const { change } = planOne(groupYaml('Acme Partners', '  mode: exact\n  members: [alice, carol]\n'));
    expect(change.action).toBe('update');
    expect(payload(change).add).toEqual([{ username: 'carol', id: 'u-carol' }]);
    expect(payload(change).remove).toEqual([{ username: 'bob', id: 'u-bob' }]);
    expect(change.fingerprint).toMatch(/^sha256:/);
    const steps = GROUP_IO.planSteps(change, change.payload);
    expect(steps.map((s) => s.op)).toEqual(['group-members-add', 'group-member-remove']);
    expect(renderChangeText(change)).toEqual(['~ Group/Acme Partners will be updated', '    + members: "carol"', '    - members: "bob"']);
  });

  it('never removes a member in additive mode', () => {
    const { change } = planOne(groupYaml('Acme Partners', '  mode: additive\n  members: [carol]\n'));
    expect(change.action).toBe('update');
    expect(payload(change).remove).toEqual([]);
    expect(payload(change).add).toEqual([{ username: 'carol', id: 'u-carol' }]);
    const same = planOne(groupYaml('Acme Partners', '  mode: additive\n  members: [bob]\n')).change;
    expect(same.action).toBe('no-op');
  });

  it('blocks a description change: the API has no group update', () => {
    const state = { ...live(), groups: { ...live().groups!, byName: new Map([['acme partners', { id: '7', name: 'Acme Partners', description: 'Old' }]]) } };
    const { change } = planOne(groupYaml('Acme Partners', '  description: New\n  mode: exact\n  members: [alice, bob]\n'), state);
    expect(change.action).toBe('blocked');
    expect(change.reason).toEqual({ code: 'group-not-updatable', partial: false });
    expect(change.payload).toBeUndefined();
    expect(renderChangeText(change)).toEqual([
      '! Group/Acme Partners is blocked',
      '    # the file transfer API of this release has no group update/delete: the description cannot be changed through the API',
      '    ~ description: "Old" → "New"',
    ]);
    // With member changes too, the members are applied and the description still says why it is not.
    const partial = planOne(groupYaml('Acme Partners', '  description: New\n  mode: exact\n  members: [alice]\n'), state).change;
    expect(partial.action).toBe('update');
    expect(partial.reason).toEqual({ code: 'group-not-updatable', partial: true });
    expect(payload(partial).remove).toEqual([{ username: 'bob', id: 'u-bob' }]);
  });

  it('blocks a group whose members the server does not tell, rather than guessing', () => {
    const { change } = planOne(groupYaml('Finance Team', '  mode: exact\n  members: [alice]\n'));
    expect(change.action).toBe('blocked');
    expect(change.reason).toEqual({ code: 'group-members-unknown' });
  });

  it('never writes an observed group: a no-op change, its differences a warning', () => {
    const { change, warnings } = planOne(groupYaml('Acme Partners', '  mode: exact\n  members: [alice, carol]\n  manage: observe\n'));
    expect(change.action).toBe('no-op');
    expect(change.payload).toBeUndefined();
    expect(isWriteAction(change.action)).toBe(false);
    expect(warnings).toEqual(['MF417 group Acme Partners is observed, not managed: +carol, -bob; mftops never writes it']);
    const missing = planOne(groupYaml('Directory Group', '  mode: exact\n  members: []\n  manage: observe\n'));
    expect(missing.change.action).toBe('no-op');
    expect(missing.warnings).toEqual(['MF417 group Directory Group is observed, not managed: the transfer server has no such group; mftops never writes it']);
  });

  it('reports an unknown member at its place, with a did-you-mean', () => {
    const { diagnostics, plan } = planFrom(manifestsFrom(groupYaml('Acme Partners', '  mode: exact\n  members: [alice, bobb]\n')), { transfer: live() });
    expect(plan.changes).toEqual([]);
    expect(diagnostics.map((d) => [d.code, d.summary, d.line])).toEqual([['MF406', 'no user named `bobb` on the transfer server — did you mean `bob`?', 6]]);
  });

  it('prunes nothing it cannot delete: an unmanaged group is blocked, and only where groups are managed', () => {
    const groupsManaged = planFrom(manifestsFrom(groupYaml('Acme Partners', '  mode: additive\n  members: []\n')), { transfer: live() }, { prune: ['Group'] });
    const unmanaged = groupsManaged.plan.changes.filter((c) => c.name === 'Finance Team');
    expect(unmanaged.map((c) => [c.action, c.reason?.code, c.liveId])).toEqual([['blocked', 'group-not-deletable', '8']]);
    const noGroups = planFrom([], { transfer: live() }, { prune: ['Group'] });
    expect(noGroups.plan.changes).toEqual([]);
  });
});

describe('a member created by this plan', () => {
  const manifest = manifestsFrom(groupYaml('Acme Partners', '  mode: exact\n  members: [alice, bob, Dave]\n'))[0] as GroupManifest;
  const declared = new Map([['user/dave', 'User/dave']]);

  it('resolves to the User change that creates it, not to an unknown user', () => {
    const resolution = resolveGroup(manifest, live(), declared);
    expect(resolution.diagnostics).toEqual([]);
    expect(resolution.value.members).toContainEqual({ username: 'Dave', createdBy: 'User/dave' });
    expect(resolveGroup(manifest, live(), new Map()).diagnostics.map((d) => d.code)).toEqual(['MF406']);
  });

  it('is shown as created by this plan, and the group waits for that create in a later wave', () => {
    const desired = resolveGroup(manifest, live(), declared).value;
    const outcome = planGroup(desired, {
      id: '7',
      name: 'Acme Partners',
      description: '',
      members: [
        { username: 'alice', id: 'u-alice' },
        { username: 'bob', id: 'u-bob' },
      ],
    });
    const group: Change = {
      address: 'Group/Acme Partners',
      kind: 'Group',
      name: 'Acme Partners',
      service: 'transfer',
      liveId: '7',
      action: 'update',
      fields: outcome.fields,
      ...(outcome.payload ? { payload: outcome.payload } : {}),
    };
    expect(renderChangeText(group)).toEqual(['~ Group/Acme Partners will be updated', '    + members: "Dave" (created by this plan)']);
    // The User change as the User kind makes it (the kind itself is another part of issue 26).
    const user = { address: 'User/dave', kind: 'User', name: 'dave', service: 'transfer', action: 'create', fields: [] } as unknown as Change;
    const folder: Change = {
      address: 'FolderPermissions/A',
      kind: 'FolderPermissions',
      name: '/A',
      service: 'transfer',
      action: 'update',
      liveId: '1',
      fields: [],
    };
    const scheduled = scheduleChanges([user, group, folder]);
    expect(scheduled.map((c) => [c.address, c.wave, c.needs])).toEqual([
      ['User/dave', 0, undefined],
      ['FolderPermissions/A', 0, undefined],
      ['Group/Acme Partners', 1, 'User/dave'],
    ]);
    expect(checkExecutionOrder(scheduled)).toEqual([]);
    expect(checkExecutionOrder(scheduled.map((c) => (c.kind === 'Group' ? { ...c, wave: 0 } : c)))).not.toEqual([]);
  });
});
