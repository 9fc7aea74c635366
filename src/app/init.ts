import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { ConfigError, MftopsError } from '../errors.js';
import { existingFiles, findProjectSchemasDir, schemaRef, writeImportFiles, type FileToWrite } from '../import/write-files.js';
import { findSchemasDir } from '../manifest/schemas.js';
import type { AppContext } from './context.js';
import { adaptWorkflow, starterFiles } from './init-files.js';

/** The action a project's workflows use: the published one, at its major version. */
export const PUBLISHED_ACTION = 'mftops/mftops@v1';

/** The environment of a starter configuration when none is named. */
export const DEFAULT_INIT_ENVIRONMENT = 'prod';

/** The example workflows, and the names they get in `.github/workflows/` (apply.yml finds the plan runs by that name). */
const WORKFLOWS = [
  { example: 'plan.yml', name: 'mftops-plan.yml' },
  { example: 'apply.yml', name: 'mftops-apply.yml' },
  { example: 'drift.yml', name: 'mftops-drift.yml' },
] as const;

export interface InitOptions {
  /** The project folder (relative to `cwd`); default `cwd`. Created when missing. */
  readonly dir?: string;
  /** The name of the environment; default `prod`. */
  readonly environment?: string;
  /** Overwrite files that exist. */
  readonly force: boolean;
}

/**
 * - `exists`: these files (absolute paths) are already there and `force` was not given; nothing
 *   was written;
 * - `written`: the files written (absolute paths), the project's first.
 */
export type InitResult = { readonly status: 'exists'; readonly files: readonly string[] } | { readonly status: 'written'; readonly dir: string; readonly files: readonly string[] };

/**
 * Start a project: a commented `mftops.yaml` with one environment and `${env:}` credentials, one
 * example manifest of each kind, and the three example workflows in the repository's
 * `.github/workflows/` (the repository is the nearest folder at or above the project that holds
 * `.git`; without one, the project folder). Never overwrites a file without `force`.
 */
export function initProject(options: InitOptions, ctx: Pick<AppContext, 'cwd'>): InitResult {
  const dir = resolve(ctx.cwd, options.dir ?? '.');
  const environment = options.environment ?? DEFAULT_INIT_ENVIRONMENT;
  if (!/^[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(environment)) {
    throw new ConfigError(`--env: "${environment}" is not an environment name (letters, digits, _ . -, starting with a letter or digit)`);
  }
  const projectSchemas = findProjectSchemasDir(dir);
  const pathOf = (relPath: string) => join(dir, ...relPath.split('/'));
  const starters = starterFiles({ environment, schema: (file, relPath) => schemaRef(file, dirname(pathOf(relPath)), projectSchemas) });
  const files: FileToWrite[] = Object.entries(starters).map(([relPath, text]) => ({ relPath, path: pathOf(relPath), text }));
  const root = repositoryRoot(dir);
  const projectDir = relative(root, dir).split(sep).join('/') || '.';
  const examples = join(dirname(findSchemasDir()), 'examples', 'workflows');
  for (const w of WORKFLOWS) {
    const source = join(examples, w.example);
    if (!existsSync(source)) throw new MftopsError(`the example workflows are not part of this installation of mftops (no ${source})`);
    const path = join(root, '.github', 'workflows', w.name);
    const text = adaptWorkflow(readFileSync(source, 'utf8'), { action: PUBLISHED_ACTION, projectDir, environment, source: `examples/workflows/${w.example}` });
    files.push({ relPath: relative(dir, path).split(sep).join('/'), path, text });
  }
  const existing = existingFiles(files);
  if (existing.length > 0 && !options.force) return { status: 'exists', files: existing.map((f) => f.path) };
  writeImportFiles(files, { force: options.force });
  return { status: 'written', dir, files: files.map((f) => f.path) };
}

/** The nearest folder at or above `dir` that holds `.git`, else `dir`. */
function repositoryRoot(dir: string): string {
  for (let d = dir; ; d = dirname(d)) {
    if (existsSync(join(d, '.git'))) return d;
    if (dirname(d) === d) return dir;
  }
}
