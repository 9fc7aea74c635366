import { createHash } from 'node:crypto';
import { closeSync, fstatSync, openSync, readFileSync } from 'node:fs';
import { readdir, realpath, stat } from 'node:fs/promises';
import { extname, join, resolve } from 'node:path';
import { createDiagnostic, sortDiagnostics } from './diagnostics.js';
import type { Diagnostic } from './diagnostics.js';
import { DEFAULT_PARSE_LIMITS, checkFileSize, parseManifestFile } from './parse.js';
import type { ParseLimits, ParsedFile } from './parse.js';
import type { Rule } from './rules.js';
import { validateParsedFiles } from './validate.js';
import type { ManifestSet } from './validate.js';

export interface LoadOptions {
  /** Relative paths are resolved against this folder (default: the process's). */
  readonly cwd?: string;
  readonly limits?: Partial<ParseLimits>;
  /** Rules to run instead of the default set (tests). */
  readonly rules?: readonly Rule[];
}

/**
 * Loads manifests from files and folders (recursively `*.yaml`/`*.yml`, sorted) and checks them.
 * The I/O edge of the manifest layer: everything after reading is pure. Never throws for a user
 * mistake or an unreadable path: those are diagnostics. No network, ever.
 */
export async function loadManifests(paths: readonly string[], options: LoadOptions = {}): Promise<ManifestSet> {
  const cwd = options.cwd ?? process.cwd();
  const limits: ParseLimits = { ...DEFAULT_PARSE_LIMITS, ...options.limits };
  const { files, diagnostics } = await collectManifestFiles(paths, cwd);
  // Files are small and read synchronously; `files` is already sorted.
  const parsed = files.map((file) => readManifestFile(file, limits));
  const result = validateParsedFiles(parsed, options.rules);
  return { ...result, diagnostics: sortDiagnostics([...diagnostics, ...result.diagnostics]) };
}

/**
 * The manifest files under the given paths, sorted and without repeats. A folder contributes its
 * `*.yaml`/`*.yml` files at any depth, skipping hidden folders (`.git`, `.github`) and
 * `node_modules`; a file named explicitly is taken whatever its extension.
 */
export async function collectManifestFiles(paths: readonly string[], cwd: string): Promise<{ files: string[]; diagnostics: Diagnostic[] }> {
  const files = new Set<string>();
  const realFiles = new Set<string>();
  const diagnostics: Diagnostic[] = [];
  /** Folder (real path) → manifest files found in it, so a folder reached twice is read once. */
  const visitedDirs = new Map<string, number>();

  // `knownReal`: a regular file found in a folder whose real path is known needs no realpath call.
  const addFile = async (file: string, knownReal?: string) => {
    const real = knownReal ?? (await realpath(file).catch(() => file));
    if (realFiles.has(real)) return;
    realFiles.add(real);
    files.add(file);
  };

  const walk = async (dir: string): Promise<number> => {
    const real = await realpath(dir).catch(() => dir);
    const known = visitedDirs.get(real);
    if (known !== undefined) return known;
    visitedDirs.set(real, 0);
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch (err) {
      diagnostics.push(createDiagnostic('error', 'MF007', { file: dir, line: 1, col: 1 }, `cannot read folder: ${errnoText(err)}`));
      return 0;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    let count = 0;
    for (const entry of entries) {
      const full = join(dir, entry.name);
      let isDir = entry.isDirectory();
      let isFile = entry.isFile();
      if (entry.isSymbolicLink()) {
        const target = await stat(full).catch(() => undefined);
        isDir = target?.isDirectory() ?? false;
        isFile = target?.isFile() ?? false;
      }
      if (isDir) {
        if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
        count += await walk(full);
      } else if (isFile && isManifestFileName(entry.name)) {
        await addFile(full, entry.isSymbolicLink() ? undefined : join(real, entry.name));
        count++;
      }
    }
    visitedDirs.set(real, count);
    return count;
  };

  for (const p of paths) {
    const full = resolve(cwd, p);
    let info;
    try {
      info = await stat(full);
    } catch (err) {
      diagnostics.push(createDiagnostic('error', 'MF007', { file: full, line: 1, col: 1 }, `cannot read ${p}: ${errnoText(err)}`));
      continue;
    }
    if (info.isDirectory()) {
      const found = await walk(full);
      if (found === 0) {
        diagnostics.push(createDiagnostic('error', 'MF006', { file: full, line: 1, col: 1 }, `no *.yaml or *.yml files under ${p}`, { hint: 'check the path' }));
      }
    } else {
      await addFile(full);
    }
  }
  return { files: [...files].sort(), diagnostics };
}

export function isManifestFileName(name: string): boolean {
  const ext = extname(name).toLowerCase();
  return ext === '.yaml' || ext === '.yml';
}

/**
 * Reads one file within the size limit (a larger one is never read) and parses it. The reads are
 * synchronous: for thousands of small files, four thread-pool round trips per file cost more than
 * the reading itself, and nothing else runs while manifests load.
 */
function readManifestFile(file: string, limits: ParseLimits): ParsedFile {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (err) {
    return { file, documents: [], diagnostics: [createDiagnostic('error', 'MF007', { file, line: 1, col: 1 }, `cannot read file: ${errnoText(err)}`)] };
  }
  try {
    const info = fstatSync(fd);
    if (!info.isFile()) {
      return { file, documents: [], diagnostics: [createDiagnostic('error', 'MF007', { file, line: 1, col: 1 }, 'not a regular file')] };
    }
    const tooLarge = checkFileSize(file, info.size, limits);
    if (tooLarge) return { file, documents: [], diagnostics: [tooLarge] };
    const bytes = readFileSync(fd);
    return { ...parseManifestFile(file, bytes, limits), sha256: `sha256:${createHash('sha256').update(bytes).digest('hex')}` };
  } catch (err) {
    return { file, documents: [], diagnostics: [createDiagnostic('error', 'MF007', { file, line: 1, col: 1 }, `cannot read file: ${errnoText(err)}`)] };
  } finally {
    closeSync(fd);
  }
}

function errnoText(err: unknown): string {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case 'ENOENT':
      return 'no such file or folder';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EISDIR':
      return 'is a folder';
    case 'ELOOP':
      return 'too many symbolic links';
    default:
      return code ?? (err instanceof Error ? err.message : String(err));
  }
}

