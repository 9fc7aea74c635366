import { relative, sep } from 'node:path';
import { DEFAULTS, PARALLELISM_RANGE } from '../../app/defaults.js';
import { wholeNumberOption } from '../../app/environment.js';
import { importEnvironment, type ImportEnvironmentResult } from '../../app/import.js';
import { ConfigError } from '../../errors.js';
import type { ImportKind } from '../../import/model.js';
import { MANIFEST_KINDS } from '../../manifest/types.js';
import { renderJsonOutput } from '../../render/json-output.js';
import { cliContext, environmentChoice } from '../app-context.js';
import type { CommandIo, GlobalOptions } from '../io.js';
import { writeError } from './common.js';
import { withDefined } from '../../with-defined.js';

export interface ImportCommandOptions {
  /**
   * `--kind`, repeatable or comma-separated: Task, ResourceGroupAcl, FolderPermissions, User. Absent:
   * every kind (narrowed by `--name`), less those the environment has no service or scope for
   * (User only when `scope.users` is set).
   */
  readonly kind?: readonly string[];
  readonly name?: string;
  /** Output folder; default the environment's first manifests folder. */
  readonly out?: string;
  readonly all: boolean;
  readonly force: boolean;
  /** Import from this saved snapshot instead of the servers. */
  readonly fromSnapshot?: string;
  readonly parallelism?: string;
}

/**
 * `mftops import`: the view of `importEnvironment`. The files written on stdout; notes, and the
 * `${env:…}` placeholders written for secrets at the end, on stderr. Exit 0 written, 1 error or
 * nothing to import.
 */
export async function runImport(g: GlobalOptions, opts: ImportCommandOptions, io: CommandIo): Promise<number> {
  const kinds = opts.kind !== undefined ? parseKinds(opts.kind) : undefined;
  const parallelism = wholeNumberOption('--parallelism', opts.parallelism ?? String(DEFAULTS.readParallelism), PARALLELISM_RANGE.min, PARALLELISM_RANGE.max);
  const ctx = cliContext(g, io);
  let result: ImportEnvironmentResult;
  try {
    result = await importEnvironment(
      {
        ...environmentChoice(g),
        ...withDefined({
          kinds,
          name: opts.name,
          out: opts.out,
        }),
        all: opts.all,
        force: opts.force,
        ...withDefined({ fromSnapshot: opts.fromSnapshot }),
        parallelism,
      },
      ctx,
    );
  } finally {
    ctx.finish();
  }
  switch (result.status) {
    case 'nothing':
      writeError(g, io, `nothing to import: ${result.reason}`, `mftops: nothing to import: ${result.reason}`);
      return 1;
    case 'exists': {
      const message = `${result.files.length} of the files to write already exist; nothing was written (use --force to overwrite them):\n${result.files.map((f) => `  ${shown(f, io.cwd)}`).join('\n')}`;
      writeError(g, io, message);
      return 1;
    }
    case 'imported':
      io.stdout(renderResult(g, result, io.cwd));
      if (!g.quiet && g.format !== 'json') {
        for (const f of result.files) for (const note of f.notes) io.stderr(`mftops: note: ${f.relPath}: ${note}\n`);
      }
      if (result.secrets.length > 0) io.stderr(secretsList(result));
      return 0;
    case 'interrupted':
      return result.exitCode;
    default: {
      const never: never = result;
      throw new Error(`unknown import result ${JSON.stringify(never)}`);
    }
  }
}

function parseKinds(raw: readonly string[]): ImportKind[] {
  const names = raw
    .flatMap((k) => k.split(','))
    .map((k) => k.trim())
    .filter((k) => k !== '');
  if (names.length === 0) throw new ConfigError(`--kind takes one or more of ${MANIFEST_KINDS.join(', ')}`);
  const out: ImportKind[] = [];
  for (const n of names) {
    const kind = MANIFEST_KINDS.find((k) => k.toLowerCase() === n.toLowerCase());
    if (kind === undefined) throw new ConfigError(`--kind ${n} is not a kind mftops imports (one of ${MANIFEST_KINDS.join(', ')})`);
    if (!out.includes(kind)) out.push(kind);
  }
  return out;
}

type Imported = Extract<ImportEnvironmentResult, { status: 'imported' }>;

function renderResult(g: GlobalOptions, result: Imported, cwd: string): string {
  const { origin, outDir, files } = result;
  if (g.format === 'json') {
    return renderJsonOutput('mftops.import', {
      origin,
      outDir,
      files: files.map((f) => ({ file: f.relPath, address: f.address, notes: f.notes })),
      secrets: result.secrets,
    });
  }
  const width = Math.max(...files.map((f) => f.relPath.length));
  const lines = [`Imported ${files.length} ${files.length === 1 ? 'object' : 'objects'} from ${origin} into ${shown(outDir, cwd) || '.'}:`];
  for (const f of files) lines.push(`  ${f.relPath.padEnd(width)}  ${oneLine(f.address)}`);
  return `${lines.join('\n')}\n`;
}

/** The closing list: the variables to set before plan or apply can send these secrets. */
function secretsList(result: Imported): string {
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
