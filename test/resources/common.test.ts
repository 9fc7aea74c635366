import { describe, expect, it } from 'vitest';
import { canonicalJson, mergeOver, sameScalar, sha256Of } from '../../src/resources/common.js';

describe('sameScalar: what the servers answer vs what the manifest says', () => {
  it.each([
    [1, true, true],
    [0, false, true],
    [1, false, false],
    [1, '1', true],
    [12, '12', true],
    [12, '12.0', true],
    ['12', 12, true],
    [1, 'true', true],
    [0, 'false', true],
    ['abc', 'ABC', false],
    ['', undefined, true],
    ['', null, true],
    ['x', undefined, false],
    [0, undefined, false],
    [3, '', false],
  ] as const)('desired %j, live %j → same: %s', (desired, live, same) => {
    expect(sameScalar(desired, live)).toBe(same);
  });
});

describe('canonical JSON and fingerprints', () => {
  it('sorts keys at every depth and drops undefined members', () => {
    expect(canonicalJson({ b: 1, a: { d: [{ z: 1, y: 2 }], c: undefined } })).toBe('{"a":{"d":[{"y":2,"z":1}]},"b":1}');
    expect(sha256Of({ a: 1, b: 2 })).toBe(sha256Of({ b: 2, a: 1 }));
  });
});

describe('mergeOver', () => {
  it('merges objects key by key, lists of objects by position, and replaces the rest', () => {
    const live = {
      Info: { Description: 'a', Notes: 'n' },
      list: [
        { ID: '1', v: 1 },
        { ID: '2', v: 2 },
      ],
      tags: ['x', 'y'],
    };
    const desired = { Info: { Description: 'b' }, list: [{ v: 9 }], tags: ['z'] };
    expect(mergeOver(live, desired)).toEqual({ Info: { Description: 'b', Notes: 'n' }, list: [{ ID: '1', v: 9 }], tags: ['z'] });
  });
});
