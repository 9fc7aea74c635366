import type { TransferLiveState } from '../../live/model.js';
import type { GroupManifest } from '../../manifest/types.js';
import type { DesiredGroup, GroupMemberRef } from '../../resources/model.js';
import { formatAddress } from '../address.js';
import { didYouMean } from '../diagnostics.js';
import type { DeclaredAddresses, Resolution } from '../kind.js';
import { nameRecorder, names, reporter } from '../resolve-names.js';

/**
 * A group's members with the transfer server's user ids (pure). A username the users list lacks
 * is an object this plan creates when a User manifest of the same plan declares it (its id comes
 * from that create at apply time), else an unknown user (MF406, with a "did you mean"). A member
 * listed twice (case aside) counts once.
 */
export function resolveGroup(manifest: GroupManifest, transfer: TransferLiveState, declared: DeclaredAddresses): Resolution<DesiredGroup> {
  const problems = reporter(manifest);
  const recorder = nameRecorder();
  const members: GroupMemberRef[] = [];
  const seen = new Set<string>();
  manifest.spec.members.forEach((username, at) => {
    const key = username.toLowerCase();
    if (seen.has(key)) return;
    seen.add(key);
    const user = transfer.users?.byName.get(key);
    if (user) {
      recorder.note('user', username, user.id);
      members.push({ username, id: user.id });
      return;
    }
    const createdBy = declared.get(formatAddress('User', username).toLowerCase());
    if (createdBy !== undefined) {
      members.push({ username, createdBy });
      return;
    }
    const known = names(transfer.users, (u) => u.username);
    problems.report(
      'MF406',
      ['spec', 'members', at],
      `no user named \`${username}\` on the transfer server${didYouMean(username, known)}`,
      'or add a User manifest for it: this plan then creates it first',
    );
  });
  return { value: { manifest, name: manifest.name, members, resolved: recorder.list }, diagnostics: problems.list };
}
