import { describe, expect, it } from 'vitest';
import { assemblePlan } from '../../src/plan/assemble-plan.js';
import type { Change, JsonValue } from '../../src/plan/model.js';
import { renderPlanText } from '../../src/render/plan-text.js';
import { displayValue, withInnerWords, withWords } from '../../src/render/values.js';

describe('displayValue: field values as a reader sees them', () => {
  it.each<[JsonValue, JsonValue]>([
    [{ $sensitive: true }, '(sensitive)'],
    [{ $ref: 'host', id: '12' }, '(host ID 12)'],
    [{ $ref: 'script', id: '7' }, '(script ID 7)'],
    [{ $ref: 'dateList', id: '3' }, '(date list ID 3)'],
    [
      ['Bank Holidays', { $ref: 'dateList', id: '3' }],
      ['Bank Holidays', '(date list ID 3)'],
    ],
    [{ Source: { Host: { $ref: 'host', id: '12' }, Password: { $sensitive: true } } }, { Source: { Host: '(host ID 12)', Password: '(sensitive)' } }],
    // Wrapped data is unwrapped, and its values are field values again; its own keys stay as they are.
    [{ $data: { $sensitive: true } }, { $sensitive: true }],
    [{ $data: { $ref: 'host', id: '12', Password: { $sensitive: true } } }, { $ref: 'host', id: '12', Password: '(sensitive)' }],
    // A `$` object this version does not know is shown as it is.
    [{ $later: 1 }, { $later: 1 }],
    ['(host ID 12)', '(host ID 12)'],
  ])('%j → %j', (value, shown) => {
    expect(displayValue(value)).toEqual(shown);
  });

  it('draws markers in the plan text as the display strings they stand for', () => {
    const change: Change = {
      address: 'Task/x',
      kind: 'Task',
      name: 'x',
      service: 'automation',
      action: 'update',
      fields: [
        { path: 'steps[0].Source.Host', before: { $ref: 'host', id: '12' }, after: 'sftp' },
        { path: 'steps[1]', before: { Custom: { $data: { $sensitive: true } } } },
      ],
    };
    const text = renderPlanText(assemblePlan(HEADER, [change], false), { color: false });
    expect(text).toContain('    ~ steps[0].Source.Host: "(host ID 12)" → "sftp"\n');
    expect(text).toContain('    - steps[1]: {"Custom": {"$sensitive": true}}\n');
  });
});

const HEADER = { toolVersion: 't', createdAt: '2026-01-01T00:00:00.000Z', environment: 'prod', servers: {}, manifestDigest: 'sha256:0' } as const;

describe('values in words', () => {
  it('puts a code beside its meaning and says a flag as true/false', () => {
    expect(withWords('1', 'meaning', 'delete')).toBe('1 (delete)');
    expect(withWords('0', 'flag', 'false')).toBe('false');
    expect(withWords('7', 'meaning', undefined)).toBe('7');
    expect(withWords('7', undefined, undefined)).toBe('7');
  });

  it('says the codes and flags inside a whole value, and leaves paths that do not fit alone', () => {
    const step = { Source: { Host: 'globex-ftp', DeleteOrig: 1, NewFilesOnly: 0 } };
    expect(
      withInnerWords(step, [
        { path: 'Source.DeleteOrig', form: 'meaning', text: 'delete' },
        { path: 'Source.NewFilesOnly', form: 'flag', text: 'false' },
        { path: 'Source.Missing', form: 'flag', text: 'true' },
        { path: 'Source', form: 'flag', text: 'true' },
      ]),
    ).toEqual({ Source: { Host: 'globex-ftp', DeleteOrig: '1 (delete)', NewFilesOnly: false } });
    // The value itself is not changed.
    expect(step.Source.DeleteOrig).toBe(1);
    expect(withInnerWords([{ Destination: { OverwriteOrig: 1 } }], [{ path: '[0].Destination.OverwriteOrig', form: 'flag', text: 'true' }])).toEqual([
      { Destination: { OverwriteOrig: true } },
    ]);
  });
});
