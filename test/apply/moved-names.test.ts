import { describe, expect, it } from 'vitest';
import { describeMovedName } from '../../src/apply/model.js';
import { findMovedNames, resolvedNameKinds } from '../../src/apply/moved-names.js';
import type { NameLists } from '../../src/apply/moved-names.js';
import type { Change, ResolvedName } from '../../src/plan/model.js';

/** A folder update that resolved these names. */
function change(address: string, resolved: readonly ResolvedName[]): Change {
  return { address, kind: 'FolderPermissions', name: address.slice('FolderPermissions'.length), service: 'transfer', action: 'update', fields: [], resolved };
}

const bob: ResolvedName = { kind: 'user', name: 'bob', id: '12' };
const partners: ResolvedName = { kind: 'group', name: 'Acme Partners', id: '3' };
const finance: ResolvedName = { kind: 'resourceGroup', name: 'Finance' };

const asPlanned: NameLists = {
  user: [
    { name: 'bob', id: '12' },
    { name: 'dave', id: '40' },
  ],
  group: [
    { name: 'Acme Partners', id: '3' },
    { name: 'Globex Partners', id: '4' },
  ],
  resourceGroup: [{ name: 'Finance' }],
};

describe('findMovedNames (pure)', () => {
  it('finds nothing when every name resolves to the id it had, whatever the case the server spells it in now', () => {
    const lists: NameLists = { ...asPlanned, user: [{ name: 'BOB', id: '12' }] };
    expect(findMovedNames([change('FolderPermissions/A', [bob, partners, finance])], lists)).toEqual([]);
  });

  it('names a user whose name now belongs to another id, and what the old id is called now', () => {
    const swapped: NameLists = {
      ...asPlanned,
      user: [
        { name: 'dave', id: '12' },
        { name: 'bob', id: '40' },
      ],
    };
    const moved = findMovedNames([change('FolderPermissions/A', [bob]), change('FolderPermissions/B', [bob])], swapped);
    expect(moved).toEqual([
      { kind: 'user', name: 'bob', was: '12', now: '40', wasNowNamed: 'dave', addresses: ['FolderPermissions/A', 'FolderPermissions/B'] },
    ]);
    expect(moved.map(describeMovedName)).toEqual(['user "bob" was id 12 at plan time and is now id 40 (id 12 is now named "dave")']);
  });

  it('names a name that resolves to nothing now, an id that is gone, and a resource group that is gone', () => {
    const lists: NameLists = { user: [{ name: 'robert', id: '12' }], group: [{ name: 'Acme Partners', id: '9' }], resourceGroup: [{ name: 'Payroll' }] };
    expect(findMovedNames([change('FolderPermissions/A', [bob, partners, finance])], lists).map(describeMovedName)).toEqual([
      'user "bob" was id 12 at plan time and now names nothing (id 12 is now named "robert")',
      'group "Acme Partners" was id 3 at plan time and is now id 9 (id 3 no longer exists)',
      'resource group "Finance" existed at plan time and no longer does',
    ]);
  });

  it('says which lists to read: only the kinds the changes resolved', () => {
    expect([...resolvedNameKinds([change('FolderPermissions/A', [bob]), change('FolderPermissions/B', [finance])])].sort()).toEqual(['resourceGroup', 'user']);
    expect(resolvedNameKinds([{ ...change('FolderPermissions/A', []), resolved: undefined }]).size).toBe(0);
  });

  it('quotes a name as JSON, so one with quotes or a line break stays one line', () => {
    const odd: ResolvedName = { kind: 'host', name: 'a "b"\nc', id: '1' };
    const [line] = findMovedNames([change('FolderPermissions/A', [odd])], { host: [] }).map(describeMovedName);
    expect(line).toBe('host "a \\"b\\"\\nc" was id 1 at plan time and now names nothing (id 1 no longer exists)');
  });
});
