import { readFileSync, writeFileSync } from 'node:fs';
import fc from 'fast-check';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { documentIndexAt, editManifestText } from '../../src/adopt/edit-manifest-text.js';
import type { ManifestEdit } from '../../src/adopt/edit-manifest-text.js';
import { formatManifestText, schemaKeyOrder } from '../../src/manifest/canonical-form.js';
import type { JsonPath } from '../../src/manifest/types.js';
import type { JsonValue } from '../../src/resources/model.js';

const GOLDEN = new URL('./golden/', import.meta.url);

function before(name: string): string {
  return readFileSync(new URL(`${name}.before.yaml`, GOLDEN), 'utf8');
}

/** The edited text, compared with (or, with UPDATE_GOLDEN=1, written to) `golden/<name>.after.yaml`. */
function expectGolden(name: string, text: string): void {
  const file = new URL(`${name}.after.yaml`, GOLDEN);
  if (process.env.UPDATE_GOLDEN === '1') writeFileSync(file, text);
  expect(text).toBe(readFileSync(file, 'utf8'));
}

function edited(text: string, edits: readonly ManifestEdit[], keyOrder = true): string {
  const out = editManifestText(text, edits, keyOrder ? { keyOrder: schemaKeyOrder } : {});
  if (!out.ok) throw new Error(out.problem);
  return out.text;
}

function data(text: string): unknown[] {
  const docs = parseAllDocuments(text);
  return Array.isArray(docs) ? docs.map((d) => d.toJS()) : [];
}

function problemOf(text: string, edits: readonly ManifestEdit[]): string {
  const out = editManifestText(text, edits);
  if (out.ok) throw new Error('expected a refusal');
  return out.problem;
}

describe('editManifestText on realistic manifests (golden before/after)', () => {
  it('a task changed out of band: fields set, a step added and removed, a key added in schema order, comments kept', () => {
    const text = before('task');
    const out = edited(text, [
      { op: 'set', document: 0, path: ['spec', 'Info', 'Description'], value: 'Nightly payroll file to the bank (two runs)' },
      { op: 'set', document: 0, path: ['spec', 'steps', 0, 'Source', 'RetryCount'], value: 5 },
      { op: 'set', document: 0, path: ['spec', 'Group'], value: ['Finance', 'Payroll'] },
      { op: 'set', document: 0, path: ['spec', 'Info', 'Notes'], value: 'Owner: finance-it@example.com\nEscalate to the on-call engineer' },
      { op: 'delete', document: 0, path: ['spec', 'steps', 1] },
      { op: 'append', document: 0, path: ['spec', 'steps'], value: { Destination: { Host: 'archive', Path: '/payroll', OverwriteOrig: 0 } } },
      { op: 'set', document: 1, path: ['spec', 'steps', 0, 'Source', 'RetryCount'], value: 4 },
      { op: 'set', document: 1, path: ['spec', 'Info', 'Notes'], value: '0123' },
      { op: 'delete', document: 2, path: ['metadata', 'previousNames'] },
    ]);
    expectGolden('task', out);
    const [d0, d1, d2] = data(out) as any[];
    expect(d0.spec.steps.map((s: object) => Object.keys(s)[0])).toEqual(['Source', 'Destination', 'Destination']);
    expect(d1.spec.Info).toEqual({ Description: expect.any(String), Notes: '0123' });
    expect(d2.metadata).toEqual({ name: 'Month-end report' });
    // Every comment of the file is still there.
    const comments = (t: string) => t.split('\n').filter((l) => l.trimStart().startsWith('#'));
    expect(comments(out)).toEqual(comments(text));
  });

  it('folder permissions: an entry added, one removed, a permission removed from a flow list, a line comment kept', () => {
    const text = before('folder-permissions');
    const out = edited(text, [
      { op: 'append', document: 0, path: ['spec', 'entries'], value: { permissions: ['listFiles'], user: 'bob' } },
      { op: 'delete', document: 0, path: ['spec', 'entries', 1] },
      { op: 'delete', document: 0, path: ['spec', 'entries', 3, 'permissions', 2] },
      { op: 'set', document: 1, path: ['spec', 'entries', 2, 'permissions'], value: ['listFiles', 'readFiles', 'deleteFiles'] },
      { op: 'set', document: 1, path: ['spec', 'entries', 2, 'sharePermissions'], value: ['readFiles'] },
    ]);
    expectGolden('folder-permissions', out);
    expect(out).toContain('    - user: automation-svc  # the account of the automation server');
    expect(out).toContain('    - user: alice  # reads what Acme sends');
  });

  it('a multi-document file: a document removed with its comment, one added in canonical form, one changed', () => {
    const text = before('multi-document');
    const out = edited(text, [
      { op: 'remove-document', document: 3 },
      { op: 'set', document: 1, path: ['spec', 'permissions'], value: ['TaskRun'] },
      {
        op: 'add-document',
        value: {
          spec: { permissions: ['TaskRun'], userGroup: 'On call', resourceGroup: 'yes' },
          metadata: { name: 'on-call' },
          kind: 'ResourceGroupAcl',
          apiVersion: 'mftops/v1',
        },
      },
    ]);
    expectGolden('multi-document', out);
    expect(out).not.toContain('auditors may run');
    expect(data(out)).toHaveLength(4);
  });

  it('removing the first document keeps the comments at the top of the file (its $schema line, what it holds)', () => {
    const out = edited(before('multi-document'), [{ op: 'remove-document', document: 0 }]);
    expect(out).toMatch(
      /^# yaml-language-server: \$schema=\.\.\/\.\.\/\.\.\/schemas\/manifest\.schema\.json\n# Who may do what in each resource group of the automation server\.\napiVersion: mftops\/v1\n/,
    );
    expect((data(out) as any[]).map((d) => d.metadata.name)).toEqual(['partner-managers', 'operations-auditors', 'finance-auditors']);
  });
});

describe('editManifestText keeps every byte it does not edit', () => {
  const text =
    '# head\napiVersion: mftops/v1\nkind: Task\nmetadata:\n  name: a\nspec:\n  Active: true # was false\n  Info: { Description: "x" }\n\n  steps:\n  - Process: { Script: S }\n';
  const edits: ManifestEdit[] = [
    { op: 'set', document: 0, path: ['spec', 'Active'], value: false },
    { op: 'append', document: 0, path: ['spec', 'steps'], value: { Process: { Script: 'T' } } },
  ];
  const lf =
    '# head\napiVersion: mftops/v1\nkind: Task\nmetadata:\n  name: a\nspec:\n  Active: false # was false\n  Info: { Description: "x" }\n\n  steps:\n  - Process: { Script: S }\n  - Process:\n      Script: T\n';

  it('the line comment of a scalar it sets, quoting, blank lines and a zero-indented list', () => {
    expect(edited(text, edits)).toBe(lf);
  });

  it('CRLF line endings, in what it keeps and what it writes', () => {
    expect(edited(text.replaceAll('\n', '\r\n'), edits)).toBe(lf.replaceAll('\n', '\r\n'));
  });

  it('a byte-order mark', () => {
    expect(edited(`\ufeff${text}`, edits)).toBe(`\ufeff${lf}`);
    expect(edited(`\ufeff${text}`, [{ op: 'set', document: 0, path: ['apiVersion'], value: 'v2' }])).toBe(`\ufeff${text.replace('mftops/v1', 'v2')}`);
  });

  it('a missing final newline', () => {
    expect(edited(text.trimEnd(), edits)).toBe(lf.trimEnd());
    expect(edited('a: 1\nb: 2', [{ op: 'set', document: 0, path: ['b'], value: 3 }])).toBe('a: 1\nb: 3');
    expect(edited('a: 1\nb: 2', [{ op: 'set', document: 0, path: ['c'], value: 3 }])).toBe('a: 1\nb: 2\nc: 3');
  });

  it('strings that would read as something else are quoted, a multi-line string is a block scalar', () => {
    const strings = ['yes', '0123', '1e3', 'null', 'a: b', '02:00', '', ' lead', '#x', 'true', '~'];
    for (const s of strings) {
      const out = edited('a: 1 # c\n', [{ op: 'set', document: 0, path: ['a'], value: s }]);
      expect(data(out)).toEqual([{ a: s }]);
      expect(out).toMatch(/^a: ".*" # c\n$/);
    }
    expect(edited('a: 1 # c\nb: 2\n', [{ op: 'set', document: 0, path: ['a'], value: 'one\ntwo' }])).toBe('a: |- # c\n  one\n  two\nb: 2\n');
    expect(edited('a: 1\n', [{ op: 'set', document: 0, path: ['a'], value: 'plain words' }])).toBe('a: plain words\n');
  });

  it('an empty value, a mapping emptied, a list emptied', () => {
    expect(edited('a:\nb: 1\n', [{ op: 'set', document: 0, path: ['a'], value: 'x' }])).toBe('a: x\nb: 1\n');
    expect(edited('a:\nb: 1\n', [{ op: 'set', document: 0, path: ['a', 'c'], value: 1 }])).toBe('a:\n  c: 1\nb: 1\n');
    expect(edited('a:\n  c: 1\nb: 1\n', [{ op: 'delete', document: 0, path: ['a', 'c'] }])).toBe('a: {}\nb: 1\n');
    expect(edited('a:\n  - 1\nb: 1\n', [{ op: 'delete', document: 0, path: ['a', 0] }])).toBe('a: []\nb: 1\n');
    expect(edited('a: [1]\n', [{ op: 'delete', document: 0, path: ['a', 0] }])).toBe('a: []\n');
    expect(edited('a: {}\n', [{ op: 'set', document: 0, path: ['a', 'b'], value: 'c' }])).toBe('a: { b: c }\n');
    expect(edited('a: []\n', [{ op: 'append', document: 0, path: ['a'], value: 'c' }])).toBe('a: [c]\n');
  });

  it.each<[string, string, ManifestEdit, string]>([
    ['a flow item removed from the middle', 'l: [a, b, c] # c\n', { op: 'delete', document: 0, path: ['l', 1] }, 'l: [a, c] # c\n'],
    ['the last flow item removed', 'l: [a, b, c]\n', { op: 'delete', document: 0, path: ['l', 2] }, 'l: [a, b]\n'],
    ['a flow key removed', 'm: { a: 1, b: 2 }\n', { op: 'delete', document: 0, path: ['m', 'a'] }, 'm: { b: 2 }\n'],
    ['a flow key added', 'm: { a: 1 }\n', { op: 'set', document: 0, path: ['m', 'b'], value: 'x, y' }, 'm: { a: 1, b: "x, y" }\n'],
    ['a flow item appended', 'l: [a]\n', { op: 'append', document: 0, path: ['l'], value: { k: 'v' } }, 'l: [a, { k: v }]\n'],
    ['a nested flow value set', 'm: { x: [1, 2] }\n', { op: 'set', document: 0, path: ['m', 'x', 1], value: 'a b' }, 'm: { x: [1, a b] }\n'],
    ['a multi-line string in flow', 'm: { a: 1 }\n', { op: 'set', document: 0, path: ['m', 'a'], value: 'one\ntwo' }, 'm: { a: "one\\ntwo" }\n'],
    ['a flow list replaced, flow kept', 'l: [a] # c\n', { op: 'set', document: 0, path: ['l'], value: ['b', 'yes'] }, 'l: [b, "yes"] # c\n'],
    [
      'an item appended to a block list writes a list of scalars in flow where the item before it does (no mixed styles); the rest in block',
      'entries:\n  - user: a\n    permissions: [x, y]\n    m: { k: [1] }\n    o:\n      - 1\n',
      { op: 'append', document: 0, path: ['entries'], value: { user: 'b', permissions: ['readFiles', 'list files'], m: { k: [2] }, o: [2] } },
      'entries:\n  - user: a\n    permissions: [x, y]\n    m: { k: [1] }\n    o:\n      - 1\n  - user: b\n    permissions: [readFiles, list files]\n    m:\n      k: [2]\n    o:\n      - 2\n',
    ],
    ['a key with its comment removed', 'a: 1\n# about b\n# more\nb: 2\nc: 3\n', { op: 'delete', document: 0, path: ['b'] }, 'a: 1\nc: 3\n'],
    ['comments under a removed item stay with it', 'l:\n  - a\n    # on a\n  - b\n', { op: 'delete', document: 0, path: ['l', 0] }, 'l:\n  - b\n'],
    [
      'a key added after a block list and its comments',
      'm:\n  l:\n    - a\n    # on a\n  # on z\n  z: 1\n',
      { op: 'set', document: 0, path: ['m', 'k'], value: 2 },
      'm:\n  l:\n    - a\n    # on a\n  # on z\n  z: 1\n  k: 2\n',
    ],
  ])('%s', (_name, text, edit, out) => {
    expect(edited(text, [edit])).toBe(out);
  });

  it('deletes of one list given in any order name the list as given', () => {
    const list = 'l:\n  - a\n  - b\n  - c\n  - d\n';
    expect(
      edited(list, [
        { op: 'delete', document: 0, path: ['l', 1] },
        { op: 'set', document: 0, path: ['l', 3], value: 'D' },
        { op: 'delete', document: 0, path: ['l', 2] },
      ]),
    ).toBe('l:\n  - a\n  - D\n');
    // The same item named twice is removed once, never the item after it.
    const twice: ManifestEdit = { op: 'delete', document: 0, path: ['l', 1] };
    expect(edited(list, [twice, twice])).toBe('l:\n  - a\n  - c\n  - d\n');
  });

  it('a key that goes before the first of a compact mapping in a list item takes the dash', () => {
    const fp =
      'apiVersion: mftops/v1\nkind: FolderPermissions\nmetadata: { name: /x }\nspec:\n  entries:\n    - user: bob # the auditor\n      permissions: [listFiles]\n';
    const out = editManifestText(fp, [{ op: 'set', document: 0, path: ['spec', 'entries', 0, 'group'], value: 'Auditors' }], {
      keyOrder: (_kind, path) => (path.at(-2) === 'entries' ? ['group', 'user', 'permissions'] : undefined),
    });
    expect(out.ok && out.text).toBe(fp.replace('    - user: bob', '    - group: Auditors\n      user: bob'));
  });

  it('a key of a compact mapping in a list item: the next key moves up to the dash', () => {
    expect(edited('l:\n  - a: 1\n    b: 2\n', [{ op: 'delete', document: 0, path: ['l', 0, 'a'] }])).toBe('l:\n  - b: 2\n');
  });

  it('only the documents it edits change; the others keep their text', () => {
    const multi = 'a: 1\n---\n# two\nb:   2\n---\nc: [1,2]\n';
    expect(edited(multi, [{ op: 'set', document: 1, path: ['b'], value: 3 }])).toBe('a: 1\n---\n# two\nb:   3\n---\nc: [1,2]\n');
    expect(edited(multi, [{ op: 'remove-document', document: 1 }])).toBe('a: 1\n---\nc: [1,2]\n');
    expect(edited(multi, [{ op: 'remove-document', document: 2 }])).toBe('a: 1\n---\n# two\nb:   2\n');
    expect(edited('', [{ op: 'add-document', value: { a: 1 } }])).toBe('a: 1\n');
    expect(edited('# only a comment\n', [{ op: 'add-document', value: { a: 1 } }])).toBe('# only a comment\na: 1\n');
    expect(edited('a: 1', [{ op: 'add-document', value: { b: 'x' } }])).toBe('a: 1\n---\nb: x\n');
  });

  it('new mappings and added keys in schema order with keyOrder, as given without it', () => {
    const acl = 'apiVersion: mftops/v1\nkind: ResourceGroupAcl\nmetadata: { name: x }\nspec:\n  resourceGroup: R\n  permissions: []\n';
    const edit: ManifestEdit = { op: 'set', document: 0, path: ['spec', 'userGroup'], value: 'G' };
    expect(edited(acl, [edit])).toContain('  resourceGroup: R\n  userGroup: G\n  permissions: []\n');
    expect(edited(acl, [edit], false)).toContain('  permissions: []\n  userGroup: G\n');
  });
});

describe('editManifestText refuses rather than guess', () => {
  const cases: [string, string, ManifestEdit, RegExp][] = [
    ['an anchor on the way', 'a: &x\n  b: 1\nc: *x\n', { op: 'set', document: 0, path: ['a', 'b'], value: 2 }, /document 0, a\.b: an anchor/],
    ['an alias at the path', 'a: &x 1\nc: *x\n', { op: 'set', document: 0, path: ['c'], value: 2 }, /an alias/],
    ['an anchor inside what a delete removes', 'a:\n  b: &x 1\nc: *x\n', { op: 'delete', document: 0, path: ['a'] }, /an anchor/],
    ['a merge key in the mapping', 'base: &b { x: 1 }\nm:\n  <<: *b\n  y: 2\n', { op: 'set', document: 0, path: ['m', 'y'], value: 3 }, /merge key/],
    ['a ${var:} at the path', 'a: ${var:region}\n', { op: 'set', document: 0, path: ['a'], value: 'eu' }, /reference/],
    ['a ${env:} inside the value set', 'a: { value: "${env:K}", secret: true }\n', { op: 'set', document: 0, path: ['a'], value: 'k' }, /reference/],
    ['a list index that is not there', 'l: [a]\n', { op: 'set', document: 0, path: ['l', 3], value: 'b' }, /list item l\[3\] is not there/],
    ['a scalar in the way', 'a: 1\n', { op: 'set', document: 0, path: ['a', 'b'], value: 2 }, /a is not a mapping/],
    ['a document that is not there', 'a: 1\n', { op: 'delete', document: 1, path: ['a'] }, /document 1: the file has 1 document/],
    ['a tag before the value', 'a: !!str 012\n', { op: 'set', document: 0, path: ['a'], value: 12 }, /a tag/],
    ['a document that does not parse', 'a: [\n', { op: 'set', document: 0, path: ['a'], value: 1 }, /does not read as one YAML document/],
    ['a delete of what is not there', 'a: 1\n', { op: 'delete', document: 0, path: ['b'] }, /b: not there/],
  ];
  it.each(cases)('%s', (_name, text, edit, problem) => {
    const p = problemOf(text, [edit]);
    expect(p).toMatch(problem);
    expect(p).not.toContain('\n');
  });

  it('a problem never quotes a value, old or new', () => {
    const p = problemOf('secret: ${env:TOKEN}\n', [{ op: 'set', document: 0, path: ['secret'], value: 'hunter2' }]);
    expect(p).not.toMatch(/TOKEN|hunter2/);
  });

  it('all edits or none: one refusal leaves nothing half done', () => {
    const out = editManifestText('a: 1\nb: ${var:x}\n', [
      { op: 'set', document: 0, path: ['a'], value: 2 },
      { op: 'set', document: 0, path: ['b'], value: 3 },
    ]);
    expect(out.ok).toBe(false);
  });
});

describe('documentIndexAt', () => {
  it('counts documents as parseAllDocuments does: comments go with the document after their ---', () => {
    const text = '# top\na: 1\n---\n# two\nb: 2\n...\n# after the end\nc: 3\n';
    expect([1, 2, 3, 4, 5, 6, 7, 8, 9].map((l) => documentIndexAt(text, l))).toEqual([0, 0, 1, 1, 1, 1, 2, 2, undefined]);
    expect(documentIndexAt(text, 0)).toBeUndefined();
    expect(documentIndexAt('', 1)).toBeUndefined();
    expect(documentIndexAt('# only a comment\n', 1)).toBeUndefined();
  });

  it('agrees with the parser on random files of documents, markers and comments', () => {
    const line = fc.constantFrom('---', '...', '# c', 'a: 1', '', '--- # c', 'b:', '  - x', '---x: 1');
    fc.assert(
      fc.property(fc.array(line, { maxLength: 12 }), (lines) => {
        const text = lines.join('\n');
        const docs = parseAllDocuments(text);
        const parsed = Array.isArray(docs) ? docs : [];
        if (parsed.some((d) => d.errors.length > 0)) return;
        // The line of each document's first content byte is in that document.
        parsed.forEach((d, i) => {
          if (d.contents === null) return;
          const at = d.contents.range![0];
          const lineNo = text.slice(0, at).split('\n').length;
          expect(documentIndexAt(text, lineNo)).toBe(i);
        });
      }),
    );
  });
});

describe('editManifestText writes what it is given (property)', () => {
  const files = [before('task'), before('folder-permissions'), before('multi-document')];
  const value = fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.jsonValue({ maxDepth: 2, stringUnit: 'grapheme' })) as fc.Arbitrary<JsonValue>;
  const key = fc.oneof(fc.constantFrom('Notes', 'yes', 'a b', '0123', '- x', '#', 'null', ''), fc.string({ maxLength: 8 }));

  /** Every path in a value: the keys of its mappings and the items of its lists, at any depth. */
  function pathsOf(v: unknown, at: JsonPath = []): JsonPath[] {
    if (Array.isArray(v)) return v.flatMap((x, i) => [[...at, i], ...pathsOf(x, [...at, i])]);
    if (v !== null && typeof v === 'object') return Object.entries(v).flatMap(([k, x]) => [[...at, k], ...pathsOf(x, [...at, k])]);
    return [];
  }

  function textsOf(text: string): string[] {
    const docs = parseAllDocuments(text);
    return (Array.isArray(docs) ? docs : []).map((d) => text.slice(d.range[0], d.range[2]));
  }

  const hasReference = (v: unknown): boolean => JSON.stringify(v ?? null).includes('${');

  /** What an edit means for the data of its document (the test's own model of it). */
  function applyToData(root: any, edit: ManifestEdit): void {
    if (!('path' in edit)) return;
    const parent = edit.path.slice(0, -1).reduce<any>((x, seg) => x[seg], root);
    const last = edit.path.at(-1)!;
    if (edit.op === 'delete') {
      if (Array.isArray(parent)) parent.splice(last as number, 1);
      else delete parent[last];
    } else if (edit.op === 'append') parent[last].push(edit.value);
    else Object.defineProperty(parent, last, { value: edit.value, enumerable: true, writable: true, configurable: true });
  }

  it('set, append and delete at random places: the file reads back as meant, other documents unchanged', () => {
    fc.assert(
      fc.property(fc.nat(), fc.nat(), fc.nat(), fc.constantFrom('set', 'append', 'delete', 'new-key'), value, key, (f, d, p, op, v, k) => {
        const text = files[f % files.length]!;
        const docs = data(text) as JsonValue[];
        const document = d % docs.length;
        const paths = pathsOf(docs[document]).filter((path) => path.length > 1);
        const path = paths[p % paths.length]!;
        const old = path.reduce<any>((x, seg) => x[seg], docs[document]);
        if (hasReference(old)) return;
        let edit: ManifestEdit;
        if (op === 'set') edit = { op, document, path, value: v };
        else if (op === 'append') {
          if (!Array.isArray(old)) return;
          edit = { op, document, path, value: v };
        } else if (op === 'delete') edit = { op, document, path };
        else {
          if (old === null || typeof old !== 'object' || Array.isArray(old) || Object.hasOwn(old, k)) return;
          edit = { op: 'set', document, path: [...path, k], value: v };
        }
        const out = editManifestText(text, [edit], { keyOrder: schemaKeyOrder });
        if (!out.ok) throw new Error(out.problem);
        const meant = structuredClone(docs) as any[];
        applyToData(meant[document], edit);
        expect(data(out.text)).toEqual(meant);
        const [was, now] = [textsOf(text), textsOf(out.text)];
        was.forEach((t, i) => {
          if (i !== document) expect(now[i]).toBe(t);
        });
      }),
      { numRuns: 300 },
    );
  });

  it('several edits of one document at once, in any order, with CRLF, a BOM or no final newline', () => {
    const isPrefix = (a: JsonPath, b: JsonPath): boolean => a.length <= b.length && a.every((seg, i) => seg === b[i]);
    const variant = fc.constantFrom(
      (t: string) => t,
      (t: string) => t.replaceAll('\n', '\r\n'),
      (t: string) => `\ufeff${t}`,
      (t: string) => t.trimEnd(),
    );
    fc.assert(
      fc.property(
        fc.nat(),
        fc.nat(),
        fc.array(fc.tuple(fc.nat(), fc.constantFrom('set', 'append', 'delete'), value), { minLength: 1, maxLength: 5 }),
        variant,
        (f, d, picks, encode) => {
          const text = encode(files[f % files.length]!);
          const docs = data(text) as JsonValue[];
          const document = d % docs.length;
          const paths = pathsOf(docs[document]).filter((path) => path.length > 1);
          const chosen: ManifestEdit[] = [];
          for (const [p, op, v] of picks) {
            const path = paths[p % paths.length]!;
            if (chosen.some((e) => 'path' in e && (isPrefix(e.path, path) || isPrefix(path, e.path)))) continue;
            const old = path.reduce<any>((x, seg) => x[seg], docs[document]);
            if (hasReference(old)) continue;
            if (op === 'append' && !Array.isArray(old)) continue;
            chosen.push(op === 'delete' ? { op, document, path } : { op, document, path, value: v });
          }
          const out = editManifestText(text, chosen, { keyOrder: schemaKeyOrder });
          if (!out.ok) throw new Error(out.problem);
          // The meaning: writes in the order given, then deletes from the last path to the first.
          const meant = structuredClone(docs) as any[];
          const deletes = chosen.filter((e) => e.op === 'delete').sort((a, b) => comparePaths(b.path, a.path));
          for (const e of [...chosen.filter((x) => x.op !== 'delete'), ...deletes]) {
            if (!('path' in e)) continue;
            applyToData(meant[document], e);
          }
          expect(data(out.text)).toEqual(meant);
          if (text.includes('\r\n')) expect(out.text.replaceAll('\r\n', '')).not.toContain('\n');
          if (text.startsWith('\ufeff')) expect(out.text.startsWith('\ufeff')).toBe(true);
          if (!text.endsWith('\n')) expect(out.text.endsWith('\n')).toBe(false);
        },
      ),
      { numRuns: 300 },
    );
  });

  function comparePaths(a: JsonPath, b: JsonPath): number {
    for (let i = 0; i < Math.min(a.length, b.length); i++) {
      const [x, y] = [a[i]!, b[i]!];
      if (x !== y) return typeof x === 'number' && typeof y === 'number' ? x - y : String(x) < String(y) ? -1 : 1;
    }
    return a.length - b.length;
  }

  it('what it writes is in the canonical form: a canonical file stays canonical after any edit', () => {
    const canonical = files.map(formatManifestText);
    fc.assert(
      fc.property(fc.nat(), fc.nat(), fc.nat(), fc.constantFrom('set', 'append', 'delete', 'new-key'), value, key, (f, d, p, op, v, k) => {
        const text = canonical[f % canonical.length]!;
        const docs = data(text) as JsonValue[];
        const document = d % docs.length;
        const paths = pathsOf(docs[document]).filter((path) => path.length > 1);
        const path = paths[p % paths.length]!;
        const old = path.reduce<any>((x, seg) => x[seg], docs[document]);
        if (hasReference(old)) return;
        const edit: ManifestEdit | undefined =
          op === 'delete'
            ? { op, document, path }
            : op === 'append'
              ? Array.isArray(old)
                ? { op, document, path, value: v }
                : undefined
              : op === 'set'
                ? { op, document, path, value: v }
                : old !== null && typeof old === 'object' && !Array.isArray(old) && !Object.hasOwn(old, k)
                  ? { op: 'set', document, path: [...path, k], value: v }
                  : undefined;
        if (edit === undefined) return;
        const out = edited(text, [edit, { op: 'add-document', value: v }]);
        expect(formatManifestText(out)).toBe(out);
      }),
      { numRuns: 300 },
    );
  });

  it('add-document: the new document reads back as the value, the file before it is unchanged', () => {
    fc.assert(
      fc.property(fc.nat(), value, fc.boolean(), (f, v, crlf) => {
        const base = [...files, '', 'a: 1'][f % (files.length + 2)]!;
        const text = crlf ? base.replaceAll('\n', '\r\n') : base;
        const out = edited(text, [{ op: 'add-document', value: v }]);
        expect(out.startsWith(text)).toBe(true);
        expect(data(out)).toEqual([...data(text), v]);
      }),
      { numRuns: 300 },
    );
  });
});
