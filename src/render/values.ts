import { readMarker } from '../plan/model.js';
import type { FieldWords, InnerWords, JsonObject, JsonValue, RefKind } from '../plan/model.js';
import { escapeControl, formatInline } from './text.js';
import { parseFieldPath } from '../resources/common.js';
export { parseFieldPath } from '../resources/common.js';

/**
 * A field value as a reader sees it (pure): markers become the words they stand for —
 * `(sensitive)`, `(host ID 12)`, `(script ID 7)`, `(date list ID 3)` — and wrapped data objects
 * are unwrapped. Everything else is as it is; the result is drawn like any other JSON value.
 */
export function displayValue(value: JsonValue): JsonValue {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(displayValue);
  const marker = readMarker(value);
  if (marker === undefined) return displayObject(value);
  switch (marker.kind) {
    case 'sensitive':
      return '(sensitive)';
    case 'ref':
      return `(${REF_WORDS[marker.ref]} ID ${marker.id})`;
    case 'data':
      return displayObject(marker.data);
    default: {
      const never: never = marker;
      throw new Error(`unknown marker ${JSON.stringify(never)}`);
    }
  }
}

function displayObject(value: JsonObject): JsonObject {
  const out: Record<string, JsonValue> = {};
  for (const [k, v] of Object.entries(value)) out[k] = displayValue(v);
  return out;
}

/** How a reader names what a `$ref` points at. */
const REF_WORDS: Readonly<Record<RefKind, string>> = { host: 'host', script: 'script', dateList: 'date list' };

/**
 * A value's one-line text with its words (see `FieldWords`): an enumerated code with its meaning,
 * `1 (delete)`; a 0/1 flag as `true`/`false`. Without words (`said` undefined), the text as it is.
 */
export function withWords(text: string, form: FieldWords['form'] | undefined, said: string | undefined): string {
  if (form === undefined || said === undefined) return text;
  switch (form) {
    case 'flag':
      return escapeControl(said);
    case 'meaning':
      return `${text} (${escapeControl(said)})`;
    default: {
      const never: never = form;
      throw new Error(`unknown words form ${String(never)}`);
    }
  }
}

/**
 * A displayed value with the values inside it in words (see `InnerWords`): a flag becomes
 * `true`/`false`, a code the text `1 (delete)`. Paths that do not fit the value are left alone.
 */
export function withInnerWords(value: JsonValue, inner: readonly InnerWords[] | undefined): JsonValue {
  if (inner === undefined || inner.length === 0 || value === null || typeof value !== 'object') return value;
  const out = structuredClone(value) as Record<string | number, JsonValue>;
  for (const w of inner) {
    const path = parseFieldPath(w.path);
    const last = path[path.length - 1];
    let node: unknown = out;
    for (const key of path.slice(0, -1)) node = node !== null && typeof node === 'object' ? (node as Record<string | number, unknown>)[key] : undefined;
    if (last === undefined || node === null || typeof node !== 'object') continue;
    const holder = node as Record<string | number, JsonValue>;
    const leaf = holder[last];
    if (leaf === undefined || (leaf !== null && typeof leaf === 'object')) continue;
    holder[last] = w.form === 'flag' ? w.text === 'true' : withWords(formatInline(leaf), w.form, w.text);
  }
  return out;
}
