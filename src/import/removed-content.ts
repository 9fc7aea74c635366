import type { ManifestDraft } from '../kinds/kind-import.js';
import type { ResourceKind } from '../kinds/kind.js';
import { KINDS } from '../kinds/registry.js';
import type { LiveState } from '../live/model.js';
import type { Change, JsonObject, Plan } from '../plan/model.js';
import { asFieldValue, sensitiveValue } from '../resources/common.js';
import { createSecretRedactor, finishManifest } from './to-manifest.js';

/**
 * What each delete (and the delete of each replace) of `plan` removes, as Terraform shows what it
 * destroys: the live object's `spec` as `mftops import` would write it (the same converter),
 * secrets as `$sensitive` markers. Only kinds whose delete does not already say it
 * (`importer.showsRemoved`): a folder's delete lists every entry it removes, with its
 * permissions. Pure; the live state is the one the plan was made from.
 */
export function withRemovedContent(plan: Plan, live: LiveState): Plan {
  const removing = (c: Change) => (c.action === 'delete' || c.action === 'replace') && KINDS[c.kind].importer.showsRemoved;
  if (!plan.changes.some(removing)) return plan;
  const specs = liveSpecs(plan.changes.filter(removing), live);
  return {
    ...plan,
    changes: plan.changes.map((c) => {
      const content = specs.get(c.address);
      return content === undefined ? c : { ...c, removes: content };
    }),
  };
}

/**
 * The live object of each change that has one (every action but `create`), by address: its
 * `spec` as `mftops import` would write it (names, not ids; a folder's entries with
 * `mode: exact`), secrets as `$sensitive` markers. What policies see as `oldObject`, and as
 * `object` too on the live state (drift). Pure.
 */
export function liveSpecs(changes: readonly Change[], live: LiveState): Map<string, JsonObject> {
  const secrets = createSecretRedactor(sensitiveValue);
  // Each kind's reader is made once (its catalogs, its index by id), and only for a kind a change has.
  const readers = new Map<ResourceKind, (change: Change) => ManifestDraft | undefined>();
  const draftOf = (change: Change): ManifestDraft | undefined => {
    let read = readers.get(change.kind);
    if (read === undefined) {
      read = KINDS[change.kind].importer.liveDrafts(live, secrets);
      readers.set(change.kind, read);
    }
    return read(change);
  };
  const out = new Map<string, JsonObject>();
  for (const c of changes) {
    if (c.action === 'create') continue;
    const draft = draftOf(c);
    if (draft !== undefined) out.set(c.address, specOf(finishManifest(draft).document));
  }
  return out;
}

function specOf(document: Readonly<Record<string, unknown>>): JsonObject {
  const spec = asFieldValue(document.spec);
  return spec !== null && typeof spec === 'object' && !Array.isArray(spec) ? spec : {};
}
