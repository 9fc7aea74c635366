import { decodeXmlEntities } from '../xml-entities.js';
import type { ExportContents, ExportItem } from './model.js';
import { withDefined } from '../with-defined.js';

/**
 * A streaming well-formedness check of the automation export, fed the bytes as they arrive (UTF-8,
 * chunks cut anywhere), in constant memory besides the items kept: one pass that also finds the root elements and counts
 * the `Task` elements of the root's first `Tasks` section, keeping the identifying attributes of
 * those and of the `ACL` elements of its first `ACLs` section (apply checks them against the live
 * lists).
 *
 * It is deliberately stricter than fast-xml-parser: it accepts only documents that
 * `XMLValidator.validate` accepts and that the faithful parse of config-xml.ts reads into the same
 * structure (so the same root and task count). What it does not accept it *refuses*, and the
 * caller then runs the fast-xml-parser check on the whole text for the verdict and the message
 * users see (line, column), except for a DOCTYPE or other markup declaration, which is refused
 * outright (`declaration`: fast-xml-parser would expand or fetch its entities, or throw). Refused on
 * purpose, although some are well-formed: a DOCTYPE,
 * processing instructions other than the XML declaration at the very start, CDATA outside the
 * root, comments that start with `-`, non-ASCII or library-reserved names (`constructor`,
 * `toString`…), nesting deeper than {@link MAX_DEPTH}, entity references other than the five
 * predefined ones and character references to legal characters. Like fast-xml-parser, it does not
 * check the UTF-8 encoding of text and attribute values, nor control characters in them.
 */

/** What a document the checker accepts is made of. */
export interface XmlShape {
  readonly ok: true;
  /** Name of the one root element. */
  readonly root: string;
  /** `Task` children of the root's first `Tasks` child (0 when there is none). */
  readonly taskCount: number;
  /** The items of the root's first `Tasks` and `ACLs` sections: what apply checks the export against. */
  readonly contents: ExportContents;
}

/** The checker cannot vouch for the document: ask fast-xml-parser (the reason is for tests and debugging). */
export interface XmlRefusal {
  readonly ok: false;
  /** Byte offset where the checker stopped. */
  readonly offset: number;
  readonly reason: string;
  /**
   * A DOCTYPE or another markup declaration (`<!ENTITY`…): refused outright, never handed to
   * fast-xml-parser (entity-expansion bombs, external entities). It is the server's answer.
   */
  readonly declaration?: true;
}

export type XmlCheck = XmlShape | XmlRefusal;

/** Deeper documents are refused: the counting parse of fast-xml-parser throws beyond 100 levels. */
export const MAX_DEPTH = 64;

// States of the machine (one byte at a time; every state can be left at a chunk's end).
const S_START = 0; // before anything: a BOM, the XML declaration or the prolog
const S_BOM = 1; // inside the BOM (bomAt bytes of EF BB BF seen)
const S_OUTSIDE = 2; // prolog or epilog: whitespace, comments, the root
const S_TEXT = 3; // element content
const S_LT = 4; // after `<`
const S_START_NAME = 5;
const S_IN_TAG = 6; // start tag, after the name or an attribute value
const S_ATTR_NAME = 7;
const S_ATTR_EQ = 8; // after an attribute name: `=` expected
const S_ATTR_QUOTE = 9; // after `=`: a quote expected
const S_ATTR_VALUE = 10;
const S_EMPTY_END = 11; // after `/` in a start tag: `>` expected
const S_END_NAME = 12;
const S_END_SPACE = 13; // after an end tag's name: `>` expected
const S_ENTITY = 14; // after `&`, in text or an attribute value (entityReturn says which)
const S_BANG = 15; // after `<!`
const S_COMMENT_OPEN = 16; // after `<!-`
const S_COMMENT_FIRST = 17; // after `<!--`
const S_COMMENT = 18;
const S_CDATA_OPEN = 19; // matching `[CDATA[`
const S_CDATA = 20;
const S_DECL = 21; // the XML declaration, collected whole
const S_REFUSED = 22;

// Byte classes.
// 0: any other byte (the fill of a new Uint8Array).
const C_NAME_START = 1; // A-Z a-z _ :
const C_NAME = 2; // digits . -
const C_SPACE = 3; // space, tab, CR, LF
const CLASS = new Uint8Array(256);
/** 1 for any name byte (C_NAME_START or C_NAME): one load in the name loops. */
const IS_NAME = new Uint8Array(256);
for (let c = 0; c < 256; c++) {
  const ch = String.fromCharCode(c);
  if (/[A-Za-z_:]/.test(ch)) CLASS[c] = C_NAME_START;
  else if (/[0-9.-]/.test(ch)) CLASS[c] = C_NAME;
  else if (c === 0x20 || c === 0x09 || c === 0x0d || c === 0x0a) CLASS[c] = C_SPACE;
  IS_NAME[c] = CLASS[c] === C_NAME_START || CLASS[c] === C_NAME ? 1 : 0;
}

const LT = 0x3c;
const GT = 0x3e;
const AMP = 0x26;
const SLASH = 0x2f;
const EQ = 0x3d;
const DQ = 0x22;
const SQ = 0x27;
const BANG = 0x21;
const QM = 0x3f;
const DASH = 0x2d;
const RSQB = 0x5d;
const SEMI = 0x3b;

const BOM = [0xef, 0xbb, 0xbf];
const CDATA_OPEN = [...'[CDATA['].map((c) => c.charCodeAt(0));
const TASKS = [...'Tasks'].map((c) => c.charCodeAt(0));
const TASK = [...'Task'].map((c) => c.charCodeAt(0));
const ACLS = [...'ACLs'].map((c) => c.charCodeAt(0));
const ACL = [...'ACL'].map((c) => c.charCodeAt(0));
/** Attributes of a `Task` or `ACL` item that identify it (see ExportItem). */
const ITEM_ATTRIBUTES = ['ID', 'Name', 'ACLID', 'ResourceGroupName', 'UserGroupName'].map((name) => ({ name, bytes: [...name].map((c) => c.charCodeAt(0)) }));
/** An identifying attribute longer than this is kept cut (no id or name is this long; memory stays bounded). */
const MAX_CAPTURE = 4096;
/** Names fast-xml-parser throws on or renames (util.js criticalProperties and DANGEROUS_PROPERTY_NAMES). */
const RESERVED_NAMES = new Set([
  '__proto__',
  'constructor',
  'prototype',
  'hasOwnProperty',
  'toString',
  'valueOf',
  '__defineGetter__',
  '__defineSetter__',
  '__lookupGetter__',
  '__lookupSetter__',
]);
/** 1 at `length * 256 + first byte` of each reserved name: most names are cleared by one load. */
const RESERVED_SHAPE = new Uint8Array(32 * 256);
for (const name of RESERVED_NAMES) RESERVED_SHAPE[name.length * 256 + name.charCodeAt(0)] = 1;
const XML_DECL =
  /^<\?xml[ \t\r\n]+version[ \t\r\n]*=[ \t\r\n]*(["'])1\.[01]\1([ \t\r\n]+encoding[ \t\r\n]*=[ \t\r\n]*(["'])[A-Za-z][A-Za-z0-9._-]*\3)?([ \t\r\n]+standalone[ \t\r\n]*=[ \t\r\n]*(["'])(yes|no)\5)?[ \t\r\n]*\?>$/;
const MAX_DECL = 200;
const MAX_ENTITY = 10;
const MAX_ATTRS = 256;
/** Room for the open elements' names, and for one start tag's attribute names (more is refused). */
const NAME_ROOM = 1 << 16;

/**
 * Feed `push` the document's bytes in order, then call `end` once. After a refusal the rest of
 * the input is ignored (callers keep hashing and writing it).
 */
export class XmlChecker {
  #state = S_START;
  #offset = 0; // bytes consumed before the current chunk
  #refusal: XmlRefusal | undefined;
  #bomAt = 0;
  #depth = 0;
  #rootSeen = false;
  #rootClosed = false;
  #rootName = '';
  // Open element names, back to back, and where each starts.
  readonly #names = new Uint8Array(NAME_ROOM);
  #namesLen = 0;
  readonly #nameStart = new Int32Array(MAX_DEPTH + 2);
  // The end tag being matched against the open element: bytes matched so far.
  #endAt = 0;
  // Attributes of the current start tag: hash, and where each name lies in #attrBytes.
  readonly #attrHash = new Int32Array(MAX_ATTRS);
  readonly #attrStart = new Int32Array(MAX_ATTRS + 1);
  readonly #attrBytes = new Uint8Array(NAME_ROOM);
  #attrCount = 0;
  #attrLen = 0;
  // Attribute names of a tag read whole (#readTag): hash and where each lies in the chunk.
  readonly #tagHash = new Int32Array(MAX_ATTRS);
  readonly #tagStart = new Int32Array(MAX_ATTRS);
  readonly #tagEnd = new Int32Array(MAX_ATTRS);
  readonly #tagValueStart = new Int32Array(MAX_ATTRS);
  readonly #tagValueEnd = new Int32Array(MAX_ATTRS);
  #hash = 0;
  #spaced = false; // whitespace since the tag name or the last attribute value
  #quote = 0;
  #entity: number[] = [];
  #entityReturn = S_TEXT;
  #dashes = 0; // in a comment: `-` just seen; in CDATA: `]` just seen
  #cdataAt = 0;
  #decl: number[] = [];
  // Task counting: 0 = no Tasks section yet, 1 = inside the first one, 2 = past it.
  #tasks = 0;
  #taskCount = 0;
  // The same for the first ACLs section.
  #acls = 0;
  // Items of the two sections: identifying attributes by name; #item is the one whose start tag
  // is being read (only then are its attributes captured, on the byte machine).
  readonly #taskItems: Record<string, string>[] = [];
  readonly #aclItems: Record<string, string>[] = [];
  #item: Record<string, string> | undefined;
  #capture: string | undefined;
  /**
   * The value so far when it spans chunks or holds references, one char per byte (latin1: a
   * UTF-8 sequence cut by a chunk's end stays whole). A value whole in one chunk is decoded from
   * it at once.
   */
  #captured = '';
  /** The current chunk as a Buffer (for slicing values out of it). */
  #chunk: Buffer = Buffer.alloc(0);

  push(chunk: Uint8Array): void {
    if (this.#state === S_REFUSED) return;
    const n = chunk.length;
    this.#chunk = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length);
    let state = this.#state;
    let i = 0;
    // The hot states (content, attribute values, names, whitespace in tags) run inner loops
    // over the chunk; the others take one byte per turn.
    while (i < n && state !== S_REFUSED) {
      const c = chunk[i]!;
      switch (state) {
        case S_TEXT: {
          let j = i;
          while (j < n) {
            const b = chunk[j]!;
            if (b === LT || b === AMP) break;
            j++;
          }
          if (j === n) {
            i = n;
            continue;
          }
          if (chunk[j] === LT) {
            const after = this.#readTag(chunk, j);
            if (after > 0) {
              i = after;
              if (this.#depth === 0) state = S_OUTSIDE;
              continue;
            }
            state = S_LT;
          } else {
            const after = referenceEnd(chunk, j);
            if (after > 0) {
              i = after;
              continue;
            }
            state = S_ENTITY;
            this.#entityReturn = S_TEXT;
            this.#entity.length = 0;
          }
          i = j + 1;
          continue;
        }
        case S_ATTR_VALUE: {
          const q = this.#quote;
          let j = i;
          while (j < n) {
            const b = chunk[j]!;
            if (b === q || b === LT || b === AMP) break;
            j++;
          }
          if (j === n) {
            if (this.#capture !== undefined) this.#keep(i, j);
            i = n;
            continue;
          }
          const b = chunk[j]!;
          if (b === q) {
            state = S_IN_TAG;
            this.#spaced = false;
            if (this.#capture !== undefined) this.#endCapture(i, j);
          } else if (b === AMP) {
            if (this.#capture !== undefined) this.#keep(i, j);
            state = S_ENTITY;
            this.#entityReturn = S_ATTR_VALUE;
            this.#entity.length = 0;
          } else state = this.#refuse(j, '`<` in an attribute value');
          i = j + 1;
          continue;
        }
        case S_IN_TAG: {
          const k = CLASS[c]!;
          if (k === C_SPACE) {
            let j = i + 1;
            while (j < n && CLASS[chunk[j]!] === C_SPACE) j++;
            this.#spaced = true;
            i = j;
            continue;
          }
          if (c === GT) state = S_TEXT;
          else if (c === SLASH) state = S_EMPTY_END;
          else if (k === C_NAME_START && this.#spaced) {
            if (this.#attrCount === MAX_ATTRS) state = this.#refuse(i, 'too many attributes');
            else {
              state = S_ATTR_NAME;
              this.#attrStart[this.#attrCount] = this.#attrLen;
              this.#hash = 0;
              continue; // the name's first byte, in S_ATTR_NAME
            }
          } else state = this.#refuse(i, 'bad character in a start tag');
          break;
        }
        case S_ATTR_NAME: {
          const bytes = this.#attrBytes;
          let len = this.#attrLen;
          let h = this.#hash;
          let j = i;
          while (j < n) {
            const b = chunk[j]!;
            const k = CLASS[b]!;
            if (k !== C_NAME_START && k !== C_NAME) break;
            if (len === NAME_ROOM) break;
            bytes[len++] = b;
            h = (Math.imul(h, 31) + b) | 0;
            j++;
          }
          this.#attrLen = len;
          this.#hash = h;
          if (j === n) {
            i = n;
            continue;
          }
          i = j;
          const b = chunk[j]!;
          if (len === NAME_ROOM) state = this.#refuse(i, 'attribute names too long');
          else if (b === EQ || CLASS[b] === C_SPACE) {
            state = this.#endAttrName(i);
            if (state !== S_REFUSED) state = b === EQ ? S_ATTR_QUOTE : S_ATTR_EQ;
          } else state = this.#refuse(i, 'bad character in an attribute name');
          break;
        }
        case S_ATTR_EQ:
          if (c === EQ) state = S_ATTR_QUOTE;
          else if (CLASS[c] !== C_SPACE) state = this.#refuse(i, 'attribute without a value');
          break;
        case S_ATTR_QUOTE:
          if (c === DQ || c === SQ) {
            this.#quote = c;
            state = S_ATTR_VALUE;
          } else if (CLASS[c] !== C_SPACE) state = this.#refuse(i, 'attribute value without quotes');
          break;
        case S_LT:
          if (CLASS[c] === C_NAME_START) {
            if (this.#depth === 0 && this.#rootSeen) state = this.#refuse(i, 'a second root element');
            else if (this.#depth === MAX_DEPTH) state = this.#refuse(i, 'nested too deep');
            else {
              state = S_START_NAME;
              this.#nameStart[this.#depth] = this.#namesLen;
              continue; // the name's first byte, in S_START_NAME
            }
          } else if (c === SLASH) {
            if (this.#depth === 0) state = this.#refuse(i, 'an end tag outside the root');
            else {
              state = S_END_NAME;
              this.#endAt = 0;
            }
          } else if (c === BANG) state = S_BANG;
          else if (c === QM && this.#offset + i === this.#declAt() + 1) {
            state = S_DECL;
            this.#decl = [LT, QM];
          } else state = this.#refuse(i, c === QM ? 'a processing instruction' : 'bad character after `<`');
          break;
        case S_START_NAME: {
          const names = this.#names;
          let len = this.#namesLen;
          let j = i;
          while (j < n) {
            const b = chunk[j]!;
            const k = CLASS[b]!;
            if (k !== C_NAME_START && k !== C_NAME) break;
            if (len === NAME_ROOM) break;
            names[len++] = b;
            j++;
          }
          this.#namesLen = len;
          if (j === n) {
            i = n;
            continue;
          }
          i = j;
          const b = chunk[j]!;
          if (len === NAME_ROOM) {
            state = this.#refuse(i, 'element names too long');
            break;
          }
          state = this.#endStartName(i);
          if (state === S_REFUSED) break;
          if (CLASS[b] === C_SPACE) {
            state = S_IN_TAG;
            this.#spaced = true;
          } else if (b === GT) state = S_TEXT;
          else if (b === SLASH) state = S_EMPTY_END;
          else state = this.#refuse(i, 'bad character in an element name');
          break;
        }
        case S_EMPTY_END:
          if (c === GT) state = this.#closeElement();
          else state = this.#refuse(i, '`/` not followed by `>`');
          break;
        case S_END_NAME: {
          const names = this.#names;
          const start = this.#nameStart[this.#depth - 1]!;
          const len = this.#namesLen - start;
          let at = this.#endAt;
          let j = i;
          while (j < n && at < len && names[start + at] === chunk[j]) {
            at++;
            j++;
          }
          this.#endAt = at;
          if (j === n) {
            i = n;
            continue;
          }
          i = j;
          const b = chunk[j]!;
          const k = CLASS[b]!;
          if (at !== len || k === C_NAME_START || k === C_NAME) state = this.#refuse(i, 'end tag does not match');
          else if (b === GT) state = this.#closeElement();
          else if (k === C_SPACE) state = S_END_SPACE;
          else state = this.#refuse(i, 'bad character in an end tag');
          break;
        }
        case S_END_SPACE:
          if (c === GT) state = this.#closeElement();
          else if (CLASS[c] !== C_SPACE) state = this.#refuse(i, 'bad character in an end tag');
          break;
        case S_ENTITY:
          if (c === SEMI) {
            if (!isReference(this.#entity, 0, this.#entity.length)) state = this.#refuse(i, 'unknown or malformed reference');
            else {
              state = this.#entityReturn;
              if (state === S_ATTR_VALUE && this.#capture !== undefined) this.#captured += String.fromCharCode(AMP, ...this.#entity, SEMI);
            }
          } else if (this.#entity.length === MAX_ENTITY) state = this.#refuse(i, 'reference too long');
          else this.#entity.push(c);
          break;
        case S_OUTSIDE:
          if (c === LT) state = S_LT;
          else if (CLASS[c] !== C_SPACE) state = this.#refuse(i, this.#rootClosed ? 'text after the root element' : 'text before the root element');
          break;
        case S_START:
          if (c === BOM[0]) {
            state = S_BOM;
            this.#bomAt = 1;
          } else {
            state = S_OUTSIDE;
            continue; // this byte again, as prolog
          }
          break;
        case S_BOM:
          if (c !== BOM[this.#bomAt]) state = this.#refuse(i, 'not UTF-8 (bad byte order mark)');
          else if (++this.#bomAt === BOM.length) state = S_OUTSIDE;
          break;
        case S_BANG:
          if (c === DASH) state = S_COMMENT_OPEN;
          else if (c === CDATA_OPEN[0] && this.#depth > 0) {
            state = S_CDATA_OPEN;
            this.#cdataAt = 1;
          } else if (CLASS[c] === C_NAME_START) {
            this.#refusal ??= { ok: false, offset: this.#offset + i, reason: c === 0x44 ? 'a DOCTYPE' : 'a markup declaration', declaration: true };
            state = S_REFUSED;
          } else state = this.#refuse(i, 'bad character after `<!`');
          break;
        case S_COMMENT_OPEN:
          if (c === DASH) state = S_COMMENT_FIRST;
          else state = this.#refuse(i, 'bad comment start');
          break;
        case S_COMMENT_FIRST:
          // `<!---`: fast-xml-parser's stop-node reader ends such a comment early.
          if (c === DASH) state = this.#refuse(i, 'comment starting with `-`');
          else {
            state = S_COMMENT;
            this.#dashes = 0;
          }
          break;
        case S_COMMENT: {
          if (this.#dashes === 0) {
            let j = i;
            while (j < n && chunk[j] !== DASH) j++;
            i = j;
            if (j === n) continue;
            this.#dashes = 1;
          } else if (this.#dashes === 1) this.#dashes = c === DASH ? 2 : 0;
          else if (c === GT) state = this.#depth > 0 ? S_TEXT : S_OUTSIDE;
          else state = this.#refuse(i, '`--` inside a comment');
          break;
        }
        case S_CDATA_OPEN:
          if (c !== CDATA_OPEN[this.#cdataAt]) state = this.#refuse(i, 'bad CDATA start');
          else if (++this.#cdataAt === CDATA_OPEN.length) {
            state = S_CDATA;
            this.#dashes = 0;
          }
          break;
        case S_CDATA:
          if (c === RSQB) this.#dashes = this.#dashes === 0 ? 1 : 2;
          else if (c === GT && this.#dashes === 2) state = S_TEXT;
          else this.#dashes = 0;
          break;
        case S_DECL:
          this.#decl.push(c);
          if (c === GT && this.#decl[this.#decl.length - 2] === QM) {
            state = XML_DECL.test(String.fromCharCode(...this.#decl)) ? S_OUTSIDE : this.#refuse(i, 'unusual XML declaration');
          } else if (this.#decl.length > MAX_DECL) state = this.#refuse(i, 'XML declaration too long');
          break;
        default:
          state = this.#refuse(i, 'internal: unknown state');
      }
      i++;
    }
    this.#state = state;
    this.#offset += n;
  }

  /** The verdict, once every byte was pushed. */
  end(): XmlCheck {
    if (!this.#refusal) {
      if (!this.#rootSeen) this.#refuse(0, 'no root element');
      else if (!this.#rootClosed || this.#state !== S_OUTSIDE) this.#refuse(0, 'the document ends inside markup');
    }
    return (
      this.#refusal ?? {
        ok: true,
        root: this.#rootName,
        taskCount: this.#taskCount,
        contents: { tasks: this.#taskItems.map(taskItem), acls: this.#aclItems.map(aclItem) },
      }
    );
  }

  /**
   * The fast path: an ordinary start, empty or end tag at `lt` read in one go when it lies whole
   * in this chunk. Answers the index after its `>` (the element opened or closed), or -1 to let
   * the byte machine read it from `lt`: at a chunk's end, for comments and the like, and for
   * anything wrong (the machine finds and names the problem). Nothing changes before it answers.
   */
  #readTag(chunk: Uint8Array, lt: number): number {
    const n = chunk.length;
    let j = lt + 1;
    if (j >= n) return -1;
    let c = chunk[j]!;
    if (c === SLASH) {
      if (this.#depth === 0) return -1;
      const names = this.#names;
      const start = this.#nameStart[this.#depth - 1]!;
      const len = this.#namesLen - start;
      j++;
      if (j + len >= n) return -1;
      for (let k = 0; k < len; k++) if (chunk[j + k] !== names[start + k]) return -1;
      j += len;
      while (j < n && CLASS[chunk[j]!] === C_SPACE) j++;
      if (j >= n || chunk[j] !== GT) return -1;
      this.#closeElement();
      return j + 1;
    }
    if (CLASS[c] !== C_NAME_START || this.#depth === MAX_DEPTH || (this.#depth === 0 && this.#rootSeen)) return -1;
    const nameStart = j;
    while (j < n && IS_NAME[chunk[j]!] === 1) j++;
    if (j >= n) return -1;
    const nameEnd = j;
    const hashes = this.#tagHash;
    const starts = this.#tagStart;
    const ends = this.#tagEnd;
    let count = 0;
    for (;;) {
      c = chunk[j]!;
      if (c === GT || c === SLASH) break;
      if (CLASS[c] !== C_SPACE) return -1;
      while (j < n && CLASS[chunk[j]!] === C_SPACE) j++;
      if (j >= n) return -1;
      c = chunk[j]!;
      if (c === GT || c === SLASH) break;
      if (CLASS[c] !== C_NAME_START || count === MAX_ATTRS) return -1;
      const attrStart = j;
      let h = 0;
      while (j < n) {
        const b = chunk[j]!;
        if (IS_NAME[b] === 0) break;
        h = (Math.imul(h, 31) + b) | 0;
        j++;
      }
      const attrEnd = j;
      while (j < n && CLASS[chunk[j]!] === C_SPACE) j++;
      if (j >= n || chunk[j] !== EQ) return -1;
      j++;
      while (j < n && CLASS[chunk[j]!] === C_SPACE) j++;
      if (j >= n) return -1;
      const q = chunk[j]!;
      if (q !== DQ && q !== SQ) return -1;
      j++;
      const valueStart = j;
      while (j < n) {
        const b = chunk[j]!;
        if (b === q) break;
        if (b === LT) return -1;
        if (b === AMP) {
          j = referenceEnd(chunk, j);
          if (j < 0) return -1;
        } else j++;
      }
      if (j + 1 >= n) return -1;
      const valueEnd = j;
      j++;
      for (let a = 0; a < count; a++) {
        if (hashes[a] === h && sameBytes(chunk, starts[a]!, ends[a]!, attrStart, attrEnd)) return -1;
      }
      if (isReserved(chunk, attrStart, attrEnd - attrStart)) return -1;
      hashes[count] = h;
      starts[count] = attrStart;
      ends[count] = attrEnd;
      this.#tagValueStart[count] = valueStart;
      this.#tagValueEnd[count] = valueEnd;
      count++;
    }
    const empty = c === SLASH;
    if (empty) {
      if (j + 1 >= n || chunk[j + 1] !== GT) return -1;
      j++;
    }
    const len = nameEnd - nameStart;
    if (this.#namesLen + len > NAME_ROOM || isReserved(chunk, nameStart, len)) return -1;
    const names = this.#names;
    const base = this.#namesLen;
    this.#nameStart[this.#depth] = base;
    for (let k = 0; k < len; k++) names[base + k] = chunk[nameStart + k]!;
    this.#namesLen = base + len;
    this.#endStartName(lt);
    if (this.#item !== undefined) {
      for (let a = 0; a < count; a++) {
        const wanted = ITEM_ATTRIBUTES.find((w) => equalsBytes(chunk, starts[a]!, ends[a]! - starts[a]!, w.bytes));
        if (wanted === undefined) continue;
        const from = this.#tagValueStart[a]!;
        this.#item[wanted.name] = decodeXmlEntities(this.#chunk.toString('utf8', from, Math.min(this.#tagValueEnd[a]!, from + MAX_CAPTURE)));
      }
    }
    if (empty) this.#closeElement();
    return j + 1;
  }

  /** Bytes [from, to) of the current chunk belong to the value being captured (more follow): the byte machine's capture, for a tag cut by a chunk's end. */
  #keep(from: number, to: number): void {
    const end = Math.min(to, from + MAX_CAPTURE - this.#captured.length);
    if (end > from) this.#captured += this.#chunk.toString('latin1', from, end);
  }

  /** The value ends with bytes [from, to) of the current chunk. */
  #endCapture(from: number, to: number): void {
    let value: string;
    if (this.#captured === '') value = this.#chunk.toString('utf8', from, Math.min(to, from + MAX_CAPTURE));
    else {
      this.#keep(from, to);
      value = Buffer.from(this.#captured, 'latin1').toString('utf8');
    }
    this.#item![this.#capture!] = decodeXmlEntities(value);
    this.#capture = undefined;
    this.#captured = '';
  }

  #refuse(at: number, reason: string): typeof S_REFUSED {
    this.#refusal ??= { ok: false, offset: this.#offset + at, reason };
    return S_REFUSED;
  }

  /** Where an XML declaration may start: byte 0, or 3 after a BOM. */
  #declAt(): number {
    return this.#bomAt === BOM.length ? BOM.length : 0;
  }

  /** An attribute name is complete: refuse a repeated or reserved one. */
  #endAttrName(at: number): number {
    const k = this.#attrCount;
    const bytes = this.#attrBytes;
    const start = this.#attrStart[k]!;
    const len = this.#attrLen - start;
    const h = this.#hash;
    for (let a = 0; a < k; a++) {
      if (this.#attrHash[a] !== h) continue;
      const s = this.#attrStart[a]!;
      if (this.#attrStart[a + 1]! - s !== len) continue;
      let same = true;
      for (let b = 0; b < len; b++) {
        if (bytes[s + b] !== bytes[start + b]) {
          same = false;
          break;
        }
      }
      if (same) return this.#refuse(at, 'repeated attribute');
    }
    if (isReserved(bytes, start, len)) return this.#refuse(at, 'reserved attribute name');
    this.#capture = this.#item !== undefined ? ITEM_ATTRIBUTES.find((a) => equalsBytes(bytes, start, len, a.bytes))?.name : undefined;
    this.#captured = '';
    this.#attrHash[k] = h;
    this.#attrCount = k + 1;
    this.#attrStart[k + 1] = this.#attrLen;
    return S_IN_TAG;
  }

  /** A start tag's name is complete: check it, count it; the element is open from here on. */
  #endStartName(at: number): number {
    const start = this.#nameStart[this.#depth]!;
    const len = this.#namesLen - start;
    if (isReserved(this.#names, start, len)) return this.#refuse(at, 'reserved element name');
    const level = ++this.#depth;
    this.#item = undefined;
    this.#attrCount = 0;
    this.#attrLen = 0;
    this.#attrStart[0] = 0;
    this.#spaced = false;
    if (level === 1) {
      this.#rootSeen = true;
      this.#rootName = String.fromCharCode(...this.#names.subarray(start, this.#namesLen));
    } else if (level === 2) {
      if (this.#tasks === 0 && equalsBytes(this.#names, start, len, TASKS)) this.#tasks = 1;
      else if (this.#acls === 0 && equalsBytes(this.#names, start, len, ACLS)) this.#acls = 1;
    } else if (level === 3) {
      if (this.#tasks === 1 && equalsBytes(this.#names, start, len, TASK)) {
        this.#taskCount++;
        this.#item = {};
        this.#taskItems.push(this.#item);
      } else if (this.#acls === 1 && equalsBytes(this.#names, start, len, ACL)) {
        this.#item = {};
        this.#aclItems.push(this.#item);
      }
    }
    return S_IN_TAG;
  }

  /** `/>` or an end tag's `>`: the top element is closed. */
  #closeElement(): number {
    const level = this.#depth--;
    this.#namesLen = this.#nameStart[this.#depth]!;
    if (level === 2 && this.#tasks === 1) this.#tasks = 2;
    if (level === 2 && this.#acls === 1) this.#acls = 2;
    if (level === 1) {
      this.#rootClosed = true;
      return S_OUTSIDE;
    }
    return S_TEXT;
  }
}

/** A task's identifying attributes as an ExportItem (shared with config-xml.ts's fallback parse). */
export function taskItem(attrs: Readonly<Record<string, string>>): ExportItem {
  const item: { id?: string; name?: string } = {};
  if (attrs['ID'] !== undefined) item.id = attrs['ID'];
  if (attrs['Name'] !== undefined) item.name = attrs['Name'];
  return item;
}

/** An ACL's: `ACLID` (else `ID`) and `resource group / user group`. */
export function aclItem(attrs: Readonly<Record<string, string>>): ExportItem {
  const id = attrs['ACLID'] ?? attrs['ID'];
  const rg = attrs['ResourceGroupName'];
  const ug = attrs['UserGroupName'];
  return { ...withDefined({ id }), ...(rg !== undefined || ug !== undefined ? { name: `${rg ?? '?'} / ${ug ?? '?'}` } : {}) };
}

/** Check a whole document held in memory (one chunk). */
export function checkXmlBytes(bytes: Uint8Array): XmlCheck {
  const checker = new XmlChecker();
  checker.push(bytes);
  return checker.end();
}

function equalsBytes(buf: Uint8Array, start: number, len: number, want: readonly number[]): boolean {
  if (len !== want.length) return false;
  for (let k = 0; k < len; k++) if (buf[start + k] !== want[k]) return false;
  return true;
}

function isReserved(buf: Uint8Array, start: number, len: number): boolean {
  if (len >= 32 || RESERVED_SHAPE[len * 256 + buf[start]!] === 0) return false;
  return RESERVED_NAMES.has(String.fromCharCode(...buf.subarray(start, start + len)));
}

/** Whether bytes [start, end) are equal to bytes [start2, end2) of the same buffer. */
function sameBytes(buf: Uint8Array, start: number, end: number, start2: number, end2: number): boolean {
  if (end - start !== end2 - start2) return false;
  for (let k = 0; k < end - start; k++) if (buf[start + k] !== buf[start2 + k]) return false;
  return true;
}

/** The index after a well-formed reference whose `&` is at `amp`, or -1 (malformed, or it runs past the chunk). */
function referenceEnd(chunk: Uint8Array, amp: number): number {
  const limit = Math.min(chunk.length, amp + 2 + MAX_ENTITY);
  for (let k = amp + 1; k < limit; k++) {
    if (chunk[k] === SEMI) return isReference(chunk, amp + 1, k) ? k + 1 : -1;
  }
  return -1;
}

const NAMED_REFERENCES = ['amp', 'lt', 'gt', 'quot', 'apos'].map((r) => [...r].map((c) => c.charCodeAt(0)));

/** The bytes [start, end) between `&` and `;`: a predefined entity or a reference to a legal character. */
function isReference(ref: ArrayLike<number>, start: number, end: number): boolean {
  const len = end - start;
  if (len < 2) return false;
  if (ref[start] !== 0x23) {
    // Not `#`: one of the five predefined entities.
    return NAMED_REFERENCES.some((named) => named.length === len && named.every((b, k) => ref[start + k] === b));
  }
  let code = 0;
  if (ref[start + 1] === 0x78) {
    // #x and 1 to 6 hex digits
    if (len < 3 || len > 8) return false;
    for (let k = start + 2; k < end; k++) {
      const d = hexDigit(ref[k]!);
      if (d < 0) return false;
      code = code * 16 + d;
    }
  } else {
    // # and 1 to 7 decimal digits
    if (len > 8) return false;
    for (let k = start + 1; k < end; k++) {
      const b = ref[k]!;
      if (b < 0x30 || b > 0x39) return false;
      code = code * 10 + (b - 0x30);
    }
  }
  return (
    code === 0x9 ||
    code === 0xa ||
    code === 0xd ||
    (code >= 0x20 && code <= 0xd7ff) ||
    (code >= 0xe000 && code <= 0xfffd) ||
    (code >= 0x10000 && code <= 0x10ffff)
  );
}

function hexDigit(b: number): number {
  if (b >= 0x30 && b <= 0x39) return b - 0x30;
  if (b >= 0x61 && b <= 0x66) return b - 0x57;
  if (b >= 0x41 && b <= 0x46) return b - 0x37;
  return -1;
}
