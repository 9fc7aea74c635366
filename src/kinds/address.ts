import { KIND_DOCUMENTS } from './kind-types.js';
import type { ResourceKind } from './kind.js';

/** Whether `kind`'s names are folder paths (its `KindDocument`'s `naming`). */
export function isPathNamed(kind: ResourceKind): boolean {
  return KIND_DOCUMENTS[kind].naming === 'path';
}

/** `Kind/name`; a folder path's own leading slash doubles as the separator: `FolderPermissions/Distribution/Acme`. */
export function formatAddress(kind: ResourceKind, name: string): string {
  return isPathNamed(kind) && name.startsWith('/') ? `${kind}${name}` : `${kind}/${name}`;
}

/** Parse `Kind/name` (the name may contain `/`, as folder paths do). */
export function parseAddress(address: string): { kind: ResourceKind; name: string } | undefined {
  const slash = address.indexOf('/');
  if (slash <= 0) return undefined;
  const kind = address.slice(0, slash);
  const name = address.slice(slash + 1);
  if (name === '' || !Object.hasOwn(KIND_DOCUMENTS, kind)) return undefined;
  const known = kind as ResourceKind;
  // Folder names are absolute paths; accept `FolderPermissions/A/B` and `FolderPermissions//A/B`.
  return { kind: known, name: isPathNamed(known) ? `/${name.replace(/^\/+/, '')}` : name };
}
