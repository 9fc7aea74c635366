import { isAbsolute, relative, sep } from 'node:path';
import type { SourcePosition } from '../manifest/diagnostics.js';
import type { Manifest } from '../manifest/types.js';
import { parseFieldPath } from '../resources/common.js';
import type { Change, FieldChange, SourceRef } from '../resources/model.js';

/** A manifest position with its path relative to `cwd` (when below it), `/`-separated. */
export function sourceRef(at: SourcePosition, cwd: string | undefined): SourceRef {
  let file = at.file;
  if (cwd !== undefined) {
    const rel = pathBelow(cwd, at.file) ?? relative(cwd, at.file);
    if (rel !== '' && !rel.startsWith('..') && !isAbsolute(rel)) file = rel;
  }
  return { file: sep === '/' ? file : file.split(sep).join('/'), line: at.line, col: at.col };
}

/**
 * `relative(cwd, file)` where both are plain absolute POSIX paths (no `.`, `..` or empty segment,
 * no trailing `/`) and `file` is below `cwd`: the tail of `file` itself. `relative` answers a copy
 * of the resolved path that its slice keeps alive, about 100 bytes per change of a large plan;
 * this slice shares the manifest's own path. Undefined where `relative` must decide.
 */
export function pathBelow(cwd: string, file: string): string | undefined {
  if (sep !== '/' || cwd.length < 2 || !isPlainAbsolute(cwd) || !file.startsWith(cwd) || file.charCodeAt(cwd.length) !== 47 || !isPlainAbsolute(file))
    return undefined;
  return file.slice(cwd.length + 1);
}

function isPlainAbsolute(path: string): boolean {
  return path.startsWith('/') && !/\/\.{0,2}(?:\/|$)/.test(path);
}

/**
 * The fields with their `origin` where a `kind: Patch` gave the manifest value (README:
 * Environments): a field's display path is its path under `spec`.
 */
export function withOrigins(fields: readonly FieldChange[], m: Manifest, cwd: string | undefined): readonly FieldChange[] {
  const patchedAt = m.sourceMap.patchedAt?.bind(m.sourceMap);
  if (patchedAt === undefined) return fields;
  return fields.map((f) => {
    const at = patchedAt(['spec', ...parseFieldPath(f.path)]);
    return at === undefined ? f : { ...f, origin: sourceRef(at, cwd) };
  });
}

/**
 * Only objects the plan writes carry a fingerprint: apply's stale check reads and compares just
 * those, and hashing every no-op of a large estate was a tenth of the plan's CPU time.
 */
export function fingerprintOf(action: Change['action'], fingerprint: () => string): { fingerprint?: string } {
  return action === 'no-op' ? {} : { fingerprint: fingerprint() };
}
