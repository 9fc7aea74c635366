import { describe, expect, it } from 'vitest';
import { documentIndexAt, editManifestText } from '../../src/adopt/edit-manifest-text.js';

describe('editManifestText', () => {
  it('sets a scalar and keeps the comment of its line', () => {
    const t = "# top\napiVersion: v1 # c\nspec:\n  a: 'x' # keep\n---\nkind: X\nn: 3\n";
    expect(editManifestText(t, [{ op: 'set', document: 0, path: ['spec', 'a'], value: 'yes' }, { op: 'set', document: 1, path: ['n'], value: 'hello world' }])).toEqual({
      ok: true,
      text: '# top\napiVersion: v1 # c\nspec:\n  a: "yes" # keep\n---\nkind: X\nn: hello world\n',
    });
  });
  it('finds the document of a line', () => {
    const t = '# top\napiVersion: v1 # c\nspec:\n  a: 1\n---\nkind: X\nn: 3\n';
    expect([0, 1, 2, 3, 4, 5, 6, 7, 8, 9].map((l) => documentIndexAt(t, l))).toEqual([undefined, 0, 0, 0, 0, 1, 1, 1, undefined, undefined]);
  });
});
