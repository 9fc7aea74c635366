import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { DEFAULT_CONFIG_FILE } from '../config/load-config.js';
import { ConfigError } from '../errors.js';
import type { Diagnostic } from '../manifest/diagnostics.js';
import type { Manifest, PolicyManifest } from '../manifest/types.js';
import type { DiagnosticsReport } from '../render/diagnostics.js';
import type { AppContext, EnvironmentChoice } from './context.js';
import { countValidDocuments, loadEnvironmentManifests, manifestPathsOf, openEnvironment } from './environment.js';

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
 */
export async function validateManifests(options: ValidateOptions, ctx: AppContext): Promise<DiagnosticsReport> {
  const loaded = await loadEnvironmentManifests(validatePaths(options, ctx), ctx);
  const { manifests, policies, diagnostics } = loaded.manifests;
  const violations = policies.length > 0 ? await policyDiagnostics(manifests, policies) : [];
  const { sortDiagnostics } = await import('../manifest/diagnostics.js');
  return { diagnostics: violations.length > 0 ? sortDiagnostics([...diagnostics, ...violations]) : diagnostics, manifestCount: countValidDocuments(loaded.manifests) };
}

/**
 * The policies that read only `object`, on every valid manifest they match (no server): MF312 at
 * the manifest (an error for `deny`, a warning for `warn`), the expression as the related place.
 * Plan evaluates every policy again on its changes.
 */
async function policyDiagnostics(manifests: readonly Manifest[], policies: readonly PolicyManifest[]): Promise<Diagnostic[]> {
  const { evaluateObjectPolicies, objectOf } = await import('../policy/evaluate.js');
  const { createDiagnostic } = await import('../manifest/diagnostics.js');
  const { formatAddress } = await import('../plan/model.js');
  const subjects = manifests.map((m) => ({ address: formatAddress(m.kind, m.name), kind: m.kind, name: m.name, object: objectOf(m), source: m.source }));
  return evaluateObjectPolicies(subjects, policies, undefined).violations.map((v) =>
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
  if (options.configFile === undefined && !existsSync(resolve(ctx.cwd, DEFAULT_CONFIG_FILE))) {
    throw new ConfigError(`no manifest paths given and no ${DEFAULT_CONFIG_FILE} here: run mftops validate PATH… or pass --config FILE`);
  }
  const { config, env } = openEnvironment(options, ctx);
  return manifestPathsOf([], config, env, ctx);
}
