import type { NamedIndex } from '../live/model.js';
import type { JsonPath, Manifest } from '../manifest/types.js';
import type { NameKind, ResolvedName } from '../resources/model.js';
import { formatAddress } from './address.js';
import { createPlanDiagnostic } from './diagnostics.js';
import type { PlanDiagnostic, PlanDiagnosticCode } from './diagnostics.js';

// What the kinds' `resolve` share: reporting an unknown name, recording what the names resolved to.

/** Reports one unknown name at a path inside the manifest's document. */
export type Report = (code: PlanDiagnosticCode, path: JsonPath, message: string, hint?: string) => void;

/** Collects a manifest's diagnostics at paths inside its document. */
export function reporter(m: Manifest): { report: Report; list: PlanDiagnostic[] } {
  const list: PlanDiagnostic[] = [];
  return {
    list,
    report: (code, path, message, hint) =>
      list.push(createPlanDiagnostic(code, m.sourceMap.locate(path), message, { hint, address: formatAddress(m.kind, m.name) })),
  };
}

/** Records what one object's names resolved to, each name once (by kind and case-folded name). */
export type Note = (kind: NameKind, name: string, id?: string) => void;

export function nameRecorder(): { note: Note; list: ResolvedName[] } {
  const list: ResolvedName[] = [];
  return {
    list,
    note: (kind, name, id) => {
      // An object the server lists without an id gives nothing to check by id.
      if (id === '') return;
      const folded = name.toLowerCase();
      // A manifest names a handful of objects: a scan of its list, no set per manifest.
      if (list.some((r) => r.kind === kind && r.name.toLowerCase() === folded)) return;
      list.push(sharedName(kind, name, id));
    },
  };
}

/**
 * One frozen record per (kind, name as written, id), shared by every object that names it: a
 * large estate names the same few hosts, scripts and groups from each of its tasks (issue 29,
 * memory kept per desired object). Bounded: cleared when full, a miss only costs a new record.
 */
const SHARED_NAMES = new Map<string, ResolvedName>();
const SHARED_NAMES_MAX = 4096;

function sharedName(kind: ResolvedName['kind'], name: string, id: string | undefined): ResolvedName {
  // JSON of the three: no two different records share a key, whatever characters a name holds.
  const key = JSON.stringify([kind, name, id ?? null]);
  let record = SHARED_NAMES.get(key);
  if (record === undefined) {
    if (SHARED_NAMES.size >= SHARED_NAMES_MAX) SHARED_NAMES.clear();
    record = Object.freeze(id === undefined ? { kind, name } : { kind, name, id });
    SHARED_NAMES.set(key, record);
  }
  return record;
}

/** The names of a live index, for a "did you mean". */
export function names<T>(index: NamedIndex<T> | undefined, nameOf: (x: T) => string | undefined): string[] {
  if (!index) return [];
  return index.items.map(nameOf).filter((n): n is string => typeof n === 'string' && n !== '');
}
