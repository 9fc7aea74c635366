import type { NamedIndex, TransferLiveState } from '../../live/model.js';
import type { FolderPermissionsManifest } from '../../manifest/types.js';
import type { DesiredEntry, DesiredFolder } from '../../resources/model.js';
import { didYouMean } from '../diagnostics.js';
import type { Resolution } from '../kind.js';
import { nameRecorder, names, reporter } from '../resolve-names.js';

/** How an entry's principal of each type is found on the transfer server, and the code when it is not. */
interface PrincipalLookup<T extends { readonly id: string }> {
  readonly type: DesiredEntry['type'];
  readonly key: 'user' | 'group';
  readonly code: 'MF406' | 'MF407';
  readonly index: NamedIndex<T> | undefined;
  readonly nameOf: (item: T) => string | undefined;
}

/** A folder's entries with the transfer server's user and group ids (pure); unknown ones are diagnostics. */
export function resolveFolder(manifest: FolderPermissionsManifest, transfer: TransferLiveState): Resolution<DesiredFolder> {
  const problems = reporter(manifest);
  const recorder = nameRecorder();
  const entries: DesiredEntry[] = [];
  /** The principal's id, or undefined once its absence is reported. */
  const idOf = <T extends { readonly id: string }>(lookup: PrincipalLookup<T>, name: string, at: number): string | undefined => {
    const found = lookup.index?.byName.get(name.toLowerCase());
    if (!found) {
      const known = names(lookup.index, lookup.nameOf);
      problems.report(lookup.code, ['spec', 'entries', at, lookup.key], `no ${lookup.key} named \`${name}\` on the transfer server${didYouMean(name, known)}`);
      return undefined;
    }
    recorder.note(lookup.key, name, found.id);
    return found.id;
  };
  const users: PrincipalLookup<{ readonly id: string; readonly username?: string }> = {
    type: 'User',
    key: 'user',
    code: 'MF406',
    index: transfer.users,
    nameOf: (user) => user.username,
  };
  const groups: PrincipalLookup<{ readonly id: string; readonly name?: string }> = {
    type: 'Group',
    key: 'group',
    code: 'MF407',
    index: transfer.groups,
    nameOf: (group) => group.name,
  };
  manifest.spec.entries.forEach((entry, at) => {
    const [lookup, name] = entry.user !== undefined ? [users, entry.user] : entry.group !== undefined ? [groups, entry.group] : [undefined, undefined];
    if (lookup === undefined || name === undefined) return;
    const id = idOf(lookup, name, at);
    if (id === undefined) return;
    entries.push({ type: lookup.type, name, id, permissions: entry.permissions, sharePermissions: entry.sharePermissions ?? [], index: at });
  });
  return { value: { manifest, path: manifest.name, entries, resolved: recorder.list }, diagnostics: problems.list };
}
