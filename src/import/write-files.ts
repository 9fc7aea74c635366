import { createHash, randomBytes } from 'node:crypto';
import { constants, copyFileSync, existsSync, linkSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { Document } from 'yaml';
import { MftopsError, systemError } from '../errors.js';
import { canonicalizeQuoting, TO_STRING_OPTIONS } from '../manifest/canonical-form.js';
import { emitCanonicalYaml } from '../manifest/emit-canonical-yaml.js';
import { SCHEMA_BASE_URL, SCHEMA_FILES } from '../manifest/schemas.js';
import { isPathNamed } from '../kinds/address.js';
import { EVERY_KIND, KINDS } from '../kinds/registry.js';
import type { ImportedManifest, ImportKind, PlannedFile } from './model.js';

/** The folder of each kind under the output folder, as in `examples/manifests` (`importer.folder`). */
export const KIND_FOLDERS: Readonly<Record<ImportKind, string>> = Object.fromEntries(EVERY_KIND.map((kind) => [kind, KINDS[kind].importer.folder])) as Record<
  ImportKind,
  string
>;

const RESERVED = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])$/;
const MAX_SLUG = 80;

/**
 * A file name from an object name that is safe on every file system: ASCII letters, digits and
 * `-` only (so no `/`, `\`, `..`, drive letters or control characters can get through), at most
 * 80 characters, never a reserved Windows device name. A name with nothing usable in it gets a
 * stable name from its hash.
 */
export function safeFileStem(name: string, kind: ImportKind): string {
  const slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, MAX_SLUG)
    .replace(/-+$/, '');
  if (slug === '') return `${KIND_FOLDERS[kind].replace(/s$/, '')}-${createHash('sha256').update(name).digest('hex').slice(0, 8)}`;
  return RESERVED.test(slug) ? `${slug}-1` : slug;
}

/**
 * Where each manifest goes: `<kind folder>/<safe name>.yaml`, a second object with the same safe
 * name getting `-2` (then `-3`…), in the order given (the import sorts objects by name, so the
 * numbering is stable between runs). The `$schema` line is portable: see `schemaRef`.
 */
export function planImportFiles(manifests: readonly ImportedManifest[], outDir: string): PlannedFile[] {
  return planImportPaths(manifests, outDir).map((p) => ({ relPath: p.relPath, path: p.path, text: p.render(), address: p.address }));
}

/** A manifest file's place, and the text that goes there, made when asked for (import renders each file just before it writes it). */
export type PlannedPath = Omit<PlannedFile, 'text'> & { readonly render: () => string };

/** `planImportFiles` without the texts: the paths first, each text rendered by `render()`, the same text. */
export function planImportPaths(manifests: readonly ImportedManifest[], outDir: string): PlannedPath[] {
  return createPathPlanner(outDir)(manifests);
}

/**
 * `planImportPaths` a part of the manifests at a time (import plans each kind's paths in parts
 * while it still reads): the `-2` numbering carries over from part to part, so the parts' paths
 * are those of all the manifests at once.
 */
export function createPathPlanner(outDir: string): (manifests: readonly ImportedManifest[]) => PlannedPath[] {
  const root = resolve(outDir);
  const projectSchemas = findProjectSchemasDir(root);
  const taken = new Set<string>();
  // Per kind folder, worked out once: its path (checked to be inside the output folder) and the
  // `$schema` reference its files write (a `relative` and a `join` per file were 0.2 s of 13,000
  // files, profiled).
  const folders = new Map<ImportKind, { readonly dir: string; ref?: string }>();
  const folderOf = (kind: ImportKind): { readonly dir: string; ref?: string } => {
    let found = folders.get(kind);
    if (found !== undefined) return found;
    const dir = join(root, KIND_FOLDERS[kind]);
    const inside = relative(root, dir);
    if (inside === '' || inside.startsWith('..') || isAbsolute(inside) || inside.includes(sep))
      throw new Error(`bug: ${KIND_FOLDERS[kind]} is not a folder of ${root}`);
    folders.set(kind, (found = { dir }));
    return found;
  };
  return (manifests) =>
    manifests.map((m) => {
      const folder = KIND_FOLDERS[m.kind];
      const stem = safeFileStem(isPathNamed(m.kind) ? m.name.replace(/^\/+/, '') || 'root' : m.name, m.kind);
      let file = `${stem}.yaml`;
      for (let n = 2; taken.has(`${folder}/${file}`); n++) file = `${stem}-${n}.yaml`;
      const relPath = `${folder}/${file}`;
      taken.add(relPath);
      // A safe stem has no separator and no dots: the file is in its kind's folder.
      if (file.includes('/') || file.includes(sep)) throw new Error(`bug: ${relPath} is outside ${root}`);
      const f = folderOf(m.kind);
      const path = `${f.dir}${sep}${file}`;
      return { relPath, path, address: m.address, render: () => renderManifestFile(m, (f.ref ??= schemaRef(SCHEMA_FILES[m.kind], f.dir, projectSchemas))) };
    });
}

/**
 * `node_modules/mftops/schemas/` of the project the output folder belongs to (the nearest one at
 * or above it), if mftops is installed there. The copy of the install running the import is never
 * used: a global or `npx` install exists on this machine only.
 */
export function findProjectSchemasDir(outDir: string): string | undefined {
  for (let dir = resolve(outDir); ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', 'mftops', 'schemas');
    if (existsSync(candidate)) return candidate;
    if (dirname(dir) === dir) return undefined;
  }
}

/**
 * What a file in `fromDir` names as its schema: the relative path into the project's installed
 * schemas when they hold the file (it travels with the repository and matches the installed
 * version), otherwise the published URL. Never an absolute path.
 */
export function schemaRef(file: string, fromDir: string, projectSchemas: string | undefined): string {
  if (projectSchemas === undefined || !existsSync(join(projectSchemas, file))) return `${SCHEMA_BASE_URL}${file}`;
  return relative(fromDir, join(projectSchemas, file)).split(sep).join('/');
}

/**
 * The file text: the `$schema` line for editors, the import's notes as comments, the document,
 * in the canonical form `mftops fmt` keeps (src/manifest/canonical-form.ts; the document's keys
 * are in schema order already).
 */
export function renderManifestFile(m: ImportedManifest, schemaRef: string): string {
  const notes = m.notes.map((n) => `# Note: ${oneLine(n)}`);
  return [`# yaml-language-server: $schema=${schemaRef}`, ...notes, emitCanonicalYaml(m.document) ?? documentText(m.document)].join('\n');
}

/** The `yaml` Document path, which `emitCanonicalYaml` matches byte for byte on the data it takes. */
export function documentText(value: Readonly<Record<string, unknown>>): string {
  const doc = new Document(value);
  canonicalizeQuoting(doc);
  return doc.toString(TO_STRING_OPTIONS);
}

function oneLine(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f\u2028\u2029]/g, ' ');
}

/** A file to write: where, and what (an import's manifest, or a starter file of `mftops init`). */
export type FileToWrite = Pick<PlannedFile, 'relPath' | 'path' | 'text'>;

/** Files among `files` that already exist (a file in a folder that does not exist is not looked for: a first import asks once per folder, not once per file). */
export function existingFiles<F extends Pick<FileToWrite, 'path'>>(files: readonly F[]): F[] {
  const folders = new Map<string, boolean>();
  return files.filter((f) => {
    const dir = dirname(f.path);
    let there = folders.get(dir);
    if (there === undefined) folders.set(dir, (there = existsSync(dir)));
    return there && existsSync(f.path);
  });
}

/**
 * Write the files, all or none. Without `force`, a file that exists is never replaced: the call
 * refuses before writing anything (`existingFiles` is the check; linking each file into place
 * closes the race with anything that creates one meanwhile). Every file is first written whole to
 * a temporary name beside its target, so a full disk or an unwritable folder leaves no file and no
 * folder of this call behind; only then are they moved into place.
 */
export function writeImportFiles(files: readonly FileToWrite[], options: { readonly force: boolean }): void {
  if (!options.force) {
    const existing = existingFiles(files);
    if (existing.length > 0) throw new MftopsError(`refusing to overwrite ${existing.map((f) => f.relPath).join(', ')} (use --force)`);
  }
  const createdDirs: string[] = [];
  const staged: { readonly file: FileToWrite; readonly tmp: string }[] = [];
  const placed: string[] = [];
  let clash: FileToWrite | undefined;
  let current = files[0];
  // One random part per call, numbered per file, and each folder made once: with thousands of
  // files, a random draw and a mkdir per file cost more than the writes' own CPU (profiled).
  const token = randomBytes(6).toString('hex');
  const madeDirs = new Set<string>();
  try {
    for (const [i, f] of files.entries()) {
      current = f;
      const dir = dirname(f.path);
      if (!madeDirs.has(dir)) {
        const created = mkdirSync(dir, { recursive: true });
        if (created !== undefined) createdDirs.push(created);
        madeDirs.add(dir);
      }
      const tmp = join(dir, `.${basename(f.path)}.${token}-${i}.tmp`);
      staged.push({ file: f, tmp });
      writeFileSync(tmp, f.text, { flag: 'wx' });
    }
    for (const { file, tmp } of staged) {
      current = file;
      if (options.force) renameSync(tmp, file.path);
      else {
        clash = file;
        placeWithoutReplacing(tmp, file.path);
        clash = undefined;
        placed.push(file.path);
        rmSync(tmp, { force: true });
      }
    }
  } catch (err) {
    for (const { tmp } of staged) rmSync(tmp, { force: true });
    for (const path of placed) rmSync(path, { force: true });
    for (const dir of createdDirs.reverse()) rmSync(dir, { recursive: true, force: true });
    // Created by something else since the check above.
    if (clash !== undefined && isCode(err, 'EEXIST')) throw new MftopsError(`refusing to overwrite ${clash.relPath} (use --force); nothing was written`);
    throw systemError(`cannot write ${current?.path ?? 'the files'}; nothing was written`, err);
  }
}

/** A hard link fails when the target exists; a file system without links gets an exclusive copy. */
export function placeWithoutReplacing(tmp: string, target: string): void {
  try {
    linkSync(tmp, target);
  } catch (err) {
    if (isCode(err, 'EEXIST')) throw err;
    copyFileSync(tmp, target, constants.COPYFILE_EXCL);
  }
}

function isCode(err: unknown, code: string): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === code;
}
