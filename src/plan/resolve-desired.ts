import type { LiveState } from '../live/model.js';
import type { Manifest } from '../manifest/types.js';
import type { DesiredOf, ManifestOf, ResourceKind } from '../kinds/kind.js';
import { EVERY_KIND, kindOf } from '../kinds/registry.js';
import { formatAddress } from '../kinds/address.js';
import type { DesiredState } from './desired.js';
import { createPlanDiagnostic } from './diagnostics.js';
import type { PlanDiagnostic } from './diagnostics.js';

export { SUPPRESSED, wireParameters } from '../kinds/task/resolve.js';

/**
 * Turns names into server ids (pure): each kind's `resolve` (hosts, scripts, date lists, resource
 * groups of tasks and ACLs, user groups of ACLs, users and groups of folder entries). Every
 * unknown name is a diagnostic at the place it is written, with a "did you mean"; all of them are
 * reported in one run. An object with any unknown name is left out of the desired state.
 */
export function resolveDesired(manifests: readonly Manifest[], live: LiveState): { desired: DesiredState; diagnostics: PlanDiagnostic[] } {
  const diagnostics: PlanDiagnostic[] = [];
  const byKind = Object.fromEntries(EVERY_KIND.map((kind) => [kind, []])) as unknown as { [K in ResourceKind]: DesiredOf<K>[] };
  const skipped: Manifest[] = [];
  const missingService = { automation: [] as Manifest[], transfer: [] as Manifest[] };
  const declared = new Map(manifests.map((m) => formatAddress(m.kind, m.name)).map((address) => [address.toLowerCase(), address]));

  const resolveOne = <K extends ResourceKind>(manifest: ManifestOf<K>): void => {
    const definition = kindOf<K>(manifest.kind);
    if (!live[definition.service]) {
      missingService[definition.service].push(manifest);
      skipped.push(manifest);
      return;
    }
    const resolution = definition.resolve(manifest, live, declared);
    diagnostics.push(...resolution.diagnostics);
    if (resolution.diagnostics.length === 0) (byKind[manifest.kind] as DesiredOf<K>[]).push(resolution.value);
    else skipped.push(manifest);
  };
  for (const manifest of manifests) resolveOne(manifest);
  for (const service of ['automation', 'transfer'] as const) {
    const list = missingService[service];
    const first = list[0];
    if (!first) continue;
    diagnostics.push(
      createPlanDiagnostic(
        'MF411',
        first.source,
        `${list.length} manifest${list.length === 1 ? '' : 's'} need${list.length === 1 ? 's' : ''} the ${service} service, which this environment does not configure`,
        {
          hint: `add \`${service}:\` with url and credentials to the environment in mftops.yaml`,
        },
      ),
    );
  }
  return { desired: { byKind, skipped }, diagnostics };
}
