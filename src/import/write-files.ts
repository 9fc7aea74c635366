import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { Document, isScalar, visit } from 'yaml';
import { MftopsError, systemError } from '../errors.js';
import { canonicalizeQuoting, TO_STRING_OPTIONS } from '../manifest/canonical-form.js';
import { SCHEMA_BASE_URL, SCHEMA_FILES } from '../manifest/schemas.js';
import type { ImportedManifest, ImportKind, PlannedFile } from './model.js';

/** The folder of each kind under the output folder, as in `examples/manifests`. */
export const KIND_FOLDERS: Readonly<Record<ImportKind, string>> = { Task: 'tasks', ResourceGroupAcl: 'access', FolderPermissions: 'folders' };

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
  const root = resolve(outDir);
  const projectSchemas = findProjectSchemasDir(root);
  const taken = new Set<string>();
  return manifests.map((m) => {
    const folder = KIND_FOLDERS[m.kind];
    const stem = safeFileStem(m.kind === 'FolderPermissions' ? m.name.replace(/^\/+/, '') || 'root' : m.name, m.kind);
    let relPath = `${folder}/${stem}.yaml`;
    for (let n = 2; taken.has(relPath); n++) relPath = `${folder}/${stem}-${n}.yaml`;
    taken.add(relPath);
    const path = join(root, ...relPath.split('/'));
    const inside = relative(root, path);
    if (inside === '' || inside.startsWith('..') || isAbsolute(inside)) throw new Error(`bug: ${relPath} is outside ${root}`);
    return { relPath, path, text: renderManifestFile(m, schemaRef(SCHEMA_FILES[m.kind], dirname(path), projectSchemas)), address: m.address };
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
  const doc = new Document(m.document);
  canonicalizeQuoting(doc);
  const notes = m.notes.map((n) => `# Note: ${oneLine(n)}`);
  return [`# yaml-language-server: $schema=${schemaRef}`, ...notes, doc.toString(TO_STRING_OPTIONS)].join('\n');
}

function oneLine(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f\u2028\u2029]/g, ' ');
}

/** A file to write: where, and what (an import's manifest, or a starter file of `mftops init`). */
export type FileToWrite = Pick<PlannedFile, 'relPath' | 'path' | 'text'>;

/** Files among `files` that already exist. */
export function existingFiles<F extends FileToWrite>(files: readonly F[]): F[] {
  return files.filter((f) => existsSync(f.path));
}

/**
 * Write the files. Without `force`, a file that exists is never replaced: the call refuses
 * before writing anything (`existingFiles` is the check; `wx` closes the race with anything that
 * creates one meanwhile).
 */
export function writeImportFiles(files: readonly FileToWrite[], options: { readonly force: boolean }): void {
  if (!options.force) {
    const existing = existingFiles(files);
    if (existing.length > 0) throw new MftopsError(`refusing to overwrite ${existing.map((f) => f.relPath).join(', ')} (use --force)`);
  }
  for (const f of files) {
    try {
      mkdirSync(dirname(f.path), { recursive: true });
      writeFileSync(f.path, f.text, { flag: options.force ? 'w' : 'wx' });
    } catch (err) {
      throw systemError(`cannot write ${f.path}`, err);
    }
  }
}
