import { ConfigError } from '../errors.js';
import type { KindDefinition, ResourceKind } from '../kinds/kind.js';
import { EVERY_KIND, KINDS } from '../kinds/registry.js';
import { referenceLookalike } from '../reference-lookalike.js';
import { createSecretNamer, finishManifest } from './to-manifest.js';
import type { ImportedManifest, ImportKind, ImportResult, ImportSelection, ImportSource } from './model.js';

/**
 * Which live objects an import takes (pure), and the manifests made from them: each selected
 * kind's `importer` (src/kinds/<kind>/import.ts) in manifest order, its objects sorted by name.
 * - `--name`: each kind's name mask (or, for folders, path glob: both dialects in `src/glob.ts`).
 * - otherwise the environment's scope: tasks in `scope.taskGroups`, ACLs on those resource
 *   groups, folders under `scope.folders`; with `--all`, everything the account sees.
 */
export function importObjects(source: ImportSource, selection: ImportSelection): ImportResult {
  const secrets = createSecretNamer();
  const manifests: ImportedManifest[] = [];
  const skipped: string[] = [];
  for (const kind of orderKinds(selection.kinds)) {
    const made = KINDS[kind].importer.draft(source, selection, secrets);
    manifests.push(...made.drafts.map(finishManifest));
    skipped.push(...made.skipped);
  }
  // A server text that reads as a `${…}` reference is not written: the next apply would send
  // mftops' own secret to whoever wrote it there. Only the placeholders import put are references.
  // A set: an import of 10,000 tasks puts thousands of placeholders (a list made this quadratic).
  const placeholders = new Set(secrets.list().map((p) => `\${env:${p.variable}}`));
  const safe = manifests.filter((m) => {
    const why = referenceLookalike(m.document.spec, placeholders);
    if (why !== undefined) skipped.push(`${m.address} not imported: ${why}`);
    return why === undefined;
  });
  return { manifests: safe, secrets: secrets.list(), skipped };
}

/** An import source with nothing read, from `origin`: each kind's empty part. */
export function emptyImportSource(origin: string): ImportSource {
  return Object.assign({ origin }, ...EVERY_KIND.map((kind) => KINDS[kind].importer.nothingRead)) as ImportSource;
}

/** The selected kinds in manifest order (the registry's), whatever order they were asked in. */
function orderKinds(kinds: readonly ImportKind[]): ImportKind[] {
  return EVERY_KIND.filter((k) => kinds.includes(k));
}

/** Refuses a selection that names nothing to look in (no scope, no --name, no --all). */
export function checkSelection(selection: ImportSelection, environment: string): void {
  if (selection.name !== undefined || selection.all) return;
  for (const kind of selection.kinds) {
    const { scopeKey } = KINDS[kind];
    if ((selection.scope[scopeKey] ?? []).length > 0) continue;
    const key = `scope.${scopeKey}`;
    throw new ConfigError(`environment "${environment}" has no ${key}: pass --name PATTERN, or --all to import every ${kind} the account can see`);
  }
}

/** A scope entry an import found nothing for: `scope.<key>[index]` of the environment. */
export interface UnmatchedScopeEntry {
  readonly key: KindDefinition<ResourceKind>['scopeKey'];
  readonly index: number;
  readonly entry: string;
  /** What it matched none of: `no task`, `no such folder`… */
  readonly why: string;
}

/**
 * Scope entries this import found nothing for (pure), in the order of the scope: a task group no
 * task (and, with ACLs, no resource-group ACL) is in, a folder root with no folder at or below
 * it, or none there with user or group entries (each kind's `importer.unmatched`). Only the
 * parts of the scope the selected kinds read; none with `--name` or `--all`, which replace the
 * scope.
 */
export function findUnmatchedScope(source: ImportSource, selection: ImportSelection): UnmatchedScopeEntry[] {
  if (selection.name !== undefined || selection.all) return [];
  const judges = orderKinds(selection.kinds).flatMap((kind) => {
    const { scopeKey, importer } = KINDS[kind];
    return importer.unmatched === undefined ? [] : [{ scopeKey, unmatched: importer.unmatched }];
  });
  const out: UnmatchedScopeEntry[] = [];
  for (const key of new Set(judges.map((j) => j.scopeKey))) {
    (selection.scope[key] ?? []).forEach((entry, index) => {
      const none: string[] = [];
      let matched = false;
      for (const judge of judges.filter((j) => j.scopeKey === key)) {
        const why = judge.unmatched(entry, source);
        // A group with an ACL but no task is still worth a line: the import brings none of its tasks.
        if (why === undefined) matched = true;
        else if (!matched) none.push(why);
      }
      if (none.length > 0) out.push({ key, index, entry, why: `matches ${none.join(' and ')}` });
    });
  }
  return out;
}
