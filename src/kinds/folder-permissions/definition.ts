import { folderKey } from '../../live/model.js';
import type { KindDefinition } from '../kind.js';
import { planFolders, pruneFolders } from './plan-folders.js';
import { resolveFolder } from './resolve.js';

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
  plan: planFolders,
  prune: pruneFolders,
};
