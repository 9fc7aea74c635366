import { Document as YamlDocument, isScalar, parseAllDocuments, Scalar } from 'yaml';
import type { Document, Node as YamlNode } from 'yaml';
import type { JsonPath } from '../manifest/types.js';
import { isAmbiguousScalar } from '../manifest/yaml-scalars.js';
import type { JsonValue } from '../resources/model.js';

/** One change to one YAML document of a manifest file. `document`: 0-based index among the file's YAML documents, as `yaml`'s parseAllDocuments counts them. */
export type ManifestEdit =
  | { readonly op: 'set'; readonly document: number; readonly path: JsonPath; readonly value: JsonValue } // replace the value at path, or add the key (creating missing maps); a list index must exist
  | { readonly op: 'delete'; readonly document: number; readonly path: JsonPath } // remove a key, or an item of a list (later indexes shift: apply deletes of one list from the highest index — the function must handle edits given in any order)
  | { readonly op: 'append'; readonly document: number; readonly path: JsonPath; readonly value: JsonValue } // add an item at the end of a list (creating the list)
  | { readonly op: 'remove-document'; readonly document: number } // the whole document, with its `---` separator and the comments that belong to it
  | { readonly op: 'add-document'; readonly value: JsonValue }; // a new document at the end of the file (separated by `---` when the file has documents)

export type EditOutcome = { readonly ok: true; readonly text: string } | { readonly ok: false; readonly problem: string }; // problem: one line, what and where (path), never the values

// First version: `set` of an existing scalar to a scalar. The other edits follow.
export function editManifestText(text: string, edits: readonly ManifestEdit[]): EditOutcome {
  const chunks = splitDocuments(text);
  const out = chunks.map((c) => c.text);
  for (const edit of edits) {
    if (edit.op !== 'set') return { ok: false, problem: `${edit.op}: not supported yet` };
    const i = edit.document;
    if (i < 0 || i >= out.length) return { ok: false, problem: `document ${i}: the file has ${out.length} documents` };
    const chunk = out[i]!;
    const doc = parseAllDocuments(chunk, { keepSourceTokens: false }) as Document.Parsed[];
    const node = doc[0]?.getIn(edit.path, true) as YamlNode | undefined;
    if (!isScalar(node) || node.range === undefined || node.range === null) return { ok: false, problem: `${showPath(edit.path)}: not a scalar` };
    if (edit.value !== null && typeof edit.value === 'object') return { ok: false, problem: `${showPath(edit.path)}: only scalar values for now` };
    const [start, end] = node.range;
    out[i] = chunk.slice(0, start) + printScalar(edit.value) + chunk.slice(end);
  }
  return { ok: true, text: out.join('') };
}

/** The index of the document that contains 1-based `line`, or undefined. */
export function documentIndexAt(text: string, line: number): number | undefined {
  if (line < 1) return undefined;
  let offset = 0;
  for (let l = 1; l < line; l++) {
    const nl = text.indexOf('\n', offset);
    if (nl === -1) return undefined;
    offset = nl + 1;
  }
  if (offset > text.length || (offset === text.length && line > 1)) return undefined;
  const chunks = splitDocuments(text);
  const index = chunks.findIndex((c) => offset >= c.start && offset < c.start + c.text.length);
  return index === -1 ? undefined : index;
}

interface Chunk {
  readonly start: number;
  readonly text: string;
}

/** The file cut into its documents: each from its `---` (the first from the start of the file) to the next. */
function splitDocuments(text: string): Chunk[] {
  const docs = parseAllDocuments(text) as Document.Parsed[];
  if (!Array.isArray(docs) || docs.length === 0) return [];
  const starts = docs.map((d, i) => (i === 0 ? 0 : d.range[0]));
  return starts.map((start, i) => ({ start, text: text.slice(start, i + 1 < starts.length ? starts[i + 1] : text.length) }));
}

function printScalar(value: string | number | boolean | null): string {
  if (typeof value !== 'string') return String(value);
  const s = new Scalar(value);
  if (isAmbiguousScalar(value)) s.type = 'QUOTE_DOUBLE';
  return new YamlDocument(s).toString({ lineWidth: 0 }).trimEnd();
}

function showPath(path: JsonPath): string {
  return path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${p}`)).join('').replace(/^\./, '') || '(document)';
}
