import { createDiagnostic } from './diagnostics.js';
import type { Diagnostic } from './diagnostics.js';
import type { ParsedDocument } from './parse.js';
import { describeSchemaProblems, locateSchemaErrors } from './schema-errors.js';
import { PATCH_SCHEMA_FILE, getValidatorByFile } from './schemas.js';
import { parseJsonPointer } from './positions.js';
import type { JsonPath, SourceMap } from './types.js';
import { isRecord } from '../is-record.js';

/**
 * Overlays (`kind: Patch`, schemas/patch.schema.json; README: Environments). A patch changes the
 * `spec` of one manifest (its target, by kind and `metadata.name`) in the environments it names:
 * a JSON merge patch (RFC 7386: mappings merge key by key, `null` removes a key, any other value,
 * a list too, replaces), with one rule more: a FolderPermissions `entries` list merges by principal
 * (an entry for a user or group the target lists replaces that entry; any other is added).
 * Patches apply in file order. A patch is never a resource: it is gone once applied.
 */

/** Where a patched value came from: `to` in the merged document was written at `from` in the patch. */
interface Origin {
  readonly to: JsonPath;
  readonly from: JsonPath;
}

/**
 * The documents with the environment's patches applied, patches removed. A patch whose schema
 * fails is reported and skipped; one whose target no document defines is MF323 at its target.
 * `environment` names the environment in messages; without one (no configuration), patches are
 * only checked against their schema: which documents they patch depends on the environment.
 */
export function applyPatches(docs: readonly ParsedDocument[], environment: string | undefined, diagnostics: Diagnostic[]): ParsedDocument[] {
  const out: ParsedDocument[] = [];
  const patches: ParsedDocument[] = [];
  for (const doc of docs) (isRecord(doc.data) && doc.data.kind === 'Patch' ? patches : out).push(doc);
  for (const patch of patches) {
    const validate = getValidatorByFile(PATCH_SCHEMA_FILE);
    if (validate(patch.data) !== true) {
      for (const d of describeSchemaProblems(locateSchemaErrors(validate.errors ?? [], patch.sourceMap), { kind: 'Patch', sourceMap: patch.sourceMap }))
        diagnostics.push(d);
      continue;
    }
    if (environment === undefined) continue;
    const spec = (patch.data as { spec: { target: { kind: string; name: string }; patch: Record<string, unknown> } }).spec;
    const i = out.findIndex(
      (d) => isRecord(d.data) && d.data.kind === spec.target.kind && isRecord(d.data.metadata) && d.data.metadata.name === spec.target.name,
    );
    if (i < 0) {
      diagnostics.push(
        createDiagnostic(
          'error',
          'MF323',
          patch.sourceMap.locate(['spec', 'target']),
          `patch target ${spec.target.kind}${spec.target.name.startsWith('/') ? '' : '/'}${spec.target.name} is not defined in environment \`${environment}\``,
          {
            hint: 'correct the target, or limit the patch with metadata.environments',
          },
        ),
      );
      continue;
    }
    out[i] = patchDocument(out[i]!, patch, spec.patch, spec.target.kind);
  }
  return out;
}

/** The target with the patch merged over its `spec`, and a source map that places patched values in the patch. */
function patchDocument(target: ParsedDocument, patch: ParsedDocument, changes: Record<string, unknown>, kind: string): ParsedDocument {
  const origins: Origin[] = [];
  const data = target.data as Record<string, unknown>;
  const spec = mergePatch(data.spec, changes, ['spec'], ['spec', 'patch'], kind, origins);
  return { ...target, data: { ...data, spec }, sourceMap: overlaySourceMap(target.sourceMap, patch.sourceMap, origins) };
}

function mergePatch(base: unknown, changes: unknown, to: JsonPath, from: JsonPath, kind: string, origins: Origin[]): unknown {
  if (!isRecord(changes)) {
    origins.push({ to, from });
    return changes;
  }
  const out: Record<string, unknown> = isRecord(base) ? { ...base } : {};
  if (!isRecord(base)) origins.push({ to, from });
  for (const key of Object.keys(changes)) {
    const value = changes[key];
    if (value === null) {
      delete out[key];
    } else if (kind === 'FolderPermissions' && to.length === 1 && key === 'entries' && Array.isArray(value) && Array.isArray(out[key])) {
      out[key] = mergeEntries(out[key] as unknown[], value, [...to, key], [...from, key], origins);
    } else {
      // defineProperty: `__proto__` is an ordinary key of manifest data.
      Object.defineProperty(out, key, {
        value: mergePatch(out[key], value, [...to, key], [...from, key], kind, origins),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
  }
  return out;
}

/** Entries by principal: one for a user or group listed replaces it, others are added at the end. */
function mergeEntries(base: readonly unknown[], changes: readonly unknown[], to: JsonPath, from: JsonPath, origins: Origin[]): unknown[] {
  const principal = (e: unknown): string | undefined =>
    isRecord(e) ? (typeof e.user === 'string' ? `user:${e.user}` : typeof e.group === 'string' ? `group:${e.group}` : undefined) : undefined;
  const out = [...base];
  changes.forEach((entry, j) => {
    const key = principal(entry);
    const i = key === undefined ? -1 : out.findIndex((e) => principal(e) === key);
    const at = i < 0 ? out.length : i;
    out[at] = entry;
    origins.push({ to: [...to, at], from: [...from, j] });
  });
  return out;
}

/**
 * The merged document's source map: a path at or below a patched value is placed in the patch
 * (its final origin), any other in the target.
 */
function overlaySourceMap(base: SourceMap, patch: SourceMap, origins: readonly Origin[]): SourceMap {
  const originOf = (segments: readonly string[]): Origin | undefined => {
    let best: Origin | undefined;
    for (const o of origins) {
      if (o.to.length <= segments.length && o.to.every((s, i) => String(s) === segments[i]) && (best === undefined || o.to.length > best.to.length)) best = o;
    }
    return best;
  };
  const inPatch = (o: Origin, segments: readonly string[]): JsonPath => [...o.from, ...segments.slice(o.to.length)];
  return {
    locate(path, target) {
      const segments = (typeof path === 'string' ? parseJsonPointer(path) : path).map(String);
      const origin = originOf(segments);
      return origin === undefined ? base.locate(path, target) : patch.locate(inPatch(origin, segments), target);
    },
    patchedAt(path) {
      const segments = path.map(String);
      const origin = originOf(segments);
      return origin === undefined ? base.patchedAt?.(path) : patch.locate(inPatch(origin, segments));
    },
  };
}
