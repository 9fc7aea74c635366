import { ConfigError } from '../errors.js';
import type { Diagnostic } from '../diagnostics.js';
import { sortDiagnostics } from '../diagnostics.js';
import type { ManifestSet } from '../manifest/validate.js';
import { compareEnvironments, type EnvironmentDiff, type EnvironmentSide } from '../plan/diff-environments.js';
import type { DiagnosticsReport } from '../render/diagnostics.js';
import { openReadonlyClients } from './clients.js';
import type { AppContext } from './context.js';
import {
  countValidDocuments,
  loadEnvironmentManifests,
  manifestEnvironmentOf,
  manifestPathsOf,
  openEnvironment,
  prepareRead,
  secretConfinementOf,
  type ReadPrelude,
} from './environment.js';
import { planManifests } from './plan.js';

export interface DiffEnvOptions {
  /** The configuration file; default `mftops.yaml` in `cwd`. */
  readonly configFile?: string;
  /** The two environments, `a` then `b` (`diff-env staging production`). */
  readonly a: string;
  readonly b: string;
  /** Manifests only: no request, no credential of the configuration resolved. */
  readonly offline: boolean;
  /** Per-object reads in flight per server. */
  readonly parallelism?: number;
}

/**
 * - `invalid`: a manifest of either environment (or, servers read, a name its server does not
 *   know) is wrong; the diagnostics say where. With a manifest error no request was sent.
 * - `compared`: the comparison, with the warnings found on the way.
 */
export type DiffEnvResult =
  | { readonly status: 'invalid'; readonly diagnostics: DiagnosticsReport }
  | { readonly status: 'compared'; readonly diff: EnvironmentDiff; readonly diagnostics: DiagnosticsReport };

/**
 * Compare two environments, read-only: both environments' manifests (each its own `manifests:`)
 * and, unless offline, each server's live state through read-only clients, as `plan` reads it
 * (without pruning: the view is about declared objects). Both environments' manifests are loaded
 * and checked before the first request.
 */
export async function diffEnvironments(options: DiffEnvOptions, ctx: AppContext): Promise<DiffEnvResult> {
  if (options.a === options.b) throw new ConfigError(`diff-env compares two environments; "${options.a}" was given twice`);
  if (options.offline) {
    const sets = [await loadOffline(options, options.a, ctx), await loadOffline(options, options.b, ctx)] as const;
    const diagnostics = reportOfBoth(sets[0], sets[1]);
    if (!sets[0].ok || !sets[1].ok) return { status: 'invalid', diagnostics };
    const diff = compareEnvironments(
      { name: options.a, manifests: sets[0].manifests.manifests },
      { name: options.b, manifests: sets[1].manifests.manifests },
      { cwd: ctx.cwd },
    );
    return { status: 'compared', diff, diagnostics };
  }
  const choice = (environment: string) => ({
    ...(options.configFile !== undefined ? { configFile: options.configFile } : {}),
    environment,
    prune: false,
    ...(options.parallelism !== undefined ? { parallelism: options.parallelism } : {}),
  });
  const first = await prepareRead(choice(options.a), ctx);
  const second = await prepareRead(choice(options.b), ctx);
  if (first.status === 'invalid' || second.status === 'invalid') {
    return {
      status: 'invalid',
      diagnostics: mergeReports(
        [first, second].map((p) =>
          p.status === 'invalid' ? p.diagnostics : { diagnostics: p.manifests.diagnostics, manifestCount: countValidDocuments(p.manifests) },
        ),
      ),
    };
  }
  const sides: EnvironmentSide[] = [];
  const reports: DiagnosticsReport[] = [];
  for (const prelude of [first, second]) {
    const planned = await planOf(prelude, ctx);
    reports.push(planned.diagnostics);
    if (planned.plan === undefined || planned.plan.errored) return { status: 'invalid', diagnostics: mergeReports(reports) };
    sides.push({ name: prelude.env.name, manifests: prelude.manifests.manifests, plan: planned.plan });
  }
  return { status: 'compared', diff: compareEnvironments(sides[0]!, sides[1]!, { cwd: ctx.cwd }), diagnostics: mergeReports(reports) };
}

async function loadOffline(options: DiffEnvOptions, environment: string, ctx: AppContext): Promise<{ ok: boolean; manifests: ManifestSet }> {
  const { config, env } = openEnvironment({ ...(options.configFile !== undefined ? { configFile: options.configFile } : {}), environment }, ctx);
  return loadEnvironmentManifests(manifestPathsOf(undefined, config, env, ctx), ctx, manifestEnvironmentOf(config, env), secretConfinementOf(config));
}

async function planOf(prelude: Extract<ReadPrelude, { status: 'ready' }>, ctx: AppContext): Promise<Awaited<ReturnType<typeof planManifests>>> {
  const clients = await openReadonlyClients(prelude.services, ctx, { parallelism: prelude.parallelism });
  try {
    return await planManifests(
      prelude.manifests,
      {
        readers: clients.readers,
        env: prelude.env,
        services: prelude.services,
        parallelism: prelude.parallelism,
        confinement: secretConfinementOf(prelude.config),
        ...(prelude.prune.off ? { pruneOff: prelude.prune.off } : {}),
      },
      ctx,
    );
  } finally {
    await clients.close();
  }
}

function reportOfBoth(a: { manifests: ManifestSet }, b: { manifests: ManifestSet }): DiagnosticsReport {
  return mergeReports([a, b].map((s) => ({ diagnostics: s.manifests.diagnostics, manifestCount: countValidDocuments(s.manifests) })));
}

/**
 * The diagnostics of both environments, each once: environments that share a folder would
 * otherwise report its warnings twice. The count is of the documents either one loaded.
 */
function mergeReports(reports: readonly DiagnosticsReport[]): DiagnosticsReport {
  const seen = new Set<string>();
  const diagnostics: Diagnostic[] = [];
  for (const d of reports.flatMap((r) => r.diagnostics)) {
    const key = JSON.stringify(d);
    if (seen.has(key)) continue;
    seen.add(key);
    diagnostics.push(d);
  }
  return { diagnostics: sortDiagnostics(diagnostics), manifestCount: Math.max(0, ...reports.map((r) => r.manifestCount)) };
}
