import { folderKey } from '../../folder-path.js';
import { isPathGlob, pathGlobRoot } from '../../glob.js';
import type { ImportReadContext } from '../kind-io.js';
import { importReader } from '../kind-io.js';
import type { FolderImportPart } from './import.js';

/**
 * A walk below the scope roots (or the glob's fixed part, or `/` with `--all`), each found
 * folder's ACL once; or one lookup per exact path.
 */
export async function readFoldersForImport(context: ImportReadContext): Promise<FolderImportPart> {
  const transfer = importReader(context.transfer, 'folders', 'transfer');
  const s = context.selection;
  const exact = s.name !== undefined && !isPathGlob(s.name) ? [s.name] : [];
  const roots = exact.length > 0 ? [] : s.name !== undefined ? [pathGlobRoot(s.name)] : s.all ? ['/'] : [...s.scope.folders];
  // The planner's walk reads exactly this: every folder below the roots and its ACL.
  const folders: FolderImportPart['folders'][number][] = [];
  if (roots.length > 0) {
    const live = await context.readLive({ taskGroups: [], folders: roots }, ['FolderPermissions']);
    for (const f of live.transfer?.folders.values() ?? []) if (f !== null) folders.push(f);
  }
  for (const path of exact) {
    const folder = await transfer.findFolderByPath(path);
    if (folder === null) continue;
    folders.push({ folder, acl: await transfer.listFolderAcls(folder.id) });
  }
  return { folders, exactFolders: exact.map(folderKey) };
}
