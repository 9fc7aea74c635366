import type { ResolvedService } from '../config/model.js';
import { isMftopsError } from '../errors.js';
import type { ServiceStatus, StatusReport } from '../render/status.js';
import { openReadonlyClients } from './clients.js';
import type { AppContext, EnvironmentChoice } from './context.js';
import { openEnvironment, resolveServices } from './environment.js';
import type { StatusOptions } from './status-credentials.js';
import { credentialSection, expiryClock } from './status-credentials.js';
import { resolve } from 'node:path';
import { readSchedulerStatus } from './scheduler-status.js';
import { withDefined } from '../with-defined.js';

/**
 * For each service of an environment: sign in, read the server's identity and count the objects
 * mftops manages, through read-only clients. A service that cannot be reached or refuses the
 * credentials is a failed entry of the report, not an exception; `ok` on each entry says which.
 */
export async function environmentStatus(choice: EnvironmentChoice, ctx: AppContext, options: StatusOptions = {}): Promise<StatusReport> {
  const { config, env } = openEnvironment(choice, ctx);
  const services = resolveServices(config, env, ctx);
  const clients = await openReadonlyClients(services, ctx);
  try {
    const results = await Promise.all(
      services.map(async (s): Promise<ServiceStatus> => {
        switch (s.name) {
          case 'automation': {
            const client = clients.readers.automation!;
            return await check(
              s,
              () => client.requestCount,
              async () => {
                const info = await client.info();
                const [tasks, hosts, groups, acls] = await Promise.all([
                  client.listTasks({ fields: ['ID'] }),
                  client.listHosts(),
                  client.listResourceGroups(),
                  client.listResourceGroupAcls(),
                ]);
                const credentials = await credentialSection(client, expiryClock(ctx)(), options.expiringWithinDays, { hosts });
                return {
                  ...(info.appVersion ? { version: info.appVersion } : {}),
                  ...(info.username ? { username: info.username } : {}),
                  ...(info.isAdmin !== undefined ? { role: info.isAdmin ? 'administrator' : 'not an administrator' } : {}),
                  counts: [
                    { key: 'tasks', count: tasks.length },
                    { key: 'hosts', count: hosts.length },
                    { key: 'resourceGroups', count: groups.length },
                    { key: 'resourceGroupAcls', count: acls.length },
                  ],
                  ...withDefined({ credentials }),
                };
              },
            );
          }
          case 'transfer': {
            const client = clients.readers.transfer!;
            return await check(
              s,
              () => client.requestCount,
              async () => {
                const me = await client.currentUser();
                const [users, groups] = await Promise.all([client.listUsers(), client.listGroups()]);
                return {
                  username: me.username,
                  ...(typeof me['permission'] === 'string' ? { role: me['permission'] } : {}),
                  counts: [
                    { key: 'users', count: users.length },
                    { key: 'groups', count: groups.length },
                  ],
                };
              },
            );
          }
          default: {
            const never: never = s.name;
            throw new Error(`unknown service ${String(never)}`);
          }
        }
      }),
    );
    const automation = clients.readers.automation;
    const service = services.find((x) => x.name === 'automation');
    const scheduler =
      automation !== undefined && service !== undefined
        ? await readSchedulerStatus(automation, resolve(config.snapshots.dir, env.name), env.name, service.url)
        : undefined;
    return { environment: env.name, configFile: config.file, services: results, ...withDefined({ scheduler }) };
  } finally {
    await clients.close();
  }
}

type Found = Omit<ServiceStatus, 'service' | 'url' | 'ok' | 'requests'>;

/** Run one service's checks; an I/O failure becomes that service's error line, not a crash. */
async function check(s: ResolvedService, requests: () => number, read: () => Promise<Found>): Promise<ServiceStatus> {
  const base = { service: s.name, url: s.url };
  try {
    const found = await read();
    return { ...base, ok: true, ...found, requests: requests() };
  } catch (err) {
    if (!isMftopsError(err)) throw err;
    return { ...base, ok: false, error: err.message, counts: [], requests: requests() };
  }
}
