import { resolve } from 'node:path';
import { DEFAULT_CONFIG_FILE, loadConfig, resolveService, selectEnvironment } from '../../config/load-config.js';
import type { EnvironmentSettings, MftopsConfig, ResolvedService } from '../../config/model.js';
import { ConfigError } from '../../errors.js';
import { createLogger, type Logger } from '../../log.js';
import { hasErrors } from '../../manifest/diagnostics.js';
import { loadManifests } from '../../manifest/load.js';
import type { ManifestSet } from '../../manifest/validate.js';
import { renderDiagnostics, type RenderableDiagnostic } from '../../render/diagnostics.js';
import type { CommandIo } from '../io.js';
import type { GlobalOptions } from '../main.js';

/** The parts of a command that come before the first request: shared by plan, drift, apply and status. */

/** `--parallelism`, `--max-deletes` and the like: a whole number in a range, or a one-line error. */
export function wholeNumberOption(option: string, text: string, min: number, max: number): number {
  const n = Number(text);
  if (!/^\d+$/.test(text.trim()) || !Number.isInteger(n) || n < min || n > max) {
    throw new ConfigError(`${option} must be a whole number from ${min} to ${max}, not "${text}"`);
  }
  return n;
}

/** Colour only on a terminal, never with --no-color or a non-empty NO_COLOR (no-color.org). */
export function useColor(g: Pick<GlobalOptions, 'color'>, io: CommandIo): boolean {
  return g.color !== false && io.isTty && (io.env['NO_COLOR'] ?? '') === '';
}

/** The configuration and the environment the command works on. */
export function openEnvironment(g: GlobalOptions, io: CommandIo): { config: MftopsConfig; env: EnvironmentSettings } {
  const config = loadConfig(g.config ?? DEFAULT_CONFIG_FILE, io.cwd);
  return { config, env: selectEnvironment(config, g.env) };
}

/** Credentials of every configured service, resolved now: a missing variable stops the command before any request. */
export function resolveServices(config: MftopsConfig, env: EnvironmentSettings, io: CommandIo): ResolvedService[] {
  return (['automation', 'transfer'] as const)
    .map((name) => resolveService(config, env, name, io.env))
    .filter((s): s is ResolvedService => s !== undefined);
}

/** Where each configured server is and who signs in, for the plan's server identities (no credentials). */
export function serverIdentities(services: readonly ResolvedService[]): Partial<Record<ResolvedService['name'], { url: string; username: string }>> {
  return Object.fromEntries(services.map((s) => [s.name, { url: s.url, username: s.username }]));
}

/** The manifest paths given on the command line, else the environment's. */
export function manifestPathsOf(paths: readonly string[], config: MftopsConfig, env: EnvironmentSettings, io: CommandIo): string[] {
  const chosen = paths.length > 0 ? paths.map((p) => resolve(io.cwd, p)) : [...env.manifests];
  if (chosen.length === 0) throw new ConfigError(`environment "${env.name}" lists no manifests in ${config.file}; pass paths or add manifests: [...]`);
  return chosen;
}

/** Load manifests; on any error show the diagnostics and return undefined (the command exits 1, no request sent). */
export async function loadManifestsOrReport(paths: readonly string[], g: GlobalOptions, io: CommandIo): Promise<ManifestSet | undefined> {
  const manifests = await loadManifests(paths, { cwd: io.cwd });
  if (!hasErrors(manifests.diagnostics)) return manifests;
  writeDiagnostics(g, io, manifests.diagnostics, manifests.manifests.length);
  return undefined;
}

/** Problems go to stderr; as GitHub annotations (--format github) to stdout, where the runner reads them. */
export function writeDiagnostics(g: GlobalOptions, io: CommandIo, diagnostics: readonly RenderableDiagnostic[], manifestCount: number): void {
  const report = { diagnostics, manifestCount };
  switch (g.format) {
    case 'github':
      io.stdout(renderDiagnostics('github', report, { cwd: io.cwd }));
      return;
    case 'json':
      io.stderr(renderDiagnostics('json', report, { cwd: io.cwd }));
      return;
    case 'text':
    case 'markdown':
      io.stderr(renderDiagnostics('text', report, { cwd: io.cwd, color: useColor(g, io) }));
      return;
  }
}

/** Log lines on stderr at the verbosity of -q / -v. */
export function loggerFor(g: Pick<GlobalOptions, 'quiet' | 'verbose'>, io: CommandIo): Logger {
  return createLogger(g.quiet ? 'quiet' : g.verbose ? 'verbose' : 'normal', io.stderr);
}
