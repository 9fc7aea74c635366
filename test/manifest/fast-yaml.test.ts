import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LineCounter, parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { generateTaskManifest } from '../../bench/generate-manifests.js';
import { parseSimpleYaml } from '../../src/manifest/fast-yaml.js';

/**
 * Differential test of the fast manifest reader against the `yaml` package with the loader's own
 * options: on every input it must either decline (undefined) or give exactly the same documents,
 * data and start positions. A wrong answer here would be silent data corruption in a plan.
 */
function reference(text: string): { index: number; data: unknown; line: number; col: number }[] | 'invalid' {
  const lineCounter = new LineCounter();
  const docs = parseAllDocuments(text, { lineCounter, uniqueKeys: true, merge: true, prettyErrors: false, logLevel: 'silent', strict: true });
  const list = Array.isArray(docs) ? docs : [];
  if (list.some((d) => d.errors.length > 0 || d.warnings.length > 0)) return 'invalid';
  const out: { index: number; data: unknown; line: number; col: number }[] = [];
  list.forEach((doc, index) => {
    const c = doc.contents as { range?: [number, number, number]; value?: unknown } | null;
    if (c === null || (c.value === null && c.range?.[0] === c.range?.[1])) return;
    const data = doc.toJS({ maxAliasCount: 100 });
    const pos = lineCounter.linePos(c.range?.[0] ?? 0);
    out.push({ index, data, line: pos.line, col: pos.col });
  });
  return out;
}

function expectAgreement(text: string, label: string): 'fast' | 'declined' {
  const fast = parseSimpleYaml(text);
  if (fast === undefined) return 'declined';
  const ref = reference(text);
  expect(ref, `${label}: the fast reader accepted YAML the full parser rejects`).not.toBe('invalid');
  const fastShape = fast.map((d) => ({ index: d.index, data: d.data, line: d.line, col: d.col }));
  expect(JSON.stringify(fastShape), label).toBe(JSON.stringify(ref));
  expect(fastShape, label).toEqual(ref);
  return 'fast';
}

const SCALARS = [
  'True',
  'TRUE',
  'true',
  'False',
  'false',
  'yes',
  'No',
  'on',
  'off',
  'null',
  'Null',
  'NULL',
  '~',
  '',
  '0x1F',
  '0o17',
  '017',
  '007',
  '+12',
  '-0',
  '0',
  '-1',
  '1.5',
  '1.0',
  '1e3',
  '.inf',
  '-.Inf',
  '.nan',
  '1_000',
  '12:30',
  '2026-01-01',
  "'it''s'",
  '"a\\"b"',
  '"tab\\t"',
  '"\\u00e9"',
  'http://x.y/z',
  'a#b',
  'a #b',
  'v # comment',
  '"${env:X}"',
  '${env:X}',
  '*.csv',
  '"*.csv"',
  "'*.csv'",
  '!tag x',
  '&a x',
  'a:b',
  '"unicode é"',
  'é',
  'v   ',
  '[a, b]',
  '{a: 1}',
  '[]',
  '{}',
  '[a, [b, c]]',
  '{a: [1, 2], b: {c: d}}',
  '"a: b"',
  "'# not a comment'",
  '- a',
  '? x',
  '|',
  '>-',
  '@x',
  '`x`',
  '%x',
  'a, b',
  '[a, b',
  '{a: 1',
  '"unterminated',
  "'x' y",
  'x: y: z',
];

function corpus(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...corpus(p));
    else if (/\.ya?ml$/.test(name)) out.push(p);
  }
  return out;
}

const root = fileURLToPath(new URL('../../', import.meta.url));

describe('fast YAML reader agrees with the yaml package or declines', () => {
  it('on tricky scalars as mapping values, list items, and inside flow collections', () => {
    for (const s of SCALARS) {
      for (const text of [`k: ${s}\n`, `- ${s}\n`, `k:\n  - ${s}\n`, `k: [${s}]\n`, `k: {a: ${s}}\n`, `${s}: v\n`, `a:\n  b: ${s}\n  c: 1\n`]) {
        expectAgreement(text, JSON.stringify(text));
      }
    }
  });

  it('on structural shapes: nesting, sequences at the key indent, empty values, documents, comments', () => {
    const shapes = [
      'a:\n- x\n- y\n',
      'a:\n  - b: 1\n    c: 2\n  - d\n',
      '- - a\n  - b\n- c\n',
      'a:\n',
      'a:\nb: 1\n',
      'a: 1\n---\nb: 2\n',
      '---\na: 1\n',
      '# only a comment\n',
      'a: 1\n...\n',
      'a: 1\n\n\nb: 2\n',
      'a: 1 # c\n# c\nb: 2\n',
      'a: 1\na: 2\n',
      'a:\n  b:\n    c: [1, 2]\n',
      '"quoted key": 1\n',
      "'q': 1\n",
      'key with spaces: v\n',
      'a: 1\n  b: 2\n',
      'a:\n b: 1\n  c: 2\n',
      'a: |\n  block\n',
      'a: >-\n  folded\n',
      "a: 'multi\n  line'\n",
      'a: "multi\n  line"\n',
      'a: plain\n  continued\n',
      '<<: {a: 1}\nb: 2\n',
      'a: &x 1\nb: *x\n',
      '- a\n-\n- c\n',
      'a: -1\nb: - x\n',
      '\ufeffa: 1\n',
      'a: 1\r\nb: 2\r\n',
    ];
    for (const text of shapes) expectAgreement(text, JSON.stringify(text));
  });

  it('on every example manifest, every file of the invalid corpus, and generated manifests', () => {
    let fast = 0;
    const files = [...corpus(join(root, 'examples/manifests')), ...corpus(join(root, 'test/fixtures/invalid'))];
    for (const f of files) if (expectAgreement(readFileSync(f, 'utf8'), f) === 'fast') fast++;
    for (let i = 0; i < 400; i++) if (expectAgreement(generateTaskManifest(i), `generated ${i}`) === 'fast') fast++;
    // The point of the reader: the examples and generated manifests take the fast path.
    expect(fast).toBeGreaterThan(400);
  });

  it('on Unicode white space, which YAML keeps in scalars (only spaces are blanks to it)', () => {
    // U+00A0, U+3000, U+2028, U+FEFF, form feed, vertical tab: `trim` would drop them, YAML does not.
    const blanks = ['\u00a0', '\u3000', '\u2028', '\u2029', '\ufeff', '\u0085', '\f', '\v', '\u200b'];
    for (const b of blanks) {
      const texts = [
        `k: v${b}\n`,
        `k: v${b} # c\n`,
        `k: "v"${b}\n`,
        `k: [a${b}, b]\n`,
        `k: {a: b${b}}\n`,
        `k:${b}\n  a: 1\n`,
        `k: v\n${b}\n`,
        `${b}k: v\n`,
        `k: ${b}v\n`,
        `- a${b}\n`,
        `k:\n  - ${b}\n`,
        `k: 'v'${b}\n`,
        `a b${b}: 1\n`,
      ];
      for (const text of texts) expectAgreement(text, JSON.stringify(text));
    }
  });

  it('on documents longer than its line table, and on small ones after a very long one', () => {
    expect(expectAgreement(Array.from({ length: 600 }, (_, i) => `key${i}: [value, ${i}]\n`).join(''), '600 lines')).toBe('fast');
    const numbers = Array.from({ length: 70_000 }, (_, i) => i);
    const long = parseSimpleYaml(`list:\n${numbers.map((n) => `  - ${n}\n`).join('')}last: true\n`);
    expect(JSON.stringify(long?.map((d) => d.data))).toBe(JSON.stringify([{ list: numbers, last: true }]));
    expect(expectAgreement('a:\n  - b: 1\n    c: [x, y]\n', 'after the long one')).toBe('fast');
  });

  it('on keys that look alike to its key cache (same length, same hash)', () => {
    // "Aa" and "BB" have the same 31-based hash; so do "AaAa", "AaBB", "BBAa" and "BBBB".
    const text = 'Aa: 1\nBB: 2\nAaAa: {x: 1}\nAaBB: 3\nBBAa: 4\nBBBB:\n  Aa: 5\n  BB: 6\n';
    expect(expectAgreement(text, 'colliding keys')).toBe('fast');
    expect(parseSimpleYaml(text)?.[0]?.data).toEqual({ Aa: 1, BB: 2, AaAa: { x: 1 }, AaBB: 3, BBAa: 4, BBBB: { Aa: 5, BB: 6 } });
    // A key refused once (`true:` is not a string key) is refused again, and its neighbours are not.
    for (const t of ['true: 1\n', 'x: 1\ntrue: 1\n', 'x: 1\n', 'True: 1\n']) expectAgreement(t, JSON.stringify(t));
  });

  it('after declining a document midway through a flow collection', () => {
    expect(parseSimpleYaml(`k: ${'['.repeat(40)}${']'.repeat(40)}\n`)).toBeUndefined();
    expect(parseSimpleYaml("k: [a, 'unterminated\n")).toBeUndefined();
    for (const t of ['k: [[[a]]]\n', "k: [a, 'b''c', {d: e}]\n", 'k: {a: [1, 2]}\n']) expect(expectAgreement(t, t)).toBe('fast');
  });

  it('on 5,000 random documents built from manifest-like pieces (seeded)', () => {
    let seed = 20261122;
    const rnd = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const pick = <T>(xs: readonly T[]): T => xs[rnd(xs.length)]!;
    const KEYS = ['Name', 'Path', 'FileMask', 'a', 'Host', 'on', 'No', 'x y', '"q"', "'s'", 'k-1', 'True', '1', 'null', '_'];
    const value = (depth: number): string => {
      switch (rnd(depth > 2 ? 3 : 5)) {
        case 0:
        case 1:
          return pick(SCALARS);
        case 2:
          return `[${Array.from({ length: rnd(4) }, () => pick(SCALARS)).join(', ')}]`;
        case 3:
          return `{${Array.from({ length: rnd(3) }, () => `${pick(KEYS)}: ${pick(SCALARS)}`).join(', ')}}`;
        default:
          return pick(['', '# note']);
      }
    };
    const block = (indent: number, depth: number): string[] => {
      const pad = ' '.repeat(indent);
      const lines: string[] = [];
      const n = 1 + rnd(4);
      const asList = rnd(3) === 0;
      for (let i = 0; i < n; i++) {
        const head = asList ? `${pad}- ` : `${pad}${pick(KEYS)}: `;
        const v = value(depth);
        if ((v === '' || v === '# note') && depth < 4) {
          lines.push(`${head}${v}`.trimEnd());
          lines.push(...block(indent + pick([1, 2, 4]), depth + 1));
        } else lines.push(`${head}${v}`);
        if (rnd(6) === 0) lines.push(pick(['', '# comment', `${pad}# indented comment`]));
      }
      return lines;
    };
    let fast = 0;
    for (let i = 0; i < 5000; i++) {
      const docs = Array.from({ length: 1 + rnd(2) }, () => block(0, 0).join('\n'));
      const text = `${docs.join('\n---\n')}\n`;
      if (expectAgreement(text, JSON.stringify(text)) === 'fast') fast++;
    }
    // Enough of them take the fast path for the comparison to mean something.
    expect(fast).toBeGreaterThan(500);
  });
});
