import type { TransferLiveState } from '../../live/model.js';
import type { FolderPermissionsManifest } from '../../manifest/types.js';
import type { DesiredEntry, DesiredFolder } from '../../resources/model.js';
import { didYouMean } from '../diagnostics.js';
import type { Resolution } from '../kind.js';
import { nameRecorder, names, reporter } from '../resolve-names.js';

/** A folder's entries with the transfer server's user and group ids (pure); unknown ones are diagnostics. */
export function resolveFolder(m: FolderPermissionsManifest, t: TransferLiveState): Resolution<DesiredFolder> {
  const r = reporter(m);
  const n = nameRecorder();
  const entries: DesiredEntry[] = [];
  m.spec.entries.forEach((e, index) => {
    const permissions = e.permissions;
    const sharePermissions = e.sharePermissions ?? [];
    if (e.user !== undefined) {
      const user = t.users?.byName.get(e.user.toLowerCase());
      if (!user)
        r.report(
          'MF406',
          ['spec', 'entries', index, 'user'],
          `no user named \`${e.user}\` on the transfer server${didYouMean(
            e.user,
            names(t.users, (u) => u.username),
          )}`,
        );
      else {
        n.note('user', e.user, user.id);
        entries.push({ type: 'User', name: e.user, id: user.id, permissions, sharePermissions, index });
      }
    } else if (e.group !== undefined) {
      const group = t.groups?.byName.get(e.group.toLowerCase());
      if (!group)
        r.report(
          'MF407',
          ['spec', 'entries', index, 'group'],
          `no group named \`${e.group}\` on the transfer server${didYouMean(
            e.group,
            names(t.groups, (g) => g.name),
          )}`,
        );
      else {
        n.note('group', e.group, group.id);
        entries.push({ type: 'Group', name: e.group, id: group.id, permissions, sharePermissions, index });
      }
    }
  });
  return { value: { manifest: m, path: m.name, entries, resolved: n.list }, diagnostics: r.list };
}
