import { readFileSync, realpathSync, statSync } from 'node:fs';
import { writeFileAtomicSync } from '../atomic-file.js';
import { MftopsError } from '../errors.js';
import { formatManifestText } from '../manifest/canonical-form.js';
import { formatReadManifestText, isReadManifestTextCanonical } from '../manifest/fast-canonical-form.js';
import { recordSimpleYamlStyles, type SimpleYamlStyles } from '../manifest/fast-yaml.js';
import { loadManifests } from '../manifest/load.js';
import type { ManifestSet } from '../manifest/validate.js';
import type { ParsedFile } from '../manifest/parse.js';
import type { FmtFile, FmtReport } from '../render/fmt.js';
import type { AppContext, EnvironmentChoice } from './context.js';
import { validatePaths } from './validate.js';

export interface FmtOptions extends EnvironmentChoice {
  /** Files and folders (relative to `cwd`); none: the environment's manifests, as validate. */
  readonly paths?: readonly string[];
  /** Write nothing; report the files that are not in canonical form. */
  readonly check: boolean;
}

/**
 * Put manifest files in canonical form (src/manifest/canonical-form.ts), in place. A file is
 * formatted only when it loads without errors (anything else could lose what the author meant);
 * the others are reported by their diagnostics and left alone. Each rewrite is atomic and keeps
 * the file's permissions; a symbolic link is followed, not replaced.
 */
export async function formatManifests(options: FmtOptions, ctx: AppContext): Promise<FmtReport> {
  const { manifests, known } = await loadAndJudge(validatePaths(options, ctx), options.check, ctx);
  // Read without an environment, a `${var:}` has no value (MF320): that does not stop formatting.
  const errors = manifests.diagnostics.filter((d) => d.severity === 'error' && d.code !== 'MF320');
  const invalid = new Set(errors.flatMap((d) => (d.file !== undefined ? [d.file] : [])));
  const files = manifests.files.map((file): FmtFile => {
    if (invalid.has(file)) return { file, state: 'invalid' };
    const judged = known.get(file);
    if (judged === true) return { file, state: 'formatted' };
    if (judged === false) return { file, state: 'unformatted' };
    if (judged !== undefined) {
      rewrite(file, judged);
      return { file, state: 'rewritten' };
    }
    const text = readFileSync(file, 'utf8');
    const canonical = formatManifestText(text);
    if (canonical === text) return { file, state: 'formatted' };
    if (options.check) return { file, state: 'unformatted' };
    rewrite(file, canonical);
    return { file, state: 'rewritten' };
  });
  const status = errors.length > 0 ? 'invalid' : files.some((f) => f.state === 'unformatted') ? 'unformatted' : 'ok';
  return { status, check: options.check, files, diagnostics: errors };
}

/**
 * The manifests loaded as `validate` loads them (no environment), and meanwhile, for each file the
 * fast reader read, its canonical form judged from what the loader parsed (issue 29: reading and
 * parsing every file a second time made `fmt --check` slower than `validate`): true when it is in
 * canonical form, else false (`--check`) or the canonical text. A file not judged here is
 * formatted through `yaml` after loading, as before. Only the diagnostics are kept (the loader
 * neither normalises nor hashes): judging files costs what `validate` spends on those.
 */
async function loadAndJudge(
  paths: readonly string[],
  check: boolean,
  ctx: AppContext,
): Promise<{ manifests: ManifestSet; known: ReadonlyMap<string, string | boolean> }> {
  const known = new Map<string, string | boolean>();
  const styles: SimpleYamlStyles = { flow: new Set(), documents: new Set() };
  const judge = (parsed: ParsedFile, bytes: Uint8Array): void => {
    try {
      judgeFile(parsed, bytes);
    } finally {
      styles.flow.clear();
      styles.documents.clear();
    }
  };
  const judgeFile = (parsed: ParsedFile, bytes: Uint8Array): void => {
    const docs = parsed.documents;
    if (parsed.diagnostics.length > 0 || docs.length === 0 || !docs.every((d) => styles.documents.has(d.data as object))) return;
    const text = UTF8_WITH_BOM.decode(bytes);
    const source = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
    const data = docs.map((d) => d.data as Record<string, unknown>);
    if (check) {
      // A file with a byte order mark is not canonical (the canonical text has none).
      const canonical = isReadManifestTextCanonical(source, data, styles.flow);
      if (canonical !== undefined) known.set(parsed.file, canonical && source === text);
      return;
    }
    const canonical = formatReadManifestText(source, data, styles.flow);
    if (canonical !== undefined) known.set(parsed.file, canonical === text ? true : canonical);
  };
  recordSimpleYamlStyles(styles);
  try {
    return { manifests: await loadManifests(paths, { cwd: ctx.cwd, onFile: judge, diagnosticsOnly: true }), known };
  } finally {
    recordSimpleYamlStyles(undefined);
  }
}

/** The text as read, a byte order mark kept: a file that starts with one is not in canonical form. */
const UTF8_WITH_BOM = new TextDecoder('utf-8', { ignoreBOM: true });

function rewrite(file: string, text: string): void {
  try {
    const target = realpathSync(file);
    writeFileAtomicSync(target, text, { mode: statSync(target).mode & 0o7777 });
  } catch (err) {
    throw new MftopsError(`cannot write ${file} (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
}
