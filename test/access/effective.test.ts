import { describe, expect, it } from 'vitest';
import { NO_MEMBERS, computeEffectiveAccess, diffEffectiveAccess, effectivePermissionsOf, groupMembersFrom } from '../../src/access/effective.js';
import type { AccessEntry } from '../../src/access/effective.js';

const members = groupMembersFrom({ Auditors: ['bob', 'carol'], 'Globex Partners': ['globex_svc'] });

describe('computeEffectiveAccess', () => {
  it("unites a user's own entry with the entries of every group the user is in, naming each source", () => {
    const entries: AccessEntry[] = [
      { type: 'Group', name: 'Auditors', permissions: ['readFiles', 'listFiles'] },
      { type: 'User', name: 'bob', permissions: ['listFiles', 'writeFiles'] },
    ];
    const access = computeEffectiveAccess(entries, members);
    expect(access.users.get('bob')).toEqual({
      user: 'bob',
      permissions: ['readFiles', 'writeFiles', 'listFiles'],
      via: {
        readFiles: [{ type: 'Group', name: 'Auditors' }],
        writeFiles: [{ type: 'User', name: 'bob' }],
        listFiles: [
          { type: 'User', name: 'bob' },
          { type: 'Group', name: 'Auditors' },
        ],
      },
    });
    expect(access.users.get('carol')?.permissions).toEqual(['readFiles', 'listFiles']);
    expect(access.unknownGroups).toEqual([]);
  });

  it('keeps a group whose members are unknown apart instead of granting to nobody silently', () => {
    const entries: AccessEntry[] = [{ type: 'Group', name: 'Ops', permissions: ['admin'] }];
    expect(computeEffectiveAccess(entries, members).unknownGroups).toEqual(entries);
    expect(computeEffectiveAccess(entries, NO_MEMBERS).users.size).toBe(0);
  });

  it('effectivePermissionsOf answers for one user, through groups, whatever the case of the name', () => {
    const entries: AccessEntry[] = [{ type: 'Group', name: 'globex partners', permissions: ['writeFiles'] }];
    expect(effectivePermissionsOf('GLOBEX_SVC', entries, members)).toEqual(['writeFiles']);
    expect(effectivePermissionsOf('alice', entries, members)).toEqual([]);
  });
});

describe('diffEffectiveAccess', () => {
  it('names each member a group entry change reaches, with what is gained and lost and through which entry', () => {
    const before = computeEffectiveAccess([{ type: 'Group', name: 'Auditors', permissions: ['readFiles', 'listFiles'] }], members);
    const after = computeEffectiveAccess([{ type: 'Group', name: 'Globex Partners', permissions: ['deleteFiles'] }], members);
    expect(diffEffectiveAccess(before, after)).toEqual([
      { who: { type: 'User', name: 'bob' }, gained: [], lost: ['readFiles', 'listFiles'], via: [{ type: 'Group', name: 'Auditors' }], removed: true },
      { who: { type: 'User', name: 'carol' }, gained: [], lost: ['readFiles', 'listFiles'], via: [{ type: 'Group', name: 'Auditors' }], removed: true },
      { who: { type: 'User', name: 'globex_svc' }, gained: ['deleteFiles'], lost: [], via: [{ type: 'Group', name: 'Globex Partners' }], removed: false },
    ]);
  });

  it('shows no change for a user who keeps a permission through another entry', () => {
    const before = computeEffectiveAccess(
      [
        { type: 'Group', name: 'Auditors', permissions: ['readFiles'] },
        { type: 'User', name: 'bob', permissions: ['readFiles'] },
      ],
      members,
    );
    const after = computeEffectiveAccess([{ type: 'User', name: 'bob', permissions: ['readFiles'] }], members);
    expect(diffEffectiveAccess(before, after)).toEqual([
      { who: { type: 'User', name: 'carol' }, gained: [], lost: ['readFiles'], via: [{ type: 'Group', name: 'Auditors' }], removed: true },
    ]);
  });

  it('shows the group-level change for a group whose members are unknown', () => {
    const before = computeEffectiveAccess([{ type: 'Group', name: 'Ops', permissions: ['readFiles'] }], NO_MEMBERS);
    const after = computeEffectiveAccess([{ type: 'Group', name: 'Ops', permissions: ['readFiles', 'share'] }], NO_MEMBERS);
    expect(diffEffectiveAccess(before, after)).toEqual([
      { who: { type: 'Group', name: 'Ops' }, gained: ['share'], lost: [], via: [{ type: 'Group', name: 'Ops' }], removed: false },
    ]);
  });
});
