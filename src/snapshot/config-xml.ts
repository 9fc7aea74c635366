import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { decodeXmlEntities } from '../xml-entities.js';
import { checkXmlBytes } from './xml-checker.js';

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

/** What checking an export says: why it is not well-formed, or how many tasks it holds. */
export type ConfigXmlVerdict = { readonly problem: string } | { readonly taskCount: number };

/** checkConfigXml for bytes in memory: the streaming checker first, fast-xml-parser when it refuses. */
export function checkConfigBytes(bytes: Buffer): string | undefined {
  return checkXmlBytes(bytes).ok ? undefined : checkConfigXml(bytes.toString('utf8'));
}

/** Without `count`, everything below the root is skipped (the cheapest parse that finds roots). */
function inspect(text: string, count: boolean): ConfigXmlVerdict {
  const body = stripBom(text);
  // Not `body.trim()`: that copies the whole export to find out whether it is blank.
  if (!/\S/.test(body)) return { problem: 'the document is empty' };
  const result = XMLValidator.validate(body);
  if (result !== true) {
    const at = [result.err.line !== undefined ? `line ${result.err.line}` : '', result.err.col !== undefined ? `column ${result.err.col}` : ''].filter(Boolean).join(', ');
    return { problem: `${result.err.msg.replace(/\.$/, '')}${at ? ` (${at})` : ''}` };
  }
  const roots = topLevelElements(new XMLParser({ ...FAITHFUL, stopNodes: count ? SKIPPED_FOR_COUNT : ['*.*'] }).parse(body) as OrderedNode[]);
  if (roots.length !== 1) return { problem: roots.length === 0 ? 'no root element' : `${roots.length} root elements (${roots.map((r) => r.name).join(', ')}); expected one` };
  return { taskCount: count ? countTasksIn(roots) : 0 };
}

function countTasksIn(roots: readonly RawElement[]): number {
  const tasks = roots[0]?.children.find((n) => n.name === 'Tasks');
  return tasks ? tasks.children.filter((n) => n.name === 'Task').length : 0;
}

/** The whole document as a tree; `text` must pass checkConfigXml. */
export function parseConfigXml(text: string): XmlElement {
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
