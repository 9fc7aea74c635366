import type { OpenClients } from './clients.js';
import type { AppContext, EnvironmentChoice } from './context.js';
import { prepareRead, type ReadPrelude } from './environment.js';
import { startReadPrefetch, type ReadPrefetch } from './prefetch-reads.js';

/**
 * `prepareRead` with the reads started while the manifests load (`startReadPrefetch`): the
 * prelude, and the clients to read the rest through when it is ready. When the prelude is
 * invalid (or anything throws) the clients are already closed, their tokens revoked: nothing is
 * written, and a read that failed meanwhile is never reported (the manifests' errors come first).
 */
export async function readWhileLoading(
  options: Parameters<typeof prepareRead>[0] & EnvironmentChoice,
  ctx: AppContext,
): Promise<{ readonly prelude: ReadPrelude; readonly clients?: Pick<OpenClients, 'readers' | 'close'> }> {
  let prefetch: ReadPrefetch | undefined;
  try {
    const prelude = await prepareRead(options, ctx, async (services, env, parallelism) => {
      prefetch = await startReadPrefetch(services, env, ctx, parallelism);
      return prefetch.onFile;
    });
    prefetch?.stop();
    if (prelude.status === 'invalid' || prefetch === undefined) {
      await prefetch?.close();
      return { prelude };
    }
    return { prelude, clients: prefetch };
  } catch (err) {
    await prefetch?.close();
    throw err;
  }
}
