import { hash } from 'node:crypto';
import { closeSync, fstatSync, openSync, readdirSync, readFileSync, readSync, realpathSync, statSync } from 'node:fs';
import type { Stats } from 'node:fs';
import { extname, resolve, sep } from 'node:path';
import { noteInputBytes } from '../heap-growth.js';
import { createDiagnostic, sortDiagnostics } from './diagnostics.js';
import type { Diagnostic } from './diagnostics.js';
import { DEFAULT_PARSE_LIMITS, checkFileSize, decodeManifestText, formatBytes, parseManifestFile } from './parse.js';
import type { ParseLimits, ParsedFile, TextAgain } from './parse.js';
import type { Rule } from './rules.js';
import { validateParsedFiles, validateParsedFilesInTurns } from './validate.js';
import type { ManifestSet } from './validate.js';
import type { ManifestEnvironment } from './variables.js';

export interface LoadOptions {
  /** Relative paths are resolved against this folder (default: the process's). */
  readonly cwd?: string;
  readonly limits?: Partial<ParseLimits>;
  /** Rules to run instead of the default set (tests). */
  readonly rules?: readonly Rule[];
  /** The environment the manifests are for (documents chosen, `${var:}` substituted); absent: none (a `${var:}` is MF320). */
  readonly environment?: ManifestEnvironment;
  /**
   * Called with each file as soon as it is parsed (`bytes`, its content, valid only during the
   * call), before the set is checked: `fmt` judges each file from this one parse. Given, the loader
   * also lets the event loop turn every few files, and every few documents while the set is
   * checked, so that requests started meanwhile are sent (plan and drift read ahead this way).
   */
  readonly onFile?: (file: ParsedFile, bytes: Uint8Array) => void;
  /**
   * Only the diagnostics and the files are wanted (`fmt`): the same diagnostics, but `manifests`
   * empty and `fileHashes` too, so nothing is normalised or hashed, and positions are found in
   * the text kept while checking rather than in the file read again.
   */
  readonly diagnosticsOnly?: boolean;
}

/** Files parsed between two turns of the event loop when `onFile` is given (~5 ms of parsing). */
const FILES_PER_TURN = 50;

/**
 * Loads manifests from files and folders (recursively `*.yaml`/`*.yml`, sorted) and checks them.
 * The I/O edge of the manifest layer: everything after reading is pure. Never throws for a user
 * mistake or an unreadable path: those are diagnostics. No network, ever.
 */
export async function loadManifests(paths: readonly string[], options: LoadOptions = {}): Promise<ManifestSet> {
  const cwd = options.cwd ?? process.cwd();
  const maxTotalBytes = options.environment?.maxManifestBytes;
  const limits: ParseLimits = { ...DEFAULT_PARSE_LIMITS, ...(maxTotalBytes !== undefined ? { maxTotalBytes } : {}), ...options.limits };
  const { files, regular, diagnostics } = await collectManifestFiles(paths, cwd);
  // Files are small and read synchronously; `files` is already sorted.
  // Sizes first (one `stat` each), so that a set over the limit is refused before any parsing;
  // the running total below still holds if a file grows meanwhile.
  const sizes = files.map((file) => sizeToRead(file, limits.maxFileBytes));
  let sum = 0;
  const crossing = sizes.findIndex((size) => (sum += size) > limits.maxTotalBytes);
  const configured = options.environment !== undefined;
  if (crossing >= 0) return nothingLoaded(totalTooLarge(files, crossing, sum, limits.maxTotalBytes, configured));
  noteInputBytes(sum);
  const parsed: ParsedFile[] = [];
  let total = 0;
  for (let i = 0; i < files.length; i++) {
    const read = readManifestFile(files[i]!, limits, regular.get(files[i]!) === true, limits.maxTotalBytes - total, options.onFile, options.diagnosticsOnly);
    if ('over' in read) return nothingLoaded(totalTooLarge(files, i, total + read.over, limits.maxTotalBytes, configured));
    total += read.bytes;
    parsed.push(read.parsed);
    if (options.onFile && i % FILES_PER_TURN === FILES_PER_TURN - 1) await new Promise<void>((turn) => setImmediate(turn));
  }
  // With `onFile` the reads started meanwhile go on being served while the set is checked.
  const validate = options.onFile ? validateParsedFilesInTurns : validateParsedFiles;
  const result = await validate(parsed, options.rules, options.environment, options.diagnosticsOnly !== true);
  // The set's diagnostics are sorted already; only the paths' own problems need merging in.
  if (diagnostics.length === 0) return result;
  return { ...result, diagnostics: sortDiagnostics([...diagnostics, ...result.diagnostics]) };
}

/** Manifest files found under some paths (see collectManifestFiles). */
export interface CollectedFiles {
  /** Sorted, without repeats. */
  readonly files: string[];
  /** Each file → whether a folder listing showed it as a regular file (not a link): those need no `fstat` to be read. */
  readonly regular: ReadonlyMap<string, boolean>;
  readonly diagnostics: Diagnostic[];
}

/**
 * The manifest files under the given paths, sorted and without repeats. A folder contributes its
 * `*.yaml`/`*.yml` files at any depth, skipping hidden folders (`.git`, `.github`) and
 * `node_modules`; a file named explicitly is taken whatever its extension. The listing is
 * synchronous, as the reads are (readManifestFile): a thread-pool round trip per folder left the
 * process idle for most of the walk. A folder reached through no symbolic link has the real path
 * of its parent and its name: only links and the paths given are resolved (`realpath`).
 */
export async function collectManifestFiles(paths: readonly string[], cwd: string): Promise<CollectedFiles> {
  /** File → whether a folder listing showed it as a regular file. */
  const files = new Map<string, boolean>();
  const realFiles = new Set<string>();
  const diagnostics: Diagnostic[] = [];
  /** Folder (real path) → manifest files found in it, so a folder reached twice is read once. */
  const visitedDirs = new Map<string, number>();

  const addFile = (file: string, real: string, regular: boolean): void => {
    if (realFiles.has(real)) return;
    realFiles.add(real);
    files.set(file, regular);
  };

  /** `real`: the folder's real path when known (reached through no link). */
  const walk = (dir: string, real: string = realPathOr(dir)): number => {
    const known = visitedDirs.get(real);
    if (known !== undefined) return known;
    visitedDirs.set(real, 0);
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch (err) {
      diagnostics.push(createDiagnostic('error', 'MF007', { file: dir }, `cannot read folder: ${errnoText(err)}`));
      return 0;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    let count = 0;
    for (let i = 0; i < entries.length; i++) {
      const entry = entries[i]!;
      const full = childPath(dir, entry.name);
      const link = entry.isSymbolicLink();
      let isDir = entry.isDirectory();
      let isFile = entry.isFile();
      if (link) {
        const target = statOr(full);
        isDir = target?.isDirectory() ?? false;
        isFile = target?.isFile() ?? false;
      }
      if (isDir) {
        if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
        count += link ? walk(full) : walk(full, childPath(real, entry.name));
      } else if (isFile && isManifestFileName(entry.name)) {
        // A regular file in a folder whose real path is known needs no realpath call.
        const realFile = link ? realPathOr(full) : real === dir ? full : childPath(real, entry.name);
        addFile(full, realFile, !link);
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
      info = statSync(full);
    } catch (err) {
      diagnostics.push(createDiagnostic('error', 'MF007', { file: full }, `cannot read ${p}: ${errnoText(err)}`));
      continue;
    }
    if (info.isDirectory()) {
      const found = walk(full);
      if (found === 0) {
        diagnostics.push(
          createDiagnostic('error', 'MF006', { file: full, line: 1, col: 1 }, `no *.yaml or *.yml files under ${p}`, { hint: 'check the path' }),
        );
      }
    } else {
      addFile(full, realPathOr(full), false);
    }
  }
  return { files: [...files.keys()].sort(), regular: files, diagnostics };
}

/** The real path of `path` (as `fs.promises.realpath` gives it), or `path` when it cannot be had. */
function realPathOr(path: string): string {
  try {
    return realpathSync.native(path);
  } catch {
    return path;
  }
}

/** What `path` leads to, or undefined when it leads nowhere. */
function statOr(path: string): Stats | undefined {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}

/** `join(dir, name)` for a normalised folder path and a name from its listing, without normalising again. */
function childPath(dir: string, name: string): string {
  return dir.endsWith(sep) ? dir + name : dir + sep + name;
}

export function isManifestFileName(name: string): boolean {
  const ext = extname(name).toLowerCase();
  return ext === '.yaml' || ext === '.yml';
}

/**
 * Reads one file within the size limit (a larger one is never read) and parses it. The reads are
 * synchronous: for thousands of small files, four thread-pool round trips per file cost more than
 * the reading itself, and nothing else runs while manifests load. A file a folder listing showed
 * as regular is read with one `pread` into a reused buffer when it fits (see readSmallFile);
 * otherwise one `fstat` serves both the type and size checks and the read (see readOpenFile).
 */
function readManifestFile(
  file: string,
  limits: ParseLimits,
  knownRegular: boolean,
  remaining: number,
  onFile?: (parsed: ParsedFile, bytes: Uint8Array) => void,
  diagnosticsOnly = false,
): { parsed: ParsedFile; bytes: number } | { over: number } {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (err) {
    return { parsed: { file, documents: [], diagnostics: [createDiagnostic('error', 'MF007', { file }, `cannot read file: ${errnoText(err)}`)] }, bytes: 0 };
  }
  const none = (diagnostic: Diagnostic) => ({ parsed: { file, documents: [], diagnostics: [diagnostic] }, bytes: 0 });
  try {
    let bytes = knownRegular ? readSmallFile(fd, limits.maxFileBytes) : undefined;
    if (bytes === undefined) {
      const info = fstatSync(fd);
      if (!info.isFile()) return none(createDiagnostic('error', 'MF007', { file }, 'not a regular file'));
      const tooLarge = checkFileSize(file, info.size, limits);
      if (tooLarge) return none(tooLarge);
      if (info.size > remaining) return { over: info.size };
      bytes = readOpenFile(fd, info.size);
    }
    if (bytes.byteLength > remaining) return { over: bytes.byteLength };
    // Parsing and hashing keep nothing of `bytes`, which may be the reused buffer.
    if (diagnosticsOnly) {
      const parsed = parseManifestFile(file, bytes, limits);
      onFile?.(parsed, bytes);
      return { parsed, bytes: bytes.byteLength };
    }
    const sha256 = `sha256:${hash('sha256', bytes, 'hex')}`;
    const parsed = parseManifestFile(file, bytes, limits, new FileTextAgain(file, sha256, bytes.byteLength));
    onFile?.(parsed, bytes);
    return { parsed: { ...parsed, sha256 }, bytes: bytes.byteLength };
  } catch (err) {
    return none(createDiagnostic('error', 'MF007', { file }, `cannot read file: ${errnoText(err)}`));
  } finally {
    closeSync(fd);
  }
}

/**
 * A loaded file's text, read again when a position in it is asked for (a diagnostic after
 * loading): keeping the text of every file costs more memory than the manifests' data. Only the
 * bytes that were loaded count: a file that changed since (other size or hash) gives none, and
 * the positions fall back to each document's start rather than point into other content.
 */
class FileTextAgain implements TextAgain {
  readonly #file: string;
  readonly #sha256: string;
  readonly #size: number;

  constructor(file: string, sha256: string, size: number) {
    this.#file = file;
    this.#sha256 = sha256;
    this.#size = size;
  }

  text(): string | undefined {
    let fd: number;
    try {
      fd = openSync(this.#file, 'r');
    } catch {
      return undefined;
    }
    try {
      const info = fstatSync(fd);
      if (!info.isFile() || info.size !== this.#size) return undefined;
      const bytes = readOpenFile(fd, this.#size);
      if (bytes.byteLength !== this.#size || `sha256:${hash('sha256', bytes, 'hex')}` !== this.#sha256) return undefined;
      return decodeManifestText(bytes);
    } catch {
      return undefined;
    } finally {
      closeSync(fd);
    }
  }
}

/**
 * MF008 for manifests over the total limit, at `files[index]`, which took the total (`read`, the
 * bytes up to and including it) past it. The total named is of every file (the rest by size), so
 * that the user sees how far over the limit the set is. `configured`: the files were loaded for a
 * configuration's environment, whose `limits.manifestMegabytes` is the limit; without one
 * (`validate PATH…`, `fmt`) the default counts, and raising it in mftops.yaml would change nothing.
 */
function totalTooLarge(files: readonly string[], index: number, read: number, limit: number, configured: boolean): Diagnostic {
  const total = files.slice(index + 1).reduce((sum, file) => sum + sizeToRead(file, Infinity), read);
  return createDiagnostic(
    'error',
    'MF008',
    { file: files[index]! },
    `the manifests hold ${formatBytes(total)} in ${files.length} files, over the ${formatBytes(limit)} limit for one run; nothing was checked`,
    {
      hint: configured
        ? 'raise limits.manifestMegabytes in mftops.yaml, or check fewer files at a time'
        : 'checked without a configuration, so the default limit counts: check fewer files at a time, or run mftops validate --config mftops.yaml PATH… to use its limits.manifestMegabytes',
    },
  );
}

/** The bytes a file will be read as: 0 for one over the per-file limit (MF004, not read) or that cannot be read (reported when it is). */
function sizeToRead(file: string, maxFileBytes: number): number {
  try {
    const size = statSync(file).size;
    return size > maxFileBytes ? 0 : size;
  } catch {
    return 0;
  }
}

/** A set with one diagnostic and nothing loaded. */
function nothingLoaded(diagnostic: Diagnostic): ManifestSet {
  return { manifests: [], policies: [], diagnostics: [diagnostic], files: [], fileHashes: new Map(), variables: new Map() };
}

/** Manifests are small: nearly all fit this buffer, which every read of one shares. */
const SMALL_FILE_BYTES = 64 * 1024;
let smallFileBuffer: Buffer | undefined;

/**
 * The whole content of an open regular file if it is smaller than the reused buffer and within
 * `maxBytes`, read with one `pread` from its start (a short read of a regular file is its end);
 * undefined when it may be larger (nothing is consumed: the caller reads it the careful way). The
 * bytes are a view of the shared buffer, valid until the next call.
 */
export function readSmallFile(fd: number, maxBytes: number): Buffer | undefined {
  const buffer = (smallFileBuffer ??= Buffer.allocUnsafe(SMALL_FILE_BYTES));
  const want = Math.min(SMALL_FILE_BYTES, maxBytes + 1);
  const n = readSync(fd, buffer, 0, want, 0);
  return n < want ? buffer.subarray(0, n) : undefined;
}

/**
 * The bytes of an open regular file whose size is known, read as `readFileSync(fd)` would: up to
 * `size` bytes (fewer if it shrank meanwhile), without the second `fstat` it makes. A size of 0
 * may be a file that does not report its size: that is left to `readFileSync`, which reads to the
 * end.
 */
export function readOpenFile(fd: number, size: number): Buffer {
  if (size === 0) return readFileSync(fd);
  const buffer = Buffer.allocUnsafe(size);
  let total = 0;
  while (total < size) {
    const n = readSync(fd, buffer, total, size - total, null);
    if (n === 0) break;
    total += n;
  }
  return total < size ? buffer.subarray(0, total) : buffer;
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
