import { folderKey } from '../../live/model.js';
import type { KindDefinition } from '../kind.js';
import { viewEntries } from './plan.js';
import { planFolders, pruneFolders } from './plan-folders.js';
import { resolveFolder } from './resolve.js';
import { FOLDER_PERMISSIONS_IMPORT } from './import.js';

/**
 * Folder permissions of the transfer service: a folder's user and group entries, the folder named
 * by its path (case and trailing slash aside). Planned first, parents before children, since tasks'
 * steps and subfolders stand on folders; deleted last, children first.
 */
export const FOLDER_PERMISSIONS: KindDefinition<'FolderPermissions'> = {
  kind: 'FolderPermissions',
  service: 'transfer',
  rank: 0,
  schema: 'folder-permissions.schema.json',
  identityOf: (m) => folderKey(m.name),
  scopeKey: 'folders',
  prunable: true,
  references: ['user', 'group'],
  resolve: (m, live) => resolveFolder(m, live.transfer!),
  nameOf: (d) => d.path,
  unmanagedDetail: (change, live) => {
    const folder = live.transfer?.folders.get(folderKey(change.name));
    const entries = folder ? viewEntries(folder.acl) : [];
    return {
      kind: 'FolderPermissions',
      entries: entries.map((e) => ({
        principal: { type: e.type, name: e.name },
        grant: { permissions: [...e.permissions.permissions], sharePermissions: [...e.permissions.sharePermissions] },
      })),
    };
  },
  describeUnmanaged: (detail, words) =>
    detail.entries.length === 0
      ? 'no entries'
      : detail.entries.map((e) => `${e.principal.type.toLowerCase()} ${words.escape(e.principal.name)} (${words.grant(e.grant)})`).join('; '),
  plan: planFolders,
  prune: pruneFolders,

  payloadKeys: {
    keys: ['kind', 'path', 'create', 'rename', 'set', 'remove'],
    inner: {
      create: { keys: ['parentPath', 'name', 'inheritPermissions'] },
      rename: { keys: ['from', 'name'] },
      set: { keys: ['type', 'id', 'name', 'permissions'] },
      remove: { keys: ['type', 'id', 'name'] },
    },
  },
  aliasesOf: () => [],
  createsNeeded: () => [],
  isBlockedPrune: () => false,
  comparedSpec: (m) => m.spec,
  principalLists: ['entries'],
  // The transfer service keeps no audit report.
  audit: undefined,
  unauditedNote: 'the transfer service has no audit report; who changed folder permissions is not shown.',
  importer: FOLDER_PERMISSIONS_IMPORT,
};
