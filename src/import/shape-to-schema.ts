import type { AnySchemaObject } from 'ajv/dist/2020.js';
import { isRecord } from '../is-record.js';
import { resolveSchemaRef, schemaItems, schemaProperties } from '../manifest/canonical-form.js';

/**
 * A value put into the shape a manifest schema describes: keys in the schema's order (so every
 * import writes fields in the same, documented order), scalars in the schema's types (a 0/1 flag
 * read as `true` or `"1"` becomes `1`, a number read as `"3"` becomes `3`), and keys the schema
 * has no place for left out and named in `notes` (a manifest must load without errors).
 */
export function shapeToSchema(value: unknown, node: AnySchemaObject, root: AnySchemaObject, path: string, notes: string[]): unknown {
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
