import { describe, expect, it } from 'vitest';
import { readClock } from '../../src/app/clock.js';
import { isMftopsError } from '../../src/errors.js';

describe('readClock', () => {
  it('pins the time to MFTOPS_NOW', () => {
    expect(readClock({ MFTOPS_NOW: '2026-11-28T01:55:00Z' })().toISOString()).toBe('2026-11-28T01:55:00.000Z');
  });

  it('follows the real time without it', () => {
    const before = Date.now();
    const t = readClock({})().getTime();
    expect(t).toBeGreaterThanOrEqual(before);
  });

  it('refuses an unreadable MFTOPS_NOW with a one-line user error', () => {
    let caught: unknown;
    try {
      readClock({ MFTOPS_NOW: 'tomorrow' });
    } catch (err) {
      caught = err;
    }
    expect(isMftopsError(caught)).toBe(true);
    expect(String((caught as Error).message)).toBe('MFTOPS_NOW is not an ISO instant: "tomorrow"');
  });

  it.each(['2026-11-28T01:55:00', '2026-11-28', '2026-11-28 01:55'])("refuses %s: without Z or an offset it would be read in the runner's zone", (value) => {
    expect(() => readClock({ MFTOPS_NOW: value })).toThrow(
      `MFTOPS_NOW has no Z or offset, so it would be read in this machine's zone: ${JSON.stringify(value)}`,
    );
  });

  it('accepts an explicit offset', () => {
    expect(readClock({ MFTOPS_NOW: '2026-11-28T02:55:00+01:00' })().toISOString()).toBe('2026-11-28T01:55:00.000Z');
  });
});
