import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Diagnostic } from '../../src/manifest/diagnostics.js';
import { parseManifestFile, type ParsedDocument } from '../../src/manifest/parse.js';
import type { JsonPath, VarValue } from '../../src/manifest/types.js';
import { substituteVariables, type ManifestEnvironment } from '../../src/manifest/variables.js';

const ENV: ManifestEnvironment = { name: 'staging', vars: { n: 5, s: 'acme', l: ['a', 'b'], b: true } };

/** A document of `data`, placed at its path (the path written out as the line's text). */
function docOf(data: unknown): ParsedDocument {
  const start = { file: '/m.yaml', line: 1, col: 1 };
  return {
    file: '/m.yaml',
    index: 0,
    data,
    start,
    sourceMap: { locate: (path) => ({ file: '/m.yaml', line: 1, col: 1, endCol: undefined, text: JSON.stringify(path) }) as never },
  };
}

/**
 * What substitution gives for data whose strings are plain words or whole references (the
 * README's rules, written out the simple way): a defined variable outside a secret value takes its
 * value (a list copied); a reference in a secret value (a key naming a password, or `value` beside
 * `secret: true`) or to an undefined variable stays, its path unresolved.
 */
function expected(data: unknown, path: JsonPath, secret: boolean, unresolved: JsonPath[]): unknown {
  if (typeof data === 'string') {
    const whole = /^\$\{var:([^}]*)\}$/.exec(data);
    if (whole === null) return data;
    const name = whole[1]!.trim();
    if (secret || !Object.hasOwn(ENV.vars, name)) {
      unresolved.push(path);
      return data;
    }
    const value = ENV.vars[name]!;
    return Array.isArray(value) ? [...value] : value;
  }
  if (Array.isArray(data)) return data.map((item, i) => expected(item, [...path, i], false, unresolved));
  if (typeof data === 'object' && data !== null) {
    const record = data as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(record)) {
      const value = expected(record[key], [...path, key], /password/i.test(key) || (record.secret === true && key === 'value'), unresolved);
      Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
    }
    return out;
  }
  return data;
}

const text = fc.oneof(
  fc.constantFrom('plain', 'a {var: b}', '$', ''),
  fc.constantFrom('${var:n}', '${var:s}', '${var:l}', '${var:b}', '${var: s }', '${var:missing}'),
);
const key = fc.constantFrom('Name', 'Password', 'dbPassword', 'value', 'secret', 'steps', '__proto__');
const data = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, text, fc.integer(), fc.boolean(), fc.constant(null), tie('array'), tie('object')),
  array: fc.array(tie('value'), { maxLength: 4 }),
  object: fc.dictionary(key, fc.oneof(tie('value'), fc.constant(true)), { maxKeys: 4 }),
})).object;

describe('substituteVariables', () => {
  it('substitutes whole references, leaves secret and undefined ones unresolved, and copies nothing without one', () => {
    fc.assert(
      fc.property(data, (input) => {
        const before = JSON.stringify(input);
        const diagnostics: Diagnostic[] = [];
        const used = new Map<string, VarValue>();
        const doc = docOf(input);
        const out = substituteVariables(doc, ENV, diagnostics, used);
        const unresolved: JsonPath[] = [];
        expect(out.data).toEqual(expected(input, [], false, unresolved));
        expect(out.unresolved ?? []).toEqual(unresolved);
        expect(diagnostics.map((d) => d.code)).toEqual(unresolved.map(() => expect.stringMatching(/^MF32[01]$/)));
        expect(JSON.stringify(input)).toBe(before);
        if (!before.includes('{var:')) expect(out).toBe(doc);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('a file the parser marks as without variables', () => {
  it('holds no value with `{var:` in it, however its strings are written', () => {
    const piece = fc.constantFrom('{', 'var', ':', '$', '\\', 'x7b', 'u007B', '"', "'", ' ', '\n', '\n  ', 'a', '}', '#');
    const scalar = fc.array(piece, { maxLength: 12 }).map((p) => p.join(''));
    const line = fc
      .tuple(fc.constantFrom('plain', 'double', 'single', 'block'), scalar)
      .map(([style, s]) => (style === 'double' ? `"${s}"` : style === 'single' ? `'${s}'` : style === 'block' ? `|\n  ${s.replace(/\n/g, '\n  ')}` : s));
    fc.assert(
      fc.property(fc.array(line, { minLength: 1, maxLength: 3 }), (values) => {
        const text = `spec:\n${values.map((v, i) => `  k${i}: ${v}\n`).join('')}`;
        const parsed = parseManifestFile('/m.yaml', text);
        if (parsed.noVariables !== true) return;
        for (const doc of parsed.documents) expect(JSON.stringify(doc.data)).not.toContain('{var:');
      }),
      { numRuns: 3000 },
    );
    expect(parseManifestFile('/m.yaml', 'a: "\\x7Bvar:n}"\n').noVariables).toBeUndefined();
    expect(parseManifestFile('/m.yaml', 'a: b\n').noVariables).toBe(true);
  });
});
