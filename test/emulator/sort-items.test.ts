import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareText } from '../../src/emulator/paging.js';
import type { TransferListQuery } from '../../src/emulator/paging.js';
import { sortItems } from '../../src/emulator/transfer-context.js';

interface Item {
  name: string;
}

/** The plain sort the transfer lists answer in: compareText on each pair, stable. */
function plainSort(items: readonly Item[], q: TransferListQuery): Item[] {
  const dir = q.sortDirection === 'asc' ? 1 : -1;
  return [...items].sort((x, y) => dir * compareText(x.name, y.name));
}

const nameOf = (i: Item): string => i.name;
const query = (sortDirection: 'asc' | 'desc'): TransferListQuery => ({ page: 1, perPage: 25, sortField: 'name', sortDirection });
// Few letters in both cases, so equal names, case-only differences and ties are common.
const name = fc.string({ unit: fc.constantFrom('a', 'B', 'b', 'A', 'é', ' ', '0'), maxLength: 4 });
const step = fc.oneof(
  fc.record({ kind: fc.constant('rename' as const), at: fc.nat(), to: name }),
  fc.record({ kind: fc.constant('add' as const), to: name }),
  fc.record({ kind: fc.constant('remove' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('flip' as const) }),
  fc.record({ kind: fc.constant('read' as const) }),
);

describe('transfer list order (sortItems)', () => {
  it('answers what the plain sort answers, read after read, through renames in place, adds, removes and direction changes', () => {
    fc.assert(
      fc.property(fc.array(name, { maxLength: 30 }), fc.array(step, { maxLength: 20 }), (names, steps) => {
        // One sort-value function per run, as a list handler passes: its last sort is what may be reused.
        const sortValue = (i: Item): string => nameOf(i);
        let items: Item[] = names.map((n) => ({ name: n }));
        let dir: 'asc' | 'desc' = 'asc';
        for (const s of [{ kind: 'read' as const }, ...steps]) {
          if (s.kind === 'rename' && items.length > 0) items[s.at % items.length]!.name = s.to;
          if (s.kind === 'add') items = [...items, { name: s.to }];
          if (s.kind === 'remove' && items.length > 0) items = items.filter((_, i) => i !== s.at % items.length);
          if (s.kind === 'flip') dir = dir === 'asc' ? 'desc' : 'asc';
          expect(sortItems(items, query(dir), sortValue)).toEqual(plainSort(items, query(dir)));
          expect(sortItems([...items], query(dir), sortValue).map((i) => items.indexOf(i))).toEqual(plainSort(items, query(dir)).map((i) => items.indexOf(i)));
        }
      }),
    );
  });
});
