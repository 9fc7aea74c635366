/**
 * Folder paths of the transfer service (`/Distribution/Acme/Outbound`), as the client, the live
 * reader, the planner and apply all handle them. Pure string functions, no dependencies.
 */

/** Without trailing slashes; `/` stays `/`. */
export function trimFolderPath(path: string): string {
  return path.length > 1 ? path.replace(/\/+$/, '') : path;
}

/** How the server compares paths: case-insensitive, trailing slashes ignored. */
export function folderKey(path: string): string {
  return trimFolderPath(path).toLowerCase();
}

/** `/A/B` → `/A`; `/A` → `/`; `/` → undefined. */
export function parentPath(path: string): string | undefined {
  const trimmed = trimFolderPath(path);
  if (trimmed === '/' || trimmed === '') return undefined;
  const i = trimmed.lastIndexOf('/');
  return i <= 0 ? '/' : trimmed.slice(0, i);
}

/** `path` is `root` or lies below it (as the server compares paths). */
export function isSameOrBelow(path: string, root: string): boolean {
  const p = folderKey(path);
  const r = folderKey(root);
  return p === r || (r === '/' ? p.startsWith('/') : p.startsWith(`${r}/`));
}

/** Number of path segments: `/` is 0, `/A/B` is 2. */
export function folderDepth(path: string): number {
  return path.split('/').filter((s) => s !== '').length;
}

/** The paths without repeats, as the server compares folders; first spelling kept. */
export function uniqueFolderPaths(paths: readonly string[]): string[] {
  const seen = new Set<string>();
  return paths.filter((p) => {
    const k = folderKey(p);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}
