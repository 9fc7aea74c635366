import { isDeepStrictEqual } from 'node:util';
import type { AnySchemaObject } from 'ajv/dist/2020.js';
import { documentSchema, resolveSchemaRef, schemaExtraProperties, schemaItems, schemaProperties } from './canonical-form.js';
import { parseSimpleYaml, parseSimpleYamlWithStyles } from './fast-yaml.js';
import { isAmbiguousScalar } from './yaml-scalars.js';

/**
 * The canonical form (src/manifest/canonical-form.ts) of a manifest file written in the plain YAML
 * the fast reader takes (src/manifest/fast-yaml.ts), rendered from its data without `yaml`'s
 * syntax trees: a file in canonical form is recognised in about the time it takes to read it
 * (issue 29: `fmt --check` of 13,000 files took 13× `validate`'s CPU through `yaml`). It gives
 * exactly the text `formatManifestText` gives, or undefined where it cannot be sure, and the
 * caller formats with `yaml` as before: text outside the fast reader's subset, comments other
 * than whole lines at the top of a document, blank lines, a `True`/`FALSE` (kept as written by
 * `yaml`), nulls, numbers other than safe integers, strings whose quoting needs escapes or
 * `yaml`'s number rules. A differential test (test/manifest/fast-canonical-form.test.ts) holds it
 * to `formatManifestText`. Pure.
 */
export function formatSimpleManifestText(text: string): string | undefined {
  const source = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  if (mayHoldSourceForms(source) && SOURCE_FORMS.test(source)) return undefined;
  if (scanLayout(source) === undefined) return undefined;
  const parsed = parseSimpleYamlWithStyles(source);
  if (parsed === undefined) return undefined;
  return formatReadManifestText(
    source,
    parsed.documents.map((d) => d.data),
    parsed.styles.flow,
  );
}

/**
 * formatSimpleManifestText of a text (without its byte order mark) the fast reader has read
 * already: its documents' data, and its flow collections (recordSimpleYamlStyles). The loader
 * reads each file once for `fmt` this way.
 */
export function formatReadManifestText(source: string, documents: readonly Record<string, unknown>[], flow: ReadonlySet<object>): string | undefined {
  const out = render(source, documents, flow, true);
  return out === false ? undefined : out;
}

/**
 * Whether a text the fast reader has read is in canonical form (as formatReadManifestText), or
 * undefined when `yaml` must decide; for `fmt --check`, which writes nothing: it stops at the
 * first difference. What was rendered up to there is what `yaml` writes (the render gives up
 * before writing anything it is unsure of), so `yaml` would find the same difference, whatever
 * the rest of the file holds.
 */
export function isReadManifestTextCanonical(source: string, documents: readonly Record<string, unknown>[], flow: ReadonlySet<object>): boolean | undefined {
  const out = render(source, documents, flow, false);
  return out === undefined ? undefined : out === source;
}

/** The canonical text, or (`build` false) false at the first difference from `source`; undefined when unsure. */
function render(source: string, documents: readonly Record<string, unknown>[], flow: ReadonlySet<object>, build: boolean): string | false | undefined {
  // `yaml` writes a boolean as it was written (`True`); the fast reader does not say how.
  if (mayHoldSourceForms(source) && SOURCE_FORMS.test(source)) return undefined;
  const layout = scanLayout(source);
  if (layout === undefined) return undefined;
  let contents = 0;
  for (const part of layout) if (part === CONTENT) contents++;
  if (contents !== documents.length) return undefined;
  try {
    const w = new Writer(source, build);
    let doc = 0;
    for (const part of layout) {
      if (part === CONTENT) {
        emitDocument(documents[doc++]!, flow, w);
      } else {
        w.put(part);
        w.putCode(NEWLINE, '\n');
      }
    }
    const out = w.text();
    if (out === source) return out;
    // A rewrite must read back as the same data (as in formatManifestText); otherwise `yaml` decides.
    const reread = parseSimpleYaml(out);
    if (reread === undefined || reread.length !== documents.length) return undefined;
    for (let i = 0; i < documents.length; i++) if (!isDeepStrictEqual(reread[i]!.data, documents[i])) return undefined;
    return out;
  } catch (err) {
    if (err === DIFFERS) return false;
    if (err instanceof OutOfReach) return undefined;
    throw err;
  }
}

/**
 * The output, compared with the source as it is written: while they agree nothing is built, so a
 * file already in canonical form costs no copy of itself. Not building, it throws DIFFERS at the
 * first difference.
 */
class Writer {
  readonly #source: string;
  readonly #build: boolean;
  #pos = 0;
  #out: string | undefined;

  constructor(source: string, build: boolean) {
    this.#source = source;
    this.#build = build;
  }

  put(s: string): void {
    if (this.#out === undefined) {
      if (this.#source.startsWith(s, this.#pos)) {
        this.#pos += s.length;
        return;
      }
      if (!this.#build) throw DIFFERS;
      this.#out = this.#source.slice(0, this.#pos);
    }
    this.#out += s;
  }

  /** put(s) of a one-character `s` whose code is `code`: a comparison of one character, not of a string. */
  putCode(code: number, s: string): void {
    if (this.#out === undefined && this.#source.charCodeAt(this.#pos) === code) {
      this.#pos++;
      return;
    }
    this.put(s);
  }

  /** The output (not building, the source: the render reached its end without a difference). */
  text(): string {
    return this.#out ?? (this.#pos === this.#source.length ? this.#source : this.#source.slice(0, this.#pos));
  }
}

/** Thrown while rendering where the fast form cannot be sure; never escapes formatSimpleManifestText. */
class OutOfReach extends Error {}

/** Thrown by a Writer that does not build, at the first difference (one instance: nothing to say but that). */
const DIFFERS = new (class Differs extends Error {})();

const giveUp = (): never => {
  throw new OutOfReach();
};

const SOURCE_FORMS = /\b(?:True|TRUE|False|FALSE)\b/;
const mayHoldSourceForms = (text: string): boolean => text.includes('True') || text.includes('TRUE') || text.includes('False') || text.includes('FALSE');

/** Where a document's content lines go in the layout. */
const CONTENT = 0;

/**
 * The file's lines as the canonical form keeps them: `---` separators and the comment lines at the
 * top of a document (at the start of the file or right after a `---`) verbatim, each run of
 * content lines (one document) as CONTENT; undefined for a blank line, a comment anywhere else,
 * or anything that may hold one (` #`).
 */
function scanLayout(text: string): (string | typeof CONTENT)[] | undefined {
  const layout: (string | typeof CONTENT)[] = [];
  let top = true;
  // The next `#` in the text, searched for again only once passed: a content line must not hold ` #`.
  let hash = text.indexOf('#');
  for (let pos = 0; pos < text.length; ) {
    let nl = text.indexOf('\n', pos);
    if (nl === -1) nl = text.length;
    if (nl === pos) return undefined;
    const c = text.charCodeAt(pos);
    if (nl - pos === 3 && c === 45 /* - */ && text.startsWith('---', pos)) {
      layout.push('---');
      top = true;
    } else if (c === 35 /* # */) {
      if (!top) return undefined;
      layout.push(text.slice(pos, nl));
    } else {
      let i = pos;
      while (i < nl && text.charCodeAt(i) === 32) i++;
      if (i === nl) return undefined;
      while (hash !== -1 && hash < nl) {
        if (hash > pos && text.charCodeAt(hash - 1) === 32) return undefined;
        hash = text.indexOf('#', hash + 1);
      }
      if (top) layout.push(CONTENT);
      top = false;
    }
    pos = nl + 1;
  }
  return layout;
}

/** One document (a block mapping at the top), its keys in schema order for a known kind. */
function emitDocument(data: Record<string, unknown>, flow: ReadonlySet<object>, w: Writer): void {
  const kind = data.kind;
  const root = typeof kind === 'string' ? documentSchema(kind) : undefined;
  emitMap(data, root, root, 0, flow, w);
}

/**
 * What the canonical order needs of one schema node, its `$ref` followed: its named properties
 * with their ranks and schemas, the schema of other keys, the schema of items. Computed once per
 * node.
 */
interface SchemaView {
  readonly rank: ReadonlyMap<string, number> | undefined;
  /** Each named property's schema. */
  readonly children: ReadonlyMap<string, AnySchemaObject> | undefined;
  readonly extra: AnySchemaObject | undefined;
  readonly items: AnySchemaObject | undefined;
}

const views = new WeakMap<AnySchemaObject, SchemaView>();

function viewOf(schemaNode: AnySchemaObject | undefined, root: AnySchemaObject | undefined): SchemaView | undefined {
  if (schemaNode === undefined || root === undefined) return undefined;
  let view = views.get(schemaNode);
  if (view === undefined) {
    const schema = resolveSchemaRef(schemaNode, root);
    const props = schemaProperties(schema);
    view = {
      rank: props && new Map(Object.keys(props).map((name, i) => [name, i])),
      children: props && new Map(Object.entries(props)),
      extra: schemaExtraProperties(schema),
      items: schemaItems(schema),
    };
    views.set(schemaNode, view);
  }
  return view;
}

/** The schema of the value at `key` of a mapping (as orderKeys in canonical-form.ts). */
const childSchema = (view: SchemaView | undefined, key: string): AnySchemaObject | undefined =>
  view === undefined ? undefined : (view.children?.get(key) ?? view.extra);

/** Indentations by width (`INDENTS[n]`: n spaces), so that no line's indentation is a new string. */
const INDENTS: string[] = [''];
const indentOf = (width: number): string => {
  while (INDENTS.length <= width) INDENTS.push(' '.repeat(INDENTS.length));
  return INDENTS[width]!;
};

/**
 * A block mapping whose keys are indented by `indent` spaces; the first key's line is begun
 * already (by the caller: its indentation, or a `- `).
 */
function emitMap(
  map: Record<string, unknown>,
  schemaNode: AnySchemaObject | undefined,
  root: AnySchemaObject | undefined,
  indent: number,
  flow: ReadonlySet<object>,
  w: Writer,
): void {
  const view = viewOf(schemaNode, root);
  const keys = orderedKeys(map, view?.rank);
  for (let k = 0; k < keys.length; k++) {
    const key = keys[k]!;
    if (k > 0) w.put(indentOf(indent));
    w.put(emitString(key, false));
    w.putCode(COLON, ':');
    emitValue(map[key], childSchema(view, key), root, indent, flow, w);
  }
}

/** A block sequence whose dashes are indented by `indent` spaces; the first item's line is begun already. */
function emitSeq(
  seq: readonly unknown[],
  schemaNode: AnySchemaObject | undefined,
  root: AnySchemaObject | undefined,
  indent: number,
  flow: ReadonlySet<object>,
  w: Writer,
): void {
  const items = viewOf(schemaNode, root)?.items;
  for (let i = 0; i < seq.length; i++) {
    const item = seq[i];
    if (i > 0) w.put(indentOf(indent));
    w.put('- ');
    if (isBlock(item, flow)) {
      if (Array.isArray(item)) emitSeq(item, items, root, indent + 2, flow, w);
      else emitMap(item as Record<string, unknown>, items, root, indent + 2, flow, w);
    } else {
      emitFlow(item, items, root, flow, w);
      w.putCode(NEWLINE, '\n');
    }
  }
}

/** What follows `key:` in a block mapping (its key at `indent`): ` value` and the end of the line, or a deeper block. */
function emitValue(
  value: unknown,
  schemaNode: AnySchemaObject | undefined,
  root: AnySchemaObject | undefined,
  indent: number,
  flow: ReadonlySet<object>,
  w: Writer,
): void {
  if (!isBlock(value, flow)) {
    w.putCode(SPACE, ' ');
    emitFlow(value, schemaNode, root, flow, w);
    w.putCode(NEWLINE, '\n');
    return;
  }
  w.putCode(NEWLINE, '\n');
  w.put(indentOf(indent + 2));
  if (Array.isArray(value)) emitSeq(value, schemaNode, root, indent + 2, flow, w);
  else emitMap(value as Record<string, unknown>, schemaNode, root, indent + 2, flow, w);
}

const SPACE = 32;
const COLON = 58;
const NEWLINE = 10;

function isBlock(value: unknown, flow: ReadonlySet<object>): value is object {
  return typeof value === 'object' && value !== null && !flow.has(value);
}

/**
 * A scalar, or a flow collection on one line: `{ a: 1 }` padded, `[a, b]` not (as Prettier writes
 * them). Written piece by piece: compared with the source, a line in canonical form builds no string.
 */
function emitFlow(value: unknown, schemaNode: AnySchemaObject | undefined, root: AnySchemaObject | undefined, flow: ReadonlySet<object>, w: Writer): void {
  if (typeof value === 'string') w.put(emitString(value, false));
  else if (typeof value === 'number') w.put(Number.isSafeInteger(value) && !Object.is(value, -0) ? String(value) : giveUp());
  else if (typeof value === 'boolean') w.put(value ? 'true' : 'false');
  else if (typeof value !== 'object' || value === null) giveUp();
  else emitFlowCollection(value, schemaNode, root, flow, w);
}

function emitFlowCollection(
  value: object,
  schemaNode: AnySchemaObject | undefined,
  root: AnySchemaObject | undefined,
  flow: ReadonlySet<object>,
  w: Writer,
): void {
  const view = viewOf(schemaNode, root);
  if (Array.isArray(value)) {
    const items = view?.items;
    w.putCode(91, '[');
    for (let i = 0; i < value.length; i++) {
      if (i > 0) w.put(', ');
      emitFlowItem(value[i], items, root, flow, w);
    }
    w.putCode(93, ']');
    return;
  }
  const map = value as Record<string, unknown>;
  const keys = orderedKeys(map, view?.rank);
  if (keys.length === 0) {
    w.put('{}');
    return;
  }
  w.put('{ ');
  for (let k = 0; k < keys.length; k++) {
    const key = keys[k]!;
    if (k > 0) w.put(', ');
    w.put(emitString(key, true));
    w.put(': ');
    emitFlowItem(map[key], childSchema(view, key), root, flow, w);
  }
  w.put(' }');
}

function emitFlowItem(value: unknown, schemaNode: AnySchemaObject | undefined, root: AnySchemaObject | undefined, flow: ReadonlySet<object>, w: Writer): void {
  if (typeof value === 'string') w.put(emitString(value, true));
  else emitFlow(value, schemaNode, root, flow, w);
}

/** The keys in schema order (a stable sort: keys the schema does not name keep their order, after). */
function orderedKeys(map: Record<string, unknown>, rank: ReadonlyMap<string, number> | undefined): string[] {
  const keys = Object.keys(map);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    // An index-like key would come first in an object whatever its place in the text.
    const c = key.charCodeAt(0);
    if (key.length > 1000 || (c >= 48 && c <= 57)) giveUp();
  }
  if (rank === undefined) return keys;
  const last = rank.size;
  let sorted = true;
  for (let i = 1, prev = rank.get(keys[0]!) ?? last; sorted && i < keys.length; i++) {
    const r = rank.get(keys[i]!) ?? last;
    sorted = r >= prev;
    prev = r;
  }
  return sorted ? keys : keys.sort((a, b) => (rank.get(a) ?? last) - (rank.get(b) ?? last));
}

/**
 * A string as `yaml` writes it with the canonical quoting: double quotes when another reader could
 * take it for something else, plain where YAML allows, else quoted (single when it holds `"`).
 */
function emitString(value: string, inFlow: boolean): string {
  // Most strings are letters, digits, spaces and `_./$()-`, starting with a letter or `_/$(`: plain
  // in any context, unless a YAML 1.1 reader takes them for a boolean or null (`yes`, `off`).
  const n = value.length;
  const c0 = n === 0 ? 0 : value.charCodeAt(0);
  let simple = c0 < 128 && SIMPLE_START[c0] === 1 && value.charCodeAt(n - 1) !== 32;
  for (let i = 1; simple && i < n; i++) {
    const c = value.charCodeAt(i);
    simple = c < 128 && SIMPLE[c] === 1;
  }
  if (simple) return n <= 5 && isAmbiguousScalar(value) ? `"${value}"` : value;
  // Keys and many values repeat across thousands of files: each other string is judged once.
  const cache = inFlow ? flowStrings : blockStrings;
  const known = cache.get(value);
  if (known !== undefined) return known === '' ? giveUp() : known;
  if (cache.size >= MAX_CACHED) cache.clear();
  let written = '';
  try {
    written = judgeString(value, inFlow);
  } finally {
    cache.set(value, written);
  }
  return written;
}

/** Strings judged, by context (flow or block), to what they are written as ('' for give up). */
const blockStrings = new Map<string, string>();
const flowStrings = new Map<string, string>();
const MAX_CACHED = 20_000;

function judgeString(value: string, inFlow: boolean): string {
  if (value === '' || !PRINTABLE.test(value)) giveUp();
  if (isAmbiguousScalar(value)) return doubleQuoted(value);
  // Leading `-?:.+` or a digit: YAML's number and indicator rules decide; left to `yaml`.
  if (UNSURE_START.test(value)) giveUp();
  if (!(inFlow && FLOW_INDICATOR.test(value)) && !NOT_PLAIN.test(value)) return value;
  if (value.includes('"')) return value.includes("'") ? giveUp() : `'${value}'`;
  return doubleQuoted(value);
}

function doubleQuoted(value: string): string {
  return value.includes('\\') || value.includes('"') ? giveUp() : `"${value}"`;
}

/** No character `yaml` escapes or treats as a break: printable ASCII and the non-ASCII letters of the Basic Plane. */
const PRINTABLE = /^[\x20-\x7e\u00a0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd]*$/;
const UNSURE_START = /^[-?:.+0-9]/;
const FLOW_INDICATOR = /[[\]{},]/;
/** `yaml`'s test for a string that cannot be plain (stringifyString.js, plainString), less the line breaks the strings here lack. */
const NOT_PLAIN = /^[\t ,[\]{}#&*!|>'"%@`]|^[?-]$|^[?-][ \t]|:[ \t]|[\t ]#|[\t :]$/;

const SIMPLE = new Uint8Array(128);
const SIMPLE_START = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  const letter = (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
  SIMPLE_START[c] = letter || c === 95 || c === 47 || c === 36 || c === 40 ? 1 : 0;
  SIMPLE[c] = SIMPLE_START[c] === 1 || (c >= 48 && c <= 57) || c === 32 || c === 46 || c === 45 || c === 41 ? 1 : 0;
}
