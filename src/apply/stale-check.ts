import { KIND_IO } from '../kinds/io-registry.js';
import { needReader } from '../kinds/kind-io.js';
import type { KindIo, StaleCheckReaders, StaleFinding, TouchedOf } from '../kinds/kind-io.js';
import type { Change, ResourceKind } from '../plan/model.js';
import { withDefined } from '../with-defined.js';
import type { StaleObject } from './model.js';
import { resolvedNameKinds } from './moved-names.js';
import type { NameLists } from './moved-names.js';

export type { StaleCheckReaders } from '../kinds/kind-io.js';

/**
 * The stale-plan guard: before anything is written, every object the plan touches is read
 * again and its fingerprint computed the way the plan computed it. Reading is I/O
 * (`readTouchedObjects`: each kind's reads, `KindIo.readTouched`, the fewest requests: one task
 * list, one ACL list, each touched folder by path and its ACL; and one list per kind of name the
 * writes resolved: users, groups, hosts, scripts, date lists, resource groups); comparing is pure
 * (`findStaleObjects`, `findMovedNames`).
 */

/** The touched objects as they are now. */
export interface TouchedObjects {
  /** What each kind read, for the kinds the changes touch (absent: no change of the kind). */
  readonly kinds: { readonly [K in ResourceKind]?: TouchedOf<K> };
  /** The lists the writes' resolved names are looked up in again (`Change.resolved`). */
  readonly names: NameLists;
}

export async function readTouchedObjects(changes: readonly Change[], readers: StaleCheckReaders, parallelism: number): Promise<TouchedObjects> {
  const kinds: { -readonly [K in ResourceKind]?: TouchedOf<K> } = {};
  const reads = Object.values(KIND_IO).map((io) => readKind(io, changes, readers, parallelism, kinds));
  const [names] = await Promise.all([readNameLists(changes, readers), ...reads]);
  return { kinds, names };
}

/** One kind's reads, when a change touches the kind. */
async function readKind<K extends ResourceKind>(
  io: KindIo<K>,
  changes: readonly Change[],
  readers: StaleCheckReaders,
  parallelism: number,
  into: { -readonly [P in ResourceKind]?: TouchedOf<P> },
): Promise<void> {
  const ofKind = changes.filter((c) => c.kind === io.kind);
  // The mapped type's key and value are the same kind; the compiler cannot correlate them through `K`.
  if (ofKind.length > 0) Object.assign(into, { [io.kind]: await io.readTouched(ofKind, readers, parallelism) });
}

/**
 * One list per kind of name the changes resolved, all at once; scripts are both lists, as the
 * plan reads them. The transfer client keeps its user and group lists: they are read afresh, or an
 * apply that planned itself would compare the plan's lists with themselves.
 */
async function readNameLists(changes: readonly Change[], readers: StaleCheckReaders): Promise<NameLists> {
  const kinds = resolvedNameKinds(changes);
  const automation = () => needReader(readers.automation, 'automation');
  const transfer = () => needReader(readers.transfer, 'transfer');
  const named = <T>(items: readonly T[], name: (x: T) => unknown, id?: (x: T) => unknown) =>
    items.map((x) => {
      const i = id ? idText(id(x)) : undefined;
      return { name: typeof name(x) === 'string' ? (name(x) as string) : '', ...(i !== undefined ? { id: i } : {}) };
    });
  const [user, group, host, script, dateList, resourceGroup] = await Promise.all([
    kinds.has('user')
      ? transfer()
          .listUsers({ fresh: true })
          .then((l) =>
            named(
              l,
              (u) => u.username,
              (u) => u.id,
            ),
          )
      : undefined,
    kinds.has('group')
      ? transfer()
          .listGroups({ fresh: true })
          .then((l) =>
            named(
              l,
              (g) => g.name,
              (g) => g.id,
            ),
          )
      : undefined,
    kinds.has('host')
      ? automation()
          .listHosts()
          .then((l) =>
            named(
              l,
              (h) => h.Name,
              (h) => h.ID,
            ),
          )
      : undefined,
    kinds.has('script')
      ? Promise.all([automation().listCustomScripts(), automation().listStandardScripts()]).then(([custom, standard]) =>
          named(
            [...custom, ...standard],
            (s) => s.Name,
            (s) => s.ID,
          ),
        )
      : undefined,
    kinds.has('dateList')
      ? automation()
          .listDateLists()
          .then((l) =>
            named(
              l,
              (d) => d.Name,
              (d) => d.ID,
            ),
          )
      : undefined,
    kinds.has('resourceGroup')
      ? automation()
          .listResourceGroups()
          .then((l) => named(l, (g) => g.Name))
      : undefined,
  ]);
  return {
    ...(user ? { user } : {}),
    ...(group ? { group } : {}),
    ...(host ? { host } : {}),
    ...(script ? { script } : {}),
    ...(dateList ? { dateList } : {}),
    ...(resourceGroup ? { resourceGroup } : {}),
  };
}

/** Ids as the plan keyed them: strings, numbers as text. */
function idText(id: unknown): string | undefined {
  return typeof id === 'string' ? id : typeof id === 'number' ? String(id) : undefined;
}

/** Every touched object that moved since the plan, in plan order. */
export function findStaleObjects(changes: readonly Change[], now: TouchedObjects): StaleObject[] {
  return changes.flatMap((c) =>
    findKindStale(KIND_IO[c.kind], c, now).map((found) => ({ address: c.address, ...withDefined({ how: found.how, detail: found.detail }) })),
  );
}

function findKindStale<K extends ResourceKind>(io: KindIo<K>, change: Change, now: TouchedObjects): StaleFinding[] {
  const touched = now.kinds[io.kind];
  if (touched === undefined) throw new Error(`bug: ${change.address} was not read again before the stale check`);
  return io.findStale(change, touched);
}
