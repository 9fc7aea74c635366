import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { ConfigError, MftopsError } from '../errors.js';
import { existingFiles, findProjectSchemasDir, schemaRef, writeImportFiles, type FileToWrite } from '../import/write-files.js';
import { findSchemasDir } from '../manifest/schemas.js';
import type { AppContext } from './context.js';
import { adaptWorkflow, starterFiles, type WorkflowAction } from './init-files.js';

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
  /**
   * The action the workflows use, `OWNER/REPO[/PATH]@REF`; default the mftops package the
   * repository installs (`./node_modules/mftops`), and an error when it installs none.
   */
  readonly actionRef?: string;
}

/**
 * - `exists`: these files (absolute paths) are already there and `force` was not given; nothing
 *   was written;
 * - `written`: the files written (absolute paths), the project's first, and the `uses:` of the
 *   workflows' action.
 */
export type InitResult =
  | { readonly status: 'exists'; readonly files: readonly string[] }
  | { readonly status: 'written'; readonly dir: string; readonly files: readonly string[]; readonly action: string };

/**
 * Start a project: a commented `mftops.yaml` with one environment and `${env:}` credentials, one
 * example manifest of each kind, and the three example workflows in the repository's
 * `.github/workflows/` (the repository is the nearest folder at or above the project that holds
 * `.git`; without one, the project folder). The workflows run an action that resolves: the
 * `actionRef` given, else the mftops package the repository installs; with neither, a ConfigError
 * and nothing written. Never overwrites a file without `force`.
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
  const action = options.actionRef !== undefined ? publishedAction(options.actionRef) : installedAction(dir, root);
  const examples = join(dirname(findSchemasDir()), 'examples', 'workflows');
  for (const w of WORKFLOWS) {
    const source = join(examples, w.example);
    if (!existsSync(source)) throw new MftopsError(`the example workflows are not part of this installation of mftops (no ${source})`);
    const path = join(root, '.github', 'workflows', w.name);
    const text = adaptWorkflow(readFileSync(source, 'utf8'), { action, projectDir, environment, source: `examples/workflows/${w.example}` });
    files.push({ relPath: relative(dir, path).split(sep).join('/'), path, text });
  }
  const existing = existingFiles(files);
  if (existing.length > 0 && !options.force) return { status: 'exists', files: existing.map((f) => f.path) };
  writeImportFiles(files, { force: options.force });
  return { status: 'written', dir, files: files.map((f) => f.path), action: action.uses };
}

/**
 * `OWNER/REPO[/PATH]@REF` as GitHub reads `uses:` (owner: letters, digits, `-`; repository:
 * letters, digits, `.`, `_`, `-`; a ref without spaces).
 */
const ACTION_REF = /^[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?\/[A-Za-z0-9._-]+(?:\/[A-Za-z0-9._\/-]+)?@[A-Za-z0-9._\/-]+$/;

function publishedAction(ref: string): WorkflowAction {
  if (!ACTION_REF.test(ref) || ref.includes('..')) {
    throw new ConfigError(`--action-ref: "${ref}" is not OWNER/REPO@REF (e.g. my-org/mftops@v1, or a full commit SHA after the @)`);
  }
  return { kind: 'ref', uses: ref };
}

/**
 * The mftops package the repository installs, as a local action: the nearest
 * `node_modules/mftops` at or above the project and inside the repository, holding `action.yml`
 * and its bundle, beside a package.json that declares mftops and a lock file `npm ci` installs
 * from. Anything less would give a `uses:` that does not resolve on the runner.
 */
function installedAction(projectDir: string, root: string): WorkflowAction {
  for (let d = projectDir; ; d = dirname(d)) {
    const pkg = join(d, 'node_modules', 'mftops');
    if (existsSync(join(pkg, 'action.yml')) && existsSync(join(pkg, 'dist-action', 'index.mjs')) && declaresMftops(join(d, 'package.json'))) {
      if (!existsSync(join(d, 'package-lock.json')) && !existsSync(join(d, 'npm-shrinkwrap.json'))) {
        throw new ConfigError(
          `the workflows would install mftops with npm ci, but ${join(d, 'package.json')} has no package-lock.json beside it: run npm install there, or give --action-ref OWNER/REPO@REF`,
        );
      }
      const at = relative(root, pkg).split(sep).join('/');
      return { kind: 'installed', uses: `./${at}`, installDir: relative(root, d).split(sep).join('/') || '.' };
    }
    if (d === root || dirname(d) === d) break;
  }
  throw new ConfigError(
    `the workflows need the mftops action, and this repository does not install mftops (no node_modules/mftops declared in a package.json at or above ${projectDir}): ` +
      'run npm i -D mftops and then npx mftops init, or give --action-ref OWNER/REPO@REF',
  );
}

function declaresMftops(packageJson: string): boolean {
  try {
    const pkg = JSON.parse(readFileSync(packageJson, 'utf8')) as { dependencies?: Record<string, unknown>; devDependencies?: Record<string, unknown> };
    return pkg.dependencies?.['mftops'] !== undefined || pkg.devDependencies?.['mftops'] !== undefined;
  } catch {
    return false;
  }
}

/** The nearest folder at or above `dir` that holds `.git`, else `dir`. */
function repositoryRoot(dir: string): string {
  for (let d = dir; ; d = dirname(d)) {
    if (existsSync(join(d, '.git'))) return d;
    if (dirname(d) === d) return dir;
  }
}
