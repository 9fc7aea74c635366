import { describe, expect, it } from 'vitest';
import { explainCode } from '../../src/app/explain.js';
import { DIAGNOSTIC_CODES } from '../../src/diagnostics.js';

describe('explainCode', () => {
  it('lists every code of the table, in its order, with its name', () => {
    const report = explainCode({});
    if (report.status !== 'list') throw new Error(report.status);
    expect(report.codes.map((c) => [c.code, c.name])).toEqual(Object.entries(DIAGNOSTIC_CODES));
  });

  it.each(['MF305', 'mf305', '305', ' MF305 ', 'time-of-day'])('finds a code written %j', (query) => {
    const report = explainCode({ code: query });
    expect(report).toMatchObject({ status: 'found', code: { code: 'MF305', name: 'time-of-day' } });
  });

  it('says a code does not exist, with the nearest code or name', () => {
    expect(explainCode({ code: 'MF999' })).toEqual({ status: 'unknown', query: 'MF999' });
    expect(explainCode({ code: 'MF3O5' })).toEqual({ status: 'unknown', query: 'MF3O5', suggestion: 'MF305' });
    expect(explainCode({ code: 'unknown-feild' })).toEqual({ status: 'unknown', query: 'unknown-feild', suggestion: 'unknown-field' });
  });
});
