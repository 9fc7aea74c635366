import { describe, expect, it } from 'vitest';
import { cloneJson } from '../../src/emulator/json.js';
import type { JsonObject } from '../../src/emulator/json.js';

describe('cloneJson', () => {
  it('copies at every depth: changing the copy leaves the stored task alone', () => {
    const stored = JSON.parse(
      '{"ID":"1","Group":["Finance"],"steps":[{"Source":{"Host":"a","Password":"p"}}],"Schedules":{"Schedule":[{"DayOfWeek":[1,2]}]},"n":null,"b":false,"x":1.5}',
    ) as JsonObject;
    const copy = cloneJson(stored);
    expect(copy).toEqual(stored);
    ((copy.steps as JsonObject[])[0]!.Source as JsonObject).Password = '(suppressed)';
    (copy.Group as string[]).push('Other');
    (((copy.Schedules as JsonObject).Schedule as JsonObject[])[0]!.DayOfWeek as number[]).pop();
    expect(stored).toEqual(
      JSON.parse(
        '{"ID":"1","Group":["Finance"],"steps":[{"Source":{"Host":"a","Password":"p"}}],"Schedules":{"Schedule":[{"DayOfWeek":[1,2]}]},"n":null,"b":false,"x":1.5}',
      ),
    );
  });

  it('keeps a "__proto__" member of a parsed body as a plain member', () => {
    const body = JSON.parse('{"__proto__":{"polluted":true},"Name":"x"}') as JsonObject;
    const copy = cloneJson(body);
    expect(Object.keys(copy)).toEqual(['__proto__', 'Name']);
    expect((copy as { polluted?: unknown }).polluted).toBeUndefined();
    expect(JSON.stringify(copy)).toBe('{"__proto__":{"polluted":true},"Name":"x"}');
  });
});
