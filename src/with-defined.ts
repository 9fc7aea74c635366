/**
 * The keys of `T` whose value may be `undefined` become optional and lose `undefined`; the others
 * stay as they are. The type `withDefined` returns: a field left out is absent, never present
 * with `undefined` (plans, plan files and JSON output compare and print absent fields as absent).
 */
export type Defined<T> = { [K in keyof T as undefined extends T[K] ? never : K]: T[K] } & {
  [K in keyof T as undefined extends T[K] ? K : never]?: Exclude<T[K], undefined>;
};

/**
 * `fields` without the keys whose value is `undefined`, in place of `...(x !== undefined ? { x } : {})`
 * spreads: `{ address, ...withDefined({ reason: o.reason, previousName }) }`.
 */
export function withDefined<T extends Record<string, unknown>>(fields: T): Defined<T> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(fields)) {
    const value = fields[key];
    if (value !== undefined) out[key] = value;
  }
  return out as Defined<T>;
}
