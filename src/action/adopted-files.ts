import { readFileSync, statSync } from 'node:fs';
import { isAbsolute, join, relative, sep } from 'node:path';
import { applyPatch } from 'diff';
import type { AdoptionReport } from '../adopt/model.js';
import { MftopsError, systemError } from '../errors.js';
import type { TreeFile } from './github-api.js';

/**
 * The files a dry-run adoption would write, as tree entries from the repository root: each
 * file's diff applied to its text in the checkout (which stays as it is), a removed file as
 * `text: null`. `cwd` is the folder the adoption's paths are relative to; `repoRoot` the
 * checkout's root (GITHUB_WORKSPACE). A file outside the checkout is refused: it is in no commit.
 */
export function adoptedTreeFiles(report: AdoptionReport, cwd: string, repoRoot: string): TreeFile[] {
  return report.files.map((f) => {
    const full = isAbsolute(f.path) ? f.path : join(cwd, f.path);
    const path = relative(repoRoot, full);
    if (path === '' || path.startsWith('..') || isAbsolute(path))
      throw new MftopsError(`on-drift adopt-pr: ${f.path} is outside the checked-out repository ${repoRoot}: it cannot be part of a pull request`);
    const treePath = path.split(sep).join('/');
    if (f.action === 'deleted') return { path: treePath, text: null, mode: '100644' };
    const before = f.action === 'created' ? '' : readText(full);
    const after = applyPatch(before, f.diff);
    if (after === false) throw new Error(`bug: the adoption diff of ${f.path} does not apply to the file it was made from`);
    const mode = f.action === 'edited' && (statSync(full).mode & 0o111) !== 0 ? '100755' : '100644';
    return { path: treePath, text: after, mode };
  });
}

function readText(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw systemError(`cannot read ${file}`, err);
  }
}
