/** JSON values as they travel on the wire and sit in the emulator's state. */
export type Json = string | number | boolean | null | Json[] | JsonObject;
export interface JsonObject {
  [key: string]: Json;
}

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function cloneJson<T extends Json>(value: T): T {
  return structuredClone(value);
}

/** A copy without `null` members, at any depth: the servers treat null as "not given". */
export function dropNulls(value: Json): Json {
  if (Array.isArray(value)) return value.filter((v) => v !== null).map(dropNulls);
  if (isJsonObject(value)) {
    const out: JsonObject = {};
    for (const [k, v] of Object.entries(value)) if (v !== null) out[k] = dropNulls(v);
    return out;
  }
  return value;
}

/** How a rejected value is shown in `errors[].rejected` (a string in both APIs). */
export function showRejected(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined) return '';
  return JSON.stringify(value) ?? String(value);
}
