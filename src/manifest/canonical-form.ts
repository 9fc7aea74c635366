import { isDeepStrictEqual } from 'node:util';
import type { AnySchemaObject } from 'ajv/dist/2020.js';
import { isMap, isScalar, isSeq, parseAllDocuments, visit } from 'yaml';
import type { Document, Node as YamlNode, Pair, YAMLMap } from 'yaml';
import { isRecord } from '../is-record.js';
import { getKindSchema, getSchemaByFile, POLICY_SCHEMA_FILE } from './schemas.js';
import { MANIFEST_KINDS, type ManifestKind } from './types.js';
import { canonicalizeQuoting, TO_STRING_OPTIONS } from './yaml-scalars.js';
export { canonicalizeQuoting, isAmbiguousScalar, TO_STRING_OPTIONS } from './yaml-scalars.js';

/**
 * The canonical form of a manifest file, the one `mftops import` writes and `mftops fmt` restores:
 *
 * - keys in the order of the kind's schema (`properties` order, at every depth the schema
 *   describes), keys the schema does not name after them in the order written;
 * - strings plain where YAML allows, quoted (double) where it does not, and always quoted when
 *   another YAML reader could take them for something else (`02:00` as a number of minutes in
 *   YAML 1.1, `yes`, `0755`): see `isAmbiguousScalar`;
 * - flow collections as Prettier writes them (`{ name: x }`, `[a, b]`), block ones indented by
 *   two with sequences indented under their key, no line folding;
 * - comments and blank lines kept with the key or item they belong to; the comment block at the
 *   top of a document (the `# yaml-language-server` line) stays at its top.
 *
 * Block or flow, as written, is kept: both are canonical. Pure.
 */

/** A schema node with its `#/$defs/…` references (within one schema document) followed. */
export function resolveSchemaRef(node: AnySchemaObject, root: AnySchemaObject): AnySchemaObject {
  let n = node;
  for (let depth = 0; depth < 16 && typeof n.$ref === 'string'; depth++) {
    const m = /^#\/\$defs\/(.+)$/.exec(n.$ref);
    const defs = root.$defs as Record<string, AnySchemaObject> | undefined;
    const target = m ? defs?.[m[1]!] : undefined;
    if (target === undefined) return n;
    n = target;
  }
  return n;
}

/** The named properties of an object schema, in the schema's order, or undefined when it names none. */
export function schemaProperties(schema: AnySchemaObject): Record<string, AnySchemaObject> | undefined {
  return isRecord(schema.properties) ? (schema.properties as Record<string, AnySchemaObject>) : undefined;
}

/** The schema of the values of keys an object schema does not name, when it has one. */
export function schemaExtraProperties(schema: AnySchemaObject): AnySchemaObject | undefined {
  return isRecord(schema.additionalProperties) ? (schema.additionalProperties as AnySchemaObject) : undefined;
}

/** The schema of the items of an array schema, when it has one. */
export function schemaItems(schema: AnySchemaObject): AnySchemaObject | undefined {
  return isRecord(schema.items) ? (schema.items as AnySchemaObject) : undefined;
}

/** The text of a manifest file in canonical form (see above). `text` must parse without YAML errors. */
export function formatManifestText(text: string): string {
  const source = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const docs = parseAllDocuments(source, PARSE_OPTIONS);
  if (!Array.isArray(docs)) return source;
  for (const doc of docs) if (doc.errors.length > 0) throw new Error(`formatManifestText: the text does not parse (${doc.errors[0]!.message})`);
  for (const doc of docs) canonicalizeDocument(doc);
  const out = docs.map((doc) => doc.toString(TO_STRING_OPTIONS)).join('');
  assertSameData(docs.length === 0 ? [] : parseAllDocuments(source, PARSE_OPTIONS), out);
  return out;
}

const PARSE_OPTIONS = { uniqueKeys: true, merge: true, prettyErrors: false, logLevel: 'silent', strict: true } as const;

function canonicalizeDocument(doc: Document.Parsed): void {
  const contents = doc.contents;
  if (isMap(contents)) {
    const kind = contents.get('kind');
    const root = typeof kind === 'string' ? documentSchema(kind) : undefined;
    // An alias must follow its anchor: a document with aliases keeps its key order.
    if (root !== undefined && !hasAlias(doc)) orderKeys(contents, root, root, true);
  }
  canonicalizeQuoting(doc);
  visit(doc, {
    Map(_key, node) {
      if (node.flow) padFlow(node, true);
    },
    Seq(_key, node) {
      if (node.flow) padFlow(node, false);
    },
  });
}

/** The schema of a document kind (a resource kind or `Policy`); undefined for any other kind. */
export function documentSchema(kind: string): AnySchemaObject | undefined {
  if (kind === 'Policy') return getSchemaByFile(POLICY_SCHEMA_FILE);
  return (MANIFEST_KINDS as readonly string[]).includes(kind) ? getKindSchema(kind as ManifestKind) : undefined;
}

/** Keys in schema order, at every depth the schema describes (a stable sort: the rest keep their order). */
function orderKeys(node: unknown, schemaNode: AnySchemaObject, root: AnySchemaObject, top: boolean): void {
  const schema = resolveSchemaRef(schemaNode, root);
  if (isSeq(node)) {
    const items = schemaItems(schema);
    if (items) for (const item of node.items) orderKeys(item, items, root, false);
    return;
  }
  if (!isMap(node)) return;
  const props = schemaProperties(schema);
  const extra = schemaExtraProperties(schema);
  if (props) {
    const names = Object.keys(props);
    const rank = (pair: Pair): number => {
      const i = isScalar(pair.key) ? names.indexOf(String(pair.key.value)) : -1;
      return i === -1 ? names.length : i;
    };
    const first = node.items[0];
    node.items.sort((a, b) => rank(a) - rank(b));
    placeLeadingComment(node, first, top);
  }
  for (const pair of node.items) {
    const key = isScalar(pair.key) ? String(pair.key.value) : undefined;
    const sub = key !== undefined && props && Object.hasOwn(props, key) ? props[key] : extra;
    if (sub) orderKeys(pair.value, sub, root, false);
  }
}

/**
 * The comment above a mapping's first key, once the keys are sorted. At the top of a document it
 * is the document's (the `$schema` line) and stays on top. In a nested mapping it is about its
 * key and goes with it; the comment of the key that now comes first is put where the parser puts
 * it (on the mapping), so that the text reads back the same and formats to itself.
 */
function placeLeadingComment(map: YAMLMap, first: Pair | undefined, top: boolean): void {
  const moved = first !== undefined && first !== map.items[0] && isScalar(first.key);
  if (top) {
    if (moved && isScalar(first.key) && first.key.commentBefore) {
      map.commentBefore = joinComments(map.commentBefore, first.key.commentBefore);
      first.key.commentBefore = undefined;
    }
    return;
  }
  if (moved && isScalar(first.key) && map.commentBefore) {
    first.key.commentBefore = joinComments(map.commentBefore, first.key.commentBefore);
    map.commentBefore = undefined;
  }
  const head = map.items[0];
  if (head && isScalar(head.key) && head.key.commentBefore) {
    map.commentBefore = joinComments(map.commentBefore, head.key.commentBefore);
    head.key.commentBefore = undefined;
  }
}

function joinComments(a: string | null | undefined, b: string | null | undefined): string {
  return [a, b].filter((c): c is string => typeof c === 'string' && c !== '').join('\n');
}

function hasAlias(doc: Document): boolean {
  let found = false;
  visit(doc, {
    Alias() {
      found = true;
      return visit.BREAK;
    },
  });
  return found;
}

/**
 * Flow mappings padded (`{ a: 1 }`), flow sequences not (`[a, b]`), as Prettier and the examples
 * write them; `yaml` has one setting for both, so each flow collection is written with its own.
 */
function padFlow(node: YamlNode, padded: boolean): void {
  const own = node.toString.bind(node) as (ctx?: { flowCollectionPadding?: string }, ...rest: unknown[]) => string;
  Object.defineProperty(node, 'toString', {
    value: (ctx?: { flowCollectionPadding?: string }, ...rest: unknown[]) => own(ctx && { ...ctx, flowCollectionPadding: padded ? ' ' : '' }, ...rest),
    configurable: true,
  });
}

/** Formatting never changes what a file says; a difference is a bug, never written. */
function assertSameData(before: Document.Parsed[], after: string): void {
  const reread = parseAllDocuments(after, PARSE_OPTIONS);
  const docs = Array.isArray(reread) ? reread : [];
  const same =
    docs.length === before.length &&
    docs.every((d, i) => d.errors.length === 0 && isDeepStrictEqual(d.toJS({ maxAliasCount: -1 }), before[i]!.toJS({ maxAliasCount: -1 })));
  if (!same) throw new Error('formatManifestText: the canonical form does not read back as the same data');
}

/**
 * The keys of the mapping at `path` in a document of `kind`, in the order the canonical form puts
 * them (the schema's `properties`), or undefined where the schema names none: the `keyOrder` that
 * `editManifestText` (src/adopt/edit-manifest-text.ts) takes, so an adopted key lands where
 * `mftops fmt` would put it.
 */
export function schemaKeyOrder(kind: string | undefined, path: readonly (string | number)[]): readonly string[] | undefined {
  const root = kind === undefined ? undefined : documentSchema(kind);
  if (root === undefined) return undefined;
  let schema: AnySchemaObject | undefined = root;
  for (const seg of path) {
    const s = resolveSchemaRef(schema, root);
    const props = schemaProperties(s);
    schema = typeof seg === 'number' ? schemaItems(s) : props && Object.hasOwn(props, seg) ? props[seg] : schemaExtraProperties(s);
    if (schema === undefined) return undefined;
  }
  const props = schemaProperties(resolveSchemaRef(schema, root));
  return props === undefined ? undefined : Object.keys(props);
}
