import type { AnySchemaObject } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { isFlagSchema } from '../../src/manifest/value-words.js';
import { getKindSchema } from '../../src/manifest/schemas.js';
import {
  SCHEDULE_FLAG_FIELDS,
  SCHEDULE_INTEGER_FIELDS,
  STEP_FLAG_FIELDS,
  STEP_INTEGER_FIELDS,
  TASK_FLAG_FIELDS,
} from '../../src/services/automation/wire-fields.js';

/**
 * The client's lists of 0/1 and integer fields come from the automation reference; the manifest
 * schema was written from the same reference. A field a manifest can set as a number must be one
 * the normaliser reads as a number, or a server that answers it as `"1"` or `true` would show a
 * difference on every plan.
 */
const root = getKindSchema('Task');
const defs = root.$defs as Record<string, AnySchemaObject>;

function numericFields(def: string): { flags: string[]; integers: string[] } {
  const props = defs[def]!.properties as Record<string, AnySchemaObject>;
  const flags: string[] = [];
  const integers: string[] = [];
  for (const [key, schema] of Object.entries(props)) {
    const e = schema.enum as unknown[] | undefined;
    if (isFlagSchema(schema)) flags.push(key);
    else if (schema.type === 'integer' || (Array.isArray(e) && e.every((v) => typeof v === 'number'))) integers.push(key);
  }
  return { flags, integers };
}

/** Fields the manifest writes as 0/1 that the reference types otherwise: `Rsm` and `IsDest` are int32 (§2.5, §2.4a), `XS` a string (§2.5). */
const TYPED_OTHERWISE: Readonly<Record<string, 'integer' | 'string'>> = { Rsm: 'integer', IsDest: 'integer', XS: 'string' };

describe('the normaliser knows every numeric field a manifest can set', () => {
  it.each([
    ['spec', TASK_FLAG_FIELDS, new Set<string>()],
    ['schedule', SCHEDULE_FLAG_FIELDS, SCHEDULE_INTEGER_FIELDS],
    ['source', STEP_FLAG_FIELDS, STEP_INTEGER_FIELDS],
    ['destination', STEP_FLAG_FIELDS, STEP_INTEGER_FIELDS],
    ['process', STEP_FLAG_FIELDS, STEP_INTEGER_FIELDS],
  ] as const)('%s', (def, flagList, integerList) => {
    const { flags, integers } = numericFields(def);
    for (const f of flags) {
      const other = TYPED_OTHERWISE[f];
      if (other === 'integer') expect(integerList.has(f), `${def}.${f} is an integer to the client`).toBe(true);
      else if (other === undefined) expect(flagList.has(f), `${def}.${f} is a 0/1 field to the client`).toBe(true);
    }
    for (const f of integers) expect(integerList.has(f), `${def}.${f} is an integer to the client`).toBe(true);
  });
});
