import { matchesNameMask } from '../../glob.js';
import type { TransferUser, TransferUserDetails } from '../../services/transfer/types.js';
import { sortByName } from '../kind-import.js';
import type { ImportSelection, ImportSource, KindImport } from '../kind-import.js';
import { userManifestOf } from './to-manifest.js';

/** The live objects import reads for users (absent: none were read, as from a snapshot). */
export interface UserImportPart {
  /** Transfer users the selection names. */
  readonly users?: readonly TransferUser[];
  /** Their details (`GET /users/{id}`), by user id. */
  readonly userDetails?: ReadonlyMap<string, TransferUserDetails>;
}

/** What `mftops import` takes of transfer users (`selectUsers`); a snapshot holds none. */
export const USER_IMPORT: KindImport<'User'> = {
  plural: 'users',
  folder: 'users',
  askedForOnly: false,
  nothingRead: {},
  draft: (source, selection) => ({
    drafts: sortByName(selectUsers(source, selection), (u) => u.username).map((user) => userManifestOf(user, source.userDetails?.get(user.id))),
    skipped: [],
  }),
  inSnapshot: { where: 'none' },
  liveDrafts: (live) => (change) => {
    const user = change.liveId === undefined ? undefined : live.transfer?.users?.byId.get(change.liveId);
    return user === undefined ? undefined : userManifestOf(user, live.transfer?.userDetails?.get(user.id));
  },
  showsRemoved: true,
};

/** Users by `--name` (a name mask on the username), else the masks of `scope.users`, or every one with `--all`. */
export function selectUsers(source: Pick<ImportSource, 'users'>, s: Pick<ImportSelection, 'name' | 'all' | 'scope'>): readonly TransferUser[] {
  return (source.users ?? []).filter((u) => {
    if (u.username === '') return false;
    if (s.name !== undefined) return matchesNameMask(s.name, u.username);
    return s.all || (s.scope.users ?? []).some((mask) => matchesNameMask(mask, u.username));
  });
}
