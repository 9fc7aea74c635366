/**
 * A fast reader for the plain YAML that manifests are nearly always written in: block mappings
 * and sequences indented with spaces, one-line flow collections (`[a, b]`, `{ a: 1 }`), plain,
 * single- and simply double-quoted scalars, comments, and `---` between documents. It gives the
 * same data as the `yaml` package with the loader's options, about ten times faster; anything
 * outside that subset (anchors, tags, block scalars, multi-line scalars, escapes, numbers other
 * than plain integers, duplicate keys, tabs, CRLF, directives…) makes it answer `undefined`, and
 * the caller parses the text with `yaml` as before. It never reports errors: the full parser
 * does that.
 *
 * It reads the text in place: lines are offsets into it (no line strings), and the only strings
 * made are the keys and scalars of the result. Only spaces count as blanks, as in YAML: other
 * Unicode white space is part of a scalar.
 */
export interface FastDocument {
  /** Position among the file's documents, as `yaml` counts them. */
  readonly index: number;
  readonly data: Record<string, unknown>;
  /** Where the document's top mapping starts (1-based). */
  readonly line: number;
  readonly col: number;
}

/** Thrown inside the reader when the text leaves the subset; never escapes it. */
class OutOfSubset extends Error {}

const bail = (): never => {
  throw new OutOfSubset();
};

const SPACE = 32;
const HASH = 35;
const DASH = 45;
const COLON = 58;

/** The styles of what the reader makes, for the canonical form (src/manifest/fast-canonical-form.ts). */
export interface SimpleYamlStyles {
  /** The collections written in flow style (`[…]`, `{…}`); the others were block. */
  readonly flow: Set<object>;
  /** The data of every document the reader made (not those `yaml` made when it declined). */
  readonly documents: Set<object>;
}

/** Where the styles go, while a caller asks (recordSimpleYamlStyles). */
let styles: SimpleYamlStyles | undefined;

/**
 * From now on (undefined: no longer), each call records its styles in `record`, which the caller
 * empties between files (strong sets: a WeakSet entry costs the collector more than it saves).
 */
export function recordSimpleYamlStyles(record: SimpleYamlStyles | undefined): void {
  styles = record;
}

/** parseSimpleYaml, with the styles of what it made. */
export function parseSimpleYamlWithStyles(text: string): { documents: FastDocument[]; styles: SimpleYamlStyles } | undefined {
  const before = styles;
  const record: SimpleYamlStyles = { flow: new Set(), documents: new Set() };
  styles = record;
  try {
    const documents = parseSimpleYaml(text);
    return documents === undefined ? undefined : { documents, styles: record };
  } finally {
    styles = before;
  }
}

/**
 * The documents of `text`, or undefined when it is not in the subset (see the module comment).
 * `detached`: the caller does not keep the text, so no string of the result may hold on to it
 * (see detach).
 */
export function parseSimpleYaml(text: string, detached = false): FastDocument[] | undefined {
  if (text.includes('\t') || text.includes('\r')) return undefined;
  detaching = detached;
  try {
    return readDocuments(text);
  } catch (err) {
    // Deep nesting is left to the full parser, which reports it as such.
    if (err instanceof OutOfSubset || err instanceof RangeError) return undefined;
    throw err;
  } finally {
    // A huge file's table is not kept for the small ones after it, nor its text.
    if (lines.start.length > MAX_KEPT_LINES) lines = newLineTable(INITIAL_LINES);
    flow.reset('', 0, 0);
    detaching = false;
  }
}

/** Whether the current call detaches the strings it makes (parseSimpleYaml's `detached`). */
let detaching = false;
/** A dictionary-mode object whose keys are only ever set and deleted: see detach. */
const internTable: Record<string, number> = Object.create(null) as Record<string, number>;
/** V8 copies a string shorter than this when slicing; a longer slice is a view that keeps its parent alive. */
const MIN_SLICED_LENGTH = 13;

/**
 * `s`, made not to keep the text alive when the call detaches. A slice of 13 characters or more is
 * a view of the whole text (V8's sliced string): one description would keep its file's text in
 * memory as long as the manifest lives. Storing it as a key internalises it: V8 turns the view
 * into a reference to the one interned copy (equal values, e.g. a host name in thousands of
 * manifests, share it), and the collector drops the reference. With the text no longer kept by
 * the source maps, the loaded manifests of 30,000 objects hold 60 MB instead of 79 MB.
 */
function detach(s: string): string {
  return detaching && s.length >= MIN_SLICED_LENGTH ? intern(s) : s;
}

function intern(s: string): string {
  internTable[s] = 0;
  delete internTable[s];
  return s;
}

/**
 * The content lines of a text (blank and comment lines left out), as parallel arrays: where the
 * line's text starts (after its indentation and any `- ` consumed so far), where it ends (before
 * trailing spaces), its indentation and its 1-based number. Document boundaries are indexes into
 * them. One table serves every call (the reader is synchronous and never re-entered), so reading
 * thousands of files allocates no line arrays.
 */
interface LineTable {
  start: Int32Array;
  end: Int32Array;
  indent: Int32Array;
  no: Int32Array;
  /** Lines in use. */
  count: number;
}

const INITIAL_LINES = 256;
const MAX_KEPT_LINES = 1 << 16;
const newLineTable = (size: number): LineTable => ({
  start: new Int32Array(size),
  end: new Int32Array(size),
  indent: new Int32Array(size),
  no: new Int32Array(size),
  count: 0,
});
let lines = newLineTable(INITIAL_LINES);

function addLine(start: number, end: number, indent: number, no: number): void {
  const i = lines.count;
  if (i === lines.start.length) {
    const grow = (a: Int32Array): Int32Array => {
      const bigger = new Int32Array(a.length * 2);
      bigger.set(a);
      return bigger;
    };
    lines.start = grow(lines.start);
    lines.end = grow(lines.end);
    lines.indent = grow(lines.indent);
    lines.no = grow(lines.no);
  }
  lines.start[i] = start;
  lines.end[i] = end;
  lines.indent[i] = indent;
  lines.no[i] = no;
  lines.count = i + 1;
}

function readDocuments(text: string): FastDocument[] {
  lines.count = 0;
  /** Index of the first line of each document; the one before the first `---` may be dropped. */
  const segments: number[] = [0];
  let separators = 0;
  let lineNo = 0;
  for (let pos = 0; pos <= text.length; ) {
    let nl = text.indexOf('\n', pos);
    if (nl === -1) nl = text.length;
    lineNo++;
    // Reads stay within the text: a read past its end would cost the optimised code a bailout.
    const c0 = pos < nl ? text.charCodeAt(pos) : -1;
    if (c0 === DASH && text.startsWith('---', pos)) {
      if (nl - pos !== 3) bail();
      separators++;
      segments.push(lines.count);
      pos = nl + 1;
      continue;
    }
    if (c0 === 37 /* % */ || (c0 === 46 /* . */ && text.startsWith('...', pos))) bail();
    let start = pos;
    while (start < nl && text.charCodeAt(start) === SPACE) start++;
    let end = nl;
    while (end > start && text.charCodeAt(end - 1) === SPACE) end--;
    if (end > start && text.charCodeAt(start) !== HASH) addLine(start, end, start - pos, lineNo);
    pos = nl + 1;
  }
  segments.push(lines.count);
  // Comments before the first `---` are that document's prologue, not a document of their own.
  const first = separators > 0 && segments[1] === 0 ? 1 : 0;
  const docs: FastDocument[] = [];
  for (let s = first; s < segments.length - 1; s++) {
    const from = segments[s]!;
    const to = segments[s + 1]!;
    if (from === to) bail();
    if (lines.indent[from] !== 0) bail();
    const reader = new BlockReader(text, from, to);
    if (reader.isSeqItem(from)) bail();
    const data = reader.mapping(0);
    if (!reader.done()) bail();
    docs.push({ index: s - first, data, line: lines.no[from]!, col: 1 });
  }
  if (docs.length === 0) bail();
  if (styles !== undefined) for (const d of docs) styles.documents.add(d.data);
  return docs;
}

/** Characters of a block mapping key after its first: `[A-Za-z0-9_$./-]`. */
const KEY_CHAR = new Uint8Array(128);
/** Characters a block mapping key may start with: `[A-Za-z_$]`. */
const KEY_START = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  const letter = (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 36;
  KEY_START[c] = letter ? 1 : 0;
  KEY_CHAR[c] = letter || (c >= 48 && c <= 57) || c === 46 || c === 47 || c === DASH ? 1 : 0;
}
const isKeyChar = (c: number): boolean => c < 128 && KEY_CHAR[c] === 1;

/** Hash of the key keyColon last found, for the key cache. */
let keyHash = 0;

/**
 * Where the `:` of a block mapping key starting at `p` is, or -1: plain words
 * (`[A-Za-z_$][A-Za-z0-9_$./-]*` joined by single spaces), then `:` and a space or the end of the
 * line. Leaves the key's hash in `keyHash`.
 */
function keyColon(text: string, p: number, end: number): number {
  const c0 = text.charCodeAt(p);
  if (!(c0 < 128 && KEY_START[c0] === 1)) return -1;
  let h = c0;
  let i = p + 1;
  for (;;) {
    for (; i < end; i++) {
      const c = text.charCodeAt(i);
      if (!isKeyChar(c)) break;
      h = (h * 31 + c) | 0;
    }
    if (i >= end) return -1;
    const c = text.charCodeAt(i);
    if (c === COLON) {
      keyHash = h;
      return i + 1 === end || text.charCodeAt(i + 1) === SPACE ? i : -1;
    }
    if (c === SPACE && i + 1 < end && isKeyChar(text.charCodeAt(i + 1))) {
      h = (h * 31 + SPACE) | 0;
      i++;
      continue;
    }
    return -1;
  }
}

/**
 * Block mapping keys seen before, by hash: manifests repeat a few dozen keys thousands of times,
 * and a key found here is neither copied out of the text again nor checked again.
 */
const KEY_CACHE_SIZE = 1024;
const keyCache: (string | undefined)[] = new Array<string | undefined>(KEY_CACHE_SIZE).fill(undefined);

/** The key `text[start, colon)` (its hash in `keyHash`), checked to be a plain string key. */
function readKey(text: string, start: number, colon: number): string {
  const slot = keyHash & (KEY_CACHE_SIZE - 1);
  const cached = keyCache[slot];
  if (cached !== undefined && cached.length === colon - start && text.startsWith(cached, start)) return cached;
  const key = text.slice(start, colon);
  // `true:`, `null:`, `1:`… are not string keys to the full parser.
  if (resolvePlain(key) !== key || key === '__proto__') bail();
  // The cache outlives the call: a long key in it would keep one text alive whoever keeps it.
  keyCache[slot] = key.length >= MIN_SLICED_LENGTH ? intern(key) : key;
  return key;
}

class BlockReader {
  #i: number;
  readonly #to: number;
  readonly #text: string;

  constructor(text: string, from: number, to: number) {
    this.#text = text;
    this.#i = from;
    this.#to = to;
  }

  done(): boolean {
    return this.#i >= this.#to;
  }

  /** `-` alone or `- …` at the start of line `i`'s text. */
  isSeqItem(i: number): boolean {
    const start = lines.start[i]!;
    if (this.#text.charCodeAt(start) !== DASH) return false;
    return start + 1 === lines.end[i]! || this.#text.charCodeAt(start + 1) === SPACE;
  }

  mapping(indent: number): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    const text = this.#text;
    const { start: starts, end: ends, indent: indents } = lines;
    while (this.#i < this.#to) {
      const i = this.#i;
      const lineIndent = indents[i]!;
      if (lineIndent < indent) break;
      if (lineIndent > indent || this.isSeqItem(i)) bail();
      const start = starts[i]!;
      const end = ends[i]!;
      const colon = keyColon(text, start, end);
      if (colon === -1) bail();
      const key = readKey(text, start, colon);
      if (Object.hasOwn(out, key)) bail();
      let rest = colon + 1;
      while (rest < end && text.charCodeAt(rest) === SPACE) rest++;
      this.#i++;
      out[key] = rest === end || text.charCodeAt(rest) === HASH ? this.#nested(indent, true) : this.#inline(rest, end, indent);
    }
    return out;
  }

  sequence(indent: number): unknown[] {
    const out: unknown[] = [];
    const text = this.#text;
    const { start: starts, end: ends, indent: indents } = lines;
    while (this.#i < this.#to) {
      const i = this.#i;
      const lineIndent = indents[i]!;
      if (lineIndent < indent) break;
      if (lineIndent > indent) bail();
      // A sequence at its key's indentation ends at the next key.
      if (!this.isSeqItem(i)) break;
      const start = starts[i]!;
      const end = ends[i]!;
      let rest = start + 1;
      while (rest < end && text.charCodeAt(rest) === SPACE) rest++;
      if (rest === end || text.charCodeAt(rest) === HASH) {
        this.#i++;
        out.push(this.#nested(indent, false));
      } else {
        // `- key: value` / `- - x`: the rest of the line is the first line of a nested block.
        starts[i] = rest;
        const nestedSeq = this.isSeqItem(i);
        if (nestedSeq || keyColon(text, rest, end) !== -1) {
          indents[i] = lineIndent + (rest - start);
          out.push(nestedSeq ? this.sequence(indents[i]!) : this.mapping(indents[i]!));
        } else {
          this.#i++;
          out.push(this.#inline(rest, end, indent));
        }
      }
    }
    return out;
  }

  /** The value below a key or dash with nothing after it: a deeper block, or null. */
  #nested(indent: number, underKey: boolean): unknown {
    if (this.#i >= this.#to) return null;
    const next = this.#i;
    const nextIndent = lines.indent[next]!;
    if (nextIndent > indent) return this.isSeqItem(next) ? this.sequence(nextIndent) : this.mapping(nextIndent);
    // A sequence may sit at its key's own indentation.
    if (underKey && nextIndent === indent && this.isSeqItem(next)) return this.sequence(indent);
    return null;
  }

  /** A value on the rest of a line; a deeper line after it would continue it (not in the subset). */
  #inline(start: number, end: number, indent: number): unknown {
    const value = readLineValue(this.#text, start, end);
    if (this.#i < this.#to && lines.indent[this.#i]! > indent) bail();
    return value;
  }
}

/** A scalar or flow collection filling `text[start, end)`, before an optional comment. */
function readLineValue(text: string, start: number, end: number): unknown {
  const c = text.charCodeAt(start);
  if (c === 34 /* " */ || c === 39 /* ' */ || c === 91 /* [ */ || c === 123 /* { */) {
    flow.reset(text, start, end);
    const value = flow.value();
    flow.end();
    return value;
  }
  // A comment starts at ` #`; the search stays within the line.
  let stop = end;
  for (let i = start + 1; i < end; i++) {
    if (text.charCodeAt(i) === HASH && text.charCodeAt(i - 1) === SPACE) {
      stop = i - 1;
      break;
    }
  }
  while (stop > start && text.charCodeAt(stop - 1) === SPACE) stop--;
  const seen = seenString(plainStrings, text, start, stop);
  if (seen !== undefined) return seen;
  const plain = text.slice(start, stop);
  if (plain.includes(': ') || plain.endsWith(':')) bail();
  const value = resolvePlain(plain);
  return value === plain ? remember(plainStrings, plain) : value;
}

/**
 * Strings read before, by a hash of their characters (one table for plain scalars, which are
 * strings only when resolvePlain says so, one for quoted ones): manifests repeat values (kinds,
 * host names, masks, times, permissions) thousands of times, and a value found here is one string
 * shared by all, not a copy each (30,000 objects: 7 MB of 17 MB of strings were such copies),
 * neither sliced nor resolved again.
 */
interface StringTable {
  readonly slots: (string | undefined)[];
  /** The hash seenString last computed, for remember. */
  hash: number;
}

const STRING_TABLE_SIZE = 4096;
const newStringTable = (): StringTable => ({ slots: new Array<string | undefined>(STRING_TABLE_SIZE).fill(undefined), hash: 0 });
const plainStrings = newStringTable();
const quotedStrings = newStringTable();

/** The string `text[start, stop)` if the table holds it (its hash is left for remember). */
function seenString(table: StringTable, text: string, start: number, stop: number): string | undefined {
  let h = 0;
  for (let i = start; i < stop; i++) h = (h * 31 + text.charCodeAt(i)) | 0;
  table.hash = h;
  const cached = table.slots[h & (STRING_TABLE_SIZE - 1)];
  return cached !== undefined && cached.length === stop - start && text.startsWith(cached, start) ? cached : undefined;
}

/**
 * `s` (just looked up with seenString), kept in the table. The table outlives the call: a long
 * string goes in only detached (a view would keep its text alive), and only when the call
 * detaches anyway (interning costs ~0.4 µs).
 */
function remember(table: StringTable, s: string): string {
  if (s.length >= MIN_SLICED_LENGTH) {
    if (!detaching) return s;
    intern(s);
  }
  table.slots[table.hash & (STRING_TABLE_SIZE - 1)] = s;
  return s;
}

/** Indicators that cannot start a plain scalar (or start something outside the subset): `-?:,[]{}#&*!|>'"%@` and backquote. */
const PLAIN_START = new Uint8Array(128);
for (const ch of '-?:,[]{}#&*!|>\'"%@`') PLAIN_START[ch.charCodeAt(0)] = 1;

const isDigit = (c: number): boolean => c >= 48 && c <= 57;

/** A plain scalar as the YAML 1.2 core schema reads it; any number but a plain integer leaves the subset. */
function resolvePlain(s: string): unknown {
  if (s === '') bail();
  const c0 = s.charCodeAt(0);
  if (c0 < 128 && PLAIN_START[c0] === 1) bail();
  switch (s) {
    case '~':
    case 'null':
    case 'Null':
    case 'NULL':
      return null;
    case 'true':
    case 'True':
    case 'TRUE':
      return true;
    case 'false':
    case 'False':
    case 'FALSE':
      return false;
    default:
      break;
  }
  // `[-+]?[0-9]+` is an integer; anything else starting `[-+]?[.0-9]` is a number form (float,
  // hex, octal, .inf, .nan) left to the full parser. A leading `-` was refused above.
  const first = c0 === 43 /* + */ ? 1 : 0;
  const c = first < s.length ? s.charCodeAt(first) : -1;
  if (c === 46 /* . */) bail();
  if (isDigit(c)) {
    for (let i = first + 1; i < s.length; i++) if (!isDigit(s.charCodeAt(i))) bail();
    return Number(s);
  }
  return s;
}

const MAX_FLOW_DEPTH = 32;

/**
 * One line's flow value, `text[p, end)`: quoted scalars, `[…]`, `{…}` and flow plain scalars.
 * One reader serves every line (see `flow`): a flow value holds no block, so it is never re-entered.
 */
class FlowReader {
  #p = 0;
  #depth = 0;
  #s = '';
  #end = 0;

  reset(s: string, start: number, end: number): void {
    this.#s = s;
    this.#p = start;
    this.#end = end;
    this.#depth = 0;
  }

  /** The character code at `i`, or -1 past the end of the line. */
  #at(i: number): number {
    return i < this.#end ? this.#s.charCodeAt(i) : -1;
  }

  #ws(): void {
    while (this.#at(this.#p) === SPACE) this.#p++;
  }

  /** Only a comment (after a space) may follow the value. */
  end(): void {
    const before = this.#p;
    this.#ws();
    if (this.#p < this.#end && !(this.#s.charCodeAt(this.#p) === HASH && this.#p > before)) bail();
  }

  value(): unknown {
    const c = this.#at(this.#p);
    if (c === 34) return this.#double();
    if (c === 39) return this.#single();
    if (c === 91 || c === 123) {
      if (++this.#depth > MAX_FLOW_DEPTH) bail();
      const v = c === 91 ? this.#seq() : this.#map();
      this.#depth--;
      styles?.flow.add(v as object);
      return v;
    }
    return this.#plain();
  }

  #double(): string {
    const close = this.#s.indexOf('"', this.#p + 1);
    if (close === -1 || close >= this.#end) bail();
    const seen = seenString(quotedStrings, this.#s, this.#p + 1, close);
    if (seen !== undefined) {
      this.#p = close + 1;
      return seen;
    }
    const body = this.#s.slice(this.#p + 1, close);
    if (body.includes('\\')) bail();
    this.#p = close + 1;
    return remember(quotedStrings, body);
  }

  #single(): string {
    const s = this.#s;
    let out = '';
    let from = this.#p + 1;
    for (;;) {
      const quote = s.indexOf("'", from);
      if (quote === -1 || quote >= this.#end) bail();
      out += s.slice(from, quote);
      if (this.#at(quote + 1) === 39) {
        out += "'";
        from = quote + 2;
        continue;
      }
      this.#p = quote + 1;
      return detach(out);
    }
  }

  #plain(): unknown {
    const start = this.#p;
    const s = this.#s;
    const end = this.#end;
    let i = start;
    for (; i < end; i++) {
      const c = s.charCodeAt(i);
      if (c === 44 || c === 93 || c === 125) break;
      if (c === 91 || c === 123) bail();
      if (c === COLON) {
        const n = this.#at(i + 1);
        if (n === -1 || n === SPACE || n === 44 || n === 93 || n === 125) break;
      }
      if (c === HASH && s.charCodeAt(i - 1) === SPACE) bail();
    }
    this.#p = i;
    let stop = i;
    while (stop > start && s.charCodeAt(stop - 1) === SPACE) stop--;
    const seen = seenString(plainStrings, s, start, stop);
    if (seen !== undefined) return seen;
    const text = s.slice(start, stop);
    const value = resolvePlain(text);
    return value === text ? remember(plainStrings, text) : value;
  }

  #seq(): unknown[] {
    this.#p++;
    const out: unknown[] = [];
    this.#ws();
    if (this.#at(this.#p) === 93) {
      this.#p++;
      return out;
    }
    for (;;) {
      this.#ws();
      out.push(this.value());
      this.#ws();
      const c = this.#at(this.#p);
      this.#p++;
      if (c === 93) return out;
      if (c !== 44) bail();
    }
  }

  #map(): Record<string, unknown> {
    this.#p++;
    const out: Record<string, unknown> = {};
    this.#ws();
    if (this.#at(this.#p) === 125) {
      this.#p++;
      return out;
    }
    for (;;) {
      this.#ws();
      const c = this.#at(this.#p);
      if (c === 34 || c === 39 || c === 91 || c === 123) bail();
      const key = this.#plain();
      if (typeof key !== 'string' || key === '__proto__' || Object.hasOwn(out, key)) bail();
      if (this.#at(this.#p) !== COLON || this.#at(this.#p + 1) !== SPACE) bail();
      this.#p += 2;
      this.#ws();
      const next = this.#at(this.#p);
      if (next === 44 || next === 125 || next === -1) bail();
      out[key as string] = this.value();
      this.#ws();
      const sep = this.#at(this.#p);
      this.#p++;
      if (sep === 125) return out;
      if (sep !== 44) bail();
    }
  }
}

const flow = new FlowReader();
