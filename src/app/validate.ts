import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { DEFAULT_CONFIG_FILE } from '../config/load-config.js';
import { ConfigError } from '../errors.js';
import type { Manifest, PolicyManifest } from '../manifest/types.js';
import type { DiagnosticsReport } from '../render/diagnostics.js';
import type { AppContext, EnvironmentChoice } from './context.js';
import {
  countValidDocuments,
  loadEnvironmentManifests,
  manifestEnvironmentOf,
  manifestPathsOf,
  manifestRootConfinement,
  openEnvironment,
  secretConfinementOf,
} from './environment.js';
import { loadConfig, selectEnvironment } from '../config/load-config.js';
import { sortDiagnostics, type Diagnostic } from '../diagnostics.js';
import type { ManifestSet } from '../manifest/validate.js';
import { createDiagnostic } from '../manifest/diagnostics.js';

export interface ValidateOptions extends EnvironmentChoice {
  /**
   * Files and folders (relative to `cwd`; problems name them as given); given, no configuration
   * file is needed. None: the environment's manifests.
   */
  readonly paths?: readonly string[];
}

/**
 * Check manifests against the schemas and rules; no network. Every problem found is in the
 * report; any of severity `error` (an unreadable path is one) makes the manifests invalid.
 *
 * Environments (README: Environments): paths without --config/--env are checked with no
 * environment (every document counts, a `${var:}` is MF320). With a configuration, the
 * environment named by --env; without --env, every environment of the configuration, each with
 * its own manifests and variables: a problem found in some environments but not all says which.
 */
export async function validateManifests(options: ValidateOptions, ctx: AppContext): Promise<DiagnosticsReport> {
  const paths = options.paths !== undefined && options.paths.length > 0 ? options.paths : undefined;
  if (paths !== undefined && options.configFile === undefined && options.environment === undefined) {
    const loaded = await loadEnvironmentManifests(paths, ctx, undefined, manifestRootConfinement(paths, ctx));
    return { diagnostics: sortDiagnostics(await withPolicyDiagnostics(loaded.manifests)), manifestCount: countValidDocuments(loaded.manifests) };
  }
  if (paths === undefined) requireConfig(options, ctx);
  const config = loadConfig(options.configFile ?? DEFAULT_CONFIG_FILE, ctx.cwd, options.configFileFrom);
  const chosen =
    options.environment !== undefined ? [selectEnvironment(config, options.environment, options.environmentFrom)] : [...config.environments.values()];
  const runs: { env: string; manifests: ManifestSet; diagnostics: readonly Diagnostic[] }[] = [];
  for (const env of chosen) {
    const loaded = await loadEnvironmentManifests(
      manifestPathsOf(paths ?? [], config, env, ctx),
      ctx,
      manifestEnvironmentOf(config, env),
      secretConfinementOf(config),
    );
    runs.push({ env: env.name, manifests: loaded.manifests, diagnostics: await withPolicyDiagnostics(loaded.manifests) });
  }
  return mergeEnvironmentReports(runs);
}

/**
 * One report of several environments' checks: a problem found in every environment once, as it
 * is; one found in only some, once, its summary saying in which. The count is of the distinct
 * documents valid in at least one environment.
 */
function mergeEnvironmentReports(runs: readonly { env: string; manifests: ManifestSet; diagnostics: readonly Diagnostic[] }[]): DiagnosticsReport {
  const found = new Map<string, { diagnostic: Diagnostic; envs: string[] }>();
  const valid = new Set<string>();
  for (const { env, manifests, diagnostics: all } of runs) {
    for (const d of all) {
      const key = JSON.stringify([d.code, d.file, d.line, d.col, d.summary]);
      const seen = found.get(key);
      if (seen === undefined) found.set(key, { diagnostic: d, envs: [env] });
      else if (!seen.envs.includes(env)) seen.envs.push(env);
    }
    for (const m of [...manifests.manifests, ...manifests.policies]) valid.add(`${m.source.file}:${m.source.line}:${m.source.col}`);
  }
  const diagnostics = [...found.values()].map(({ diagnostic, envs }) =>
    envs.length === runs.length
      ? diagnostic
      : { ...diagnostic, summary: `${diagnostic.summary} (environment${envs.length > 1 ? 's' : ''} ${envs.join(', ')})` },
  );
  return { diagnostics: sortDiagnostics(diagnostics), manifestCount: valid.size };
}

/** The manifests' diagnostics and, when they hold policies, what the object-only ones find. */
async function withPolicyDiagnostics(set: ManifestSet): Promise<Diagnostic[]> {
  const { manifests, policies, diagnostics } = set;
  return policies.length > 0 ? [...diagnostics, ...(await policyDiagnostics(manifests, policies))] : [...diagnostics];
}

/**
 * The policies that read only `object`, on every valid manifest they match (no server): MF312 at
 * the manifest (an error for `deny`, a warning for `warn`), the expression as the related place.
 * Plan evaluates every policy again on its changes.
 */
async function policyDiagnostics(manifests: readonly Manifest[], policies: readonly PolicyManifest[]): Promise<Diagnostic[]> {
  // Lazy (measured): only manifests that hold a Policy load the policy engine and the plan model it
  // reads; `validate` of manifests without one loads 20 modules fewer.
  const [{ evaluateObjectPolicies, objectOf }, { formatAddress }, { createPolicyRunner }] = await Promise.all([
    import('../policy/evaluate.js'),
    import('../plan/model.js'),
    import('./run-policy-checks.js'),
  ]);
  const subjects = manifests.map((m) => ({ address: formatAddress(m.kind, m.name), kind: m.kind, name: m.name, object: objectOf(m), source: m.source }));
  return (await evaluateObjectPolicies(subjects, policies, undefined, createPolicyRunner())).violations.map((v) =>
    createDiagnostic(v.severity === 'deny' ? 'error' : 'warning', 'MF312', v.source, `${v.address} breaks policy \`${v.policy}\`: ${v.message}`, {
      related: { message: 'policy expression', ...v.expressionSource },
      ...(v.outcome === 'error' ? { hint: 'the expression could not be evaluated on this manifest, which never counts as a pass' } : {}),
    }),
  );
}

/**
 * The paths validation checks: the ones given (no configuration file needed, DESIGN.md §1), else
 * the environment's manifests; with neither paths nor a configuration file, a one-line error
 * rather than a guess.
 */
export function validatePaths(options: ValidateOptions, ctx: Pick<AppContext, 'cwd'>): string[] {
  if (options.paths !== undefined && options.paths.length > 0) return [...options.paths];
  requireConfig(options, ctx);
  const { config, env } = openEnvironment(options, ctx);
  return manifestPathsOf([], config, env, ctx);
}

/** Without paths, the configuration names the manifests: without one, a one-line error rather than a guess. */
function requireConfig(options: ValidateOptions, ctx: Pick<AppContext, 'cwd'>): void {
  if (options.configFile === undefined && !existsSync(resolve(ctx.cwd, DEFAULT_CONFIG_FILE))) {
    throw new ConfigError(`no manifest paths given and no ${DEFAULT_CONFIG_FILE} here: run mftops validate PATH… or pass --config FILE`);
  }
}
