import { findCredentialUsers } from '../credentials/expiry-report.js';
import type { Credential, CredentialEstate, CredentialKind, CredentialListUnavailable } from '../credentials/model.js';
import type { Host, Task } from '../services/automation/types.js';
import { ApiError } from '../services/errors.js';
import type { AutomationReader } from './read-live-state.js';

const KINDS: readonly CredentialKind[] = ['pgp', 'ssh', 'ssl'];

/**
 * Reads the PGP keys, SSH keys and SSL certificates, and (for their users) the tasks and hosts
 * unless given: five list reads through a read-only client. A list the account may not read or
 * the server does not have (403, 404, 405, 501) is reported as unavailable, not an error.
 */
export async function readCredentialEstate(
  client: AutomationReader,
  known: { readonly tasks?: readonly Task[]; readonly hosts?: readonly Host[] } = {},
): Promise<CredentialEstate> {
  const unavailable: CredentialListUnavailable[] = [];
  const lists = await Promise.all(
    KINDS.map(async (kind): Promise<readonly Credential[]> => {
      try {
        return await client.listCredentials(kind);
      } catch (err) {
        if (err instanceof ApiError && [403, 404, 405, 501].includes(err.status)) {
          unavailable.push({ kind, status: err.status });
          return [];
        }
        throw err;
      }
    }),
  );
  const credentials = lists.flat();
  if (credentials.length === 0) return { credentials, users: new Map(), unavailable: sorted(unavailable) };
  const [tasks, hosts] = await Promise.all([known.tasks ?? client.listTasks(), known.hosts ?? client.listHosts()]);
  return { credentials, users: findCredentialUsers(credentials, tasks, hosts), unavailable: sorted(unavailable) };
}

function sorted(list: CredentialListUnavailable[]): CredentialListUnavailable[] {
  return list.sort((a, b) => KINDS.indexOf(a.kind) - KINDS.indexOf(b.kind));
}
