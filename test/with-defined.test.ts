import { describe, expect, it } from 'vitest';
import { withDefined } from '../src/with-defined.js';

describe('withDefined', () => {
  it('leaves out the keys whose value is undefined and keeps falsy values', () => {
    const reason: string | undefined = undefined;
    const out = withDefined({ reason, count: 0, flag: false, empty: '', none: null });
    expect(out).toStrictEqual({ count: 0, flag: false, empty: '', none: null });
    expect(Object.keys(out)).not.toContain('reason');
  });

  it('gives a value the caller can spread into an object with optional fields', () => {
    interface Change {
      readonly address: string;
      readonly previousName?: string;
    }
    const previousName = ['old'].find((n) => n === 'old');
    const change: Change = { address: 'Task/a', ...withDefined({ previousName }) };
    expect(change).toStrictEqual({ address: 'Task/a', previousName: 'old' });
    expect(JSON.stringify({ address: 'Task/b', ...withDefined({ previousName: undefined as string | undefined }) })).toBe('{"address":"Task/b"}');
  });
});
