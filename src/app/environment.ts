import { statSync } from 'node:fs';
import { dirname, resolve, sep } from 'node:path';
import { DEFAULT_CONFIG_FILE, loadConfig, resolveEnvironmentServices, selectEnvironment } from '../config/load-config.js';
import type { EnvironmentSettings, MftopsConfig, PrunableKind, ResolvedService, ServiceName } from '../config/model.js';
import { ConfigError } from '../errors.js';
import { createDiagnostic, hasErrors, sortDiagnostics, type Diagnostic } from '../manifest/diagnostics.js';
import { checkConfinedRef, describeSecretFailure, type SecretConfinement } from '../secret.js';
import type { ManifestSet } from '../manifest/validate.js';
import type { ManifestEnvironment } from '../manifest/variables.js';
import type { PruneOff } from '../plan/model.js';
import type { DiagnosticsReport } from '../render/diagnostics.js';
import type { AppContext, EnvironmentChoice } from './context.js';
import { DEFAULTS } from './defaults.js';
import { listSecretReferences } from '../manifest/secret-references.js';
import type { ParsedFile } from '../manifest/parse.js';
import { withDefined } from '../with-defined.js';

/** The parts of a use case that come before the first request, shared by all of them. */

/** The configuration and the environment a use case works on. */
export function openEnvironment(choice: EnvironmentChoice, ctx: Pick<AppContext, 'cwd'>): { config: MftopsConfig; env: EnvironmentSettings } {
  const config = loadConfig(choice.configFile ?? DEFAULT_CONFIG_FILE, ctx.cwd, choice.configFileFrom);
  return { config, env: selectEnvironment(config, choice.environment, choice.environmentFrom) };
}

/** Credentials of every configured service, resolved now: missing variables (all of them named) stop the use case before any request. */
export function resolveServices(config: MftopsConfig, env: EnvironmentSettings, ctx: Pick<AppContext, 'env'>): ResolvedService[] {
  return resolveEnvironmentServices(config, env, ['automation', 'transfer'], ctx.env);
}

/** Where each configured server is and who signs in, for a plan's server identities (no credentials). */
export function serverIdentities(services: readonly ResolvedService[]): Partial<Record<ServiceName, { url: string; username: string }>> {
  return Object.fromEntries(services.map((s) => [s.name, { url: s.url, username: s.username }]));
}

/** The manifest paths given (relative to `cwd`), else the environment's. */
export function manifestPathsOf(paths: readonly string[] | undefined, config: MftopsConfig, env: EnvironmentSettings, ctx: Pick<AppContext, 'cwd'>): string[] {
  const chosen = paths !== undefined && paths.length > 0 ? paths.map((p) => resolve(ctx.cwd, p)) : [...env.manifests];
  if (chosen.length === 0) throw new ConfigError(`environment "${env.name}" lists no manifests in ${config.file}; pass paths or add manifests: [...]`);
  return chosen;
}

/** What the manifests of an environment are read with: its name and variables, and the configuration's environment names. */
export function manifestEnvironmentOf(config: MftopsConfig, env: EnvironmentSettings): ManifestEnvironment {
  return {
    name: env.name,
    vars: env.vars ?? {},
    known: [...config.environments.keys()],
    ...(config.maxManifestBytes !== undefined ? { maxManifestBytes: config.maxManifestBytes } : {}),
  };
}

/**
 * The manifests, loaded and checked for an environment (`manifestEnvironmentOf`: documents for
 * it, variables substituted) and, given `confinement`, their secret references checked against it
 * (MF325, MF326); `ok` false when any has an error (no request may follow).
 */
export async function loadEnvironmentManifests(
  paths: readonly string[],
  ctx: Pick<AppContext, 'cwd'>,
  environment?: ManifestEnvironment,
  confinement?: SecretConfinement,
  onFile?: (file: ParsedFile) => void,
): Promise<{ ok: boolean; manifests: ManifestSet }> {
  // Lazy (measured): the manifest loader (YAML, the schemas, cel-js for policies) loads only when
  // manifests are read; the commands that never read them (snapshot list, verify, diff) do not load it.
  const { loadManifests } = await import('../manifest/load.js');
  const loaded = await loadManifests(paths, { cwd: ctx.cwd, ...withDefined({ environment, onFile }) });
  const refused = confinement !== undefined ? await confineSecretReferences(loaded, confinement, ctx) : [];
  const manifests = refused.length > 0 ? { ...loaded, diagnostics: sortDiagnostics([...loaded.diagnostics, ...refused]) } : loaded;
  return { ok: !hasErrors(manifests.diagnostics), manifests };
}

/**
 * Where the manifests' secret references may point (`SecretConfinement`): files in the folder of
 * mftops.yaml and its `secrets.fileRoots`; no variable any environment's service signs in with.
 */
export function secretConfinementOf(config: MftopsConfig): SecretConfinement {
  const variables = new Set<string>();
  for (const env of config.environments.values()) {
    for (const service of [env.automation, env.transfer]) {
      if (service === undefined) continue;
      for (const ref of [service.username, service.password]) if (typeof ref !== 'string' && ref.kind === 'env') variables.add(ref.name);
    }
  }
  return { fileRoots: [dirname(config.file), ...config.secrets.fileRoots], credentialVariables: [...variables].sort() };
}

/**
 * Without mftops.yaml (`validate PATH…`): files in the manifests' root, the deepest folder that
 * holds every path given (a file's folder, a folder itself); no credential is known.
 */
export function manifestRootConfinement(paths: readonly string[], ctx: Pick<AppContext, 'cwd'>): SecretConfinement {
  const folders = paths.map((p) => {
    const full = resolve(ctx.cwd, p);
    try {
      return statSync(full).isDirectory() ? full : dirname(full);
    } catch {
      return dirname(full);
    }
  });
  let root = folders[0] ?? resolve(ctx.cwd);
  for (const f of folders) while (f !== root && !f.startsWith(root.endsWith(sep) ? root : `${root}${sep}`)) root = dirname(root);
  return { fileRoots: [root], credentialVariables: [] };
}

/** MF325/MF326 at each reference of the manifests that points where `confinement` does not allow. */
async function confineSecretReferences(set: ManifestSet, confinement: SecretConfinement, ctx: Pick<AppContext, 'cwd'>): Promise<Diagnostic[]> {
  const out: Diagnostic[] = [];
  for (const { manifest, path, ref } of listSecretReferences(set.manifests)) {
    const failure = checkConfinedRef(ref, dirname(resolve(ctx.cwd, manifest.source.file)), confinement);
    if (failure === undefined) continue;
    const at = manifest.sourceMap.locate(path);
    if (failure.kind === 'env') {
      out.push(
        createDiagnostic(
          'error',
          'MF326',
          at,
          `\${env:${ref.kind === 'env' ? ref.name : ''}} is a service credential of mftops.yaml: a manifest may not send it to a server`,
          {
            hint: 'give the object its own variable, even when its value is the same',
          },
        ),
      );
    } else {
      const hint =
        failure.why === 'outside'
          ? 'keep the file in the repository (out of git), or add its folder to secrets.fileRoots in mftops.yaml'
          : failure.why === 'system'
            ? 'put the value in a regular file in the repository (out of git) or in a folder of secrets.fileRoots'
            : 'point at a regular file';
      out.push(createDiagnostic('error', 'MF325', at, describeSecretFailure(failure), { hint }));
    }
  }
  return out;
}

/** A whole-number option (`--parallelism`, an Action input) in a range, or a one-line error naming it. */
export function wholeNumberOption(option: string, text: string, min: number, max: number): number {
  const n = Number(text);
  if (!/^\d+$/.test(text.trim()) || !Number.isInteger(n) || n < min || n > max) {
    throw new ConfigError(`${option} must be a whole number from ${min} to ${max}, not "${text}"`);
  }
  return n;
}

/**
 * What one run prunes. The environment's `prune` kinds, unless only part of the manifests was
 * given: paths that are not the environment's own `manifests` (compared as a set), without
 * `prune: true` (`--prune`). Then objects none of them names may be managed by the others, and a
 * prune would delete them, so nothing is pruned and the plan says why. `prune: false`
 * (`--no-prune`) prunes nothing either.
 */
export interface PruneChoice {
  /** The kinds this run prunes. */
  readonly kinds: readonly PrunableKind[];
  /**
   * Only part of the manifests was given and `prune` is not true, whatever the environment
   * prunes: drift lists no unmanaged object then, for the same reason.
   */
  readonly partial: boolean;
  /** Why the environment's `prune` is off for this run, when it configures one. */
  readonly off?: PruneOff;
}

export function choosePrune(
  env: EnvironmentSettings,
  paths: readonly string[] | undefined,
  prune: boolean | undefined,
  ctx: Pick<AppContext, 'cwd' | 'emit'>,
): PruneChoice {
  const own = new Set(env.manifests.map((p) => resolve(p)));
  const given = new Set((paths ?? []).map((p) => resolve(ctx.cwd, p)));
  const partial = prune !== true && given.size > 0 && !(given.size === own.size && [...given].every((p) => own.has(p)));
  if (env.prune.length === 0) {
    if (prune === true) ctx.emit({ kind: 'warning', message: `--prune has no effect: environment "${env.name}" prunes nothing (it has no prune: list)` });
    return { kinds: [], partial };
  }
  if (prune === false) return { kinds: [], partial, off: { reason: 'disabled', kinds: env.prune } };
  if (partial) return { kinds: [], partial, off: { reason: 'partial-manifests', kinds: env.prune } };
  return { kinds: env.prune, partial };
}

/**
 * What a reading use case (plan, drift) has before its first request: the environment, its
 * manifests loaded without errors, the services' credentials, the parallelism; or the manifests'
 * diagnostics, and no request is sent.
 */
export type ReadPrelude =
  | { readonly status: 'invalid'; readonly diagnostics: DiagnosticsReport }
  | {
      readonly status: 'ready';
      readonly config: MftopsConfig;
      /** The environment, its `prune` the kinds this run prunes (`prune.kinds`). */
      readonly env: EnvironmentSettings;
      readonly prune: PruneChoice;
      readonly manifests: ManifestSet;
      readonly services: readonly ResolvedService[];
      readonly parallelism: number;
    };

/**
 * `readAhead` (plan, drift): given the services once the configuration is read, it may start the
 * reads before the manifests load (`startReadPrefetch`) and return what each parsed file is
 * shown to. Not called when the credentials cannot be resolved: that error keeps its place, after
 * the manifests'.
 */
export async function prepareRead(
  options: EnvironmentChoice & { readonly paths?: readonly string[]; readonly parallelism?: number; readonly prune?: boolean },
  ctx: Pick<AppContext, 'cwd' | 'env' | 'emit'>,
  readAhead?: (services: readonly ResolvedService[], env: EnvironmentSettings, parallelism: number) => Promise<(file: ParsedFile) => void>,
): Promise<ReadPrelude> {
  const { config, env } = openEnvironment(options, ctx);
  const paths = manifestPathsOf(options.paths, config, env, ctx);
  let onFile: ((file: ParsedFile) => void) | undefined;
  if (readAhead !== undefined) {
    let services: ResolvedService[] | undefined;
    try {
      services = resolveServices(config, env, ctx);
    } catch {
      services = undefined;
    }
    if (services !== undefined) onFile = await readAhead(services, env, options.parallelism ?? DEFAULTS.readParallelism);
  }
  const loaded = await loadEnvironmentManifests(paths, ctx, manifestEnvironmentOf(config, env), secretConfinementOf(config), onFile);
  if (!loaded.ok)
    return { status: 'invalid', diagnostics: { diagnostics: loaded.manifests.diagnostics, manifestCount: countValidDocuments(loaded.manifests) } };
  const prune = choosePrune(env, options.paths, options.prune, ctx);
  return {
    status: 'ready',
    config,
    env: { ...env, prune: prune.kinds },
    prune,
    manifests: loaded.manifests,
    services: resolveServices(config, env, ctx),
    parallelism: options.parallelism ?? DEFAULTS.readParallelism,
  };
}

/** Documents that loaded, policies included: the "N manifests valid" of validate and plan. */
export function countValidDocuments(set: Pick<ManifestSet, 'manifests' | 'policies'>): number {
  return set.manifests.length + set.policies.length;
}
