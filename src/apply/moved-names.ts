import type { Change, NameKind, ResolvedName } from '../plan/model.js';
import { describeNameKind } from './model.js';
import type { MovedName } from './model.js';

/**
 * The name check of the stale-plan guard (issue 23): every name a write change resolved at plan
 * time (`Change.resolved`) must resolve to the same object now, or apply would grant to whoever
 * holds the plan's id now. Reading the lists is I/O (`readTouchedObjects`, one list per kind);
 * comparing is pure (`findMovedNames`).
 */

/** One object of a list a name is looked up in: its name and id (no id: a resource group). */
export interface NamedId {
  readonly name: string;
  readonly id?: string;
}

/** The lists read again, per kind of name; a kind no write change resolved is not read. */
export type NameLists = Partial<Readonly<Record<NameKind, readonly NamedId[]>>>;

/** The kinds of names the write changes resolved: the lists to read. */
export function resolvedNameKinds(changes: readonly Change[]): Set<NameKind> {
  return new Set(changes.flatMap((c) => (c.resolved ?? []).map((r) => r.kind)));
}

/**
 * Every resolved name that resolves otherwise now, once per kind and name (with each change that
 * uses it), in plan order. Names are looked up as the plan looked them up: case-folded, the first
 * object of a name winning.
 */
export function findMovedNames(changes: readonly Change[], lists: NameLists): MovedName[] {
  const moved = new Map<
    string,
    { readonly resolved: ResolvedName; readonly now: NamedId | undefined; readonly wasNow: NamedId | undefined; readonly addresses: string[] }
  >();
  const indexes = new Map<NameKind, { byName: Map<string, NamedId>; byId: Map<string, NamedId> }>();
  const indexOf = (kind: NameKind) => {
    let index = indexes.get(kind);
    if (index) return index;
    const list = lists[kind];
    if (list === undefined) throw new Error(`the ${describeNameKind(kind)} list was not read for the stale-plan check`);
    index = { byName: new Map(), byId: new Map() };
    for (const item of list) {
      if (item.name !== '' && !index.byName.has(item.name.toLowerCase())) index.byName.set(item.name.toLowerCase(), item);
      if (item.id !== undefined && item.id !== '' && !index.byId.has(item.id)) index.byId.set(item.id, item);
    }
    indexes.set(kind, index);
    return index;
  };
  for (const c of changes) {
    for (const r of c.resolved ?? []) {
      const key = `${r.kind}\u0000${r.name.toLowerCase()}\u0000${r.id ?? ''}`;
      const known = moved.get(key);
      if (known) {
        if (!known.addresses.includes(c.address)) known.addresses.push(c.address);
        continue;
      }
      const index = indexOf(r.kind);
      const now = index.byName.get(r.name.toLowerCase());
      const same = r.id === undefined ? now !== undefined : now?.id === r.id;
      if (same) continue;
      moved.set(key, { resolved: r, now, wasNow: r.id === undefined ? undefined : index.byId.get(r.id), addresses: [c.address] });
    }
  }
  return [...moved.values()].map(({ resolved: r, now, wasNow, addresses }) => ({
    kind: r.kind,
    name: r.name,
    ...(r.id !== undefined ? { was: r.id } : {}),
    ...(now?.id !== undefined ? { now: now.id } : {}),
    ...(wasNow !== undefined ? { wasNowNamed: wasNow.name } : {}),
    addresses,
  }));
}
