import type { LiveFolder } from '../../live/model.js';
import { formatAddress } from '../address.js';
import type { ManifestDraft } from '../kind-import.js';
import { viewEntries } from './plan.js';

/**
 * A live folder as its minimal manifest (pure): `mode: exact` and every user and group entry
 * (non-editable ones too: they document the folder, and plan never touches them). Entries of
 * other types, and users or groups this account cannot name, are left out with a note (then the
 * mode is additive, so that plan leaves them alone).
 */
export function folderManifestOf(folder: LiveFolder): ManifestDraft {
  const path = folder.folder.path;
  const notes: string[] = [];
  const others = folder.acl.filter((e) => e.type !== 'User' && e.type !== 'Group');
  if (others.length > 0)
    notes.push(
      `${others.length} entr${others.length === 1 ? 'y' : 'ies'} of type ${[...new Set(others.map((e) => e.type))].join(', ')} cannot be managed and ${others.length === 1 ? 'is' : 'are'} left out (plan never touches them)`,
    );
  const unnamed = folder.acl.filter((e) => (e.type === 'User' || e.type === 'Group') && e.name === undefined);
  if (unnamed.length > 0) {
    const who = unnamed.map((e) => `${e.type.toLowerCase()} id ${e.id}${e.serverName !== undefined ? ` ("${e.serverName}")` : ''}`).join(', ');
    notes.push(
      `${who}: not in the user and group lists this account can read, so no username or group name is known; left out, and the mode is additive so that plan leaves ${unnamed.length === 1 ? 'it' : 'them'} alone`,
    );
  }
  const entries = viewEntries(folder.acl.filter((e) => !unnamed.includes(e))).map((e) => ({
    [e.type === 'User' ? 'user' : 'group']: e.name,
    permissions: [...e.permissions.permissions],
    ...(e.permissions.sharePermissions.length > 0 ? { sharePermissions: [...e.permissions.sharePermissions] } : {}),
  }));
  return {
    kind: 'FolderPermissions',
    name: path,
    address: formatAddress('FolderPermissions', path),
    metadataName: path,
    spec: { mode: unnamed.length > 0 ? 'additive' : 'exact', entries },
    notes,
  };
}
