import { createHash } from 'node:crypto';
import { relative, sep } from 'node:path';
import type { ManifestSet } from '../manifest/validate.js';
import { pathBelow } from '../kinds/source.js';

/**
 * `sha256:<hex>` over the manifest files: each file's path (relative to `cwd`, `/`-separated) and
 * the hash of the bytes the loader read, in path order, so a renamed or edited file changes the
 * digest. Pure: the bytes are the ones that were parsed, not a second read.
 */
export function manifestDigest(set: Pick<ManifestSet, 'files' | 'fileHashes'>, cwd: string): string {
  const hash = createHash('sha256');
  const named = set.files
    // `pathBelow` first: `relative` resolves both paths again for each of a large estate's files.
    .map((file) => ({ file, name: pathBelow(cwd, file) ?? relative(cwd, file).split(sep).join('/') }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const f of named) hash.update(`${f.name}\u0000${set.fileHashes.get(f.file) ?? 'unread'}\n`);
  return `sha256:${hash.digest('hex')}`;
}
