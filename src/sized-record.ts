/**
 * Mappings of up to this many keys get a constructor of their size (see createRecord); larger
 * ones, rare in manifests, are built as an object literal.
 */
export const MAX_SIZED_RECORD = 16;

type SizedRecord = new (keys: readonly string[], values: readonly unknown[]) => Record<string, unknown>;
/** The constructor of each size, made when first needed. */
const sizedRecords: SizedRecord[] = [];

/**
 * A plain object holding `values` under `keys`, in order (a key `__proto__` as an own property).
 * Built by adding keys one by one to `{}`, V8 gives every object room for four properties and
 * moves any past four to a separate array: a one-key mapping took 56 bytes, a six-key one 96.
 * The objects of a constructor are cut to what it adds (V8's slack tracking), so one constructor
 * per size gives each object room for exactly its keys (32 and 72 bytes). The prototype is
 * `Object.prototype` itself: to every reader (`Object.getPrototypeOf`, `constructor`, inspection,
 * JSON, structuredClone) these are plain objects.
 */
export function createRecord(keys: readonly string[], values: readonly unknown[]): Record<string, unknown> {
  const size = keys.length;
  if (size > MAX_SIZED_RECORD || keys.includes('__proto__')) {
    const out: Record<string, unknown> = {};
    for (let i = 0; i < size; i++) Object.defineProperty(out, keys[i]!, { value: values[i], enumerable: true, writable: true, configurable: true });
    return out;
  }
  let Sized = sizedRecords[size];
  if (Sized === undefined) {
    // A function, not a class: its prototype can be Object.prototype itself.
    function SizedRecord(this: Record<string, unknown>, k: readonly string[], v: readonly unknown[]): void {
      for (let i = 0; i < k.length; i++) this[k[i]!] = v[i];
    }
    SizedRecord.prototype = Object.prototype;
    Sized = SizedRecord as unknown as SizedRecord;
    sizedRecords[size] = Sized;
  }
  return new Sized(keys, values);
}
