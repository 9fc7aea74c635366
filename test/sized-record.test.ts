import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createRecord } from '../src/sized-record.js';

/** The plain path: an object literal given each key in turn as an own property. */
function createPlain(keys: readonly string[], values: readonly unknown[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  keys.forEach((k, i) => Object.defineProperty(out, k, { value: values[i], enumerable: true, writable: true, configurable: true }));
  return out;
}

describe('createRecord', () => {
  it('makes the same plain object as the literal, keys in order, for every size (fast-check)', () => {
    const key = fc.oneof(fc.string({ maxLength: 5 }), fc.constantFrom('__proto__', 'constructor', 'toString', 'hasOwnProperty', 'length', '0', '1', 'ID'));
    fc.assert(
      fc.property(fc.uniqueArray(fc.tuple(key, fc.jsonValue({ maxDepth: 1 })), { selector: ([k]) => k, maxLength: 40 }), (pairs) => {
        const keys = pairs.map(([k]) => k);
        const values = pairs.map(([, v]) => v);
        const made = createRecord(keys, values);
        const plain = createPlain(keys, values);
        expect(Object.getPrototypeOf(made)).toBe(Object.prototype);
        expect(Reflect.ownKeys(made)).toEqual(Reflect.ownKeys(plain));
        expect(Object.entries(made)).toEqual(Object.entries(plain));
        expect(JSON.stringify(made)).toBe(JSON.stringify(plain));
        expect(structuredClone(made)).toEqual(structuredClone(plain));
      }),
      { numRuns: 1000 },
    );
  });

  it('keeps __proto__ as an own key and never changes the prototype', () => {
    const made = createRecord(['a', '__proto__'], [1, { polluted: true }]);
    expect(Object.getPrototypeOf(made)).toBe(Object.prototype);
    expect(Object.hasOwn(made, '__proto__')).toBe(true);
    expect((made as { polluted?: unknown }).polluted).toBeUndefined();
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
  });

  it('gives objects that can be changed like any other (normalised specs are patched and copied)', () => {
    const made = createRecord(['a', 'b'], [1, 2]);
    made.c = 3;
    delete made.a;
    expect(made).toEqual({ b: 2, c: 3 });
    expect({ ...made }).toEqual({ b: 2, c: 3 });
  });
});
