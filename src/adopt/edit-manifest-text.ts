import { isDeepStrictEqual } from 'node:util';
import { Document as YamlDocument, isAlias, isCollection, isMap, isPair, isScalar, isSeq, parseAllDocuments, visit } from 'yaml';
import type { Document, Node as YamlNode, Pair, Scalar, YAMLMap, YAMLSeq } from 'yaml';
import type { JsonPath } from '../manifest/types.js';
import { canonicalizeQuoting, TO_STRING_OPTIONS } from '../manifest/yaml-scalars.js';
import type { JsonObject, JsonValue } from '../resources/model.js';

/**
 * The in-place editor of manifest files that `mftops drift --adopt` writes with: text in, text
 * out, no I/O. Each edit splices the source range of the node it changes and prints only the new
 * node, in the canonical form of `mftops fmt` (src/manifest/canonical-form.ts), indented to fit
 * where it goes; every other byte of the file (comments, blank lines, key order, quoting, flow or
 * block style, CRLF, a BOM, a missing final newline) is kept. Only the documents an edit names are
 * parsed: the file is cut into documents at its `---`/`...` lines, so a file of 10,000 documents
 * costs a scan, not a parse.
 */

/** One change to one YAML document of a manifest file. `document`: 0-based index among the file's YAML documents, as `yaml`'s parseAllDocuments counts them. */
export type ManifestEdit =
  | { readonly op: 'set'; readonly document: number; readonly path: JsonPath; readonly value: JsonValue } // replace the value at path, or add the key (creating missing maps); a list index must exist
  | { readonly op: 'delete'; readonly document: number; readonly path: JsonPath } // remove a key, or an item of a list (later indexes shift: apply deletes of one list from the highest index — the function must handle edits given in any order)
  | { readonly op: 'append'; readonly document: number; readonly path: JsonPath; readonly value: JsonValue } // add an item at the end of a list (creating the list)
  | { readonly op: 'remove-document'; readonly document: number } // the whole document, with its `---` separator and the comments that belong to it
  | { readonly op: 'add-document'; readonly value: JsonValue }; // a new document at the end of the file (separated by `---` when the file has documents)

export type EditOutcome = { readonly ok: true; readonly text: string } | { readonly ok: false; readonly problem: string }; // problem: one line, what and where (path), never the values

/**
 * How the editor orders keys it writes. `keyOrder(kind, path)`: the names of the keys of the
 * mapping at `path` in a document of `kind`, in the order the canonical form puts them (the
 * schema's), or undefined when it names none. A key added to an existing mapping goes after the
 * last key written before it in that order (at the end when the order does not name it), and the
 * keys of a new mapping are sorted by it (the ones it does not name after, as given). Without it,
 * a key is added at the end and a new mapping keeps the order of `value`.
 */
export interface EditOptions {
  readonly keyOrder?: (kind: string | undefined, path: JsonPath) => readonly string[] | undefined;
}

/**
 * `text` with `edits` made. Paths and document indexes name the text as given (before any edit),
 * in whatever order the edits come; the result is all edits or none: the first edit that cannot
 * be made safely (a path that is not there, an anchor, an alias or a merge key on the way, a
 * `${var:}`/`${env:}`/`${file:}` reference that a new value would replace) is the problem.
 */
export function editManifestText(text: string, edits: readonly ManifestEdit[], options: EditOptions = {}): EditOutcome {
  try {
    return { ok: true, text: applyEdits(text, edits, options) };
  } catch (err) {
    if (err instanceof EditRefusal) return { ok: false, problem: err.message };
    throw err;
  }
}

/** The index of the document that contains 1-based `line`, or undefined. */
export function documentIndexAt(text: string, line: number): number | undefined {
  if (!Number.isInteger(line) || line < 1) return undefined;
  let offset = 0;
  for (let l = 1; l < line; l++) {
    const nl = text.indexOf('\n', offset);
    if (nl === -1) return undefined;
    offset = nl + 1;
  }
  if (offset >= text.length && line > 1) return undefined;
  const chunks = splitDocuments(text);
  for (let i = chunks.length - 1; i >= 0; i--) if (offset >= chunks[i]!.start) return i;
  return undefined;
}

/** A refusal: the message is the `problem` of the outcome (one line, never a value). */
class EditRefusal extends Error {}

function refuse(problem: string): never {
  throw new EditRefusal(problem);
}

// ---------------------------------------------------------------------------------------------
// The file as documents

interface Chunk {
  /** Offset in the file of the document's first byte: 0 for the first, else its `---` line (or the line after a `...`). */
  readonly start: number;
  readonly text: string;
}

const MARKERS = /^(?:---|\.\.\.)(?=[ \t\r\n]|$)/gm;
/** A line that is neither blank, nor a comment, nor a directive. */
const CONTENT = /^(?:[ \t]+[^\s#]|[^\s#%])/m;

/**
 * The documents of a file, as `parseAllDocuments` counts them, cut by lines: a document starts
 * at each `---` line, at the first content line after a `...` line (or at the top of the file)
 * and at a `...` line with no document open (an empty one); comment-only stretches start none.
 * A `---`/`...` at the start of a line always ends a document in YAML, inside quotes and block
 * scalars too, so no parse is needed to find them.
 */
function splitDocuments(text: string): Chunk[] {
  const bom = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const markers: number[] = [];
  if (bom === 1 && /^(?:---|\.\.\.)(?=[ \t\r\n]|$)/.test(text.slice(1, 5))) markers.push(0);
  for (const m of text.matchAll(MARKERS)) markers.push(m.index);
  const starts: number[] = [];
  const begin = (at: number): void => {
    starts.push(starts.length === 0 ? 0 : at);
  };
  const hasContent = (from: number, to: number): boolean => CONTENT.test(text.slice(Math.max(from, bom), to));
  let open = false; // inside a document
  let pending = 0; // where the next implicit document would start
  for (const at of markers) {
    if (!open && hasContent(pending, at)) {
      begin(pending);
      open = true;
    }
    if (text.startsWith('---', at + (at === 0 ? bom : 0))) {
      begin(at);
      open = true;
    } else {
      // A `...` with no document open ends an empty one.
      if (!open) begin(pending);
      open = false;
      const nl = text.indexOf('\n', at);
      pending = nl === -1 ? text.length : nl + 1;
    }
  }
  if (!open && hasContent(pending, text.length)) begin(pending);
  return starts.map((start, i) => ({ start, text: text.slice(start, i + 1 < starts.length ? starts[i + 1] : text.length) }));
}

function applyEdits(text: string, edits: readonly ManifestEdit[], options: EditOptions): string {
  const chunks = splitDocuments(text);
  const eol = /\r\n/.test(text.slice(0, text.indexOf('\n') + 1)) ? '\r\n' : '\n';
  const out = chunks.map((c) => c.text);
  const removed = new Set<number>();
  const perDocument = new Map<number, Exclude<ManifestEdit, { op: 'remove-document' | 'add-document' }>[]>();
  const added: JsonValue[] = [];
  for (const edit of edits) {
    if (edit.op === 'add-document') {
      added.push(edit.value);
      continue;
    }
    if (!Number.isInteger(edit.document) || edit.document < 0 || edit.document >= chunks.length)
      refuse(`document ${edit.document}: the file has ${chunks.length} document${chunks.length === 1 ? '' : 's'}`);
    if (edit.op === 'remove-document') removed.add(edit.document);
    else perDocument.set(edit.document, [...(perDocument.get(edit.document) ?? []), edit]);
  }
  for (const [index, docEdits] of perDocument) {
    if (removed.has(index)) continue;
    const ordered = orderEdits(docEdits);
    let chunk = out[index]!;
    let parsed: Document.Parsed | undefined = parseOne(chunk, index);
    const before = parsed.toJS({ maxAliasCount: 100 }) as unknown;
    for (const edit of ordered) {
      chunk = applyEdit(chunk, parsed ?? parseOne(chunk, index), index, edit, eol, options);
      parsed = undefined;
    }
    // The text must say what the edits mean, and nothing else: a difference is a bug, never written.
    const meant = ordered.reduce((data, edit) => editData(data, edit), before);
    const got = parseOne(chunk, index).toJS({ maxAliasCount: 100 }) as unknown;
    if (!isDeepStrictEqual(got, meant)) refuse(`document ${index}: the edited text would not read back as the edits mean (a form the editor does not handle)`);
    out[index] = chunk;
  }
  // A file of comments only has no document to hold them.
  let result = chunks.length === 0 ? text : joinRemaining(out, removed);
  let documents = chunks.length - removed.size;
  for (const value of added) result = appendDocument(result, documents++ > 0, value, eol, options);
  return result;
}

/**
 * The order that lets each edit name the text as given: sets and appends first (neither moves an
 * existing item), then deletes from the last path to the first (a list's highest index first, a
 * key inside an item before the item), so no delete shifts the index of another.
 */
function orderEdits<E extends ManifestEdit & { path: JsonPath }>(edits: readonly E[]): E[] {
  const writes = edits.filter((e) => e.op !== 'delete');
  const deletes = edits.filter((e) => e.op === 'delete').sort((a, b) => comparePaths(b.path, a.path));
  // The same item named twice is removed once: a second delete at its index would remove the next item.
  return [...writes, ...deletes.filter((e, i) => i === 0 || comparePaths(e.path, deletes[i - 1]!.path) !== 0)];
}

function comparePaths(a: JsonPath, b: JsonPath): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x === y) continue;
    if (typeof x === 'number' && typeof y === 'number') return x - y;
    return String(x) < String(y) ? -1 : 1;
  }
  return a.length - b.length;
}

/** The documents not removed, joined; when the first goes, the comments at the top of the file stay. */
function joinRemaining(chunks: readonly string[], removed: ReadonlySet<number>): string {
  const kept = chunks.flatMap((c, i) => (removed.has(i) ? [] : [c]));
  if (!removed.has(0)) return kept.join('');
  const [first, ...rest] = kept;
  // The next document becomes the first: its bare `---` line is not needed any more.
  const bare = first === undefined ? null : /^---[ \t]*\r?\n/.exec(first);
  return fileHeader(chunks[0]!) + (bare === null ? (first ?? '') : first!.slice(bare[0].length)) + rest.join('');
}

/**
 * The comment lines at the top of a file, before its first document's `---` or first key (with
 * the BOM): they say what the file is (its `$schema` line, what it holds), not what its first
 * document is, so they stay when that document goes.
 */
function fileHeader(chunk: string): string {
  const m = /^\ufeff?(?:[ \t]*(?:#[^\n]*)?\n)*/.exec(chunk);
  return m === null ? '' : m[0];
}

function appendDocument(text: string, hasDocuments: boolean, value: JsonValue, eol: string, options: EditOptions): string {
  const kind = isObject(value) && typeof value.kind === 'string' ? value.kind : undefined;
  const body = renderBlock(sortValue(value, kind, [], options), eol);
  const sep = text.length === 0 || text.endsWith('\n') ? '' : eol;
  return `${text}${sep}${hasDocuments ? `---${eol}` : ''}${body}`;
}

// ---------------------------------------------------------------------------------------------
// One edit in one document

type PathEdit = Exclude<ManifestEdit, { op: 'remove-document' | 'add-document' }>;

/** The source of one document and its parse. */
interface Source {
  readonly text: string;
  readonly doc: Document.Parsed;
  readonly kind: string | undefined;
  readonly eol: string;
  readonly options: EditOptions;
  readonly where: string;
}

function parseOne(chunk: string, index: number): Document.Parsed {
  const docs = parseAllDocuments(chunk, { prettyErrors: false, uniqueKeys: true, strict: true, logLevel: 'silent' });
  const doc = Array.isArray(docs) && docs.length === 1 ? docs[0]! : undefined;
  if (doc === undefined || doc.errors.length > 0) refuse(`document ${index}: it does not read as one YAML document`);
  return doc;
}

/** What an edit means for the data of the document: the model the edited text is checked against. */
function editData(data: unknown, edit: PathEdit): unknown {
  const path = edit.path;
  const update = (node: unknown, i: number): unknown => {
    const seg = path[i]!;
    const last = i === path.length - 1;
    if (Array.isArray(node)) {
      const copy = [...node];
      if (last && edit.op === 'delete') copy.splice(seg as number, 1);
      else copy[seg as number] = last ? write(copy[seg as number]) : update(copy[seg as number], i + 1);
      return copy;
    }
    const copy: Record<string, unknown> = node !== null && typeof node === 'object' ? { ...(node as Record<string, unknown>) } : {};
    const key = String(seg);
    if (last && edit.op === 'delete') delete copy[key];
    else Object.defineProperty(copy, key, { value: last ? write(copy[key]) : update(copy[key], i + 1), enumerable: true, writable: true, configurable: true });
    return copy;
  };
  const write = (old: unknown): unknown => (edit.op === 'append' ? [...(Array.isArray(old) ? old : []), edit.value] : edit.op === 'set' ? edit.value : old);
  return update(data, 0);
}

/** One edit of a document: `doc` is `chunk` parsed. */
function applyEdit(chunk: string, doc: Document.Parsed, index: number, edit: PathEdit, eol: string, options: EditOptions): string {
  const where = `document ${index}, ${showPath(edit.path)}`;
  const kindValue = isMap(doc.contents) ? doc.contents.get('kind') : undefined;
  const src: Source = { text: chunk, doc, kind: typeof kindValue === 'string' ? kindValue : undefined, eol, options, where };
  if (edit.path.length === 0) refuse(`${where}: an edit of a whole document (remove it and add one)`);
  const trail = walk(src, edit.path);
  switch (edit.op) {
    case 'set':
      return setValue(src, trail, edit.path, edit.value);
    case 'append':
      return appendItem(src, trail, edit.path, edit.value);
    case 'delete':
      return deleteAt(src, trail, edit.path);
  }
}

/** One step of a path: the collection it goes through and where in it. */
interface Step {
  readonly parent: YAMLMap | YAMLSeq;
  /** The pair (mappings) or the item index (sequences); undefined: the key is not there. */
  readonly pair?: Pair;
  readonly index?: number;
  /** The node found: the pair's value or the item; undefined: not there; null: an empty value. */
  readonly node: YamlNode | null | undefined;
}

/**
 * The steps of `path` that exist, refusing anchors, aliases and merge keys on the way: an edit
 * under an anchor changes what its aliases say elsewhere, and one under a merge key may be
 * shadowed by it.
 */
function walk(src: Source, path: JsonPath): Step[] {
  const steps: Step[] = [];
  let node: YamlNode | null | undefined = src.doc.contents;
  for (let i = 0; i < path.length; i++) {
    checkPlain(src, node, path.slice(0, i));
    const seg = path[i]!;
    if (isMap(node)) {
      if (node.items.some((p) => isScalar(p.key) && p.key.value === '<<')) refuse(`${src.where}: a merge key (<<) at ${showPath(path.slice(0, i))}`);
      const pair: Pair | undefined = node.items.find((p) => isScalar(p.key) && (p.key.value === seg || String(p.key.value) === String(seg)));
      const next: YamlNode | null | undefined = pair === undefined ? undefined : ((pair.value as YamlNode | null) ?? null);
      steps.push(withPair(node, pair, next));
      if (pair === undefined) return steps;
      node = next;
    } else if (isSeq(node)) {
      if (typeof seg !== 'number' || !Number.isInteger(seg) || seg < 0 || seg >= node.items.length) return steps;
      const next = (node.items[seg] as YamlNode | null) ?? null;
      steps.push({ parent: node, index: seg, node: next });
      node = next;
    } else return steps;
  }
  return steps;
}

function withPair(parent: YAMLMap, pair: Pair | undefined, node: YamlNode | null | undefined): Step {
  return pair === undefined ? { parent, node } : { parent, pair, node };
}

function checkPlain(src: Source, node: YamlNode | null | undefined, at: JsonPath): void {
  if (node === null || node === undefined) return;
  if (isAlias(node)) refuse(`${src.where}: an alias (*${node.source}) at ${showPath(at)}`);
  if ((node as { anchor?: string }).anchor) refuse(`${src.where}: an anchor (&) at ${showPath(at)}`);
}

/** Anchors, aliases, merge keys and tags anywhere in a node that an edit replaces or removes. */
function checkSubtree(src: Source, node: YamlNode | null | undefined, at: JsonPath, references: boolean): void {
  if (node === null || node === undefined) return;
  checkPlain(src, node, at);
  const wrapped = new YamlDocument();
  wrapped.contents = node;
  visit(wrapped, {
    Alias() {
      refuse(`${src.where}: an alias inside the value at ${showPath(at)}`);
    },
    Node(_key, n) {
      if ((n as { anchor?: string }).anchor) refuse(`${src.where}: an anchor (&) inside the value at ${showPath(at)}`);
      if (isScalar(n) && references && typeof n.value === 'string' && REFERENCE.test(n.value))
        refuse(`${src.where}: the value at ${showPath(at)} is written with a \${var:}, \${env:} or \${file:} reference`);
      return undefined;
    },
    Pair(_key, p) {
      if (isScalar(p.key) && p.key.value === '<<') refuse(`${src.where}: a merge key (<<) inside the value at ${showPath(at)}`);
      return undefined;
    },
  });
}

const REFERENCE = /\$\{(?:var|env|file):/;

// --- set

function setValue(src: Source, trail: readonly Step[], path: JsonPath, value: JsonValue): string {
  const found = trail.length === path.length && trail.at(-1)?.node !== undefined;
  if (found) {
    const last = trail.at(-1)!;
    checkSubtree(src, last.node, path, true);
    return replaceValue(src, last, path, sortValue(value, src.kind, path, src.options));
  }
  return createAt(src, trail, path, value);
}

/**
 * A value under keys that are not there: the missing mappings are written around it, from the
 * deepest mapping there is (or an empty value, which the new mapping replaces). A list item is
 * never created by `set`.
 */
function createAt(src: Source, trail: readonly Step[], path: JsonPath, value: JsonValue): string {
  const last = trail.at(-1);
  // The deepest existing node: the last step's node when it was found, else the step's parent.
  const depth = last === undefined ? 0 : last.node === undefined ? trail.length - 1 : trail.length;
  const rest = path.slice(depth);
  if (rest.some((seg) => typeof seg !== 'string'))
    refuse(`${src.where}: list item ${showPath(path.slice(0, depth + rest.findIndex((s) => typeof s !== 'string') + 1))} is not there`);
  if (last !== undefined && last.node !== undefined) {
    // Found, but not a collection to go into: only an empty value is replaced by the new mapping.
    if (!isEmptyValue(last.node)) refuse(`${src.where}: ${showPath(path.slice(0, depth))} is not a mapping`);
    checkSubtree(src, last.node, path.slice(0, depth), true);
    return replaceValue(src, last, path.slice(0, depth), sortValue(nest(rest.slice(), value), src.kind, path.slice(0, depth), src.options));
  }
  const parentPath = path.slice(0, depth);
  const parent = last === undefined ? src.doc.contents : last.parent;
  if (!isMap(parent)) refuse(`${src.where}: ${showPath(parentPath)} is not a mapping`);
  checkPlain(src, parent, parentPath);
  const key = rest[0] as string;
  return insertPair(src, parent, parentPath, key, sortValue(nest(rest.slice(1), value), src.kind, [...parentPath, key], src.options));
}

function nest(keys: readonly (string | number)[], value: JsonValue): JsonValue {
  return keys.reduceRight<JsonValue>((inner, key) => ({ [key]: inner }), value);
}

function isEmptyValue(node: YamlNode | null): boolean {
  return node === null || (isScalar(node) && node.value === null);
}

// --- append

function appendItem(src: Source, trail: readonly Step[], path: JsonPath, value: JsonValue): string {
  const found = trail.length === path.length && trail.at(-1)?.node !== undefined;
  if (!found) return createAt(src, trail, path, [value]);
  const last = trail.at(-1)!;
  const list = last.node;
  if (isEmptyValue(list ?? null)) return replaceValue(src, last, path, [sortValue(value, src.kind, [...path, 0], src.options)]);
  if (!isSeq(list)) refuse(`${src.where}: not a list`);
  checkPlain(src, list, path);
  const item = sortValue(value, src.kind, [...path, list.items.length], src.options);
  if (list.flow) return insertFlow(src, list, list.items.length, renderFlow(item));
  const lastItem = list.items.at(-1) as YamlNode | null;
  const dash = dashOf(src, lastItem, list);
  const col = column(src.text, dash);
  const at = endOfEntry(src.text, valueEnd(lastItem, dash + 1), col);
  const [first, ...more] = renderItem(item, lastItem);
  return insertLines(src, at, indentLines([`-${first!}`, ...more], col, src.eol));
}

// --- delete

function deleteAt(src: Source, trail: readonly Step[], path: JsonPath): string {
  const found = trail.length === path.length && trail.at(-1)?.node !== undefined;
  if (!found) refuse(`${src.where}: not there`);
  const last = trail.at(-1)!;
  checkSubtree(src, last.node, path, false);
  const { parent } = last;
  const parentPath = path.slice(0, -1);
  if (parent.items.length === 1) {
    // Its collection would be left empty: write it `{}`/`[]` (an empty block collection is null).
    const up = trail.at(-2);
    const empty: JsonValue = isMap(parent) ? {} : [];
    if (up === undefined) refuse(`${src.where}: the last key of the document`);
    return replaceValue(src, up, parentPath, empty);
  }
  if (parent.flow) {
    const i = last.pair !== undefined ? parent.items.indexOf(last.pair as never) : last.index!;
    return removeFlowItem(src, parent, i);
  }
  if (last.pair !== undefined) {
    const key = last.pair.key as Scalar;
    const start = key.range![0];
    const i = (parent as YAMLMap).items.indexOf(last.pair);
    const col = column(src.text, start);
    if (!firstOnLine(src.text, start)) {
      // `- a: 1` with `b: 2` under it: the next key moves up to the dash.
      const next = (parent as YAMLMap).items[i + 1];
      if (next === undefined || !isScalar(next.key)) refuse(`${src.where}: a key that is not first on its line`);
      return splice(src.text, start, (next.key as Scalar).range![0], '');
    }
    const end = endOfEntry(src.text, valueEnd(last.node ?? null, keyEnd(key)), col);
    return removeLines(src.text, commentsAbove(src.text, lineStart(src.text, start), col), end);
  }
  const dash = dashOf(src, last.node ?? null, parent);
  if (!firstOnLine(src.text, dash)) refuse(`${src.where}: a list item that is not first on its line`);
  const col = column(src.text, dash);
  const end = endOfEntry(src.text, valueEnd(last.node ?? null, dash + 1), col);
  return removeLines(src.text, commentsAbove(src.text, lineStart(src.text, dash), col), end);
}

/** Whole lines removed; when they were the last of a text with no final line break, the line before loses its own. */
function removeLines(text: string, start: number, end: number): string {
  if (end < text.length || text.endsWith('\n') || start === 0) return splice(text, start, end, '');
  return splice(text, text[start - 2] === '\r' ? start - 2 : start - 1, end, '');
}

// --- the splices

/**
 * `value` in place of the value of a step: inline (after `key: ` or `- `, keeping the comment of
 * the line) when both old and new fit on one line, else from the indicator on, with the new block
 * indented under the key or dash.
 */
function replaceValue(src: Source, step: Step, path: JsonPath, value: JsonValue): string {
  const { text } = src;
  const node = step.node ?? null;
  // In a flow collection, and in place of one (flow or block, as written, is kept), one line.
  if (step.parent.flow || (isCollection(node) && node.flow && value !== null && typeof value === 'object')) {
    const [start, end] = nodeRange(node) ?? refuse(`${src.where}: no source range at ${showPath(path)}`);
    return splice(text, start, end, renderFlow(value));
  }
  // The indicator the value follows: the `:` of its key, or its `-`.
  const indicator = step.pair !== undefined ? colonOf(src, step.pair) : dashOf(src, node, step.parent);
  const col = step.pair !== undefined ? column(text, (step.pair.key as Scalar).range![0]) : column(text, indicator);
  const rendered = step.pair !== undefined ? renderPairValue(value) : renderItem(value);
  const range = nodeRange(node);
  const oldStart = range?.[0] ?? indicator + 1;
  const oldEnd = range?.[1] ?? indicator + 1;
  checkHead(src, indicator + 1, oldStart, path);
  const oldInline = isInline(text, oldStart, oldEnd);
  if (rendered.length === 1 && oldInline) {
    const inline = rendered[0]!.replace(/^ /, '');
    return splice(text, oldStart, oldEnd, (oldStart === indicator + 1 ? ' ' : '') + inline);
  }
  // From the indicator to the end of the old value's last line; the line comment stays on the
  // indicator's line.
  const lineEnd = endOfLine(text, indicator);
  let end = oldInline ? lineEnd : trimNewline(text, oldEnd);
  if (end < lineEnd) end = lineEnd;
  const comment = lineComment(text, indicator + 1, oldInline ? lineEnd : Math.min(oldStart, lineEnd), oldInline ? oldEnd : undefined);
  const [first, ...more] = rendered;
  // Where `fmt` puts the comment of the line: after a block scalar's header; above a block
  // collection, at its indentation; above the dash of an item that becomes a compact mapping.
  const header = /^ [|>]/.test(first!) || more.length === 0;
  const above = comment !== undefined && !header && first !== '' ? comment : undefined;
  const lines = comment !== undefined && !header && first === '' ? [`${/^ */.exec(more[0]!)![0]}${comment}`, ...more] : more;
  const head = first! + (comment !== undefined && header ? ` ${comment}` : '');
  const body = indentLines(lines, col, src.eol);
  const out = splice(text, indicator + 1, end, head + (body === '' ? '' : src.eol + body.replace(/\r?\n$/, '')));
  if (above === undefined) return out;
  const at = lineStart(text, indicator);
  return splice(out, at, at, `${' '.repeat(col)}${above}${src.eol}`);
}

/** Nothing but blanks and comments between an indicator and its value (a tag or anchor is not ours to drop). */
function checkHead(src: Source, from: number, to: number, path: JsonPath): void {
  const between = src.text.slice(from, to).replace(/#[^\n]*/g, '');
  if (/\S/.test(between)) refuse(`${src.where}: a tag or property before the value at ${showPath(path)}`);
}

function insertPair(src: Source, map: YAMLMap, mapPath: JsonPath, key: string, value: JsonValue): string {
  const order = src.options.keyOrder?.(src.kind, mapPath);
  const keys = map.items.map((p) => (isScalar(p.key) ? String(p.key.value) : ''));
  const rank = (k: string): number => (order === undefined ? -1 : order.indexOf(k));
  const mine = rank(key);
  // After the last key the order puts before the new one; else before the first it puts after; else at the end.
  let after = -1;
  let before = -1;
  if (mine !== -1) {
    keys.forEach((k, i) => {
      const r = rank(k);
      if (r !== -1 && r < mine) after = i;
    });
    if (after === -1) before = keys.findIndex((k) => rank(k) > mine);
  }
  if (after === -1 && before === -1) after = keys.length - 1;
  if (map.flow) return insertFlow(src, map, after === -1 ? 0 : after + 1, `${renderFlowKey(key)}: ${renderFlow(value)}`);
  const first = map.items[0]!;
  const col = column(src.text, (first.key as Scalar).range![0]);
  const lines = indentLines(renderPair(key, value), col, src.eol);
  if (after === -1) {
    const anchorKey = map.items[before]!.key as Scalar;
    const start = anchorKey.range![0];
    // `- user: x` gets a key before `user`: the new key takes the dash's line, `user` goes under it.
    if (!firstOnLine(src.text, start)) return splice(src.text, start, start, lines.slice(col) + ' '.repeat(col));
    // Above the comment of the key it goes before (that comment is about that key), except at the top of the document.
    const line = lineStart(src.text, start);
    return insertLines(src, map === src.doc.contents ? line : commentsAbove(src.text, line, col), lines);
  }
  const pair = map.items[after]!;
  const at = endOfEntry(src.text, valueEnd((pair.value as YamlNode | null) ?? null, keyEnd(pair.key as Scalar)), col);
  return insertLines(src, at, lines);
}

/** Lines (each ending with the file's line break) put in at a line start, or after a last line that has no line break. */
function insertLines(src: Source, at: number, lines: string): string {
  if (at === src.text.length && at > 0 && !src.text.endsWith('\n')) return src.text + src.eol + lines.replace(/\r?\n$/, '');
  return splice(src.text, at, at, lines);
}

function insertFlow(src: Source, collection: YAMLMap | YAMLSeq, index: number, item: string): string {
  const [start, end] = nodeRange(collection) ?? refuse(`${src.where}: no source range`);
  if (collection.items.length === 0) return splice(src.text, start, end, isMap(collection) ? `{ ${item} }` : `[${item}]`);
  if (index >= collection.items.length) {
    const last = collection.items.at(-1)!;
    return splice(src.text, flowItemEnd(last), flowItemEnd(last), `, ${item}`);
  }
  const next = collection.items[index]!;
  const at = flowItemStart(next);
  return splice(src.text, at, at, `${item}, `);
}

function removeFlowItem(src: Source, collection: YAMLMap | YAMLSeq, index: number): string {
  const item = collection.items[index]!;
  if (index + 1 < collection.items.length) return splice(src.text, flowItemStart(item), flowItemStart(collection.items[index + 1]!), '');
  return splice(src.text, flowItemEnd(collection.items[index - 1]!), flowItemEnd(item), '');
}

function flowItemStart(item: unknown): number {
  if (isPair(item)) return (item.key as YamlNode).range![0];
  return (item as YamlNode).range![0];
}

function flowItemEnd(item: unknown): number {
  if (isPair(item)) return ((item.value as YamlNode | null)?.range ?? (item.key as YamlNode).range!)[1];
  return (item as YamlNode).range![1];
}

// --- positions

function nodeRange(node: YamlNode | null): readonly [number, number] | undefined {
  const r = node?.range;
  return r ? [r[0], r[1]] : undefined;
}

function keyEnd(key: Scalar): number {
  return key.range![1];
}

/** Where a value ends (`fallback` for an empty one), without a block collection's final line break. */
function valueEnd(node: YamlNode | null, fallback: number): number {
  const r = node?.range;
  return r ? Math.max(r[1], fallback) : fallback;
}

function colonOf(src: Source, pair: Pair): number {
  const key = pair.key as Scalar;
  if (!isScalar(key) || !key.range) refuse(`${src.where}: a complex key`);
  const m = /^[ \t]*:/.exec(src.text.slice(key.range[1]));
  if (m === null) refuse(`${src.where}: a key written in a form the editor does not change (? key)`);
  return key.range[1] + m[0].length - 1;
}

function dashOf(src: Source, item: YamlNode | null, seq: YAMLSeq | YAMLMap): number {
  const start = item?.range?.[0];
  if (start === undefined) {
    // An empty item: `-` alone; its range is where its value would be.
    refuse(`${src.where}: an empty list item in ${seq.flow ? 'a flow' : 'a block'} list`);
  }
  let i = start - 1;
  while (i >= 0 && /[ \t\r\n]/.test(src.text[i]!)) i--;
  if (src.text[i] !== '-') refuse(`${src.where}: a tag, anchor or comment before a list item`);
  return i;
}

function lineStart(text: string, offset: number): number {
  return text.lastIndexOf('\n', offset - 1) + 1;
}

function endOfLine(text: string, offset: number): number {
  const nl = text.indexOf('\n', offset);
  if (nl === -1) return text.length;
  return text[nl - 1] === '\r' ? nl - 1 : nl;
}

function column(text: string, offset: number): number {
  const start = lineStart(text, offset);
  return offset - start - (start === 0 && text.charCodeAt(0) === 0xfeff ? 1 : 0);
}

function firstOnLine(text: string, offset: number): boolean {
  return /^[\ufeff]?[ \t]*$/.test(text.slice(lineStart(text, offset), offset));
}

function trimNewline(text: string, end: number): number {
  let e = end;
  while (e > 0 && (text[e - 1] === '\n' || text[e - 1] === '\r')) e--;
  return e;
}

function isInline(text: string, start: number, end: number): boolean {
  return !/[\r\n]/.test(text.slice(start, end)) && !/^[|>]/.test(text.slice(start, end));
}

/** The `# …` after a value on its line (`from` the indicator's end; `after` the old value's end when it is inline). */
function lineComment(text: string, from: number, to: number, after: number | undefined): string | undefined {
  const m = /#.*$/.exec(text.slice(after ?? from, to));
  return m === null ? undefined : m[0].trimEnd();
}

/**
 * The offset of the line after an entry that ends at `end` (at indentation `col`): comment lines
 * indented deeper than the entry are the entry's and stay with it.
 */
function endOfEntry(text: string, end: number, col: number): number {
  const nl = text.indexOf('\n', end - 1 < 0 ? 0 : text[end - 1] === '\n' ? end - 1 : end);
  let at = nl === -1 ? text.length : nl + 1;
  while (at < text.length) {
    const next = text.indexOf('\n', at);
    const line = text.slice(at, next === -1 ? text.length : next + 1);
    const m = /^([ \t]*)#/.exec(line);
    if (m === null || m[1]!.length <= col) break;
    at = next === -1 ? text.length : next + 1;
  }
  return at;
}

/** The start of the comment lines right above `start` (no blank line between) at column `col`: they belong to the entry below them. */
function commentsAbove(text: string, start: number, col: number): number {
  let at = start;
  while (at > 0) {
    const prev = lineStart(text, at - 1);
    const line = text.slice(prev, at);
    const m = /^\ufeff?([ \t]*)#/.exec(line);
    if (m === null || m[1]!.length !== col || /^\ufeff?#\s*yaml-language-server:/.test(line)) break;
    at = prev;
  }
  return at;
}

function splice(text: string, start: number, end: number, insert: string): string {
  return text.slice(0, start) + insert + text.slice(end);
}

// ---------------------------------------------------------------------------------------------
// Printing new values in the canonical form

/** `lines` (as printed at column 0) moved to column `col`, each ending with `eol`; blank lines stay empty. */
function indentLines(lines: readonly string[], col: number, eol: string): string {
  const pad = ' '.repeat(col);
  return lines.map((l) => (l === '' ? eol : pad + l + eol)).join('');
}

function printCanonical(value: unknown): string[] {
  const doc = new YamlDocument(value);
  canonicalizeQuoting(doc);
  const lines = doc.toString(TO_STRING_OPTIONS).split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines;
}

/** A whole document, each line ending with `eol`. */
function renderBlock(value: JsonValue, eol: string): string {
  return indentLines(printCanonical(value), 0, eol);
}

/** `key: value` as lines at column 0. */
function renderPair(key: string, value: JsonValue): string[] {
  return printCanonical(new Map([[key, value]]));
}

/** What follows `key:`: the first line (` x`, ``, ` |-`), then lines at the key's column. */
function renderPairValue(value: JsonValue): string[] {
  const lines = printCanonical(new Map([['k', value]]));
  return [lines[0]!.slice(2), ...lines.slice(1)];
}

/**
 * What follows `-`: the first line, then lines at the dash's column. A list of scalars at a key
 * that `like`, the item before it, writes in flow (`permissions: [a, b]`) is written in flow too,
 * so neighbouring items do not mix styles; everything else in the canonical (block) form.
 */
function renderItem(value: JsonValue, like?: YamlNode | null): string[] {
  // The values to write in flow stand in as tokens while the item is printed, then replace them
  // (the printer pads flow lists, `[ a ]`, which the canonical form does not).
  const flows: string[] = [];
  const marked = JSON.stringify(value).includes(FLOW_TOKEN) ? value : markFlow(value, like, flows);
  const lines = printCanonical([marked]).map((line) => line.replace(FLOW_TOKENS, (_, i: string) => flows[Number(i)]!));
  return [lines[0]!.slice(1), ...lines.slice(1)];
}

const FLOW_TOKEN = '__mftops_flow_';
const FLOW_TOKENS = /__mftops_flow_(\d+)__/g;

/** `value` with each list of scalars that `like` (a sibling of the same shape) writes in flow replaced by a token for its flow text. */
function markFlow(value: JsonValue, like: unknown, flows: string[]): JsonValue {
  if (!isObject(value) || !isMap(like)) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, v]): [string, JsonValue] => {
      const other = like.items.find((p) => (isScalar(p.key) ? p.key.value : p.key) === key);
      if (other === undefined) return [key, v];
      if (Array.isArray(v) && v.every((x) => x === null || typeof x !== 'object') && isSeq(other.value) && other.value.flow) {
        flows.push(renderFlow(v));
        return [key, `${FLOW_TOKEN}${flows.length - 1}__`];
      }
      return [key, markFlow(v, other.value, flows)];
    }),
  );
}

/** A value on one line, in flow style as the canonical form writes it (`{ a: 1 }`, `[a, b]`). */
function renderFlow(value: JsonValue): string {
  if (Array.isArray(value)) return `[${value.map(renderFlow).join(', ')}]`;
  if (isObject(value)) {
    const entries = Object.entries(value);
    return entries.length === 0 ? '{}' : `{ ${entries.map(([k, v]) => `${renderFlowKey(k)}: ${renderFlow(v)}`).join(', ')} }`;
  }
  return renderFlowScalar(value);
}

function renderFlowKey(key: string): string {
  return renderFlowScalar(key);
}

function renderFlowScalar(value: string | number | boolean | null): string {
  if (typeof value !== 'string') return printCanonical(value)[0]!;
  // Line breaks and control characters double-quoted (escaped), as `fmt` writes them in flow.
  const quote = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\ufeff]/.test(value);
  const seq = new YamlDocument([value]);
  (seq.contents as YAMLSeq).flow = true;
  canonicalizeQuoting(seq);
  if (quote) ((seq.contents as YAMLSeq).items[0] as Scalar).type = 'QUOTE_DOUBLE';
  const printed = seq.toString({ ...TO_STRING_OPTIONS, flowCollectionPadding: false }).trimEnd();
  return printed.startsWith('[') && printed.endsWith(']') && !printed.includes('\n') ? printed.slice(1, -1) : JSON.stringify(value);
}

/** `value` with the keys of each mapping in the order `keyOrder` gives for its path (the rest after, as given). */
function sortValue(value: JsonValue, kind: string | undefined, path: JsonPath, options: EditOptions): JsonValue {
  if (options.keyOrder === undefined) return value;
  if (Array.isArray(value)) return value.map((v, i) => sortValue(v, kind, [...path, i], options));
  if (!isObject(value)) return value;
  const order = options.keyOrder(kind, path) ?? [];
  const keys = Object.keys(value);
  const rank = (k: string): number => {
    const i = order.indexOf(k);
    return i === -1 ? order.length : i;
  };
  const sorted = [...keys].sort((a, b) => rank(a) - rank(b));
  return Object.fromEntries(sorted.map((k) => [k, sortValue(value[k]!, kind, [...path, k], options)]));
}

function isObject(value: JsonValue): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function showPath(path: JsonPath): string {
  return (
    path
      .map((p) => (typeof p === 'number' ? `[${p}]` : `.${p}`))
      .join('')
      .replace(/^\./, '') || '(document)'
  );
}
