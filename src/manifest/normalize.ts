import type { AnySchemaObject } from 'ajv/dist/2020.js';
import { parseSecretRef } from '../secret.js';

/**
 * Puts a schema-valid spec into the one form later stages compare (see types.ts): 0/1 fields as
 * numbers and parameters as `{value, secret}`. Walks the data alongside its schema, so which
 * fields are flags or parameters is read from the schema, not listed twice. Returns new objects.
 */
export function normalizeSpec(spec: unknown, specSchema: AnySchemaObject, root: AnySchemaObject): unknown {
  return walk(spec, specSchema, root, 0);
}

function walk(data: unknown, schema: AnySchemaObject | undefined, root: AnySchemaObject, depth: number): unknown {
  if (schema === undefined || depth > 64) return data;
  const resolved = resolveRef(schema, root);
  if (isFlagSchema(resolved) && typeof data === 'boolean') return data ? 1 : 0;
  if (resolved.title === 'Parameters' && isRecord(data)) return normalizeParameters(data);
  if (Array.isArray(data)) {
    const items = resolved.items as AnySchemaObject | undefined;
    return data.map((item) => walk(item, items, root, depth + 1));
  }
  if (isRecord(data)) {
    const props = (resolved.properties ?? {}) as Record<string, AnySchemaObject>;
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(data)) {
      setOwn(out, key, walk(value, Object.hasOwn(props, key) ? props[key] : undefined, root, depth + 1));
    }
    return out;
  }
  return data;
}

function normalizeParameters(data: Record<string, unknown>): Record<string, { value: string; secret: boolean }> {
  const out: Record<string, { value: string; secret: boolean }> = {};
  for (const [name, raw] of Object.entries(data)) {
    const value = isRecord(raw) ? raw.value : raw;
    const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value : '';
    const marked = isRecord(raw) && raw.secret === true;
    setOwn(out, name, { value: text, secret: marked || parseSecretRef(text) !== undefined });
  }
  return out;
}

/** A 0/1 field: `enum: [0, 1, true, false]`. */
export function isFlagSchema(schema: AnySchemaObject): boolean {
  const e = schema.enum as unknown[] | undefined;
  return Array.isArray(e) && e.length === 4 && [0, 1, true, false].every((v) => e.includes(v));
}

function resolveRef(schema: AnySchemaObject, root: AnySchemaObject): AnySchemaObject {
  let current = schema;
  for (let hops = 0; typeof current.$ref === 'string' && hops < 10; hops++) {
    const ref = current.$ref as string;
    if (!ref.startsWith('#/')) break;
    let target: unknown = root;
    for (const part of ref.slice(2).split('/')) target = isRecord(target) ? target[part] : undefined;
    if (!isRecord(target)) break;
    current = target as AnySchemaObject;
  }
  return current;
}

/** Assigns an own property, even `__proto__`, without touching any prototype. */
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
