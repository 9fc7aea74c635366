import type { ResolvedService, ServiceName } from '../../config/model.js';
import { isMftopsError } from '../../errors.js';
import { renderStatusJson, renderStatusText, type ServiceStatus, type StatusReport } from '../../render/status.js';
import type { CommandIo } from '../io.js';
import type { GlobalOptions } from '../main.js';
import { openReadonlyClients } from './clients.js';
import { openEnvironment, resolveServices } from './common.js';

/**
 * `mftops status`: for each service of the environment, sign in, read the server's identity and
 * count the objects mftops manages. Read-only. Exit 0 when every service answered, else 1.
 */
export async function runStatus(g: GlobalOptions, io: CommandIo): Promise<number> {
  const { config, env } = openEnvironment(g, io);
  const services = resolveServices(config, env, io);
  const clients = await openReadonlyClients(services, g, io);
  try {
    const results = await Promise.all(
      services.map(async (s): Promise<ServiceStatus> => {
        switch (s.name) {
          case 'automation': {
            const client = clients.readers.automation!;
            return await check(s, () => client.requestCount, async () => {
              const info = await client.info();
              const [tasks, hosts, groups, acls] = await Promise.all([
                client.listTasks({ fields: ['ID'] }),
                client.listHosts(),
                client.listResourceGroups(),
                client.listResourceGroupAcls(),
              ]);
              return {
                ...(info.appVersion ? { version: info.appVersion } : {}),
                ...(info.username ? { username: info.username } : {}),
                ...(info.isAdmin !== undefined ? { role: info.isAdmin ? 'administrator' : 'not an administrator' } : {}),
                counts: [
                  ['tasks', tasks.length],
                  ['hosts', hosts.length],
                  ['resource groups', groups.length],
                  ['resource-group ACLs', acls.length],
                ],
              };
            });
          }
          case 'transfer': {
            const client = clients.readers.transfer!;
            return await check(s, () => client.requestCount, async () => {
              const me = await client.currentUser();
              const [users, groups] = await Promise.all([client.listUsers(), client.listGroups()]);
              return {
                username: me.username,
                ...(typeof me['permission'] === 'string' ? { role: me['permission'] } : {}),
                counts: [
                  ['users', users.length],
                  ['groups', groups.length],
                ],
              };
            });
          }
        }
      }),
    );
    const report: StatusReport = { environment: env.name, configFile: config.file, services: results };
    io.stdout(g.format === 'json' ? renderStatusJson(report) : renderStatusText(report));
    return results.every((r) => r.ok) ? 0 : 1;
  } finally {
    await clients.close();
  }
}

type Found = Omit<ServiceStatus, 'service' | 'url' | 'ok' | 'requests'>;

/** Run one service's checks; an I/O failure becomes that service's error line, not a crash. */
async function check(s: ResolvedService, requests: () => number, read: () => Promise<Found>): Promise<ServiceStatus> {
  const base = { service: s.name satisfies ServiceName, url: s.url };
  try {
    const found = await read();
    return { ...base, ok: true, ...found, requests: requests() };
  } catch (err) {
    if (!isMftopsError(err)) throw err;
    return { ...base, ok: false, error: err.message, counts: [], requests: requests() };
  }
}
