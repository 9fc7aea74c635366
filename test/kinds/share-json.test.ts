import fc from 'fast-check';
import { expect, it } from 'vitest';
import { toJson } from '../../src/resources/common.js';
import { shareJson } from '../../src/kinds/share-json.js';

/** Values as manifests hold them and worse: JSON, undefined and function members, non-finite numbers, odd keys and prototypes, holes. */
const key = fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom('__proto__', 'constructor', 'toString', 'ID', 'Name'));
const odd = fc.constantFrom<unknown>(undefined, Number.NaN, Number.POSITIVE_INFINITY, -0, () => 1, 10n, new Date(0), Symbol('s'));
const value = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, fc.jsonValue({ maxDepth: 2 }), odd, tie('array'), tie('object'), tie('bare'), tie('sparse')),
  array: fc.array(tie('value'), { maxLength: 5 }),
  sparse: fc.array(tie('value'), { minLength: 1, maxLength: 4 }).map((items) => {
    const a = [...items];
    a.length += 1;
    return a;
  }),
  object: fc.array(fc.tuple(key, tie('value')), { maxLength: 6 }).map((entries) => {
    const o: Record<string, unknown> = {};
    for (const [k, v] of entries) Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
    return o;
  }),
  bare: fc
    .array(fc.tuple(fc.string({ maxLength: 4 }), tie('value')), { maxLength: 3 })
    .map((entries) => Object.assign(Object.create(null), Object.fromEntries(entries))),
})).value;

/** The value spelled out: kinds, prototypes, own keys in order (toStrictEqual reads an own `constructor` key as the constructor). */
function shape(v: unknown): unknown {
  if (v === undefined) return ['undefined'];
  if (Array.isArray(v))
    return ['array', Object.getPrototypeOf(v) === Array.prototype, v.length, Object.keys(v).map((k) => [k, shape((v as unknown[])[Number(k)])])];
  if (v !== null && typeof v === 'object')
    return ['object', Object.getPrototypeOf(v) === Object.prototype, Object.keys(v).map((k) => [k, shape((v as Record<string, unknown>)[k])])];
  return ['value', typeof v, Object.is(v, -0) ? '-0' : typeof v === 'bigint' || typeof v === 'symbol' || typeof v === 'function' ? String(v) : v];
}

it('shareJson gives what toJson gives, for any value (differential)', () => {
  fc.assert(
    fc.property(value, (v) => {
      const shared = shareJson(v);
      expect(shape(shared)).toEqual(shape(toJson(v)));
      expect(JSON.stringify(shared)).toBe(JSON.stringify(toJson(v)));
    }),
    { numRuns: 3000 },
  );
});

it('shareJson returns plain JSON itself and copies anything else', () => {
  fc.assert(
    fc.property(fc.jsonValue({ maxDepth: 3 }), (v) => {
      // A `__proto__` key is copied (toJson does not keep it as a member).
      const text = JSON.stringify(v);
      if (!text.includes('__proto__')) expect(shareJson(v)).toBe(v);
    }),
  );
  const holder = { Info: { Description: 'x', Count: Number.NaN } };
  expect(shareJson(holder)).not.toBe(holder);
  expect(shareJson(holder)).toEqual({ Info: { Description: 'x', Count: null } });
  const withUndefined = { a: 1, b: undefined };
  expect(shareJson(withUndefined)).not.toBe(withUndefined);
});
