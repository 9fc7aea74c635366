import type { AnySchemaObject } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { normalizeSpec } from '../../src/manifest/normalize.js';
import { getKindSchema } from '../../src/manifest/schemas.js';
import { MANIFEST_KINDS } from '../../src/manifest/types.js';
import { parseSecretRef } from '../../src/secret.js';
import { WEEK_DAYS, canonicalDayName } from '../../src/vocabulary.js';

/**
 * Differential test of normalizeSpec (which reads each schema once into a plan) against the
 * plain walk it replaced, which reads the schema at every value: same output, same objects shared
 * with the input, on random data shaped like each kind's spec and on hand-made schemas.
 */
function reference(spec: unknown, specSchema: AnySchemaObject, root: AnySchemaObject): unknown {
  const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  const setOwn = (target: Record<string, unknown>, key: string, value: unknown): void => {
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  };
  const isFlag = (schema: AnySchemaObject): boolean => {
    const e = schema.enum as unknown[] | undefined;
    return Array.isArray(e) && e.length === 4 && [0, 1, true, false].every((v) => e.includes(v));
  };
  const resolveRef = (schema: AnySchemaObject): AnySchemaObject => {
    let current = schema;
    for (let hops = 0; typeof current.$ref === 'string' && hops < 10; hops++) {
      const ref = current.$ref as string;
      if (!ref.startsWith('#/')) break;
      let target: unknown = root;
      for (const part of ref.slice(2).split('/')) target = isRecord(target) ? target[part] : undefined;
      if (!isRecord(target)) break;
      current = target as AnySchemaObject;
    }
    return current;
  };
  const walk = (data: unknown, schema: AnySchemaObject | undefined, depth: number): unknown => {
    if (schema === undefined || depth > 64) return data;
    const resolved = resolveRef(schema);
    if (isFlag(resolved) && typeof data === 'boolean') return data ? 1 : 0;
    if (resolved.title === 'Parameters' && isRecord(data)) {
      const out: Record<string, unknown> = {};
      for (const [name, raw] of Object.entries(data)) {
        const value = isRecord(raw) ? raw.value : raw;
        const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value : '';
        setOwn(out, name, { value: text, secret: (isRecord(raw) && raw.secret === true) || parseSecretRef(text) !== undefined });
      }
      return out;
    }
    if (Array.isArray(data)) {
      const items = resolved.items === undefined ? undefined : resolveRef(resolved.items as AnySchemaObject);
      const dayEnum = items?.enum as unknown[] | undefined;
      if (Array.isArray(dayEnum) && WEEK_DAYS.every((d) => dayEnum.includes(d)))
        return [...new Set(data.map((d) => (typeof d === 'string' ? (canonicalDayName(d) ?? d) : d)))];
      return data.map((item) => walk(item, resolved.items as AnySchemaObject | undefined, depth + 1));
    }
    if (isRecord(data)) {
      const props = (resolved.properties ?? {}) as Record<string, AnySchemaObject>;
      const out: Record<string, unknown> = {};
      for (const [key, value] of Object.entries(data)) setOwn(out, key, walk(value, Object.hasOwn(props, key) ? props[key] : undefined, depth + 1));
      return out;
    }
    return data;
  };
  return walk(spec, specSchema, 0);
}

/** Same keys in the same order, same prototypes, same values, and the same objects shared with the input. */
function expectSame(actual: unknown, expected: unknown, input: unknown, path: string): void {
  expect(actual === input, `${path}: shared with the input`).toBe(expected === input);
  if (typeof expected !== 'object' || expected === null) {
    expect(actual, path).toBe(expected);
    return;
  }
  expect(typeof actual === 'object' && actual !== null, path).toBe(true);
  const a = actual as Record<string, unknown>;
  const e = expected as Record<string, unknown>;
  const i = (typeof input === 'object' && input !== null ? input : {}) as Record<string, unknown>;
  expect(Object.getPrototypeOf(a), `${path}: prototype`).toBe(Object.getPrototypeOf(e));
  expect(Array.isArray(a), path).toBe(Array.isArray(e));
  expect(Object.keys(a), `${path}: keys`).toEqual(Object.keys(e));
  for (const key of Object.keys(e)) expectSame(a[key], e[key], Object.hasOwn(i, key) ? i[key] : undefined, `${path}/${key}`);
}

/** A seeded generator of data that mostly follows a schema and sometimes does not. */
function generator(seed: number, root: AnySchemaObject) {
  const rnd = (n: number): number => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    // The high bits: the low bits of this generator repeat with short periods.
    return (seed >>> 12) % n;
  };
  const pick = <T>(xs: readonly T[]): T => xs[rnd(xs.length)]!;
  const resolve = (schema: unknown): AnySchemaObject => {
    let s = schema as AnySchemaObject;
    for (let hops = 0; typeof s?.$ref === 'string' && s.$ref.startsWith('#/') && hops < 10; hops++) {
      let t: unknown = root;
      for (const part of s.$ref.slice(2).split('/')) t = (t as Record<string, unknown> | undefined)?.[part];
      if (typeof t !== 'object' || t === null) break;
      s = t as AnySchemaObject;
    }
    return typeof s === 'object' && s !== null ? s : {};
  };
  const scalar = (): unknown => pick([true, false, 0, 1, 2, -1, '', 'x', '${env:A}', '${file:/x}', 'Password', null]);
  const value = (schema: unknown, depth: number): unknown => {
    if (depth > 8 || rnd(12) === 0) return rnd(3) === 0 ? pick([[], {}]) : scalar();
    const s = resolve(schema);
    if (s.title === 'Parameters' || rnd(20) === 0) {
      const out: Record<string, unknown> = {};
      for (let n = rnd(4); n > 0; n--) {
        const v = pick([scalar(), { value: scalar(), secret: pick([true, false, 'yes']) }, { secret: true }, [1]]);
        Object.defineProperty(out, pick(['Token', 'Mode', 'ApiKey', 'n', '__proto__']), { value: v, enumerable: true, writable: true, configurable: true });
      }
      return out;
    }
    if (s.properties) {
      const keys = Object.keys(s.properties as object);
      const out: Record<string, unknown> = {};
      for (let n = 1 + rnd(6); n > 0; n--) {
        const key = rnd(8) === 0 ? pick(['extra', 'constructor', 'toString', '__proto__']) : pick(keys);
        const v = value(Object.hasOwn(s.properties as object, key) ? (s.properties as Record<string, unknown>)[key] : undefined, depth + 1);
        Object.defineProperty(out, key, { value: v, enumerable: true, writable: true, configurable: true });
      }
      return out;
    }
    if (s.items) return Array.from({ length: rnd(4) }, () => value(s.items, depth + 1));
    return scalar();
  };
  return value;
}

describe('normalizeSpec gives what the schema-reading walk gave', () => {
  it('on 3,000 random specs of each kind', () => {
    for (const kind of MANIFEST_KINDS) {
      const root = getKindSchema(kind);
      const specSchema = (root.$defs as Record<string, AnySchemaObject>).spec!;
      const value = generator(kind.length * 7919, root);
      for (let i = 0; i < 3000; i++) {
        const spec = value(specSchema, 0);
        expectSame(normalizeSpec(spec, specSchema, root), reference(spec, specSchema, root), spec, `${kind} #${i}`);
      }
    }
  });

  it('on hand-made schemas: boolean and missing subschemas, $ref chains, references it cannot follow, recursion past 64 levels', () => {
    const root: AnySchemaObject = {
      $defs: {
        flag: { enum: [true, false, 1, 0] },
        alias: { $ref: '#/$defs/flag' },
        node: { properties: { on: { $ref: '#/$defs/alias' }, next: { $ref: '#/$defs/node' }, list: { items: { $ref: '#/$defs/node' } } } },
        params: { title: 'Parameters', additionalProperties: true },
      },
      properties: {
        anyItems: { items: true },
        noItems: { type: 'array' },
        boolProp: true,
        falseProp: false,
        remote: { $ref: 'other.json#/flag' },
        broken: { $ref: '#/$defs/missing' },
        notFlag: { enum: [0, 1, true] },
        tree: { $ref: '#/$defs/node' },
        p: { $ref: '#/$defs/params' },
      },
    };
    let deep: Record<string, unknown> = { on: true };
    for (let i = 0; i < 100; i++) deep = { on: i % 2 === 0, next: deep, list: [{ on: false, list: [] }] };
    const inputs: unknown[] = [
      { anyItems: [true, { a: false }], noItems: [[false]], boolProp: { on: true }, falseProp: [true], remote: true, broken: false, notFlag: true },
      { tree: deep },
      { p: { a: 1, b: { value: 2, secret: false }, c: ['x'], d: '${env:D}' } },
      { tree: { on: 'yes', next: [true], list: { on: true } } },
      // Only own keys count, as with Object.entries.
      { tree: Object.assign(Object.create({ next: { on: true } }) as object, { on: true }) },
      JSON.parse('{"p": {"__proto__": {"value": "${env:X}"}}, "tree": {"__proto__": {"on": true}, "on": false}}'),
      [true, false],
      true,
      null,
    ];
    for (const [i, input] of inputs.entries()) expectSame(normalizeSpec(input, root, root), reference(input, root, root), input, `input ${i}`);
  });
});
