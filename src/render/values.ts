import { readMarker } from '../plan/model.js';
import type { JsonObject, JsonValue, RefKind } from '../plan/model.js';

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
