import type { AnySchemaObject } from 'ajv/dist/2020.js';
import { parseSecretRef } from '../secret.js';
import { WEEK_DAYS, canonicalDayName } from '../vocabulary.js';
import { isRecord } from '../is-record.js';
import { createRecord } from '../sized-record.js';
import { isFlagSchema, resolveRef } from './value-words.js';

/**
 * Puts a schema-valid spec into the one form later stages compare (see types.ts): 0/1 fields as
 * numbers, parameters as `{value, secret}`, day names in full (`Mon` → `Monday`, a repeat dropped),
 * the same canonical form the automation client gives live tasks. Walks the data alongside its schema, so which
 * fields are flags or parameters is read from the schema, not listed twice. Returns new objects.
 */
export function normalizeSpec(spec: unknown, specSchema: AnySchemaObject, root: AnySchemaObject): unknown {
  return walk(spec, planFor(specSchema, root), 0);
}

/**
 * What normalisation does at one schema node, read from the schema once per process instead of
 * once per value (thousands of manifests share a handful of schemas).
 */
interface NodePlan {
  /** `enum: [0, 1, true, false]`: a boolean becomes 0 or 1. */
  readonly flag: boolean;
  /** `title: Parameters`: a mapping becomes `{name: {value, secret}}`. */
  readonly parameters: boolean;
  /** A list whose items are day names (an enum holding every full day name): full names, no repeats. */
  readonly days: boolean;
  /** Plan of a list's items; undefined: items are kept as they are. */
  items: NodePlan | undefined;
  /** Plans of a mapping's properties; a key without one keeps its value as it is. */
  readonly properties: Map<string, NodePlan>;
}

/** Plans by root schema, then by schema node (before `$ref` resolution), so recursive schemas end. */
const plans = new WeakMap<object, WeakMap<object, NodePlan>>();
/** A boolean (or otherwise non-object) schema: copies lists and mappings, changes nothing inside. */
const OPAQUE: NodePlan = { flag: false, parameters: false, days: false, items: undefined, properties: new Map() };

function planFor(schema: AnySchemaObject, root: AnySchemaObject): NodePlan {
  if (typeof schema !== 'object' || schema === null) return OPAQUE;
  let byNode = plans.get(root);
  if (!byNode) plans.set(root, (byNode = new WeakMap()));
  const cached = byNode.get(schema);
  if (cached) return cached;
  const resolved = resolveRef(schema, root);
  const properties = new Map<string, NodePlan>();
  const items = resolved.items as AnySchemaObject | undefined;
  const plan: NodePlan = {
    flag: isFlagSchema(resolved),
    parameters: resolved.title === 'Parameters',
    days: items !== undefined && isDaySchema(resolveRef(items, root)),
    items: undefined,
    properties,
  };
  // Stored before its children are planned: a schema that refers to itself finds this plan.
  byNode.set(schema, plan);
  if (items !== undefined) plan.items = planFor(items, root);
  const props = (resolved.properties ?? {}) as Record<string, AnySchemaObject>;
  for (const key of Object.keys(props)) {
    const child = props[key];
    if (child !== undefined) properties.set(key, planFor(child, root));
  }
  return plan;
}

function walk(data: unknown, plan: NodePlan, depth: number): unknown {
  if (depth > 64) return data;
  if (typeof data !== 'object' || data === null) return plan.flag && typeof data === 'boolean' ? (data ? 1 : 0) : data;
  if (Array.isArray(data)) {
    if (plan.days) return [...new Set(data.map((d) => (typeof d === 'string' ? (canonicalDayName(d) ?? d) : d)))];
    const items = plan.items;
    const out: unknown[] = new Array(data.length);
    for (let i = 0; i < data.length; i++) out[i] = items === undefined ? data[i] : walk(data[i], items, depth + 1);
    return out;
  }
  const record = data as Record<string, unknown>;
  if (plan.parameters) return normalizeParameters(record);
  const keys: string[] = [];
  const values: unknown[] = [];
  const properties = plan.properties;
  // `for…in` with an own-property check visits what Object.keys lists, in its order, without
  // making an array of keys per object.
  for (const key in record) {
    if (!Object.hasOwn(record, key)) continue;
    const child = properties.get(key);
    keys.push(key);
    values.push(child === undefined ? record[key] : walk(record[key], child, depth + 1));
  }
  // Kept as long as the manifests are: each mapping sized to its keys.
  return createRecord(keys, values);
}

function normalizeParameters(data: Record<string, unknown>): Record<string, { value: string; secret: boolean }> {
  const out: Record<string, { value: string; secret: boolean }> = {};
  for (const name in data) {
    if (!Object.hasOwn(data, name)) continue;
    const raw = data[name];
    const record = isRecord(raw);
    const value = record ? raw.value : raw;
    const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value : '';
    const marked = record && raw.secret === true;
    const param = { value: text, secret: marked || parseSecretRef(text) !== undefined };
    if (name === '__proto__') setOwn(out, name, param);
    else out[name] = param;
  }
  return out;
}

function isDaySchema(schema: AnySchemaObject): boolean {
  const e = schema.enum as unknown[] | undefined;
  return Array.isArray(e) && WEEK_DAYS.every((d) => e.includes(d));
}

/** Assigns an own property, even `__proto__`, without touching any prototype. */
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}
