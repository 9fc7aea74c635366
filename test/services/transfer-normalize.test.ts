import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readAclEntry, readPermissions } from '../../src/services/transfer/normalize.js';
import type { PrincipalNames } from '../../src/services/transfer/normalize.js';

const NAMES: PrincipalNames = {
  user: (id) => (id === '9' ? 'alice' : undefined),
  group: (id) => (id === '12' ? 'Acme Partners' : undefined),
};

/** readAclEntry as it was written before the server's `name` was left out by destructuring (the plain path). */
function readAclEntryPlain(e: Record<string, unknown>, names: PrincipalNames): Record<string, unknown> {
  const text = typeof e.type === 'string' ? e.type : '';
  const type = text.toLowerCase() === 'user' ? 'User' : text.toLowerCase() === 'group' ? 'Group' : text;
  const idOf = (x: unknown): string => (typeof x === 'string' ? x : typeof x === 'number' ? String(x) : '');
  const id = idOf(e.id);
  const word = (v: unknown): string | undefined => (typeof v === 'string' ? v.trim().toLowerCase() : undefined);
  const bool = (v: unknown): boolean | undefined =>
    typeof v === 'boolean'
      ? v
      : v === 1 || v === 0
        ? v === 1
        : ['true', '1'].includes(word(v) ?? '')
          ? true
          : ['false', '0'].includes(word(v) ?? '')
            ? false
            : undefined;
  const out: Record<string, unknown> = {
    ...e,
    type,
    id,
    permissions: readPermissions(e.permissions),
    isEditable: bool(e.isEditable) ?? true,
    isDeletable: bool(e.isDeletable) ?? true,
  };
  delete out.name;
  const name = type === 'User' ? names.user(id) : type === 'Group' ? names.group(id) : undefined;
  if (name !== undefined) out.name = name;
  if (typeof e.name === 'string' && e.name !== '') out.serverName = e.name;
  if (e.entryId !== undefined && e.entryId !== null) out.entryId = idOf(e.entryId);
  return out;
}

/** Keys and values in order: the live state, snapshots and JSON output show them in this order. */
const inOrder = (o: Record<string, unknown>): [string, unknown][] => Object.entries(o);

describe('readAclEntry', () => {
  it('gives the same entry, keys in the same order, as the plain copy-then-delete (fast-check)', () => {
    const field = fc.constantFrom('type', 'id', 'name', 'permissions', 'isEditable', 'isDeletable', 'entryId', 'isHomeFolderUser', 'extra', '__proto__');
    const value = fc.oneof(fc.constantFrom('User', 'group', 'None', '9', '12', 'alice', '', 'true', 0, 1, 12, true, false, null), fc.string());
    fc.assert(
      fc.property(fc.uniqueArray(fc.tuple(field, value), { selector: ([k]) => k, maxLength: 10 }), (pairs) => {
        // Through JSON, as an answer from the server: `__proto__` is then an own key.
        const raw = JSON.parse(JSON.stringify(Object.fromEntries(pairs))) as Record<string, unknown>;
        expect(inOrder(readAclEntry({ ...raw }, NAMES) as Record<string, unknown>)).toEqual(inOrder(readAclEntryPlain({ ...raw }, NAMES)));
      }),
      { numRuns: 500 },
    );
  });

  it("keeps the server's name only as serverName, and the name found by id as name", () => {
    const entry = readAclEntry({ type: 'user', id: 9, name: 'Alice Archer', permissions: {}, entryId: 3 }, NAMES);
    expect(Object.keys(entry)).toEqual(['type', 'id', 'permissions', 'entryId', 'isEditable', 'isDeletable', 'name', 'serverName']);
    expect(entry).toMatchObject({ name: 'alice', serverName: 'Alice Archer', entryId: '3' });
    expect(readAclEntry({ type: 'User', id: '77', name: 'Nobody' }, NAMES)).not.toHaveProperty('name');
  });
});
