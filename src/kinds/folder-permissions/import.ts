import { folderKey, folderPathProblem, isSameOrBelow, trimFolderPath } from '../../folder-path.js';
import { matchesPathGlob } from '../../glob.js';
import type { LiveFolder } from '../../live/model.js';
import { sortByName } from '../kind-import.js';
import type { ImportSelection, ImportSource, KindImport } from '../kind-import.js';
import { folderManifestOf } from './to-manifest.js';

/** The live objects import reads for folder permissions. */
export interface FolderImportPart {
  readonly folders: readonly LiveFolder[];
  /**
   * Folder paths asked for by exact `--name`: imported even without entries (a folder found by
   * a walk is imported only when it has user or group entries).
   */
  readonly exactFolders?: readonly string[];
}

/**
 * What `mftops import` takes of folders: by `--name` (a folder path glob, or an exact path), else
 * those under `scope.folders`, every one with `--all`. A folder found by a walk is imported only
 * when it has user or group entries (the folders in between are not worth a file); a folder asked
 * for by its exact path always is. A path whose manifest would not validate is left out (MF324).
 */
export const FOLDER_PERMISSIONS_IMPORT: KindImport<'FolderPermissions'> = {
  plural: 'folders',
  folder: 'folders',
  askedForOnly: false,
  nothingRead: { folders: [], exactFolders: [] },
  draft(source, selection) {
    const drafts = [];
    const skipped: string[] = [];
    for (const folder of sortByName(selectFolders(source, selection), (f) => f.folder.path)) {
      // A manifest that would not validate is worse than none: it stops every later plan.
      const problem = folderPathProblem(trimFolderPath(folder.folder.path));
      if (problem === undefined) drafts.push(folderManifestOf(folder));
      else skipped.push(`folder ${JSON.stringify(folder.folder.path)} not imported (MF324): ${problem}`);
    }
    return { drafts, skipped };
  },
  unmatched(entry, source) {
    const below = source.folders.filter((f) => isSameOrBelow(f.folder.path, entry));
    if (below.length === 0) {
      return source.origin.startsWith('snapshot ')
        ? `no folder saved in ${source.origin}`
        : 'no folder: there is no such folder, or this account cannot see it';
    }
    if (below.some(hasEntries)) return undefined;
    return `no folder with user or group entries (${below.length === 1 ? 'the folder has none' : `none of its ${below.length} folders has any`})`;
  },
  inSnapshot: {
    where: 'saved',
    noneSaved: (source) =>
      source.folders.length > 0
        ? undefined
        : 'the snapshot holds no folder permissions (a snapshot keeps only the folders an apply touched, or those snapshot save was given or found)',
  },
  liveDrafts: (live) => (change) => {
    const folder = live.transfer?.folders.get(folderKey(change.previousName ?? change.name));
    return folder === undefined || folder === null ? undefined : folderManifestOf(folder);
  },
  showsRemoved: false,
};

function hasEntries(folder: LiveFolder): boolean {
  return folder.acl.some((e) => e.type === 'User' || e.type === 'Group');
}

function selectFolders(source: ImportSource, s: ImportSelection): readonly LiveFolder[] {
  const exact = new Set((source.exactFolders ?? []).map(folderKey));
  const roots = s.scope.folders;
  const seen = new Set<string>();
  return source.folders.filter((f) => {
    const key = folderKey(f.folder.path);
    if (seen.has(key)) return false;
    seen.add(key);
    if (exact.has(key)) return true;
    if (!hasEntries(f)) return false;
    if (s.name !== undefined) return matchesPathGlob(s.name, f.folder.path);
    return s.all || roots.some((r) => isSameOrBelow(f.folder.path, r));
  });
}
