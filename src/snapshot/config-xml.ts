import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { MftopsError } from '../errors.js';
import { decodeXmlEntities } from '../xml-entities.js';
import type { ExportContents } from './model.js';
import { aclItem, checkXmlBytes, taskItem } from './xml-checker.js';

/**
 * Reading the automation export (`GET /config`) with fast-xml-parser. The stored bytes are never
 * re-serialised: parsing is only for checks (well-formedness, task count) and for `snapshot diff`.
 * Save and verify check with the streaming checker of xml-checker.ts first and come here only
 * when it refuses a document: checkConfigXml and inspectConfigXml are then the verdict, and their
 * messages the ones users see. The parser runs in its faithful mode (STACK.md gotcha 3): order
 * kept, no number or boolean guessing, no trimming, and entities decoded here in one pass (the
 * library leaves `&#10;` alone in attributes, and decoding after it would decode `&amp;#10;` twice).
 */

/** An element of the export: attributes and text exactly as written, entities decoded. */
export interface XmlElement {
  readonly name: string;
  readonly attrs: Readonly<Record<string, string>>;
  readonly children: readonly XmlElement[];
  /** Text content (CDATA included) with whitespace-only runs between elements dropped. */
  readonly text: string;
}

const FAITHFUL = {
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  processEntities: false,
  ignoreDeclaration: true,
  ignorePiTags: true,
} as const;

/** Sections that counting tasks never needs to look into (kept as raw text: less memory). */
const SKIPPED_FOR_COUNT = ['*.Task', '*.Hosts', '*.CustomScripts', '*.Users', '*.DateLists'];

/**
 * Why `text` is not a well-formed XML document with one root element, or undefined when it is.
 * The message carries the line and column, never the content (the export holds passwords).
 */
export function checkConfigXml(text: string): string | undefined {
  const checked = inspect(text, false);
  return 'problem' in checked ? checked.problem : undefined;
}

/**
 * checkConfigXml and a count of the `Task` elements of the root's `Tasks` section, in one pass
 * less: the parse that counts the tasks also finds the root elements (stop nodes do not change
 * which elements are at the top). For a 100 MB export every pass over the text costs seconds.
 */
export function inspectConfigXml(text: string): ConfigXmlVerdict {
  return inspect(text, true);
}

/**
 * What checking an export says: why it is not well-formed (`declaration`: it holds a DOCTYPE or
 * another markup declaration, which mftops refuses), or how many tasks it holds and (when counted)
 * what it holds of the lists apply checks.
 */
export type ConfigXmlVerdict = { readonly problem: string; readonly declaration?: true } | { readonly taskCount: number; readonly contents?: ExportContents };

/** The problem of an export with a DOCTYPE or entity declaration: the server's answer, not a bug of mftops. */
export const DECLARATION_PROBLEM = 'contains a DOCTYPE/entity declaration, which mftops refuses (server answer, not an mftops bug)';

const DECLARATION = /<!(?:DOCTYPE|ENTITY|ELEMENT|ATTLIST|NOTATION)/gi;

/**
 * Whether `text` holds a markup declaration outside comments and CDATA (where `<!DOCTYPE` is only
 * text). Checked before fast-xml-parser sees the text: its DOCTYPE reader expands internal
 * entities (a billion laughs) and throws on external ones.
 */
export function hasMarkupDeclaration(text: string): boolean {
  for (const m of text.matchAll(DECLARATION)) {
    const at = m.index;
    if (text.lastIndexOf('<![CDATA[', at) > text.lastIndexOf(']]>', at)) continue;
    if (text.lastIndexOf('<!--', at) > text.lastIndexOf('-->', at)) continue;
    return true;
  }
  return false;
}

/** checkConfigXml for bytes in memory: the streaming checker first, fast-xml-parser when it refuses. */
export function checkConfigBytes(bytes: Buffer): string | undefined {
  const checked = checkXmlBytes(bytes);
  if (checked.ok) return undefined;
  return checked.declaration ? DECLARATION_PROBLEM : checkConfigXml(bytes.toString('utf8'));
}

/** Without `count`, everything below the root is skipped (the cheapest parse that finds roots). */
function inspect(text: string, count: boolean): ConfigXmlVerdict {
  const body = stripBom(text);
  // Not `body.trim()`: that copies the whole export to find out whether it is blank.
  if (!/\S/.test(body)) return { problem: 'the document is empty' };
  if (hasMarkupDeclaration(body)) return { problem: DECLARATION_PROBLEM, declaration: true };
  const result = XMLValidator.validate(body);
  if (result !== true) {
    const at = [result.err.line !== undefined ? `line ${result.err.line}` : '', result.err.col !== undefined ? `column ${result.err.col}` : '']
      .filter(Boolean)
      .join(', ');
    return { problem: `${result.err.msg.replace(/\.$/, '')}${at ? ` (${at})` : ''}` };
  }
  const roots = topLevelElements(new XMLParser({ ...FAITHFUL, stopNodes: count ? SKIPPED_FOR_COUNT : ['*.*'] }).parse(body) as OrderedNode[]);
  if (roots.length !== 1)
    return { problem: roots.length === 0 ? 'no root element' : `${roots.length} root elements (${roots.map((r) => r.name).join(', ')}); expected one` };
  if (!count) return { taskCount: 0 };
  const contents = contentsOf(roots[0]!);
  return { taskCount: contents.tasks.length, contents };
}

/** The streaming checker's ExportContents, from the parse (attributes of stop nodes are parsed too). */
function contentsOf(root: RawElement): ExportContents {
  const items = (section: string, item: string): Record<string, string>[] =>
    (root.children.find((n) => n.name === section)?.children ?? [])
      .filter((n) => n.name === item)
      .map((n) => Object.fromEntries(Object.entries(n.attrs).map(([k, v]) => [k, decodeXmlEntities(String(v))])));
  return { tasks: items('Tasks', 'Task').map(taskItem), acls: items('ACLs', 'ACL').map(aclItem) };
}

/** The whole document as a tree; `text` must pass checkConfigXml. */
export function parseConfigXml(text: string): XmlElement {
  if (hasMarkupDeclaration(text)) throw new MftopsError(`the automation export ${DECLARATION_PROBLEM}`);
  const roots = topLevelElements(new XMLParser(FAITHFUL).parse(stripBom(text)) as OrderedNode[]);
  const root = roots[0];
  if (!root) throw new Error('parseConfigXml: no root element (call checkConfigXml first)');
  return toElement(root);
}

// --- fast-xml-parser's preserveOrder shape ------------------------------------------------------

/** `{ Tag: [children], ':@': {attrs} }` or `{ '#text': '…' }`. */
type OrderedNode = Record<string, unknown>;

interface RawElement {
  readonly name: string;
  readonly attrs: Record<string, unknown>;
  readonly children: readonly RawElement[];
  readonly texts: readonly string[];
}

function topLevelElements(nodes: readonly OrderedNode[]): RawElement[] {
  return readNodes(nodes).children;
}

function readNodes(nodes: readonly OrderedNode[]): { children: RawElement[]; texts: string[] } {
  const children: RawElement[] = [];
  const texts: string[] = [];
  for (const node of nodes) {
    for (const [key, value] of Object.entries(node)) {
      if (key === ':@') continue;
      if (key === '#text') {
        texts.push(String(value));
        continue;
      }
      if (key.startsWith('?') || key.startsWith('!')) continue;
      const attrs = (node[':@'] ?? {}) as Record<string, unknown>;
      const inner = Array.isArray(value) ? readNodes(value as OrderedNode[]) : { children: [], texts: value === undefined ? [] : [String(value)] };
      children.push({ name: key, attrs, children: inner.children, texts: inner.texts });
    }
  }
  return { children, texts };
}

function toElement(raw: RawElement): XmlElement {
  const attrs: Record<string, string> = {};
  for (const [k, v] of Object.entries(raw.attrs)) attrs[k] = decodeXmlEntities(String(v));
  const text = raw.texts.filter((t) => t.trim() !== '' || raw.children.length === 0).join('');
  return { name: raw.name, attrs, children: raw.children.map(toElement), text: decodeXmlEntities(text) };
}

function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}
