import type { ResourceKind } from './kind.js';

/**
 * How each kind's objects are named: `name`, a name of the kind's own (`Task/Payroll to bank`), or
 * `path`, an absolute folder path whose leading slash doubles as the address separator
 * (`FolderPermissions/Distribution/Acme`), which compares as a folder key and orders by depth.
 * Here rather than in `KindDefinition` because the kinds' own resolve code spells addresses too.
 */
export const NAMING: { readonly [K in ResourceKind]: 'name' | 'path' } = {
  Task: 'name',
  ResourceGroupAcl: 'name',
  FolderPermissions: 'path',
  User: 'name',
  Group: 'name',
};

/** Whether `kind`'s names are folder paths (see `NAMING`). */
export function isPathNamed(kind: ResourceKind): boolean {
  return NAMING[kind] === 'path';
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
  if (name === '' || !Object.hasOwn(NAMING, kind)) return undefined;
  const known = kind as ResourceKind;
  // Folder names are absolute paths; accept `FolderPermissions/A/B` and `FolderPermissions//A/B`.
  return { kind: known, name: isPathNamed(known) ? `/${name.replace(/^\/+/, '')}` : name };
}
