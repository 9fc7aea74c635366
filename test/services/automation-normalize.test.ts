import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readAcl, readTask, readUserGroupMembers, writeAclPermissions, writeTask } from '../../src/services/automation/normalize.js';
import type { AutomationWireForms } from '../../src/services/automation/normalize.js';
import type { Task } from '../../src/services/automation/types.js';
import { SHORT_WEEK_DAYS, WEEK_DAYS } from '../../src/vocabulary.js';

const read = (raw: unknown, seen: AutomationWireForms = {}): Task => readTask(structuredClone(raw) as Record<string, unknown>, seen);

describe('reading one value in every form (docs/server-variants.md)', () => {
  it.each([
    ['7:05', '07:05', 'unpadded'],
    ['07:05', '07:05', 'padded'],
    ['07:05:00', '07:05', 'seconds'],
    ['23:59', '23:59', undefined],
    ['noon', 'noon', undefined],
  ])('time %s reads as %s (form %s)', (input, output, form) => {
    const seen: AutomationWireForms = {};
    const task = read({ Schedules: { Schedule: [{ Frequency: { Interval: [{ StartTime: input }] } }] } }, seen);
    expect(task.Schedules?.Schedule?.[0]?.Frequency?.Interval?.[0]?.StartTime).toBe(output);
    expect(seen.times).toBe(form);
  });

  it('reads day names in any case, short or long, one string or a list, as full names', () => {
    const seen: AutomationWireForms = {};
    expect(
      read({ Schedules: { Schedule: [{ Days: { DayOfWeek: ['mon', 'TUE', 'Wednesday', 'sun'] } }] } }, seen).Schedules?.Schedule?.[0]?.Days?.DayOfWeek,
    ).toEqual(['Monday', 'Tuesday', 'Wednesday', 'Sunday']);
    expect(seen.days).toBe('short');
    expect(read({ Schedules: { Schedule: { Days: { DayOfWeek: 'Friday' } } } }).Schedules?.Schedule?.[0]?.Days?.DayOfWeek).toEqual(['Friday']);
    // Not a day: kept as sent, so the plan shows it rather than hiding it.
    expect(read({ Schedules: { Schedule: [{ Days: { DayOfWeek: ['Funday'] } }] } }).Schedules?.Schedule?.[0]?.Days?.DayOfWeek).toEqual(['Funday']);
  });

  it.each([
    [true, 1, 'boolean'],
    [false, 0, 'boolean'],
    ['1', 1, 'string'],
    ['false', 0, 'string'],
    [0, 0, 'number'],
    ['yes', 'yes', undefined],
  ] as const)('reads the 0/1 value %j as %j', (input, output, form) => {
    const seen: AutomationWireForms = {};
    expect(read({ Active: input }, seen).Active).toBe(output);
    expect(seen.flags).toBe(form);
  });

  it('reads a secret parameter suppressed in any of its forms as suppressed', () => {
    for (const p of [{ value: '', DisplayValue: '(suppressed)' }, { DisplayValue: '(suppressed)' }, { value: '(suppressed)', DisplayValue: '(suppressed)' }]) {
      expect(read({ Parameters: { Key: p } }).Parameters?.Key?.DisplayValue).toBe('(suppressed)');
    }
  });

  it('leaves fields the reference does not type exactly as they came', () => {
    const raw = {
      Name: 'T',
      TT: '1',
      Info: { Description: 'true' },
      steps: [{ Source: { Path: '0', FileMask: '1', XS: '1', Criteria: { comp: [{ a: '1', b: 'true', test: 'NEQ' }] } } }],
    };
    expect(read(raw)).toEqual(raw);
  });

  it('reads ACL permissions and ids in any form', () => {
    const seen: AutomationWireForms = {};
    expect(readAcl({ ACLID: 9, ResourceGroupName: 'R', UserGroupName: 'U', Permissions: { TaskRun: 'true', PGPAddEditDelete: 0 } }, seen)).toEqual({
      ACLID: '9',
      ResourceGroupName: 'R',
      UserGroupName: 'U',
      Permissions: { TaskRun: 1, PGPAddEditDelete: 0 },
    });
    // The first value seen was a string: permissions go back as strings.
    expect(writeAclPermissions({ TaskRun: 1, PGPAddEditDelete: 0 }, seen)).toEqual({ TaskRun: '1', PGPAddEditDelete: '0' });
  });
});

// ------------------------------------------------------------------------------ round trips

const forms: fc.Arbitrary<AutomationWireForms> = fc.record(
  {
    ids: fc.constantFrom('string', 'number'),
    flags: fc.constantFrom('number', 'boolean', 'string'),
    integers: fc.constantFrom('number', 'string'),
    days: fc.constantFrom('long', 'short'),
    times: fc.constantFrom('padded', 'unpadded', 'seconds'),
    dateListRef: fc.constantFrom('datelistid', 'id', 'both', 'string'),
    parameters: fc.constantFrom('map', 'list'),
    cas: fc.constantFrom('blank', 'EMPTY'),
  },
  { requiredKeys: [] },
);

const id = fc.integer({ min: 1, max: 99_999_999 }).map(String);
const flag = fc.constantFrom(0, 1);
const time = fc
  .tuple(fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 59 }))
  .map(([h, m]) => `${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}`);
const days = fc.uniqueArray(fc.constantFrom(...WEEK_DAYS), { minLength: 1, maxLength: 7 });

/** A canonical task: what the normaliser must give back whatever form it travelled in. */
const canonicalTask: fc.Arbitrary<Task> = fc.record({
  ID: id,
  Name: fc.string({ minLength: 1, maxLength: 20 }),
  Group: fc.array(fc.constantFrom('Finance', 'Partners'), { maxLength: 2 }),
  Active: flag,
  AR: flag,
  CAS: fc.constantFrom('', 'N', 'A'),
  NextEID: fc.integer({ min: 1, max: 500 }),
  Parameters: fc.dictionary(fc.constantFrom('Region', 'Mode', 'ApiKey'), fc.record({ value: fc.string({ maxLength: 8 }) })),
  Schedules: fc.record({
    Schedule: fc.array(
      fc.record({
        ID: id,
        Days: fc.record({ DayOfWeek: days }),
        Frequency: fc.record({ Interval: fc.array(fc.record({ StartTime: time, EndTime: time }), { minLength: 1, maxLength: 2 }) }),
        DateListRef: fc.array(fc.record({ DateListID: id }), { maxLength: 2 }),
        Multi: fc.constantFrom(0, 1, 2),
        RunEvenIfNotif: flag,
      }),
      { maxLength: 2 },
    ),
  }),
  steps: fc.array(
    fc.oneof(
      fc.record({
        Source: fc.record({
          ID: id,
          HostID: id,
          Path: fc.string({ maxLength: 10 }),
          DeleteOrig: fc.constantFrom(0, 1, 2),
          RetryCount: fc.integer({ min: 0, max: 32000 }),
          SearchSubdirs: flag,
        }),
      }),
      fc.record({
        Process: fc.record({
          ID: id,
          ScriptID: id,
          IsDest: flag,
          Parameters: fc.dictionary(fc.constantFrom('In', 'Out'), fc.record({ value: fc.string({ maxLength: 8 }) })),
        }),
      }),
      fc.record({ Destination: fc.record({ ID: id, HostID: id, Path: fc.string({ maxLength: 10 }), OverwriteOrig: flag }) }),
    ),
    { maxLength: 3 },
  ),
}) as fc.Arbitrary<Task>;

describe('round trips', () => {
  it('reading what was written in any forms gives the canonical task back, and sees those forms', () => {
    fc.assert(
      fc.property(canonicalTask, forms, (task, f) => {
        // A form is seen only where a value shows it (an hour of 10 or more is padded and unpadded alike).
        const written = JSON.parse(JSON.stringify(writeTask(task, f))) as Record<string, unknown>;
        const seen: AutomationWireForms = {};
        expect(readTask(written, seen)).toEqual(task);
        for (const [key, value] of Object.entries(seen)) {
          const wrote = f[key as keyof AutomationWireForms];
          // A `both` server's new reference (no number of its own yet) looks like `{DateListID}`.
          if (key === 'dateListRef' && wrote === 'both') continue;
          if (wrote !== undefined) expect({ [key]: value }).toEqual({ [key]: wrote });
        }
      }),
      { numRuns: 300 },
    );
  });

  it("writes nothing in a form the server has not shown, except the reference's own", () => {
    fc.assert(
      fc.property(canonicalTask, (task) => {
        expect(JSON.parse(JSON.stringify(writeTask(task, {})))).toEqual(JSON.parse(JSON.stringify(task)));
      }),
      { numRuns: 100 },
    );
  });

  it('writes short day names in week order of the canonical list', () => {
    const task = writeTask({ Schedules: { Schedule: [{ Days: { DayOfWeek: [...WEEK_DAYS] } }] } }, { days: 'short' }) as {
      Schedules: { Schedule: { Days: { DayOfWeek: string[] } }[] };
    };
    expect(task.Schedules.Schedule[0]!.Days.DayOfWeek).toEqual([...SHORT_WEEK_DAYS]);
  });
});

describe('user-group members in every form (A-28)', () => {
  it.each([
    ['Members of usernames', { Name: 'Ops', Members: ['bob', 'erin'] }, ['bob', 'erin']],
    ['members of usernames', { Name: 'Ops', members: ['bob', 'erin'] }, ['bob', 'erin']],
    ['Users of {Username}', { Name: 'Ops', Users: [{ Username: 'bob' }, { Username: 'erin' }] }, ['bob', 'erin']],
    ['users of {username}', { Name: 'Ops', users: [{ username: 'bob' }, { username: 'erin' }] }, ['bob', 'erin']],
    ['Members of {Name}', { Name: 'Ops', Members: [{ Name: 'bob' }, { Name: 'erin' }] }, ['bob', 'erin']],
    ['one member as a single object', { Name: 'Ops', Users: { Username: 'bob' } }, ['bob']],
    ['one member as a single string', { Name: 'Ops', Members: 'bob' }, ['bob']],
    ['an empty list', { Name: 'Ops', Members: [] }, []],
  ])('%s', (_, raw, members) => {
    expect(readUserGroupMembers(raw)).toEqual({ name: 'Ops', members });
  });

  it('leaves the members unknown (not empty) when no members field is there, and reads no group without a name', () => {
    expect(readUserGroupMembers({ Name: 'Ops', Type: 'local', Description: '' })).toEqual({ name: 'Ops' });
    expect(readUserGroupMembers({ Name: 'Ops', Members: null })).toEqual({ name: 'Ops' });
    expect(readUserGroupMembers({ Members: ['bob'] })).toBeUndefined();
  });
});
