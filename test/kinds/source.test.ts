import { isAbsolute, relative } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { pathBelow, sourceRef } from '../../src/kinds/source.js';

/** What sourceRef answered before `pathBelow`: `relative` alone. */
function relativeRef(cwd: string, file: string): string {
  const rel = relative(cwd, file);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? rel : file;
}

// Paths from a few segments, with the spellings `relative` normalises: `.`, `..`, empty segments,
// trailing slashes, names that start with dots.
const segment = fc.constantFrom('', '.', '..', '...', '.hidden', '..x', 'a', 'b', 'manifests', 'tasks', 'x.yaml', ' sp ace', 'ü');
const path = fc.array(segment, { minLength: 0, maxLength: 5 }).map((parts) => `/${parts.join('/')}`);

describe('sourceRef', () => {
  it('shows a manifest path as `relative` does, whether the path is plain or not (differential)', () => {
    fc.assert(
      fc.property(path, path, fc.boolean(), (cwd, tail, below) => {
        const file = below ? `${cwd}${tail}` : tail;
        expect(sourceRef({ file, line: 3, col: 5 }, cwd)).toEqual({ file: relativeRef(cwd, file), line: 3, col: 5 });
      }),
      { numRuns: 3000 },
    );
  });

  it('answers a plain path below the working folder without `relative`', () => {
    expect(pathBelow('/work/repo', '/work/repo/manifests/task-1.yaml')).toBe('manifests/task-1.yaml');
    expect(pathBelow('/work/repo', '/work/repository/task.yaml')).toBeUndefined();
    expect(pathBelow('/work/repo/', '/work/repo/task.yaml')).toBeUndefined();
    expect(pathBelow('/work/repo', '/work/repo/../other/task.yaml')).toBeUndefined();
  });
});
