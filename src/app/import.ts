import { existsSync, statSync } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import type { EnvironmentSettings, MftopsConfig, Scope, ServiceName } from '../config/model.js';
import { resolveEnvironmentServices } from '../config/load-config.js';
import { ConfigError } from '../errors.js';
import type { ImportKind, ImportSelection, ImportSource, SecretPlaceholder } from '../import/model.js';
import { isPathNamed } from '../kinds/address.js';
import type { KindDefinition, ResourceKind } from '../kinds/kind.js';
import { EVERY_KIND, KINDS } from '../kinds/registry.js';
import { openReadonlyClients, progressEvents } from './clients.js';
import type { AppContext, EnvironmentChoice } from './context.js';
import { DEFAULTS } from './defaults.js';
import { openEnvironment } from './environment.js';
import { checkSelection, findUnmatchedScope, importObjects } from '../import/select.js';
import { existingFiles, planImportPaths } from '../import/write-files.js';
import { openImportStage } from '../import/stage-files.js';
import type { ImportStage } from '../import/stage-files.js';
import { createDraftAsRead } from '../import/draft-as-read.js';
import type { DraftedImport } from '../import/draft-as-read.js';
import { withDefined } from '../with-defined.js';
import { readImportSource } from '../import/read-live-source.js';

export interface ImportOptions extends EnvironmentChoice {
  /**
   * The kinds to import. Absent: every kind (narrowed by `name`), less those the environment has
   * no service or scope for (a note says which).
   */
  readonly kinds?: readonly ImportKind[];
  /** Tasks and ACLs: a name mask; folders: a path or glob starting with `/`. Given, it replaces the scope. */
  readonly name?: string;
  /**
   * The folder the files go to (relative to `cwd`). Default: the environment's first manifests
   * folder, so that the next plan reads them; one outside every manifests folder is warned about.
   */
  readonly out?: string;
  /** Every object the accounts see, not only the environment's scope. */
  readonly all?: boolean;
  /** Overwrite files that exist; without it nothing is written when any does. */
  readonly force?: boolean;
  /** Read this saved snapshot (id, prefix, `latest`) instead of the servers: no request is sent. */
  readonly fromSnapshot?: string;
  /** Per-object reads in flight per server. */
  readonly parallelism?: number;
}

/** One manifest file an import wrote. */
export interface ImportedFile {
  /** Absolute. */
  readonly path: string;
  /** Relative to the output folder, `/`-separated: `tasks/payroll-to-bank.yaml`. */
  readonly relPath: string;
  /** `Kind/name`, as plans show it. */
  readonly address: string;
  /** What the manifest could not say (unknown step kinds, fields a manifest has no place for). */
  readonly notes: readonly string[];
}

/**
 * - `nothing`: no object matched; `reason` says what was looked for where. Nothing was written.
 * - `exists`: these files (absolute paths) are already there and `force` was not given; nothing
 *   was written.
 * - `imported`: the files written, from `origin` (server URLs or `snapshot ENV/ID`) into `outDir`,
 *   and the `${env:}` placeholders written where the servers keep secrets: the variables to set
 *   before plan or apply can send them.
 * - `interrupted`: Ctrl-C (exit 130) or SIGTERM (143) after the reads: nothing was written.
 */
export type ImportEnvironmentResult =
  | { readonly status: 'nothing'; readonly reason: string }
  | { readonly status: 'exists'; readonly files: readonly string[] }
  | {
      readonly status: 'imported';
      readonly origin: string;
      readonly outDir: string;
      readonly files: readonly ImportedFile[];
      readonly secrets: readonly SecretPlaceholder[];
    }
  | { readonly status: 'interrupted'; readonly exitCode: 130 | 143 };

/**
 * Minimal manifests from live objects (read-only clients) or from a saved snapshot (no server at
 * all), one file per object under `out`. Every refusal (a selection that names nothing, a kind
 * whose service is missing, files in the way) comes before the first write.
 */
export async function importEnvironment(options: ImportOptions, ctx: AppContext): Promise<ImportEnvironmentResult> {
  const { config, env } = openEnvironment(options, ctx);
  const name = options.name?.trim();
  if (name === '') throw new ConfigError('--name must not be empty');
  const all = options.all ?? false;
  const kinds = options.kinds !== undefined ? [...options.kinds] : defaultKinds(env, name, all, ctx);
  const pathNamed = kinds.filter(isPathNamed);
  if (name !== undefined && pathNamed.length > 0 && kinds.length > 1) {
    const masked = kinds.filter((kind) => !isPathNamed(kind));
    throw new ConfigError(
      `--name means a name mask for ${pluralsOf(masked)} but a path for ${pluralsOf(pathNamed)}: import ${pathNamed.join(' and ')} on its own with --name`,
    );
  }
  for (const kind of pathNamed)
    if (name !== undefined && !name.startsWith('/')) throw new ConfigError(`--name for ${kind} is a folder path starting with /, not "${name}"`);
  const selection: ImportSelection = { kinds, ...(name !== undefined ? { name } : {}), all, scope: env.scope };
  checkSelection(selection, env.name);
  // Before any request: a folder to write into, or why there is none.
  const outDir = options.out !== undefined ? resolve(ctx.cwd, options.out) : firstManifestsFolder(config, env);

  const force = options.force ?? false;
  // Ctrl-C and SIGTERM: no new write starts and what was staged is removed. While the clients are
  // open, their shutdown path revokes the tokens first, then this removes the staged files and
  // exits; after, the import returns `interrupted` with the exit code.
  const stop = new AbortController();
  let exitCode: 130 | 143 | undefined;
  const onInt = (): void => {
    exitCode ??= 130;
    stop.abort();
  };
  const onTerm = (): void => {
    exitCode ??= 143;
    stop.abort();
  };
  process.once('SIGINT', onInt);
  process.once('SIGTERM', onTerm);
  let stage = openImportStage(outDir, { force, signal: stop.signal });
  try {
    const read =
      options.fromSnapshot !== undefined
        ? { source: await readSnapshot(config.snapshots.dir, options.fromSnapshot, env.name, kinds, ctx), drafted: undefined }
        : await readServers(config, env, selection, options.parallelism ?? DEFAULTS.readParallelism, ctx, outDir, stage);
    if (read.drafted === undefined && options.fromSnapshot === undefined) {
      // Drafted while reading on a premise that did not hold (see createDraftAsRead): again, from the whole source.
      await stage.discard();
      stage = openImportStage(outDir, { force, signal: stop.signal });
    }
    const choices = { config, env, kinds, selection, outDir, force, fromSnapshot: options.fromSnapshot !== undefined, outGiven: options.out !== undefined };
    const result = await finishImport(read.source, read.drafted, stage, choices, ctx);
    if (result === 'interrupted') return { status: 'interrupted', exitCode: exitCode ?? 130 };
    return result;
  } finally {
    await stage.discard();
    process.off('SIGINT', onInt);
    process.off('SIGTERM', onTerm);
  }
}

/** What `finishImport` needs of the import's choices. */
interface ImportChoices {
  readonly config: MftopsConfig;
  readonly env: EnvironmentSettings;
  readonly kinds: readonly ImportKind[];
  readonly selection: ImportSelection;
  readonly outDir: string;
  readonly force: boolean;
  readonly fromSnapshot: boolean;
  readonly outGiven: boolean;
}

/**
 * The warnings, then the files: drafted while reading (`drafted`, already handed to `stage`), or
 * here from the whole source. Nothing is in place before `stage.finish`, so a selection that
 * matched nothing, or files in the way, leave nothing behind (the caller discards the stage).
 */
async function finishImport(
  source: ImportSource,
  drafted: DraftedImport | undefined,
  stage: ImportStage,
  c: ImportChoices,
  ctx: AppContext,
): Promise<Exclude<ImportEnvironmentResult, { status: 'interrupted' }> | 'interrupted'> {
  const { config, env, kinds, selection, outDir } = c;
  // A snapshot that saved none of a kind at all: one line says it for every scope entry of the kind.
  const noneSaved = new Set<string>();
  for (const kind of c.fromSnapshot ? kinds : []) {
    const { inSnapshot } = KINDS[kind].importer;
    const message = inSnapshot.where === 'saved' ? inSnapshot.noneSaved(source) : undefined;
    if (message === undefined) continue;
    ctx.emit({ kind: 'warning', message });
    noneSaved.add(KINDS[kind].scopeKey);
  }
  for (const u of findUnmatchedScope(source, selection).filter((x) => !noneSaved.has(x.key))) {
    const at = config.sourceMap.locate(['environments', env.name, 'scope', u.key, u.index]);
    ctx.emit({ kind: 'warning', message: `${shownPath(config.file, ctx.cwd)}:${at.line}:${at.col}: scope.${u.key} ${JSON.stringify(u.entry)} ${u.why}` });
  }
  const result = drafted?.result ?? importObjects(source, selection);
  for (const message of result.skipped) ctx.emit({ kind: 'warning', message });
  if (result.manifests.length === 0) return { status: 'nothing', reason: `no ${kinds.join(', ')} in ${source.origin} matches ${describeSelection(selection)}` };

  if (c.outGiven && !env.manifests.some((m) => isSameOrInside(outDir, m))) {
    ctx.emit({
      kind: 'warning',
      message: `--out ${shownPath(outDir, ctx.cwd)} is outside the manifests of environment "${env.name}" (${env.manifests.map((m) => shownPath(m, ctx.cwd)).join(', ') || 'none'}): the next plan will not read these files`,
    });
  }
  const files = drafted?.paths ?? planImportPaths(result.manifests, outDir);
  const existing = existingFiles(files);
  if (existing.length > 0 && !c.force) return { status: 'exists', files: existing.map((f) => f.path) };
  if (drafted === undefined) stage.add(files);
  if ((await stage.finish()) === 'interrupted') return 'interrupted';
  return {
    status: 'imported',
    origin: source.origin,
    outDir,
    files: files.map((f, i) => ({ path: f.path, relPath: f.relPath, address: f.address, notes: result.manifests[i]!.notes })),
    secrets: result.secrets,
  };
}

/**
 * Where an import writes by default: the first of the environment's manifests that is a folder
 * (or not there yet: it is created), so that plan reads what import wrote. A manifest file is
 * skipped; an environment with no folder among its manifests needs `--out`.
 */
export function firstManifestsFolder(config: MftopsConfig, env: EnvironmentSettings): string {
  const folder = env.manifests.find((m) => !existsSync(m) || statSync(m).isDirectory());
  if (folder !== undefined) return folder;
  const what = env.manifests.length === 0 ? 'lists no manifests' : 'lists only manifest files';
  throw new ConfigError(`environment "${env.name}" ${what} in ${config.file}: pass --out DIR, or add a folder to its manifests: [...]`);
}

function isSameOrInside(path: string, folder: string): boolean {
  const rel = relative(folder, path);
  return rel === '' || !(rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel));
}

/** A path as messages show it: relative to the working folder when it is inside it. */
function shownPath(path: string, cwd: string): string {
  const rel = relative(cwd, path);
  return rel === '' ? '.' : rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel) ? path : rel;
}

/**
 * The kinds an import without `kinds` takes: a `name` starting with `/` is a folder path, any
 * other a task or ACL mask, no `name` all three. A kind whose service the environment lacks, or
 * (without `name` or `all`) whose part of the scope is empty, is left out with a note, unless that
 * would leave nothing: then the explicit kind's error says why.
 */
function defaultKinds(env: EnvironmentSettings, name: string | undefined, all: boolean, ctx: Pick<AppContext, 'emit'>): ImportKind[] {
  // A kind whose part of `scope` the environment does not set at all (`scope.users`) is imported only when --kind names it.
  const named = name === undefined ? EVERY_KIND : EVERY_KIND.filter((kind) => isPathNamed(kind) === name.startsWith('/'));
  const wanted: readonly ImportKind[] = named.filter((kind) => !KINDS[kind].importer.askedForOnly && env.scope[KINDS[kind].scopeKey] !== undefined);
  const notes: string[] = [];
  let kinds = [...wanted];
  for (const { service, served, scopeKey } of SERVED_KINDS) {
    const skipped = kinds.filter((k) => served.includes(k));
    if (skipped.length === 0) continue;
    const why =
      env[service] === undefined
        ? `no ${service} service`
        : name === undefined && !all && (env.scope[scopeKey] ?? []).length === 0
          ? `no scope.${scopeKey}`
          : undefined;
    if (why === undefined) continue;
    kinds = kinds.filter((k) => !skipped.includes(k));
    notes.push(`environment "${env.name}" has ${why}: ${skipped.join(' and ')} not imported`);
  }
  if (kinds.length === 0) return [...wanted];
  for (const message of notes) ctx.emit({ kind: 'note', message });
  return kinds;
}

/** Which service holds each kind, and the part of `scope` that selects it. */
const SERVED_KINDS: readonly { readonly service: ServiceName; readonly served: readonly ImportKind[]; readonly scopeKey: keyof Scope }[] = (
  ['automation', 'transfer'] as const
).flatMap((service) => {
  const served = EVERY_KIND.filter((kind) => KINDS[kind].service === service);
  const keys = [...new Set(served.map((kind) => KINDS[kind].scopeKey))];
  return keys.map((scopeKey) => ({ service, served: served.filter((kind) => KINDS[kind].scopeKey === scopeKey), scopeKey }));
});

async function readSnapshot(dir: string, id: string, env: string, kinds: readonly ImportKind[], ctx: Pick<AppContext, 'env'>): Promise<ImportSource> {
  // Lazy (measured): the snapshot store and its XML parser load for --from-snapshot only; an
  // import from the live servers loads 66 files fewer (fast-xml-parser among them).
  const { loadSnapshot, parseConfigXml, resolveSnapshotId } = await import('../snapshot/index.js');
  const { decodeConfigExport, decodeSavedFolders } = await import('../import/from-snapshot.js');
  const ref = resolveSnapshotId(dir, id, env);
  const loaded = loadSnapshot(dir, ref, ctx.env);
  const origin = `snapshot ${ref.env}/${ref.id}`;
  if (loaded.automationXml === undefined) {
    const exported = kinds.filter((k) => KINDS[k].importer.inSnapshot.where === 'export');
    if (exported.length > 0) {
      const saved = EVERY_KIND.filter((k) => KINDS[k].importer.inSnapshot.where === 'saved');
      throw new ConfigError(
        `${origin} holds no automation export (it was taken without the automation service), so it has no ${exported.join(' or ')} to import: import ${saved.join(' or ')} from it, or use a snapshot with the export`,
      );
    }
    return decodeSavedFolders(origin, loaded.folders);
  }
  return decodeConfigExport(parseConfigXml(loaded.automationXml.toString('utf8')), origin, loaded.folders);
}

/**
 * The objects of the selected kinds, through read-only clients of only the services that hold
 * them, each kind drafted and its files handed to `stage` as soon as it is read (`drafted`:
 * undefined when that could not be done exactly, see `createDraftAsRead`).
 */
async function readServers(
  config: MftopsConfig,
  env: EnvironmentSettings,
  selection: ImportSelection,
  parallelism: number,
  ctx: AppContext,
  outDir: string,
  stage: ImportStage,
): Promise<{ readonly source: ImportSource; readonly drafted: DraftedImport | undefined }> {
  const needAutomation = selection.kinds.some((k) => KINDS[k].service === 'automation');
  const needTransfer = selection.kinds.some((k) => KINDS[k].service === 'transfer');
  const needed = (['automation', 'transfer'] as const).filter((which) => (which === 'automation' ? needAutomation : needTransfer));
  for (const which of needed) {
    if (env[which] === undefined)
      throw new ConfigError(
        `environment "${env.name}" has no ${which} service in ${config.file}, and ${pluralsOf(EVERY_KIND.filter((k) => KINDS[k].service === which))} live there`,
      );
  }
  // Both services' credentials at once: every missing variable is named.
  const services = resolveEnvironmentServices(config, env, needed, ctx.env);
  const origin = services.map((s) => s.url).join(' and ');
  const drafter = createDraftAsRead(selection, origin, outDir, (files) => stage.add(files));
  // Ctrl-C while reading: the tokens are revoked first (the clients' shutdown path), then the staged files removed.
  const shutdownExit = (code: number): void => void stage.discard().finally(() => process.exit(code));
  const clients = await openReadonlyClients(services, ctx, { parallelism, shutdownExit });
  try {
    const source = await readImportSource({
      ...withDefined({ automation: clients.readers.automation, transfer: clients.readers.transfer }),
      selection,
      origin,
      parallelism,
      progress: progressEvents(ctx),
      onPart: (kind, part) => drafter.arrive(kind, part),
    });
    return { source, drafted: drafter.result() };
  } finally {
    await clients.close();
  }
}

/** The parts of `scope` an import names in words: the task groups and folders always, any other only when a selected kind reads it. */
const SCOPE_WORDS: Readonly<Record<KindDefinition<ResourceKind>['scopeKey'], string>> = { taskGroups: 'task groups', folders: 'folders', users: 'users' };

function describeSelection(s: ImportSelection): string {
  if (s.name !== undefined) return `--name ${JSON.stringify(s.name)}`;
  if (s.all) return '--all';
  const keys = new Set<KindDefinition<ResourceKind>['scopeKey']>(['taskGroups', 'folders', ...s.kinds.map((kind) => KINDS[kind].scopeKey)]);
  return `the scope (${[...keys].map((key) => `${SCOPE_WORDS[key]}: ${(s.scope[key] ?? []).join(', ') || 'none'}`).join('; ')})`;
}

/** The kinds' objects in words: `tasks and ACLs`, `folders, users and groups`. */
function pluralsOf(kinds: readonly ImportKind[]): string {
  const words = kinds.map((kind) => KINDS[kind].importer.plural);
  return words.length <= 1 ? words.join('') : `${words.slice(0, -1).join(', ')} and ${words.at(-1)!}`;
}
