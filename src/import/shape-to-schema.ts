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
  return shape(value, shapeOf(node, root), root, path === '' ? [] : [path], notes);
}

/**
 * What `shape` needs of a schema node, worked out once per node (issue 29: an import of 10,000
 * tasks shapes ~500,000 values; resolving the `$ref`, the property ranks and the scalar types of
 * each value's node every time was 1.2 s of its CPU, profiled).
 */
interface NodeShape {
  readonly schema: AnySchemaObject;
  readonly items: AnySchemaObject | undefined;
  readonly props: Record<string, AnySchemaObject> | undefined;
  readonly rank: ReadonlyMap<string, number> | undefined;
  readonly extra: unknown;
  /** The scalar coercion (see `coerceScalar`): to a number, to a string, or none. */
  readonly scalar: 'number' | 'string' | 'none';
}

const shapes = new WeakMap<AnySchemaObject, WeakMap<AnySchemaObject, NodeShape>>();

function shapeOf(node: AnySchemaObject, root: AnySchemaObject): NodeShape {
  let byRoot = shapes.get(node);
  if (byRoot === undefined) shapes.set(node, (byRoot = new WeakMap()));
  let found = byRoot.get(root);
  if (found !== undefined) return found;
  const schema = resolveSchemaRef(node, root);
  const props = schemaProperties(schema);
  const enumValues = Array.isArray(schema.enum) ? (schema.enum as unknown[]) : undefined;
  const types = typesOf(schema);
  const numeric = (enumValues?.some((e) => typeof e === 'number') ?? false) || types.includes('integer') || types.includes('number');
  const stringy = (enumValues?.some((e) => typeof e === 'string') ?? false) || types.includes('string');
  found = {
    schema,
    items: schemaItems(schema),
    props,
    rank: props === undefined ? undefined : new Map(Object.keys(props).map((key, i) => [key, i])),
    extra: schema.additionalProperties,
    scalar: numeric && !types.includes('string') ? 'number' : stringy && !numeric ? 'string' : 'none',
  };
  byRoot.set(root, found);
  return found;
}

/**
 * `shapeToSchema` on a node's shape. `path`: the keys and indexes to the value, joined only for a
 * note.
 */
function shape(value: unknown, n: NodeShape, root: AnySchemaObject, path: (string | number)[], notes: string[]): unknown {
  if (Array.isArray(value)) {
    const { items } = n;
    if (items === undefined) return value;
    const itemShape = shapeOf(items, root);
    const out = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) {
      path.push(i);
      out[i] = shape(value[i], itemShape, root, path, notes);
      path.pop();
    }
    return out;
  }
  if (isRecord(value)) {
    const { props, rank, extra } = n;
    if (props === undefined && !isRecord(extra)) return value;
    const out: Record<string, unknown> = {};
    // The value's keys the schema names, in the schema's order: a step's few keys against the
    // source step's 82 properties (walking every property of every step was import's top item).
    const keys = Object.keys(value);
    const named = rank === undefined ? [] : keys.filter((key) => rank.has(key));
    if (named.length > 1) named.sort((a, b) => rank!.get(a)! - rank!.get(b)!);
    for (const key of named) {
      const v = value[key];
      if (v === undefined) continue;
      path.push(key);
      out[key] = shape(v, shapeOf(props![key]!, root), root, path, notes);
      path.pop();
    }
    for (const key of keys) {
      if (props !== undefined && key in props) continue;
      const v = value[key];
      if (v === undefined) continue;
      if (isRecord(extra)) {
        path.push(key);
        out[key] = shape(v, shapeOf(extra as AnySchemaObject, root), root, path, notes);
        path.pop();
      } else if (extra === false) notes.push(`${joinPath([...path, key])} has no place in a manifest and is left out`);
      else out[key] = v;
    }
    return out;
  }
  return coerceScalar(value, n.scalar);
}

function coerceScalar(value: unknown, to: NodeShape['scalar']): unknown {
  if (to === 'number') {
    if (typeof value === 'boolean') return value ? 1 : 0;
    if (typeof value === 'string') {
      const t = value.trim().toLowerCase();
      if (t === 'true') return 1;
      if (t === 'false') return 0;
      if (t !== '' && Number.isFinite(Number(t))) return Number(t);
    }
    return value;
  }
  if (to === 'string' && (typeof value === 'number' || typeof value === 'boolean')) return String(value);
  return value;
}

function typesOf(schema: AnySchemaObject): string[] {
  const t: unknown = schema.type;
  return typeof t === 'string' ? [t] : Array.isArray(t) ? t.filter((x): x is string => typeof x === 'string') : [];
}

/** `spec.Steps[0].Foo` from its keys and indexes. */
function joinPath(segments: readonly (string | number)[]): string {
  let out = '';
  for (const segment of segments) out = typeof segment === 'number' ? `${out}[${segment}]` : out === '' ? segment : `${out}.${segment}`;
  return out;
}
