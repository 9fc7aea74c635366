import type { ResolvedService } from '../../config/model.js';
import { createLogger } from '../../log.js';
import type { CommandIo } from '../io.js';
import type { GlobalOptions } from '../main.js';
import type { ReadonlyAutomationClient, ReadonlyTransferClient } from '../../services/index.js';

export interface ReadonlyClients {
  /** Only the read methods exist on these objects: a command holding them cannot write. */
  readonly readers: { readonly automation?: ReadonlyAutomationClient; readonly transfer?: ReadonlyTransferClient };
  /** Revoke the tokens, close the connections, remove the signal handlers. */
  close(): Promise<void>;
}

/**
 * Clients for the read-only commands (plan, drift, status). The full clients stay private to
 * this function; callers get the read-only views, and Ctrl-C still revokes the tokens.
 */
export async function openReadonlyClients(services: readonly ResolvedService[], g: GlobalOptions, io: CommandIo): Promise<ReadonlyClients> {
  const { createAutomationClient, createTransferClient, installShutdownHandlers, toReadonlyAutomationClient, toReadonlyTransferClient } =
    await import('../../services/index.js');
  const logger = createLogger(g.quiet ? 'quiet' : g.verbose ? 'verbose' : 'normal', io.stderr);
  const uninstall = installShutdownHandlers();
  const closers: Array<() => Promise<void>> = [];
  const readers: { automation?: ReadonlyAutomationClient; transfer?: ReadonlyTransferClient } = {};
  for (const s of services) {
    const options = { url: s.url, username: s.username, password: s.password, logger, env: io.env, ...(s.caFile ? { caFile: s.caFile } : {}) };
    switch (s.name) {
      case 'automation': {
        const client = createAutomationClient(options);
        closers.push(() => client.close());
        readers.automation = toReadonlyAutomationClient(client);
        break;
      }
      case 'transfer': {
        const client = createTransferClient(options);
        closers.push(() => client.close());
        readers.transfer = toReadonlyTransferClient(client);
        break;
      }
    }
  }
  return {
    readers,
    close: async () => {
      await Promise.all(closers.map((c) => c().catch(() => undefined)));
      uninstall();
    },
  };
}
