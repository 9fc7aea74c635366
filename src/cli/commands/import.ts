import { relative, resolve, sep } from 'node:path';
import { resolveService } from '../../config/load-config.js';
import type { EnvironmentSettings, ResolvedService, Scope, ServiceName } from '../../config/model.js';
import { ConfigError } from '../../errors.js';
import type { ImportKind, ImportResult, ImportSelection, ImportSource, PlannedFile } from '../../import/model.js';
import type { CommandIo } from '../io.js';
import type { GlobalOptions } from '../main.js';
import { createProgress } from '../progress.js';
import { openReadonlyClients } from './clients.js';
import { openEnvironment, wholeNumberOption } from './common.js';

export interface ImportCommandOptions {
  /**
   * `--kind`, repeatable or comma-separated: Task, ResourceGroupAcl, FolderPermissions. Absent:
   * every kind (narrowed by `--name`), less those the environment has no service or scope for.
   */
  readonly kind?: readonly string[];
  readonly name?: string;
  /** Output folder; default the working folder. */
  readonly out?: string;
  readonly all: boolean;
  readonly force: boolean;
  /** Import from this saved snapshot instead of the servers. */
  readonly fromSnapshot?: string;
  readonly parallelism?: string;
}

const KINDS: readonly ImportKind[] = ['Task', 'ResourceGroupAcl', 'FolderPermissions'];

/**
 * `mftops import`: minimal manifests from live objects (read-only clients) or from a saved
 * snapshot (no server at all), one file per object under `--out`. Nothing is written when any
 * target file exists, unless `--force`. The `${env:…}` placeholders written for secrets are listed
 * on stderr at the end. Exit 0 written, 1 error or nothing to import.
 */
export async function runImport(g: GlobalOptions, opts: ImportCommandOptions, io: CommandIo): Promise<number> {
  const explicitKinds = opts.kind !== undefined ? parseKinds(opts.kind) : undefined;
  const { config, env } = openEnvironment(g, io);
  const name = opts.name?.trim();
  if (name === '') throw new ConfigError('--name must not be empty');
  const kinds = explicitKinds ?? defaultKinds(env, name, opts.all, g, io);
  if (name !== undefined && kinds.includes('FolderPermissions') && kinds.length > 1) {
    throw new ConfigError('--name means a name mask for tasks and ACLs but a path for folders: import FolderPermissions on its own with --name');
  }
  if (name !== undefined && kinds.includes('FolderPermissions') && !name.startsWith('/')) throw new ConfigError(`--name for FolderPermissions is a folder path starting with /, not "${name}"`);
  const selection: ImportSelection = { kinds, ...(name !== undefined ? { name } : {}), all: opts.all, scope: env.scope };
  const { checkSelection, importObjects } = await import('../../import/select.js');
  checkSelection(selection, env.name);

  const source = opts.fromSnapshot !== undefined ? await readSnapshot(config.snapshots.dir, opts.fromSnapshot, env.name, kinds, io) : await readServers(config, env, selection, opts, g, io);
  if (opts.fromSnapshot !== undefined && kinds.includes('FolderPermissions') && source.folders.length === 0) {
    io.stderr('mftops: warning: the snapshot holds no folder permissions (a snapshot keeps only the folders an apply touched, or those snapshot save was given or found)\n');
  }
  const result = importObjects(source, selection);
  if (result.manifests.length === 0) {
    io.stderr(`mftops: nothing to import: no ${kinds.join(', ')} in ${source.origin} matches ${describeSelection(selection)}\n`);
    return 1;
  }

  const { existingFiles, planImportFiles, writeImportFiles } = await import('../../import/write-files.js');
  const outDir = resolve(io.cwd, opts.out ?? '.');
  const files = planImportFiles(result.manifests, outDir);
  const existing = existingFiles(files);
  if (existing.length > 0 && !opts.force) {
    io.stderr(`mftops: error: ${existing.length} of the files to write already exist; nothing was written (use --force to overwrite them):\n${existing.map((f) => `  ${shown(f.path, io.cwd)}\n`).join('')}`);
    return 1;
  }
  writeImportFiles(files, { force: opts.force });
  io.stdout(renderResult(g, source.origin, outDir, files, result, io.cwd));
  if (!g.quiet && g.format !== 'json') {
    for (const [i, m] of result.manifests.entries()) for (const note of m.notes) io.stderr(`mftops: note: ${files[i]!.relPath}: ${note}\n`);
  }
  if (result.secrets.length > 0) io.stderr(secretsList(result));
  return 0;
}

/**
 * The kinds an import without `--kind` takes: `--name /…` is a folder path, any other `--name` a
 * task or ACL mask, no `--name` all three. A kind whose service the environment lacks, or (without
 * `--name` or `--all`) whose part of the scope is empty, is left out with a note, unless that
 * would leave nothing: then the explicit kind's error says why.
 */
function defaultKinds(env: EnvironmentSettings, name: string | undefined, all: boolean, g: GlobalOptions, io: CommandIo): ImportKind[] {
  const wanted: readonly ImportKind[] = name === undefined ? KINDS : name.startsWith('/') ? ['FolderPermissions'] : ['Task', 'ResourceGroupAcl'];
  const notes: string[] = [];
  let kinds = [...wanted];
  for (const { service, served, scopeKey } of SERVED_KINDS) {
    const skipped = kinds.filter((k) => served.includes(k));
    if (skipped.length === 0) continue;
    const why = env[service] === undefined ? `no ${service} service` : name === undefined && !all && env.scope[scopeKey].length === 0 ? `no scope.${scopeKey}` : undefined;
    if (why === undefined) continue;
    kinds = kinds.filter((k) => !skipped.includes(k));
    notes.push(`mftops: note: environment "${env.name}" has ${why}: ${skipped.join(' and ')} not imported\n`);
  }
  if (kinds.length === 0) return [...wanted];
  if (!g.quiet) for (const note of notes) io.stderr(note);
  return kinds;
}

/** Which service holds each kind, and the part of `scope` that selects it. */
const SERVED_KINDS: readonly { readonly service: ServiceName; readonly served: readonly ImportKind[]; readonly scopeKey: keyof Scope }[] = [
  { service: 'automation', served: ['Task', 'ResourceGroupAcl'], scopeKey: 'taskGroups' },
  { service: 'transfer', served: ['FolderPermissions'], scopeKey: 'folders' },
];

function parseKinds(raw: readonly string[]): ImportKind[] {
  const names = raw.flatMap((k) => k.split(',')).map((k) => k.trim()).filter((k) => k !== '');
  if (names.length === 0) throw new ConfigError(`--kind takes one or more of ${KINDS.join(', ')}`);
  const out: ImportKind[] = [];
  for (const n of names) {
    const kind = KINDS.find((k) => k.toLowerCase() === n.toLowerCase());
    if (kind === undefined) throw new ConfigError(`--kind ${n} is not a kind mftops imports (one of ${KINDS.join(', ')})`);
    if (!out.includes(kind)) out.push(kind);
  }
  return out;
}

async function readSnapshot(dir: string, id: string, env: string, kinds: readonly ImportKind[], io: CommandIo): Promise<ImportSource> {
  const { loadSnapshot, parseConfigXml, resolveSnapshotId } = await import('../../snapshot/index.js');
  const { decodeConfigExport, decodeSavedFolders } = await import('../../import/from-snapshot.js');
  const ref = resolveSnapshotId(dir, id, env);
  const loaded = loadSnapshot(dir, ref, io.env);
  const origin = `snapshot ${ref.env}/${ref.id}`;
  if (loaded.automationXml === undefined) {
    const automationKinds = kinds.filter((k) => k !== 'FolderPermissions');
    if (automationKinds.length > 0) {
      throw new ConfigError(`${origin} holds no automation export (it was taken without the automation service), so it has no ${automationKinds.join(' or ')} to import: import FolderPermissions from it, or use a snapshot with the export`);
    }
    return decodeSavedFolders(origin, loaded.folders);
  }
  return decodeConfigExport(parseConfigXml(loaded.automationXml.toString('utf8')), origin, loaded.folders);
}

async function readServers(
  config: Parameters<typeof resolveService>[0],
  env: Parameters<typeof resolveService>[1],
  selection: ImportSelection,
  opts: ImportCommandOptions,
  g: GlobalOptions,
  io: CommandIo,
): Promise<ImportSource> {
  const parallelism = wholeNumberOption('--parallelism', opts.parallelism ?? '10', 1, 64);
  const needAutomation = selection.kinds.some((k) => k !== 'FolderPermissions');
  const needTransfer = selection.kinds.includes('FolderPermissions');
  const services: ResolvedService[] = [];
  for (const [which, needed] of [
    ['automation', needAutomation],
    ['transfer', needTransfer],
  ] as const) {
    if (!needed) continue;
    const s = resolveService(config, env, which, io.env);
    if (s === undefined) throw new ConfigError(`environment "${env.name}" has no ${which} service in ${config.file}, and ${which === 'automation' ? 'tasks and ACLs live' : 'folders live'} there`);
    services.push(s);
  }
  const { readImportSource } = await import('../../import/read-live-source.js');
  const progress = createProgress(io, g.quiet);
  const clients = await openReadonlyClients(services, g, io, { parallelism });
  try {
    return await readImportSource({
      ...(clients.readers.automation ? { automation: clients.readers.automation } : {}),
      ...(clients.readers.transfer ? { transfer: clients.readers.transfer } : {}),
      selection,
      origin: services.map((s) => s.url).join(' and '),
      parallelism,
      progress: progress.report,
    });
  } finally {
    progress.finish();
    await clients.close();
  }
}

function describeSelection(s: ImportSelection): string {
  if (s.name !== undefined) return `--name ${JSON.stringify(s.name)}`;
  if (s.all) return '--all';
  return `the scope (task groups: ${s.scope.taskGroups.join(', ') || 'none'}; folders: ${s.scope.folders.join(', ') || 'none'})`;
}

function renderResult(g: GlobalOptions, origin: string, outDir: string, files: readonly PlannedFile[], result: ImportResult, cwd: string): string {
  if (g.format === 'json') {
    const body = {
      origin,
      outDir,
      files: files.map((f, i) => ({ file: f.relPath, address: f.address, notes: result.manifests[i]!.notes })),
      secrets: result.secrets,
    };
    return `${JSON.stringify(body, null, 2)}\n`;
  }
  const width = Math.max(...files.map((f) => f.relPath.length));
  const lines = [`Imported ${files.length} ${files.length === 1 ? 'object' : 'objects'} from ${origin} into ${shown(outDir, cwd) || '.'}:`];
  for (const f of files) lines.push(`  ${f.relPath.padEnd(width)}  ${oneLine(f.address)}`);
  return `${lines.join('\n')}\n`;
}

/** The closing list: the variables to set before plan or apply can send these secrets. */
function secretsList(result: ImportResult): string {
  const width = Math.max(...result.secrets.map((s) => s.variable.length));
  const lines = [
    `Secrets are never read from the servers: set ${result.secrets.length === 1 ? 'this environment variable' : `these ${result.secrets.length} environment variables`} before plan or apply needs ${result.secrets.length === 1 ? 'it' : 'them'}:`,
    ...result.secrets.map((s) => `  ${s.variable.padEnd(width)}  ${oneLine(s.address)}: ${oneLine(s.field)}`),
  ];
  return `${lines.join('\n')}\n`;
}

function shown(path: string, cwd: string): string {
  const rel = relative(cwd, path);
  return rel === '' ? '.' : rel.startsWith(`..${sep}`) || rel === '..' ? path : rel;
}

function oneLine(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f\u2028\u2029]/g, ' ');
}
