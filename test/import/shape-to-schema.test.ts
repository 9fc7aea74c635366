import type { AnySchemaObject } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { shapeToSchema } from '../../src/import/shape-to-schema.js';
import { isRecord } from '../../src/is-record.js';
import { resolveSchemaRef, schemaItems, schemaProperties } from '../../src/manifest/canonical-form.js';
import { getKindSchema } from '../../src/manifest/schemas.js';
import { MANIFEST_KINDS } from '../../src/manifest/types.js';

/** Values that follow the schema node now and then and stray from it now and then, `depth` levels deep. */
function valueOf(node: AnySchemaObject, root: AnySchemaObject, depth: number): fc.Arbitrary<unknown> {
  const schema = resolveSchemaRef(node, root);
  const scalars = fc.oneof(
    fc.string({ maxLength: 4 }),
    fc.integer({ min: -3, max: 3 }),
    fc.boolean(),
    fc.constantFrom('true', 'FALSE', ' 3 ', '', '1', '0x10', '1e3', 'Infinity', '[0]'),
    fc.constant(null),
    fc.constant(undefined),
  );
  if (depth === 0) return scalars;
  const options: fc.Arbitrary<unknown>[] = [scalars];
  const items = schemaItems(schema);
  options.push(fc.array(items === undefined ? scalars : valueOf(items, root, depth - 1), { minLength: 1, maxLength: 3 }));
  const props = schemaProperties(schema) ?? {};
  const extra = isRecord(schema.additionalProperties) ? (schema.additionalProperties as AnySchemaObject) : undefined;
  const keys = [...Object.keys(props), 'Stray', '[0]', 'a.b', 'constructor'];
  options.push(
    fc
      .shuffledSubarray(keys, { minLength: 1, maxLength: Math.min(16, keys.length) })
      .chain((chosen) =>
        fc
          .tuple(
            ...chosen.map((k) =>
              props[k] !== undefined ? valueOf(props[k], root, depth - 1) : extra !== undefined ? valueOf(extra, root, depth - 1) : scalars,
            ),
          )
          .map((values) => Object.fromEntries(chosen.map((k, i) => [k, values[i]]))),
      ),
  );
  // Lists and objects more often than scalars: the notes come from keys deep in them.
  return fc.oneof({ arbitrary: options[0]!, weight: 1 }, { arbitrary: options[1]!, weight: 3 }, { arbitrary: options[2]!, weight: 3 });
}

describe('shapeToSchema', () => {
  it.each(MANIFEST_KINDS)('shapes %s specs as the per-value walk it replaced did: same value, same key order, same notes', (kind) => {
    const root = getKindSchema(kind);
    const spec = (root.properties as Record<string, AnySchemaObject>).spec!;
    fc.assert(
      fc.property(valueOf(spec, root, 5), fc.constantFrom('', 'spec'), (value, path) => {
        const notesNow: string[] = [];
        const notesBefore: string[] = [];
        const now = shapeToSchema(value, spec, root, path, notesNow);
        const before = shapeToSchemaBefore(value, spec, root, path, notesBefore);
        expect(JSON.stringify(now)).toBe(JSON.stringify(before));
        expect(now).toEqual(before);
        expect(notesNow).toEqual(notesBefore);
      }),
      { numRuns: 300 },
    );
  });

  it('names a key with no place by its path through lists and objects, as before', () => {
    const root = getKindSchema('Task');
    const spec = (root.properties as Record<string, AnySchemaObject>).spec!;
    const value = { steps: [{ Source: { Stray: 1, FileMask: '*' } }, { Stray: 3 }], Stray: 2, Active: 'true', Schedules: { Schedule: [{ Odd: 1 }] } };
    const notesNow: string[] = [];
    const notesBefore: string[] = [];
    expect(shapeToSchema(value, spec, root, '', notesNow)).toEqual(shapeToSchemaBefore(value, spec, root, '', notesBefore));
    expect(notesNow).toEqual(notesBefore);
    expect(notesNow).toContain('steps[0].Source.Stray has no place in a manifest and is left out');
  });
});

// The walk before issue 29's per-node shapes (src/import/shape-to-schema.ts at 1ddb795), the reference.
function shapeToSchemaBefore(value: unknown, node: AnySchemaObject, root: AnySchemaObject, path: string, notes: string[]): unknown {
  const schema = resolveSchemaRef(node, root);
  if (Array.isArray(value)) {
    const items = schemaItems(schema);
    return items ? value.map((v, i) => shapeToSchema(v, items, root, `${path}[${i}]`, notes)) : value;
  }
  if (isRecord(value)) {
    const props = schemaProperties(schema);
    const extra = schema.additionalProperties;
    if (props === undefined && !isRecord(extra)) return value;
    const out: Record<string, unknown> = {};
    // The value's keys the schema names, in the schema's order: a step's few keys against the
    // source step's 82 properties (walking every property of every step was import's top item).
    const rank = props === undefined ? undefined : propertyRanks(props);
    const named = rank === undefined ? [] : Object.keys(value).filter((key) => rank.has(key));
    if (named.length > 1) named.sort((a, b) => rank!.get(a)! - rank!.get(b)!);
    for (const key of named) {
      if (value[key] === undefined) continue;
      out[key] = shapeToSchema(value[key], props![key]!, root, join(path, key), notes);
    }
    for (const [key, v] of Object.entries(value)) {
      if (props !== undefined && key in props) continue;
      if (v === undefined) continue;
      if (isRecord(extra)) out[key] = shapeToSchema(v, extra as AnySchemaObject, root, join(path, key), notes);
      else if (extra === false) notes.push(`${join(path, key)} has no place in a manifest and is left out`);
      else out[key] = v;
    }
    return out;
  }
  return coerceScalar(value, schema);
}

const ranks = new WeakMap<Record<string, AnySchemaObject>, ReadonlyMap<string, number>>();

/** Each property name of a schema's `properties` with its position (own keys, as `Object.entries` gives them). */
function propertyRanks(props: Record<string, AnySchemaObject>): ReadonlyMap<string, number> {
  let rank = ranks.get(props);
  if (rank === undefined) ranks.set(props, (rank = new Map(Object.keys(props).map((key, i) => [key, i]))));
  return rank;
}

function coerceScalar(value: unknown, schema: AnySchemaObject): unknown {
  const enumValues = Array.isArray(schema.enum) ? (schema.enum as unknown[]) : undefined;
  const types = typesOf(schema);
  const numeric = (enumValues?.some((e) => typeof e === 'number') ?? false) || types.includes('integer') || types.includes('number');
  const stringy = (enumValues?.some((e) => typeof e === 'string') ?? false) || types.includes('string');
  if (numeric && !types.includes('string')) {
    if (typeof value === 'boolean') return value ? 1 : 0;
    if (typeof value === 'string') {
      const t = value.trim().toLowerCase();
      if (t === 'true') return 1;
      if (t === 'false') return 0;
      if (t !== '' && Number.isFinite(Number(t))) return Number(t);
    }
    return value;
  }
  if (stringy && !numeric && (typeof value === 'number' || typeof value === 'boolean')) return String(value);
  return value;
}

function typesOf(schema: AnySchemaObject): string[] {
  const t: unknown = schema.type;
  return typeof t === 'string' ? [t] : Array.isArray(t) ? t.filter((x): x is string => typeof x === 'string') : [];
}

function join(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}
