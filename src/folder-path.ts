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

/**
 * Characters a folder name cannot hold, besides `/` and control characters. The transfer API
 * reference does not list them ("not shown"); these are the ones Windows forbids in a file name,
 * which a server that stores folders on Windows refuses or reads otherwise (docs/server-variants.md).
 */
export const FORBIDDEN_FOLDER_NAME_CHARACTERS = '\\:*?"<>|';

/**
 * Why an absolute folder path does not name one folder per level, or undefined when it does:
 * an empty name (`//`, a trailing `/`), `.` or `..` (the server would make a folder of that
 * name, not walk up), a control character, or a forbidden character. Spaces around a name are the
 * schema's concern.
 */
export function folderPathProblem(path: string): string | undefined {
  if (!path.startsWith('/')) return 'it does not start with /';
  if (path === '/') return undefined;
  const names = path.slice(1).split('/');
  for (const name of names) {
    if (name === '') return 'it has an empty name (`//` or a trailing `/`)';
    if (name === '.' || name === '..') return `it has a folder named \`${name}\`, which the server would create as such rather than stay or go up`;
    const control = [...name].find((c) => /[\u0000-\u001f\u007f-\u009f]/.test(c));
    if (control !== undefined)
      return `the name ${JSON.stringify(name)} holds a control character (U+${control.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')})`;
    const forbidden = [...name].find((c) => FORBIDDEN_FOLDER_NAME_CHARACTERS.includes(c));
    if (forbidden !== undefined)
      return `the name \`${name}\` holds \`${forbidden}\`, which a folder name cannot (${FORBIDDEN_FOLDER_NAME_CHARACTERS.split('').join(' ')})`;
  }
  return undefined;
}
