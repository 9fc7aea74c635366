import { createHash } from 'node:crypto';
import { isRecord } from '../is-record.js';
import type { FieldChange, JsonObject, JsonValue, RefKind } from './model.js';

/**
 * Pieces every resource kind shares: value normalisation (the servers answer `true` where the
 * reference says 1, `"12"` where it says 12), the "only fields the manifest sets" diff, and the
 * fingerprint of a live object.
 */

/** Field names holding passwords (`Password`, `DefPassword`, `ProxyPassword`, ...): never compared, shown or hashed. */
export const PASSWORD_FIELD = /password$/i;

/** Deterministic JSON: object keys sorted at every depth, `undefined` members dropped. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (!isRecord(value)) return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    const v = value[key];
    if (v !== undefined) out[key] = sortKeys(v);
  }
  return out;
}

/** `sha256:<hex>` of the canonical JSON of `value`. */
export function sha256Of(value: unknown): string {
  return `sha256:${createHash('sha256').update(canonicalJson(value)).digest('hex')}`;
}

/** A copy without password fields at any depth (a fingerprint must not be a hash of a secret). */
export function withoutPasswords(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutPasswords);
  if (!isRecord(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) if (!PASSWORD_FIELD.test(k)) out[k] = withoutPasswords(v);
  return out;
}

/** Anything read from a server as JSON data (functions, undefined members dropped). */
export function toJson(value: unknown): JsonValue {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (Array.isArray(value)) return value.map(toJson);
  if (isRecord(value)) {
    const out: Record<string, JsonValue> = {};
    for (const [k, v] of Object.entries(value)) if (v !== undefined && typeof v !== 'function') out[k] = toJson(v);
    return out;
  }
  return null;
}

function isAbsent(value: unknown): boolean {
  return value === undefined || value === null;
}

/**
 * Does the live value equal the desired one, as the server means it: `1` and `true`, `12` and
 * `"12"`, `"true"` and `1` are the same; an empty desired string equals an absent live value.
 */
export function sameScalar(desired: unknown, live: unknown): boolean {
  if (desired === live) return true;
  if (isAbsent(live)) return desired === '';
  if (typeof desired === 'number') {
    if (typeof live === 'boolean') return desired === (live ? 1 : 0);
    if (typeof live === 'string') return live.trim() !== '' && (Number(live) === desired || flagText(live) === desired);
    return false;
  }
  if (typeof desired === 'boolean') return sameScalar(desired ? 1 : 0, live);
  if (typeof desired === 'string' && typeof live === 'number') return desired.trim() !== '' && Number(desired) === live;
  if (typeof desired === 'string' && typeof live === 'boolean') return flagText(desired) === (live ? 1 : 0);
  return false;
}

function flagText(text: string): 0 | 1 | undefined {
  const t = text.trim().toLowerCase();
  return t === 'true' ? 1 : t === 'false' ? 0 : undefined;
}

/** A live scalar shown the way the manifest writes the field: `true` as `1` for a 0/1 field, `"12"` as 12. */
export function displayLike(desired: unknown, live: unknown): JsonValue | undefined {
  if (isAbsent(live)) return undefined;
  if (typeof desired === 'number') {
    if (typeof live === 'boolean') return live ? 1 : 0;
    if (typeof live === 'string' && live.trim() !== '' && Number.isFinite(Number(live))) return Number(live);
  }
  return toJson(live);
}

/** `a.b`, `a[0]`: the display paths of FieldChange. */
export function joinPath(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  return path === '' ? key : `${path}.${key}`;
}

/** `a.b[0].c` → `['a', 'b', 0, 'c']`: a display path's segments (the inverse of joinPath). */
export function parseFieldPath(path: string): (string | number)[] {
  const out: (string | number)[] = [];
  for (const m of path.matchAll(/([^.[\]]+)|\[(\d+)\]/g)) out.push(m[2] !== undefined ? Number(m[2]) : m[1]!);
  return out;
}

/**
 * A field change with `before`/`after` only when they have a value. Every field value of a plan
 * is made here: the values become field values (see `ValueMarker` in model.ts), so data objects
 * that look like markers are wrapped and only markers made by `sensitiveValue`/`refValue` stay
 * markers.
 */
export function fieldChange(path: string, before: JsonValue | undefined, after: JsonValue | undefined, extra: { forcesReplace?: boolean } = {}): FieldChange {
  return {
    path,
    ...(before !== undefined ? { before: fieldValue(before) } : {}),
    ...(after !== undefined ? { after: fieldValue(after) } : {}),
    ...(extra.forcesReplace ? { forcesReplace: true } : {}),
  };
}

/** The markers this run made: only these pass `fieldValue` as markers (by identity). */
const MARKERS = new WeakSet<object>();

function marker(value: JsonObject): JsonObject {
  MARKERS.add(value);
  return value;
}

/** A write-only value inside a value a plan shows: `{"$sensitive": true}`. */
export function sensitiveValue(): JsonObject {
  return marker({ $sensitive: true });
}

/** A live id that no object of the live state names: `{"$ref": "host", "id": "…"}`. */
export function refValue(ref: RefKind, id: string): JsonObject {
  return marker({ $ref: ref, id });
}

/**
 * Data shaped for a manifest (`mftops import`'s converter) as a field value: JSON, with the markers
 * this run made kept as markers and any other `$` object wrapped (see `fieldValue`).
 */
export function asFieldValue(value: unknown): JsonValue {
  return fieldValue(toJsonKeepingMarkers(value));
}

function toJsonKeepingMarkers(value: unknown): JsonValue {
  if (isRecord(value) && MARKERS.has(value)) return value as JsonObject;
  if (Array.isArray(value)) return value.map(toJsonKeepingMarkers);
  if (!isRecord(value)) return toJson(value);
  const out: Record<string, JsonValue> = {};
  for (const [k, v] of Object.entries(value)) if (v !== undefined && typeof v !== 'function') out[k] = toJsonKeepingMarkers(v);
  return out;
}

/** `value` as a field value: a data object with a key starting with `$` wrapped in `{"$data": …}`, at any depth. */
function fieldValue(value: JsonValue): JsonValue {
  if (Array.isArray(value)) return value.map(fieldValue);
  if (value === null || typeof value !== 'object' || MARKERS.has(value)) return value;
  const out: Record<string, JsonValue> = {};
  for (const [k, v] of Object.entries(value)) out[k] = fieldValue(v);
  return Object.keys(out).some((k) => k.startsWith('$')) ? { $data: out } : out;
}

export function sensitiveChange(path: string): FieldChange {
  return { path, sensitive: true };
}

/** How to show a whole live item that appears in a change (removed, or replaced by another kind). */
export type LiveDisplay = (live: unknown) => JsonValue;

/** Server-numbered `ID`s dropped, passwords as `$sensitive` markers: a live value as a reader should see it. */
export function displayLiveGeneric(live: unknown): JsonValue {
  if (Array.isArray(live)) return live.map(displayLiveGeneric);
  if (!isRecord(live)) return toJson(live);
  const out: Record<string, JsonValue> = {};
  for (const [k, v] of Object.entries(live)) {
    if (k === 'ID' || v === undefined) continue;
    out[k] = PASSWORD_FIELD.test(k) ? sensitiveValue() : displayLiveGeneric(v);
  }
  return out;
}

/** A desired value with its password fields as `$sensitive` markers. */
export function displayDesiredGeneric(desired: unknown): JsonValue {
  if (Array.isArray(desired)) return desired.map(displayDesiredGeneric);
  if (!isRecord(desired)) return toJson(desired);
  const out: Record<string, JsonValue> = {};
  for (const [k, v] of Object.entries(desired)) {
    if (v === undefined) continue;
    out[k] = PASSWORD_FIELD.test(k) ? sensitiveValue() : displayDesiredGeneric(v);
  }
  return out;
}

/**
 * The recursive "only fields the manifest sets" diff. Objects: each key the desired value has.
 * Lists of objects: by position, each item diffed the same way; live items past the end are
 * removed, desired items past the live end are added (whole items). Lists of scalars: the whole
 * list. Scalars: `sameScalar`. Password fields are write-only: a sensitive change, never compared.
 */
export function diffSetFields(path: string, desired: unknown, live: unknown, out: FieldChange[], show: LiveDisplay = displayLiveGeneric): void {
  if (desired === undefined) return;
  if (isRecord(desired)) {
    if (!isAbsent(live) && !isRecord(live)) {
      out.push(fieldChange(path, show(live), displayDesiredGeneric(desired)));
      return;
    }
    const l = isRecord(live) ? live : {};
    for (const [key, value] of Object.entries(desired)) {
      if (PASSWORD_FIELD.test(key)) out.push(sensitiveChange(joinPath(path, key)));
      else diffSetFields(joinPath(path, key), value, l[key], out, show);
    }
    return;
  }
  if (Array.isArray(desired)) {
    if (desired.length > 0 && desired.every(isRecord)) {
      diffListByPosition(path, desired, live, out, (p, d, l) => diffSetFields(p, d, l, out, show), show);
      return;
    }
    const l = Array.isArray(live) ? live : undefined;
    const same = l !== undefined && l.length === desired.length && desired.every((d, i) => sameScalar(d, l[i]));
    if (!same && !(desired.length === 0 && isAbsent(live))) out.push(fieldChange(path, isAbsent(live) ? undefined : show(live), toJson(desired)));
    return;
  }
  if (!sameScalar(desired, live)) out.push(fieldChange(path, displayLike(desired, live), toJson(desired)));
}

/**
 * Lists compared item by item: `diffItem` for positions both sides have, whole-item changes for
 * the rest (added: `after` only; removed: `before` only).
 */
export function diffListByPosition(
  path: string,
  desired: readonly unknown[],
  live: unknown,
  out: FieldChange[],
  diffItem: (path: string, desired: unknown, live: unknown, index: number) => void,
  showLive: LiveDisplay = displayLiveGeneric,
  showDesired: (desired: unknown) => JsonValue = displayDesiredGeneric,
): void {
  const l = Array.isArray(live) ? live : [];
  desired.forEach((d, i) => {
    const p = joinPath(path, i);
    if (i >= l.length || isAbsent(l[i])) out.push(fieldChange(p, undefined, showDesired(d)));
    else diffItem(p, d, l[i], i);
  });
  for (let i = desired.length; i < l.length; i++) out.push(fieldChange(joinPath(path, i), showLive(l[i]), undefined));
}

/**
 * A deep merge of `desired` over `live` for request bodies: objects merge key by key, lists of
 * objects merge by position (so kept items keep their server `ID`s; live items past the desired
 * end are dropped), anything else is replaced by the desired value.
 */
export function mergeOver(live: unknown, desired: unknown): JsonValue {
  if (isRecord(desired)) {
    if (!isRecord(live)) return toJson(desired);
    const out: Record<string, JsonValue> = { ...(toJson(live) as JsonObject) };
    for (const [k, v] of Object.entries(desired)) if (v !== undefined) out[k] = mergeOver(live[k], v);
    return out;
  }
  if (Array.isArray(desired) && desired.length > 0 && desired.every(isRecord) && Array.isArray(live)) {
    return desired.map((d, i) => mergeOver(live[i], d));
  }
  return toJson(desired);
}
