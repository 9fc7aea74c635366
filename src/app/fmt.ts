import { readFileSync, realpathSync, statSync } from 'node:fs';
import { writeFileAtomicSync } from '../atomic-file.js';
import { MftopsError } from '../errors.js';
import { formatManifestText } from '../manifest/canonical-form.js';
import type { FmtFile, FmtReport } from '../render/fmt.js';
import type { AppContext, EnvironmentChoice } from './context.js';
import { loadEnvironmentManifests } from './environment.js';
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
  const { manifests } = await loadEnvironmentManifests(validatePaths(options, ctx), ctx);
  // Read without an environment, a `${var:}` has no value (MF320): that does not stop formatting.
  const errors = manifests.diagnostics.filter((d) => d.severity === 'error' && d.code !== 'MF320');
  const invalid = new Set(errors.flatMap((d) => (d.file !== undefined ? [d.file] : [])));
  const files = manifests.files.map((file): FmtFile => {
    if (invalid.has(file)) return { file, state: 'invalid' };
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

function rewrite(file: string, text: string): void {
  try {
    const target = realpathSync(file);
    writeFileAtomicSync(target, text, { mode: statSync(target).mode & 0o7777 });
  } catch (err) {
    throw new MftopsError(`cannot write ${file} (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
}
