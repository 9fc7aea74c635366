import fc from 'fast-check';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { generateTaskManifest } from '../../bench/generate-manifests.js';
import { documentText } from '../../src/import/write-files.js';
import { emitCanonicalYaml } from '../../src/manifest/emit-canonical-yaml.js';

/**
 * Differential test of the fast canonical writer against the `yaml` Document path it replaces in
 * import (`documentText`): on every value it must either decline (undefined) or give exactly the
 * same text. A wrong answer would be a manifest file that differs from what import wrote before.
 */
function expectAgreement(value: Record<string, unknown>): 'fast' | 'declined' {
  const fast = emitCanonicalYaml(value);
  if (fast === undefined) return 'declined';
  expect(fast).toBe(documentText(value));
  return 'fast';
}

/** Pieces that sit on the edges of YAML's plain, quoted and typed scalars. */
const TRICKY = [
  '',
  ' ',
  'a',
  '-',
  '?',
  ':',
  '#',
  ' #',
  ': ',
  '- ',
  '? ',
  '*',
  '&',
  '!',
  '|',
  '>',
  "'",
  '"',
  '%',
  '@',
  '`',
  ',',
  '[',
  ']',
  '{',
  '}',
  '---',
  '...',
  '\\',
  '\t',
  '\n',
  '\r',
  '\u0000',
  '\u0085',
  '\u00a0',
  '\u2028',
  '\ufeff',
  'é',
  '😀',
  '\ud800',
  'true',
  'True',
  'yes',
  'null',
  '~',
  '0',
  '007',
  '0o17',
  '0x1F',
  '1e3',
  '.5',
  '.inf',
  '-.Inf',
  '.nan',
  '12:30',
  '02:00',
  '${env:X}',
  '[OrigName]',
  '*.csv',
  'x'.repeat(1030),
];

function documentOf(text: fc.Arbitrary<string>, scalar: fc.Arbitrary<unknown>): fc.Arbitrary<Record<string, unknown>> {
  const { tree } = fc.letrec<{ tree: unknown; map: Record<string, unknown>; list: unknown[] }>((tie) => ({
    tree: fc.oneof({ depthSize: 'small', withCrossShrink: true }, scalar, tie('map'), tie('list')),
    map: fc.dictionary(text, tie('tree'), { maxKeys: 4 }),
    list: fc.array(tie('tree'), { maxLength: 3 }),
  }));
  return fc.record({
    apiVersion: fc.constant('mftops/v1'),
    kind: fc.constantFrom('Task', 'FolderPermissions'),
    metadata: fc.record({ name: text }),
    spec: fc.dictionary(text, tree, { maxKeys: 5 }),
  });
}

const anyText = fc.oneof(
  fc.array(fc.constantFrom(...TRICKY), { maxLength: 4 }).map((parts) => parts.join('')),
  fc.string({ unit: 'grapheme', maxLength: 12 }),
  fc.string({ unit: 'binary', maxLength: 6 }),
  fc.constantFrom('Name', 'Description', 'Host', 'Path', 'Payroll to bank', '/in/done', 'svc-gen'),
);

/** Any data, inside the subset or not. */
const anyDocument = documentOf(
  anyText,
  fc.oneof(
    anyText,
    fc.integer({ min: -1e6, max: 1e6 }),
    fc.constantFrom(0, -0, 1.5, 2 ** 60, Number.NaN, Number.POSITIVE_INFINITY),
    fc.boolean(),
    fc.constant(null),
    fc.constant(undefined),
  ),
);

/** Data inside the subset the writer takes (see its comment): it must take every one. */
const inSubset = (s: string): boolean => !/[\u0000-\u001f\u007f-\u009f\ud800-\udfff\u2028\u2029\ufeff]|^---|^\.\.\./.test(s) && s.length <= 1000;
const subsetText = anyText.filter(inSubset);
const subsetDocument = documentOf(subsetText, fc.oneof(subsetText, fc.integer({ min: -1e9, max: 1e9 }), fc.boolean(), fc.constant(null)));

describe('emitCanonicalYaml', () => {
  it('writes what the yaml Document path writes, or declines', () => {
    fc.assert(
      fc.property(anyDocument, (value) => {
        expectAgreement(value);
      }),
      { numRuns: 2000 },
    );
  });

  it('takes all data of its subset, writing what the yaml Document path writes', () => {
    fc.assert(
      fc.property(subsetDocument, (value) => {
        expect(expectAgreement(value)).toBe('fast');
      }),
      { numRuns: 2000 },
    );
  });

  it('agrees on single values of every edge piece, as key and as value, in maps and lists', () => {
    for (const piece of TRICKY) {
      for (const v of [piece, `x${piece}`, `${piece}x`, `a ${piece} b`]) {
        expectAgreement({ kind: 'Task', spec: { [v]: v, list: [v, [v], { [v]: [v] }], nested: { deeper: { k: v } } } });
      }
    }
  });

  it('takes every generated bench task, the shape import writes most', () => {
    for (let i = 0; i < 300; i++) {
      const value = parse(generateTaskManifest(i)) as Record<string, unknown>;
      expect(expectAgreement(value), `task ${i}`).toBe('fast');
    }
  });

  it('writes empty collections in flow and nested lists and maps in block form', () => {
    const value = {
      apiVersion: 'mftops/v1',
      kind: 'Task',
      metadata: { name: 'T' },
      spec: { a: [], b: {}, c: [[1, 2], [], [{}]], d: [{ e: { f: ['02:00'] }, g: "it's" }] },
    };
    expect(emitCanonicalYaml(value)).toBe(
      [
        'apiVersion: mftops/v1',
        'kind: Task',
        'metadata:',
        '  name: T',
        'spec:',
        '  a: []',
        '  b: {}',
        '  c:',
        '    - - 1',
        '      - 2',
        '    - []',
        '    - - {}',
        '  d:',
        '    - e:',
        '        f:',
        '          - "02:00"',
        "      g: it's",
        '',
      ].join('\n'),
    );
    expectAgreement(value);
  });
});
