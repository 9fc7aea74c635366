import type { LiveState } from '../live/model.js';
import { readCredentialEstate } from '../live/read-credentials.js';
import type { AutomationReader } from '../live/read-live-state.js';
import type { PolicyManifest } from '../manifest/types.js';
import type { PolicyKeyInput } from '../policy/key-variables.js';
import { policiesNamingKeys } from '../policy/key-variables.js';
import { MftopsError } from '../errors.js';
import { relative } from 'node:path';

/**
 * The input of the policy variables `keys` and `usedKeys`, read (three list reads, and the hosts
 * unless the plan read them) only when a policy names one of them and the automation service is
 * configured; undefined otherwise, so a plan without such a policy sends the requests it always did.
 * A list the account may not read would make `keys` look empty and a deny rule pass unjudged: the
 * plan is refused instead, naming the rule and the list (a warn rule is judged on what was read).
 */
export async function readPolicyKeys(
  policies: readonly PolicyManifest[],
  client: AutomationReader | undefined,
  live: LiveState,
  now: Date,
  cwd: string,
): Promise<PolicyKeyInput | undefined> {
  const naming = policiesNamingKeys(policies);
  if (client === undefined || naming.length === 0) return undefined;
  const hosts = live.automation?.hosts?.items ?? (await client.listHosts());
  const estate = await readCredentialEstate(client, { hosts, tasks: [] });
  const deny = naming.find((p) => p.spec.severity === 'deny');
  const missing = estate.unavailable[0];
  if (deny !== undefined && missing !== undefined) {
    const where = `${relative(cwd, deny.source.file) || deny.source.file}:${deny.source.line}:${deny.source.col}`;
    throw new MftopsError(
      `${where}: policy "${deny.name}" reads keys or usedKeys, but the automation server did not list its ${LIST_NAMES[missing.kind]} (HTTP ${missing.status}), so the rule cannot be judged; give the account read access to keys and certificates, or make the rule a warn`,
    );
  }
  return { credentials: estate.credentials, hosts, now };
}

const LIST_NAMES = { pgp: 'PGP keys', ssh: 'SSH keys', ssl: 'SSL certificates' } as const;
