/**
 * A fast reader for the plain YAML that manifests are nearly always written in: block mappings
 * and sequences indented with spaces, one-line flow collections (`[a, b]`, `{ a: 1 }`), plain,
 * single- and simply double-quoted scalars, comments, and `---` between documents. It gives the
 * same data as the `yaml` package with the loader's options, about ten times faster; anything
 * outside that subset (anchors, tags, block scalars, multi-line scalars, escapes, numbers other
 * than plain integers, duplicate keys, tabs, CRLF, directives…) makes it answer `undefined`, and
 * the caller parses the text with `yaml` as before. It never reports errors: the full parser
 * does that.
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

interface Line {
  /** 1-based line number. */
  readonly no: number;
  indent: number;
  /** The line without its indentation. */
  text: string;
}

/** The documents of `text`, or undefined when it is not in the subset (see the module comment). */
export function parseSimpleYaml(text: string): FastDocument[] | undefined {
  if (text.includes('\t') || text.includes('\r')) return undefined;
  try {
    return readDocuments(text);
  } catch (err) {
    // Deep nesting is left to the full parser, which reports it as such.
    if (err instanceof OutOfSubset || err instanceof RangeError) return undefined;
    throw err;
  }
}

function readDocuments(text: string): FastDocument[] {
  const raw = text.split('\n');
  const segments: Line[][] = [[]];
  let separators = 0;
  for (let i = 0; i < raw.length; i++) {
    const line = raw[i]!;
    if (line === '---') {
      separators++;
      segments.push([]);
      continue;
    }
    if (line.startsWith('---') || line.startsWith('...') || line.startsWith('%')) bail();
    let indent = 0;
    while (line.charCodeAt(indent) === 32) indent++;
    const rest = line.slice(indent).trimEnd();
    if (rest === '' || rest.startsWith('#')) continue;
    segments[segments.length - 1]!.push({ no: i + 1, indent, text: rest });
  }
  // Comments before the first `---` are that document's prologue, not a document of their own.
  if (separators > 0 && segments[0]!.length === 0) segments.shift();
  const docs: FastDocument[] = [];
  segments.forEach((lines, index) => {
    if (lines.length === 0) bail();
    const first = lines[0]!;
    if (first.indent !== 0) bail();
    const reader = new BlockReader(lines);
    if (isSeqItem(first.text)) bail();
    const data = reader.mapping(0);
    if (!reader.done()) bail();
    docs.push({ index, data, line: first.no, col: first.indent + 1 });
  });
  if (docs.length === 0) bail();
  return docs;
}

const isSeqItem = (t: string): boolean => t === '-' || t.startsWith('- ');
/** A block mapping key: plain words, then `:` and a space or the end of the line. */
const KEY = /^([A-Za-z_$][A-Za-z0-9_$.\/-]*(?: [A-Za-z0-9_$.\/-]+)*):(?: +|$)/;

class BlockReader {
  #i = 0;
  readonly #lines: Line[];

  constructor(lines: Line[]) {
    this.#lines = lines;
  }

  done(): boolean {
    return this.#i >= this.#lines.length;
  }

  #peek(): Line | undefined {
    return this.#lines[this.#i];
  }

  mapping(indent: number): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (let line = this.#peek(); line && line.indent >= indent; line = this.#peek()) {
      if (line.indent > indent || isSeqItem(line.text)) bail();
      const m = KEY.exec(line.text) ?? bail();
      const key = m[1]!;
      // `true:`, `null:`, `1:`… are not string keys to the full parser.
      if (resolvePlain(key) !== key || Object.hasOwn(out, key) || key === '__proto__') bail();
      const rest = line.text.slice(m[0].length);
      this.#i++;
      out[key] = rest === '' || rest.startsWith('#') ? this.#nested(indent, true) : this.#inline(rest, indent);
    }
    return out;
  }

  sequence(indent: number): unknown[] {
    const out: unknown[] = [];
    for (let line = this.#peek(); line && line.indent >= indent; line = this.#peek()) {
      if (line.indent > indent) bail();
      // A sequence at its key's indentation ends at the next key.
      if (!isSeqItem(line.text)) break;
      let offset = 1;
      while (line.text.charCodeAt(offset) === 32) offset++;
      const rest = line.text.slice(offset);
      if (rest === '' || rest.startsWith('#')) {
        this.#i++;
        out.push(this.#nested(indent, false));
      } else if (isSeqItem(rest) || KEY.test(rest)) {
        // `- key: value` / `- - x`: the rest of the line is the first line of a nested block.
        line.indent += offset;
        line.text = rest;
        out.push(isSeqItem(rest) ? this.sequence(line.indent) : this.mapping(line.indent));
      } else {
        this.#i++;
        out.push(this.#inline(rest, indent));
      }
    }
    return out;
  }

  /** The value below a key or dash with nothing after it: a deeper block, or null. */
  #nested(indent: number, underKey: boolean): unknown {
    const next = this.#peek();
    if (!next) return null;
    if (next.indent > indent) return isSeqItem(next.text) ? this.sequence(next.indent) : this.mapping(next.indent);
    // A sequence may sit at its key's own indentation.
    if (underKey && next.indent === indent && isSeqItem(next.text)) return this.sequence(indent);
    return null;
  }

  /** A value on the rest of a line; a deeper line after it would continue it (not in the subset). */
  #inline(rest: string, indent: number): unknown {
    const value = readLineValue(rest);
    const next = this.#peek();
    if (next && next.indent > indent) bail();
    return value;
  }
}

/** A scalar or flow collection filling the rest of a line, before an optional comment. */
function readLineValue(s: string): unknown {
  const c = s[0]!;
  if (c === '"' || c === "'" || c === '[' || c === '{') {
    const r = new FlowReader(s);
    const value = r.value();
    r.end();
    return value;
  }
  const hash = s.indexOf(' #');
  const plain = (hash === -1 ? s : s.slice(0, hash)).trimEnd();
  if (plain.includes(': ') || plain.endsWith(':')) bail();
  return resolvePlain(plain);
}

/** Indicators that cannot start a plain scalar (or start something outside the subset). */
const PLAIN_START = /^[-?:,[\]{}#&*!|>'"%@`]/;

/** A plain scalar as the YAML 1.2 core schema reads it; any number but a plain integer leaves the subset. */
function resolvePlain(s: string): unknown {
  if (s === '' || PLAIN_START.test(s)) bail();
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
  if (/^[-+]?[0-9]+$/.test(s)) return Number(s);
  if (/^[-+]?[.0-9]/.test(s) || /^[-+]?\.(inf|Inf|INF|nan|NaN|NAN)$/.test(s)) bail();
  return s;
}

const MAX_FLOW_DEPTH = 32;

/** One line's flow value: quoted scalars, `[…]`, `{…}` and flow plain scalars. */
class FlowReader {
  #p = 0;
  #depth = 0;
  readonly #s: string;

  constructor(s: string) {
    this.#s = s;
  }

  #ws(): void {
    while (this.#s.charCodeAt(this.#p) === 32) this.#p++;
  }

  /** Only a comment (after a space) may follow the value. */
  end(): void {
    const before = this.#p;
    this.#ws();
    if (this.#p < this.#s.length && !(this.#s[this.#p] === '#' && this.#p > before)) bail();
  }

  value(): unknown {
    const c = this.#s[this.#p];
    if (c === '"') return this.#double();
    if (c === "'") return this.#single();
    if (c === '[' || c === '{') {
      if (++this.#depth > MAX_FLOW_DEPTH) bail();
      const v = c === '[' ? this.#seq() : this.#map();
      this.#depth--;
      return v;
    }
    return this.#plain();
  }

  #double(): string {
    const close = this.#s.indexOf('"', this.#p + 1);
    if (close === -1) bail();
    const body = this.#s.slice(this.#p + 1, close);
    if (body.includes('\\')) bail();
    this.#p = close + 1;
    return body;
  }

  #single(): string {
    let out = '';
    for (let i = this.#p + 1; i < this.#s.length; i++) {
      if (this.#s[i] === "'") {
        if (this.#s[i + 1] === "'") {
          out += "'";
          i++;
          continue;
        }
        this.#p = i + 1;
        return out;
      }
      out += this.#s[i];
    }
    return bail();
  }

  #plain(): unknown {
    const start = this.#p;
    const s = this.#s;
    let i = start;
    for (; i < s.length; i++) {
      const c = s[i];
      if (c === ',' || c === ']' || c === '}') break;
      if (c === '[' || c === '{') bail();
      if (c === ':' && (i + 1 >= s.length || s[i + 1] === ' ' || s[i + 1] === ',' || s[i + 1] === ']' || s[i + 1] === '}')) break;
      if (c === '#' && s[i - 1] === ' ') bail();
    }
    this.#p = i;
    return resolvePlain(s.slice(start, i).trimEnd());
  }

  #seq(): unknown[] {
    this.#p++;
    const out: unknown[] = [];
    this.#ws();
    if (this.#s[this.#p] === ']') {
      this.#p++;
      return out;
    }
    for (;;) {
      this.#ws();
      out.push(this.value());
      this.#ws();
      const c = this.#s[this.#p];
      this.#p++;
      if (c === ']') return out;
      if (c !== ',') bail();
    }
  }

  #map(): Record<string, unknown> {
    this.#p++;
    const out: Record<string, unknown> = {};
    this.#ws();
    if (this.#s[this.#p] === '}') {
      this.#p++;
      return out;
    }
    for (;;) {
      this.#ws();
      const c = this.#s[this.#p];
      if (c === '"' || c === "'" || c === '[' || c === '{') bail();
      const key = this.#plain();
      if (typeof key !== 'string' || key === '__proto__' || Object.hasOwn(out, key)) bail();
      if (this.#s[this.#p] !== ':' || this.#s[this.#p + 1] !== ' ') bail();
      this.#p += 2;
      this.#ws();
      const next = this.#s[this.#p];
      if (next === ',' || next === '}' || next === undefined) bail();
      out[key as string] = this.value();
      this.#ws();
      const sep = this.#s[this.#p];
      this.#p++;
      if (sep === '}') return out;
      if (sep !== ',') bail();
    }
  }
}
