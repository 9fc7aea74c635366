import { expect, it } from 'vitest';
import { isRecord } from '../src/is-record.js';

it('isRecord: a JSON object is one; null, arrays and scalars are not', () => {
  expect([{}, { a: 1 }, Object.create(null)].map(isRecord)).toEqual([true, true, true]);
  expect([null, undefined, [], [{}], 'x', 1, true].map(isRecord)).toEqual([false, false, false, false, false, false, false]);
});
