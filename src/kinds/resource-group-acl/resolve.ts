import type { AutomationLiveState } from '../../live/model.js';
import type { ResourceGroupAclManifest } from '../../manifest/types.js';
import type { DesiredAcl } from '../../resources/model.js';
import { didYouMean } from '../diagnostics.js';
import type { Resolution } from '../kind.js';
import { nameRecorder, names, reporter } from '../resolve-names.js';

/** An ACL's resource group and user group in the automation server's spelling (pure); unknown ones are diagnostics. */
export function resolveAcl(m: ResourceGroupAclManifest, a: AutomationLiveState): Resolution<DesiredAcl> {
  const r = reporter(m);
  const n = nameRecorder();
  const { resourceGroup, userGroup, permissions } = m.spec;
  const group = a.resourceGroups?.byName.get(resourceGroup.toLowerCase());
  if (!group) {
    r.report(
      'MF404',
      ['spec', 'resourceGroup'],
      `no resource group named \`${resourceGroup}\` on the automation server${didYouMean(
        resourceGroup,
        names(a.resourceGroups, (g) => g.Name),
      )}`,
    );
  } else n.note('resourceGroup', resourceGroup);
  let userGroupName = userGroup;
  const known = a.userGroups?.names.get(userGroup.toLowerCase());
  if (known !== undefined) userGroupName = known;
  else if (a.userGroups?.readable) {
    r.report(
      'MF405',
      ['spec', 'userGroup'],
      `no user group named \`${userGroup}\` on the automation server${didYouMean(userGroup, a.userGroups.names.values())}`,
      'user group names are case-sensitive on the server',
    );
  }
  return { value: { manifest: m, resourceGroup: group?.Name ?? resourceGroup, userGroup: userGroupName, permissions, resolved: n.list }, diagnostics: r.list };
}
