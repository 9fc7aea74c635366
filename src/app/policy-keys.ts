import type { LiveState } from '../live/model.js';
import { readCredentialEstate } from '../live/read-credentials.js';
import type { AutomationReader } from '../live/read-live-state.js';
import type { PolicyManifest } from '../manifest/types.js';
import type { PolicyKeyInput } from '../policy/key-variables.js';
import { policiesReadKeys } from '../policy/key-variables.js';

/**
 * The input of the policy variables `keys` and `usedKeys`, read (three list reads, and the hosts
 * unless the plan read them) only when a policy names one of them and the automation service is
 * configured; undefined otherwise, so a plan without such a policy sends the requests it always did.
 */
export async function readPolicyKeys(
  policies: readonly PolicyManifest[],
  client: AutomationReader | undefined,
  live: LiveState,
  now: Date,
): Promise<PolicyKeyInput | undefined> {
  if (client === undefined || !policiesReadKeys(policies)) return undefined;
  const hosts = live.automation?.hosts?.items ?? (await client.listHosts());
  const estate = await readCredentialEstate(client, { hosts, tasks: [] });
  return { credentials: estate.credentials, hosts, now };
}
