import type { AnySchemaObject } from 'ajv/dist/2020.js';
import { isRecord } from '../is-record.js';

/**
 * How a reader says a field's values:
 * - `meaning`: an enumerated code's meaning (`x-mftops-meanings` in the schema), shown beside the
 *   code: `DeleteOrig: 1 (delete) → 2 (rename or move)`;
 * - `flag`: a 0/1 field, shown `true`/`false` (as a manifest writes it) instead of the wire's 0/1.
 * `before`/`after` are absent when that value is absent or has no words (a code the schema does
 * not list).
 */
export interface FieldWords {
  readonly form: 'meaning' | 'flag';
  readonly before?: string;
  readonly after?: string;
}

/**
 * The words of a value inside a field's value (a whole step, a whole schedule): `path` relative to
 * the field (`Source.DeleteOrig`, `Schedule[0].Multi`), `form` and `text` as in `FieldWords`.
 */
export interface InnerWords {
  readonly path: string;
  readonly form: FieldWords['form'];
  readonly text: string;
}

/**
 * What the schema says about the values of one field, for readers: a 0/1 flag reads `true`/`false`;
 * an enumerated code has a meaning per value (`x-mftops-meanings`, e.g. `DeleteOrig` 2 →
 * `rename or move`; `meaning not in the reference` where the API reference gives none).
 */
export interface FieldVocabulary {
  readonly flag: boolean;
  /** Meaning by value, the value as text (`"-1"`, `"2"`). */
  readonly meanings?: Readonly<Record<string, string>>;
}

/**
 * The words of a kind's fields, read from its JSON Schema once: keyed by field path relative to
 * the spec with list indexes left out (`Active`, `steps.Source.DeleteOrig`,
 * `Schedules.Schedule.Multi`), the paths `FieldChange.path` uses once its `[n]` are dropped.
 * Plain data, so the pure core can be handed it; only fields with words are listed.
 */
export type ValueVocabulary = ReadonlyMap<string, FieldVocabulary>;

/** The schema keyword that holds an enumerated field's meanings (declared to ajv as an annotation). */
export const MEANINGS_KEYWORD = 'x-mftops-meanings';

/** A 0/1 field: `enum: [0, 1, true, false]`. */
export function isFlagSchema(schema: AnySchemaObject): boolean {
  const e = schema.enum as unknown[] | undefined;
  return Array.isArray(e) && e.length === 4 && [0, 1, true, false].every((v) => e.includes(v));
}

/** Follows local `$ref`s (`#/$defs/…`) to the schema they name; anything else is returned as it is. */
export function resolveRef(schema: AnySchemaObject, root: AnySchemaObject): AnySchemaObject {
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

/**
 * The vocabulary of the fields below `schema` (a kind's spec schema inside `root`). Walks
 * properties, list items and the alternatives of `oneOf`/`anyOf`/`allOf`; a schema met again on
 * the same path (recursive criteria) is not walked twice.
 */
export function readValueVocabulary(schema: AnySchemaObject, root: AnySchemaObject): ValueVocabulary {
  const out = new Map<string, FieldVocabulary>();
  const walk = (node: AnySchemaObject, path: string, seen: ReadonlySet<object>): void => {
    const s = resolveRef(node, root);
    if (seen.has(s) || path.split('.').length > 12) return;
    const inner = new Set(seen).add(s);
    const meanings = readMeanings(s);
    if (path !== '' && (isFlagSchema(s) || meanings !== undefined)) out.set(path, { flag: isFlagSchema(s), ...(meanings !== undefined ? { meanings } : {}) });
    for (const key of ['oneOf', 'anyOf', 'allOf'] as const) {
      const alternatives = s[key] as unknown;
      if (Array.isArray(alternatives)) for (const a of alternatives) if (isRecord(a)) walk(a as AnySchemaObject, path, inner);
    }
    if (isRecord(s.items)) walk(s.items as AnySchemaObject, path, inner);
    if (isRecord(s.properties)) {
      for (const [key, child] of Object.entries(s.properties)) if (isRecord(child)) walk(child as AnySchemaObject, path === '' ? key : `${path}.${key}`, inner);
    }
  };
  walk(schema, '', new Set());
  return out;
}

function readMeanings(schema: AnySchemaObject): Readonly<Record<string, string>> | undefined {
  const m = schema[MEANINGS_KEYWORD] as unknown;
  if (!isRecord(m)) return undefined;
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(m)) if (typeof v === 'string') out[k] = v;
  return out;
}

/** `steps[0].Source.DeleteOrig` → `steps.Source.DeleteOrig`: the key of `ValueVocabulary`. */
export function vocabularyKey(path: string): string {
  return path.replace(/\[\d+\]/g, '');
}

/**
 * A value in words (pure): `true`/`false` for a flag (`form: 'flag'`), the meaning of an
 * enumerated code (`form: 'meaning'`); undefined when the field has no words, or the value is
 * not one the schema gives words for (a code the server added, a marker).
 */
export function describeFieldValue(vocabulary: ValueVocabulary, path: string, value: unknown): { form: FieldWords['form']; text: string } | undefined {
  const v = vocabulary.get(vocabularyKey(path));
  if (v === undefined) return undefined;
  if (v.flag) {
    const on = value === 1 || value === true || value === '1' ? true : value === 0 || value === false || value === '0' ? false : undefined;
    return on === undefined ? undefined : { form: 'flag', text: String(on) };
  }
  if (v.meanings === undefined || (typeof value !== 'number' && typeof value !== 'string')) return undefined;
  const text = v.meanings[String(value)];
  return text === undefined ? undefined : { form: 'meaning', text };
}

/**
 * The words of both values of a field change (see `FieldWords`); undefined when neither value
 * has words.
 */
export function describeFieldChange(vocabulary: ValueVocabulary, path: string, before: unknown, after: unknown): FieldWords | undefined {
  const b = before === undefined ? undefined : describeFieldValue(vocabulary, path, before);
  const a = after === undefined ? undefined : describeFieldValue(vocabulary, path, after);
  const form = a?.form ?? b?.form;
  if (form === undefined) return undefined;
  return { form, ...(b !== undefined ? { before: b.text } : {}), ...(a !== undefined ? { after: a.text } : {}) };
}

/**
 * The words of every value with words inside `value` (an object or list field value), in the
 * order met; empty for a scalar. Markers (objects with `$` keys) are not looked into.
 */
export function describeInnerValues(vocabulary: ValueVocabulary, path: string, value: unknown): InnerWords[] {
  const out: InnerWords[] = [];
  const walk = (v: unknown, rel: string, depth: number): void => {
    if (depth > 32) return;
    if (Array.isArray(v)) {
      v.forEach((item, i) => walk(item, `${rel}[${i}]`, depth + 1));
      return;
    }
    if (isRecord(v)) {
      if (Object.keys(v).some((k) => k.startsWith('$'))) return;
      for (const [k, item] of Object.entries(v)) walk(item, rel === '' ? k : `${rel}.${k}`, depth + 1);
      return;
    }
    if (rel === '') return;
    const words = describeFieldValue(vocabulary, rel.startsWith('[') ? `${path}${rel}` : `${path}.${rel}`, v);
    if (words !== undefined) out.push({ path: rel, ...words });
  };
  walk(value, '', 0);
  return out;
}
