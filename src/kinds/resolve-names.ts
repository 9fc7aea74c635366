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
  const seen = new Set<string>();
  return {
    list,
    note: (kind, name, id) => {
      const key = `${kind}\u0000${name.toLowerCase()}`;
      // An object the server lists without an id gives nothing to check by id.
      if (seen.has(key) || id === '') return;
      seen.add(key);
      list.push(id === undefined ? { kind, name } : { kind, name, id });
    },
  };
}

/** The names of a live index, for a "did you mean". */
export function names<T>(index: NamedIndex<T> | undefined, nameOf: (x: T) => string | undefined): string[] {
  if (!index) return [];
  return index.items.map(nameOf).filter((n): n is string => typeof n === 'string' && n !== '');
}
