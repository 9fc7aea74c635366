import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { openLedger } from '../../src/apply/ledger.js';
import { testdir } from '../helpers/testdir.js';
import { readLedger } from './helpers.js';

it('writes one timestamped JSON line per entry to a new 0600 file', () => {
  const dir = testdir({});
  const ledger = openLedger(join(dir, 'ledger.jsonl'), () => new Date('2026-11-22T01:02:03.000Z'));
  ledger.write({ event: 'change', address: 'Task/A', action: 'create', status: 'pending' });
  ledger.write({ event: 'change', address: 'Task/A', action: 'create', status: 'ok', ids: { task: '7' }, writes: 1, unknownOutcomes: 0, confirmedByReread: 0 });
  ledger.close();
  ledger.write({ event: 'end', ok: 1, failed: 0, skipped: 0, interrupted: false });
  expect(statSync(ledger.path).mode & 0o777).toBe(0o600);
  expect(readLedger(ledger.path)).toEqual([
    { time: '2026-11-22T01:02:03.000Z', event: 'change', address: 'Task/A', action: 'create', status: 'pending' },
    {
      time: '2026-11-22T01:02:03.000Z',
      event: 'change',
      address: 'Task/A',
      action: 'create',
      status: 'ok',
      ids: { task: '7' },
      writes: 1,
      unknownOutcomes: 0,
      confirmedByReread: 0,
    },
  ]);
});

it('never appends to a ledger that is already there', () => {
  const dir = testdir({});
  writeFileSync(join(dir, 'ledger.jsonl'), 'old\n');
  expect(() => openLedger(join(dir, 'ledger.jsonl'))).toThrow(`cannot create the ledger ${join(dir, 'ledger.jsonl')} (EEXIST)`);
});
