import type { ResolvedService } from '../config/model.js';
import type { AutomationClient, ReadonlyAutomationClient, ReadonlyTransferClient, TransferClient } from '../services/index.js';
import type { AppContext } from './context.js';
import { withDefined } from '../with-defined.js';

/** One client per configured service, and the read-only views of them. */
export interface OpenClients {
  /** The full clients: only apply and snapshot restore, which write, use these. */
  readonly full: { readonly automation?: AutomationClient; readonly transfer?: TransferClient };
  /** Only the read methods exist on these objects: code holding them cannot write. */
  readonly readers: { readonly automation?: ReadonlyAutomationClient; readonly transfer?: ReadonlyTransferClient };
  /** Revoke the tokens, close the connections, remove the signal handlers; once, however often called. */
  close(): Promise<void>;
}

export interface OpenClientsOptions {
  /** Ctrl-C and SIGTERM revoke the tokens (default); apply passes false: it finishes its writes first. */
  readonly shutdownHandlers?: boolean;
  /**
   * Requests a use case keeps in flight (its parallelism). Each service gets at least that many
   * keep-alive connections: fewer would queue requests inside the pool and quietly cap the
   * parallelism (the pool default is 8).
   */
  readonly parallelism?: number;
  /** After Ctrl-C or SIGTERM revoked the tokens: what ends the process (default `process.exit`); import removes its staged files first. */
  readonly shutdownExit?: (code: number) => void;
}

export async function openClients(
  services: readonly ResolvedService[],
  ctx: Pick<AppContext, 'logger' | 'env'>,
  options: OpenClientsOptions = {},
): Promise<OpenClients> {
  // Lazy (measured): the HTTP stack (undici) loads only when a client is opened, so the commands
  // that import this module and work offline (snapshot list, verify, diff; diff-env --offline) do not load it.
  const { createAutomationClient, createTransferClient, installShutdownHandlers, toReadonlyAutomationClient, toReadonlyTransferClient } = await import(
    '../services/index.js'
  );
  const uninstall = options.shutdownHandlers === false ? () => {} : installShutdownHandlers(withDefined({ exit: options.shutdownExit }));
  const full: { automation?: AutomationClient; transfer?: TransferClient } = {};
  for (const s of services) {
    const clientOptions = {
      url: s.url,
      username: s.username,
      password: s.password,
      logger: ctx.logger,
      env: ctx.env,
      connections: Math.max(8, options.parallelism ?? 0),
      ...(s.caFile ? { caFile: s.caFile } : {}),
    };
    switch (s.name) {
      case 'automation':
        full.automation = createAutomationClient(clientOptions);
        break;
      case 'transfer':
        full.transfer = createTransferClient(clientOptions);
        break;
      default: {
        const never: never = s.name;
        throw new Error(`unknown service ${String(never)}`);
      }
    }
  }
  let closed: Promise<void> | undefined;
  return {
    full,
    readers: {
      ...(full.automation ? { automation: toReadonlyAutomationClient(full.automation) } : {}),
      ...(full.transfer ? { transfer: toReadonlyTransferClient(full.transfer) } : {}),
    },
    close: () => {
      // eslint-disable-next-line @typescript-eslint/await-thenable -- an absent client's close() is undefined, which Promise.all passes through
      closed ??= Promise.all([full.automation?.close(), full.transfer?.close()].map((p) => p?.catch(() => undefined))).then(() => uninstall());
      return closed;
    },
  };
}

/** Clients for the read-only use cases (plan, drift, status, import): callers get only the read-only views. */
export async function openReadonlyClients(
  services: readonly ResolvedService[],
  ctx: Pick<AppContext, 'logger' | 'env'>,
  options: Pick<OpenClientsOptions, 'parallelism' | 'shutdownExit'> = {},
): Promise<Pick<OpenClients, 'readers' | 'close'>> {
  const { readers, close } = await openClients(services, ctx, options);
  return { readers, close };
}

/** A `ProgressCallback` that emits progress events. */
export function progressEvents(ctx: Pick<AppContext, 'emit'>): (done: number, total: number, what: string) => void {
  return (done, total, what) => ctx.emit({ kind: 'progress', done, total, what });
}
