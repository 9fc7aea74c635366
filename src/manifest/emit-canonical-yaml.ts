import { Document } from 'yaml';
import { isAmbiguousScalar } from './yaml-scalars.js';

/**
 * A fast writer of plain data (objects, arrays, strings, safe integers, booleans, null) as the
 * text `new Document(value)` gives after `canonicalizeQuoting`, written with `TO_STRING_OPTIONS`:
 * block collections indented by two, sequences indented under their key, `{}` and `[]` when
 * empty, strings plain where `yaml` writes them plain, else double-quoted (single-quoted when they
 * hold `"` and no `'`), ambiguous ones always double-quoted. Import writes thousands of manifests
 * and the `yaml` Document path cost about 1 ms each (profiled); this one writes the same bytes
 * several times faster. Anything outside that subset (another type, `undefined`, a control or
 * line-break character, a surrogate, a string that starts like a document marker, a key too long
 * for an implicit key) makes it answer `undefined`, and the caller takes the `yaml` path as
 * before. test/manifest/emit-canonical-yaml.test.ts compares both on generated data.
 */
export function emitCanonicalYaml(value: Readonly<Record<string, unknown>>): string | undefined {
  if (!isPlainObject(value) || Object.keys(value).length === 0) return undefined;
  try {
    return `${mapText(value, '')}\n`;
  } catch (err) {
    if (err instanceof OutOfSubset || err instanceof RangeError) return undefined;
    throw err;
  }
}

/** Thrown inside the writer when the value leaves the subset; never escapes it. */
class OutOfSubset extends Error {}

const bail = (): never => {
  throw new OutOfSubset();
};

const INDENT = '  ';

function isPlainObject(x: unknown): x is Record<string, unknown> {
  if (typeof x !== 'object' || x === null || Array.isArray(x)) return false;
  const proto = Object.getPrototypeOf(x) as unknown;
  return proto === Object.prototype || proto === null;
}

/** A non-empty mapping; its first line unindented (the caller places it), the others at `indent`. */
function mapText(map: Record<string, unknown>, indent: string): string {
  let out = '';
  let first = true;
  for (const key of Object.keys(map)) {
    const keyText = scalarText(key, true);
    if (!first) out += `\n${indent}`;
    first = false;
    out += `${keyText}:${valuePart(map[key], indent)}`;
  }
  return out;
}

/** What follows `key:` for a value of a mapping whose keys are at `indent`. */
function valuePart(value: unknown, indent: string): string {
  if (Array.isArray(value)) {
    if (value.length === 0) return ' []';
    const inner = indent + INDENT;
    return `\n${inner}${seqText(value, inner)}`;
  }
  if (typeof value === 'object' && value !== null) {
    if (!isPlainObject(value)) return bail();
    if (Object.keys(value).length === 0) return ' {}';
    const inner = indent + INDENT;
    return `\n${inner}${mapText(value, inner)}`;
  }
  return ` ${scalarValue(value)}`;
}

/** A non-empty sequence, its items at `indent`, the first line unindented. */
function seqText(items: readonly unknown[], indent: string): string {
  let out = '';
  for (let i = 0; i < items.length; i++) {
    if (i > 0) out += `\n${indent}`;
    out += `- ${itemPart(items[i], indent + INDENT)}`;
  }
  return out;
}

/** An item after its `- `, its own lines at `inner` (the column after the dash). */
function itemPart(value: unknown, inner: string): string {
  if (Array.isArray(value)) return value.length === 0 ? '[]' : seqText(value, inner);
  if (typeof value === 'object' && value !== null) {
    if (!isPlainObject(value)) return bail();
    return Object.keys(value).length === 0 ? '{}' : mapText(value, inner);
  }
  return scalarValue(value);
}

function scalarValue(value: unknown): string {
  if (typeof value === 'string') return scalarText(value, false);
  if (typeof value === 'number') return Number.isSafeInteger(value) && !Object.is(value, -0) ? String(value) : bail();
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (value === null) return 'null';
  return bail();
}

/** Control and line-break characters, DEL and C1, surrogates, BOM: left to `yaml`. */
const OUTSIDE = /[\u0000-\u001f\u007f-\u009f\ud800-\udfff\u2028\u2029\ufeff]/;
/** A document marker at the start: `yaml` may write such a string as a block scalar. */
const MARKER = /^(?:---|\.\.\.)/;
/** What `yaml` will not write plain (its plainString test, less the line breaks and tabs left out above). */
const NOT_PLAIN = /^[ ,[\]{}#&*!|>'"%@`]|^[?-]$|^[?-] |: | #| $|:$/;
/** Scalars of the `yaml` core schema other than strings: a string they would read is quoted. */
const TAG_TESTS: readonly RegExp[] = (() => {
  const schema = new Document().schema as unknown as { tags: readonly TagLike[]; compat?: readonly TagLike[] | null };
  return [...schema.tags, ...(schema.compat ?? [])]
    .filter((t) => t.default !== undefined && t.default !== false && t.tag !== 'tag:yaml.org,2002:str' && t.test instanceof RegExp)
    .map((t) => t.test!);
})();

interface TagLike {
  readonly default?: boolean | 'key';
  readonly tag: string;
  readonly test?: RegExp;
}

function scalarText(s: string, implicitKey: boolean): string {
  if (OUTSIDE.test(s) || MARKER.test(s)) return bail();
  if (isAmbiguousScalar(s)) return JSON.stringify(s);
  const text = NOT_PLAIN.test(s) || TAG_TESTS.some((re) => re.test(s)) ? quoted(s) : s;
  // `yaml` writes a key longer than 1,024 characters as an explicit `? key`.
  return implicitKey && text.length > 1024 ? bail() : text;
}

function quoted(s: string): string {
  return s.includes('"') && !s.includes("'") ? `'${s}'` : JSON.stringify(s);
}
