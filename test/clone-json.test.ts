import fc from 'fast-check';
import { expect, it } from 'vitest';
import { clonePlainData } from '../src/clone-json.js';

/** Plain data as manifests and answers hold it: JSON, with members that may be undefined and keys like `__proto__`. */
const key = fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom('__proto__', 'constructor', 'toString', 'ID', 'Name'));
const plain = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, fc.jsonValue({ maxDepth: 2 }), fc.constant(undefined), tie('array'), tie('object')),
  array: fc.array(tie('value'), { maxLength: 5 }),
  object: fc.array(fc.tuple(key, tie('value')), { maxLength: 6 }).map((entries) => {
    const o: Record<string, unknown> = {};
    for (const [k, v] of entries) Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
    return o;
  }),
})).value;

/**
 * The value spelled out: kinds, prototypes, keys in order, undefined members (toStrictEqual
 * compares an own `constructor` key as the constructor, so it cannot judge these values).
 */
function shape(v: unknown): unknown {
  if (v === undefined) return ['undefined'];
  if (Array.isArray(v)) return ['array', Object.getPrototypeOf(v) === Array.prototype, v.map(shape)];
  if (v !== null && typeof v === 'object')
    return ['object', Object.getPrototypeOf(v) === Object.prototype, Object.keys(v).map((k) => [k, shape((v as Record<string, unknown>)[k])])];
  return ['value', typeof v, Object.is(v, -0) ? '-0' : v];
}

it('clonePlainData copies plain data as structuredClone does (differential), sharing nothing with the original', () => {
  fc.assert(
    fc.property(plain, (value) => {
      const copy = clonePlainData(value);
      expect(shape(copy)).toEqual(shape(structuredClone(value)));
      const shared: unknown[] = [];
      const walk = (a: unknown, b: unknown): void => {
        if (a === null || typeof a !== 'object') return;
        if (a === b) shared.push(a);
        for (const k of Object.keys(a)) walk((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]);
      };
      walk(copy, value);
      expect(shared).toEqual([]);
    }),
    { numRuns: 500 },
  );
});

it('clonePlainData keeps an own "__proto__" key a key', () => {
  const parsed = JSON.parse('{"__proto__": {"polluted": 1}, "Name": "t"}') as Record<string, unknown>;
  const copy = clonePlainData(parsed);
  expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
  expect(Object.keys(copy)).toEqual(['__proto__', 'Name']);
  expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
});
