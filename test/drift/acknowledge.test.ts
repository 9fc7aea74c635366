import { describe, expect, it } from 'vitest';
import type { DriftIgnoreRule } from '../../src/config/model.js';
import { isExpired, judgeDifference, unmatchedRules } from '../../src/drift/acknowledge.js';

const NOW = new Date('2026-11-22T12:00:00Z');

function rule(r: Partial<DriftIgnoreRule> & { address: string }): DriftIgnoreRule {
  return { where: 'mftops.yaml:1:1', ...r };
}

describe('ignore rules', () => {
  it('match addresses by address glob, without regard to case', () => {
    const rules = [rule({ address: 'Task/Nightly*' })];
    expect(judgeDifference(rules, { addresses: ['task/nightly cleanup'] }, NOW).active).toBe(rules[0]);
    expect(judgeDifference(rules, { addresses: ['FolderPermissions/Nightly'] }, NOW)).toEqual({});
  });

  it('cover a field, everything below a matching field, and nothing beside it', () => {
    const rules = [rule({ address: 'Task/Nightly cleanup', path: 'Schedules' })];
    const at = (path: string) => judgeDifference(rules, { addresses: ['Task/Nightly cleanup'], path }, NOW).active !== undefined;
    expect(at('Schedules')).toBe(true);
    expect(at('Schedules.Schedule[0].Frequency.Interval[0].StartTime')).toBe(true);
    expect(at('SchedulesX')).toBe(false);
    expect(at('Info.Description')).toBe(false);
  });

  it('cover a whole object (missing, unmanaged) only without a path or with path *', () => {
    const addresses = ['Task/Hand made'];
    expect(judgeDifference([rule({ address: 'Task/Hand*' })], { addresses }, NOW).active).toBeDefined();
    expect(judgeDifference([rule({ address: 'Task/Hand*', path: '*' })], { addresses }, NOW).active).toBeDefined();
    expect(judgeDifference([rule({ address: 'Task/Hand*', path: 'Info.*' })], { addresses }, NOW).active).toBeUndefined();
    // A whole-object rule covers each field too.
    expect(judgeDifference([rule({ address: 'Task/Hand*' })], { addresses, path: 'Info.Notes' }, NOW).active).toBeDefined();
  });

  it('accept folder addresses written with or without the doubled slash', () => {
    const addresses = ['FolderPermissions/Distribution/Acme/Outbound'];
    expect(judgeDifference([rule({ address: 'FolderPermissions//Distribution/Acme/*' })], { addresses }, NOW).active).toBeDefined();
    expect(judgeDifference([rule({ address: 'FolderPermissions/Distribution/*' })], { addresses }, NOW).active).toBeDefined();
  });

  it('hold through the whole until day (UTC) and expire after it', () => {
    const r = rule({ address: 'Task/x', until: '2026-12-31' });
    expect(isExpired(r, new Date('2026-12-31T23:59:59Z'))).toBe(false);
    expect(isExpired(r, new Date('2027-01-01T00:00:00Z'))).toBe(true);
    expect(isExpired(rule({ address: 'Task/x' }), new Date('2999-01-01T00:00:00Z'))).toBe(false);
  });

  it('let an active rule win over an expired one, and report the longest-held expired one', () => {
    const addresses = ['Task/x'];
    const old = rule({ address: 'Task/x', until: '2025-01-01', where: 'a' });
    const older = rule({ address: 'Task/*', until: '2024-01-01', where: 'b' });
    const live = rule({ address: 'Task/x', until: '2027-01-01', where: 'c' });
    expect(judgeDifference([old, older], { addresses }, NOW)).toEqual({ expired: old });
    expect(judgeDifference([old, live], { addresses }, NOW)).toEqual({ active: live });
  });

  it('match an ACL by its resource and user group pair as well as by its label', () => {
    const verdict = judgeDifference(
      [rule({ address: 'ResourceGroupAcl/Finance/*' })],
      { addresses: ['ResourceGroupAcl/finance-ops', 'ResourceGroupAcl/Finance/Finance Operators'] },
      NOW,
    );
    expect(verdict.active).toBeDefined();
  });
});

describe('unmatchedRules', () => {
  it('names the rules whose address (glob, case aside) matches no address of the run, by index', () => {
    const rules = [
      rule({ address: 'Task/Nightly cleanup' }),
      rule({ address: 'Task/Nightly cleanp' }),
      rule({ address: 'task/NIGHTLY*' }),
      rule({ address: 'FolderPermissions//Distribution/Acme' }),
      rule({ address: 'FolderPermissions/Archive/*' }),
    ];
    expect(unmatchedRules(rules, ['Task/Nightly cleanup', 'FolderPermissions/Distribution/Acme'])).toEqual([1, 4]);
    expect(unmatchedRules(rules, [])).toEqual([0, 1, 2, 3, 4]);
    expect(unmatchedRules([], ['Task/x'])).toEqual([]);
  });
});
