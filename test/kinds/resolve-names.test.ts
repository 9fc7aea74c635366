import { expect, it } from 'vitest';
import { nameRecorder } from '../../src/kinds/resolve-names.js';

it('nameRecorder records each name once by kind and case-folded name, skipping ids the server left empty', () => {
  const r = nameRecorder();
  r.note('host', 'Finance-Share', '7');
  r.note('host', 'finance-share', '8');
  r.note('script', 'finance-share', '3');
  r.note('dateList', 'Holidays', '');
  r.note('resourceGroup', 'Finance');
  expect(r.list).toEqual([
    { kind: 'host', name: 'Finance-Share', id: '7' },
    { kind: 'script', name: 'finance-share', id: '3' },
    { kind: 'resourceGroup', name: 'Finance' },
  ]);
  expect(Object.hasOwn(r.list[2]!, 'id')).toBe(false);
});

it('records shared between objects never mix up names or ids, whatever characters they hold', () => {
  const a = nameRecorder();
  const b = nameRecorder();
  a.note('host', 'a\u0000b', 'c');
  b.note('host', 'a', 'b\u0000c');
  a.note('script', 'Zip', '1');
  b.note('script', 'Zip', '1');
  expect(a.list[0]).toEqual({ kind: 'host', name: 'a\u0000b', id: 'c' });
  expect(b.list[0]).toEqual({ kind: 'host', name: 'a', id: 'b\u0000c' });
  expect(a.list[1]).toEqual(b.list[1]);
});
