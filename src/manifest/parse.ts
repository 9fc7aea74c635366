import { LineCounter, parseAllDocuments, visit } from 'yaml';
import type { Alias, Document, YAMLError } from 'yaml';
import { createDiagnostic } from './diagnostics.js';
import type { Diagnostic, SourcePosition } from './diagnostics.js';
import { parseSimpleYaml } from './fast-yaml.js';
import { createSourceMap } from './positions.js';
import type { JsonPath, SourceMap } from './types.js';
import { withDefined } from '../with-defined.js';

/** Limits that keep a hostile or broken file from hanging or exhausting the process. */
export interface ParseLimits {
  /** Files larger than this are not read (MF004). */
  readonly maxFileBytes: number;
  /** Alias expansions allowed per document (yaml's `maxAliasCount`); past it: MF003. */
  readonly maxAliasCount: number;
  /** All files of one load together: past it, nothing more is parsed (MF008). */
  readonly maxTotalBytes: number;
}

/** The default of `limits.manifestMegabytes` in mftops.yaml. */
export const DEFAULT_MANIFEST_MEGABYTES = 64;

export const DEFAULT_PARSE_LIMITS: ParseLimits = {
  maxFileBytes: 10 * 1024 * 1024,
  maxAliasCount: 100,
  maxTotalBytes: DEFAULT_MANIFEST_MEGABYTES * 1024 * 1024,
};

/** One YAML document of a file, as plain data with a way back to its source. */
export interface ParsedDocument {
  readonly file: string;
  /** Position of the document in its file, counting from 0 (empty documents included). */
  readonly index: number;
  /** The document as JSON-like data (mappings are plain objects; `__proto__` is an ordinary own key). */
  readonly data: unknown;
  /** Where the document starts. */
  readonly start: SourcePosition;
  readonly sourceMap: SourceMap;
  /**
   * Values left as written because a `${var:}` in them could not be substituted (MF320, MF321
   * reported): the schema's and the rules' problems there would repeat those, and are not given.
   */
  readonly unresolved?: readonly JsonPath[];
}

export interface ParsedFile {
  readonly file: string;
  readonly documents: readonly ParsedDocument[];
  readonly diagnostics: readonly Diagnostic[];
  /** `sha256:<hex>` of the bytes read, set by the loader (the plan's manifest digest is made of these). */
  readonly sha256?: string;
  /**
   * True: no string of the documents can hold a `${var:}` reference (the text has no `{var:`, nor
   * a `\` through which an escape could spell one), so substitution has nothing to walk.
   * Absent: it may.
   */
  readonly noVariables?: true;
}

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });
/** The diagnostics of a file read without problems (shared: nothing adds to it). */
const NO_DIAGNOSTICS: readonly Diagnostic[] = Object.freeze([]);

/**
 * The text of a file again, for a position asked for after parsing: undefined when it can no
 * longer be had as it was parsed (the file changed or went), and the positions fall back to each
 * document's start.
 */
export interface TextAgain {
  text(): string | undefined;
}

/**
 * Parses one manifest file: bytes (or text) to documents, with YAML problems as diagnostics.
 * Pure. A document with a YAML error is left out entirely: its data cannot be trusted.
 * `again`: how the source maps get the text back; without it they keep the text (and, for a file
 * outside the fast reader's subset, its syntax tree).
 */
export function parseManifestFile(file: string, content: Uint8Array | string, limits: ParseLimits = DEFAULT_PARSE_LIMITS, again?: TextAgain): ParsedFile {
  const fileStart: SourcePosition = { file, line: 1, col: 1 };
  const tooLarge = checkFileSize(file, typeof content === 'string' ? Buffer.byteLength(content) : content.byteLength, limits);
  if (tooLarge) return fail(file, [tooLarge]);
  let text: string;
  if (typeof content === 'string') {
    text = content;
  } else {
    if (content.includes(0)) {
      return fail(file, [createDiagnostic('error', 'MF005', fileStart, 'file holds binary data (NUL bytes), not YAML text')]);
    }
    const decoded = decodeManifestText(content);
    if (decoded === undefined) {
      return fail(file, [createDiagnostic('error', 'MF005', firstInvalidUtf8(file, content), 'file is not valid UTF-8 text', { hint: 'save it as UTF-8' })]);
    }
    text = decoded;
  }
  if (text.includes('\u0000')) {
    return fail(file, [createDiagnostic('error', 'MF005', fileStart, 'file holds binary data (NUL characters), not YAML text')]);
  }
  if (typeof content === 'string' && text.charCodeAt(0) === 0xfeff) text = text.slice(1);

  // Most manifests are plain YAML: read them fast, and build the source map only if asked.
  const fast = parseSimpleYaml(text, again !== undefined);
  if (fast) {
    const maps = new LazyFileSourceMaps(file, again ?? text);
    const documents = fast.map((d): ParsedDocument => {
      const start = { file, line: d.line, col: d.col };
      return { file, index: d.index, data: d.data, start, sourceMap: new LazySourceMap(maps, d.index, start) };
    });
    return withDefined({ file, documents, diagnostics: NO_DIAGNOSTICS, noVariables: mayHoldVariables(text) ? undefined : (true as const) });
  }

  const lineCounter = new LineCounter();
  const diagnostics: Diagnostic[] = [];
  const documents: ParsedDocument[] = [];
  let docs: Document.Parsed[];
  try {
    const parsed = parseAllDocuments(text, { lineCounter, uniqueKeys: true, merge: true, prettyErrors: false, logLevel: 'silent', strict: true });
    docs = Array.isArray(parsed) ? parsed : [];
  } catch (err) {
    // The parser reports stack exhaustion itself; anything thrown here is a resource problem too.
    return fail(file, [createDiagnostic('error', 'MF003', fileStart, `YAML could not be parsed: ${oneLine(err)}`)]);
  }

  const at = (offset: number, end?: number): SourcePosition => {
    const p = lineCounter.linePos(offset);
    if (end === undefined || end <= offset) return { file, line: p.line, col: p.col };
    const e = lineCounter.linePos(end);
    return { file, line: p.line, col: p.col, endLine: e.line, endCol: e.col };
  };

  let maps: LazyFileSourceMaps | undefined;
  docs.forEach((doc, index) => {
    for (const err of doc.errors) diagnostics.push(yamlDiagnostic('error', err, text, at));
    for (const warn of doc.warnings) diagnostics.push(yamlDiagnostic('warning', warn, text, at));
    if (doc.errors.length > 0) return;
    if (doc.contents === null || (isEmptyScalar(doc.contents) && doc.contents.range?.[0] === doc.contents.range?.[1])) return;
    let data: unknown;
    try {
      data = doc.toJS({ maxAliasCount: limits.maxAliasCount });
    } catch (err) {
      const message = oneLine(err);
      const start = at(doc.contents.range?.[0] ?? 0);
      if (/excessive alias count/i.test(message)) {
        diagnostics.push(
          createDiagnostic(
            'error',
            'MF003',
            start,
            `aliases expand too much (over ${limits.maxAliasCount} expansions): refusing a possible "billion laughs" document`,
          ),
        );
      } else if (/unresolved alias/i.test(message)) {
        const alias = findUnresolvedAlias(doc);
        const name = alias?.source ?? '';
        const where = alias?.range ? at(alias.range[0], alias.range[1]) : start;
        diagnostics.push(createDiagnostic('error', 'MF001', where, `alias \`*${name}\` refers to no anchor \`&${name}\` before it in this document`));
      } else {
        diagnostics.push(createDiagnostic('error', 'MF001', start, `YAML: ${message}`));
      }
      return;
    }
    const eager = createSourceMap(doc, lineCounter, file);
    const start = eager.locate([]);
    // With `again`, the syntax tree is not kept either: it is made again if a position is asked for.
    const sourceMap = again === undefined ? eager : new LazySourceMap((maps ??= new LazyFileSourceMaps(file, again)), index, start);
    documents.push({ file, index, data, start, sourceMap });
  });

  if (documents.length === 0 && diagnostics.every((d) => d.severity !== 'error')) {
    diagnostics.push(
      createDiagnostic('error', 'MF006', fileStart, text.trim() === '' ? 'file is empty' : 'file holds no YAML documents (only comments or empty documents)', {
        hint: 'add a manifest or delete the file',
      }),
    );
  }
  return { file, documents, diagnostics };
}

/**
 * The text of manifest file bytes as the parser reads it (UTF-8, without a byte order mark), or
 * undefined when they are not UTF-8.
 */
export function decodeManifestText(bytes: Uint8Array): string | undefined {
  let text: string;
  try {
    text = UTF8.decode(bytes);
  } catch {
    return undefined;
  }
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/**
 * Source maps for the documents of a file: the file is parsed with `yaml` (once, for all its
 * documents) only when a diagnostic needs a position, so thousands of valid manifests keep no
 * syntax trees, and with `TextAgain` not even their text (the loader reads the file again).
 */
class LazyFileSourceMaps {
  readonly #file: string;
  readonly #source: string | TextAgain;
  /** Undefined: not parsed yet; null: the text could not be had again. */
  #parsed: { docs: Document.Parsed[]; lineCounter: LineCounter } | null | undefined;
  #maps: Map<number, SourceMap> | undefined;

  constructor(file: string, source: string | TextAgain) {
    this.#file = file;
    this.#source = source;
  }

  /** The map of document `index`, or undefined when the text is gone. */
  mapOf(index: number): SourceMap | undefined {
    const maps = (this.#maps ??= new Map());
    let map = maps.get(index);
    if (map) return map;
    if (this.#parsed === undefined) {
      const text = typeof this.#source === 'string' ? this.#source : this.#source.text();
      if (text === undefined) {
        this.#parsed = null;
      } else {
        const lineCounter = new LineCounter();
        const docs = parseAllDocuments(text, { lineCounter, uniqueKeys: true, merge: true, prettyErrors: false, logLevel: 'silent', strict: true });
        this.#parsed = { docs: Array.isArray(docs) ? docs : [], lineCounter };
      }
    }
    if (this.#parsed === null) return undefined;
    const doc = this.#parsed.docs[index];
    if (!doc) throw new Error(`${this.#file}: document ${index} not found when locating a position (fast and full YAML readers disagree)`);
    map = createSourceMap(doc, this.#parsed.lineCounter, this.#file);
    maps.set(index, map);
    return map;
  }
}

/**
 * The source map of one document: three fields until a position is asked for. Without the text
 * (the file changed since it was read), every path is placed at the document's start: a place
 * that may be imprecise, never one taken from other content.
 */
class LazySourceMap implements SourceMap {
  readonly #maps: LazyFileSourceMaps;
  readonly #index: number;
  readonly #start: SourcePosition;

  constructor(maps: LazyFileSourceMaps, index: number, start: SourcePosition) {
    this.#maps = maps;
    this.#index = index;
    this.#start = start;
  }

  locate(path: JsonPath | string, target?: 'value' | 'key'): SourcePosition {
    return this.#maps.mapOf(this.#index)?.locate(path, target) ?? this.#start;
  }
}

/** MF004 for a file over the size limit; the loader checks the size before reading. */
export function checkFileSize(file: string, size: number, limits: ParseLimits = DEFAULT_PARSE_LIMITS): Diagnostic | undefined {
  if (size <= limits.maxFileBytes) return undefined;
  return createDiagnostic(
    'error',
    'MF004',
    { file, line: 1, col: 1 },
    `file is ${formatBytes(size)}, over the ${formatBytes(limits.maxFileBytes)} limit for a manifest file`,
    {
      hint: 'split it into several files',
    },
  );
}

function findUnresolvedAlias(doc: Document.Parsed): Alias | undefined {
  let found: Alias | undefined;
  visit(doc, {
    Alias(_key, node) {
      if (node.resolve(doc) === undefined) {
        found = node;
        return visit.BREAK;
      }
      return undefined;
    },
  });
  return found;
}

function fail(file: string, diagnostics: Diagnostic[]): ParsedFile {
  return { file, documents: [], diagnostics };
}

function isEmptyScalar(node: unknown): node is { range?: [number, number, number]; value: unknown } {
  return typeof node === 'object' && node !== null && 'value' in node && (node as { value: unknown }).value === null;
}

function yamlDiagnostic(severity: 'error' | 'warning', err: YAMLError, text: string, at: (offset: number, end?: number) => SourcePosition): Diagnostic {
  const [start, end] = err.pos;
  const where = at(start, end);
  switch (err.code) {
    case 'DUPLICATE_KEY': {
      const lineRest = text.slice(start, text.indexOf('\n', start) === -1 ? undefined : text.indexOf('\n', start));
      const key = (
        /^\s*(?:"((?:[^"\\]|\\.)*)"|'((?:[^']|'')*)'|([^:#{}[\],]*?))\s*:/
          .exec(lineRest)
          ?.slice(1)
          .find((k) => k !== undefined) ?? ''
      ).trim();
      return createDiagnostic(severity, 'MF002', where, key ? `duplicate key \`${key}\` in this mapping` : 'duplicate key in this mapping', {
        hint: 'a key may appear once per mapping; keep one',
      });
    }
    case 'TAB_AS_INDENT':
      return createDiagnostic(severity, 'MF001', where, 'tab used for indentation; YAML indents with spaces only');
    case 'RESOURCE_EXHAUSTION':
      return createDiagnostic(severity, 'MF003', where, 'document nests too deeply to be read');
    case 'MISSING_CHAR': {
      // The parser reports an unclosed quote where the file ends; the opening quote is what to fix.
      const quote = /closing (["'])/.exec(err.message)?.[1];
      const open = quote === undefined ? -1 : text.lastIndexOf(quote, start - 1);
      if (quote !== undefined && open >= 0) return createDiagnostic(severity, 'MF001', at(open), `string opened with ${quote} is never closed`);
      return createDiagnostic(severity, 'MF001', where, `YAML: ${oneLine(err.message)}`);
    }
    default:
      return createDiagnostic(severity, 'MF001', where, `YAML: ${oneLine(err.message)}`);
  }
}

function oneLine(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  const first = text.split(/\r?\n/)[0] ?? '';
  return first.replace(/ at line \d+, column \d+:?$/, '').trim();
}

export function formatBytes(n: number): string {
  if (n >= 1024 * 1024) return `${Math.round((n / (1024 * 1024)) * 10) / 10} MB`;
  if (n >= 1024) return `${Math.round((n / 1024) * 10) / 10} KB`;
  return `${n} bytes`;
}

/** Position of the first byte sequence that is not UTF-8, so the user can find it. */
function firstInvalidUtf8(file: string, bytes: Uint8Array): SourcePosition {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < bytes.length; ) {
    const b = bytes[i]!;
    const len = b < 0x80 ? 1 : b >= 0xc2 && b <= 0xdf ? 2 : b >= 0xe0 && b <= 0xef ? 3 : b >= 0xf0 && b <= 0xf4 ? 4 : 0;
    let ok = len > 0 && i + len <= bytes.length;
    for (let k = 1; ok && k < len; k++) ok = (bytes[i + k]! & 0xc0) === 0x80;
    if (!ok) {
      const col = new TextDecoder().decode(bytes.subarray(lineStart, i)).length + 1;
      return { file, line, col };
    }
    if (b === 0x0a) {
      line++;
      lineStart = i + 1;
    }
    i += len;
  }
  return { file, line: 1, col: 1 };
}

/**
 * Whether a text's values may hold a `${var:}` reference: `{var:` written, or a `\` (a
 * double-quoted escape such as `\x7b` could spell one). Line folding cannot join one: it puts a
 * space where it joins, or needs a `\`.
 */
function mayHoldVariables(text: string): boolean {
  return text.includes('{var:') || text.includes('\\');
}
