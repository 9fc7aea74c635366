import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { orderPlanKeys } from '../../src/app/plan-file.js';
import { EVERY_KIND, kindOf } from '../../src/kinds/registry.js';
import type { Plan } from '../../src/plan/model.js';

/** The hooks each kind fills for the phases that used to branch on it (issue 25). */
describe('the per-kind hooks of the registry', () => {
  it('a plan file writes every kind’s payload with `kind` first, then its own keys in its order, inner lists too', () => {
    for (const kind of EVERY_KIND) expect(kindOf(kind).payloadKeys.keys[0]).toBe('kind');
    const scrambled = {
      changes: [
        {
          payload: {
            remove: [{ id: '9', username: 'eve' }],
            add: [{ createdBy: 'User/dave', username: 'dave', id: '' }],
            create: { description: 'Ops' },
            name: 'Ops Team',
            kind: 'Group',
          },
        },
      ],
    };
    const ordered = orderPlanKeys(scrambled as unknown as Plan);
    expect(JSON.stringify(ordered.changes[0]!.payload)).toBe(
      '{"kind":"Group","name":"Ops Team","create":{"description":"Ops"},"add":[{"username":"dave","id":"","createdBy":"User/dave"}],"remove":[{"username":"eve","id":"9"}]}',
    );
  });

  it('drift asks the audit report for exactly the kinds its JSON report may name (`audit.queries[].for`)', () => {
    const schema: unknown = JSON.parse(readFileSync(new URL('../../schemas/output-drift.schema.json', import.meta.url), 'utf8'));
    expect(EVERY_KIND.filter((kind) => kindOf(kind).audit !== undefined)).toEqual(enumOfProperty(schema, 'for'));
  });
});

/** The `enum` of the first property named `name` anywhere in a schema. */
function enumOfProperty(schema: unknown, name: string): unknown {
  if (typeof schema !== 'object' || schema === null) return undefined;
  const properties = (schema as { properties?: Record<string, { enum?: unknown }> }).properties;
  if (properties?.[name]?.enum !== undefined) return properties[name].enum;
  for (const value of Object.values(schema)) {
    const found = enumOfProperty(value, name);
    if (found !== undefined) return found;
  }
  return undefined;
}
