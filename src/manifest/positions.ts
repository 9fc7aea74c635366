import { isAlias, isMap, isPair, isScalar, isSeq } from 'yaml';
import type { Document, LineCounter, Node, Pair } from 'yaml';
import type { SourcePosition } from './diagnostics.js';
import type { JsonPath, SourceMap } from './types.js';

/** Splits a JSON Pointer (`/spec/steps/0`, as ajv reports it) into path segments. */
export function parseJsonPointer(pointer: string): string[] {
  if (pointer === '' || pointer === '/') return pointer === '/' ? [''] : [];
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** A source map over one parsed YAML document. Cheap to create: it walks the tree only when asked. */
export function createSourceMap(doc: Document.Parsed, lineCounter: LineCounter, file: string): SourceMap {
  const at = (offset: number, end?: number): SourcePosition => {
    const start = lineCounter.linePos(offset);
    if (end === undefined || end <= offset) return { file, line: start.line, col: start.col };
    const stop = lineCounter.linePos(end);
    return { file, line: start.line, col: start.col, endLine: stop.line, endCol: stop.col };
  };
  const docStart = (): SourcePosition => {
    const contents = doc.contents;
    if (contents?.range) return at(contents.range[0]);
    return at(doc.range[0]);
  };
  const rangeOf = (node: unknown): SourcePosition | undefined => {
    if (node && typeof node === 'object' && 'range' in node) {
      const range = (node as Node).range;
      // A zero-length range is an empty value (`key:`), which has no place of its own.
      if (range && range[1] > range[0]) return at(range[0], range[1]);
    }
    return undefined;
  };

  return {
    locate(path: JsonPath | string, target: 'value' | 'key' = 'value'): SourcePosition {
      const segments = typeof path === 'string' ? parseJsonPointer(path) : path.map(String);
      let node: unknown = doc.contents;
      // The best place found so far: the key of the deepest pair reached, else the deepest node.
      let best: SourcePosition = docStart();
      for (let i = 0; i < segments.length; i++) {
        node = resolveAlias(doc, node);
        const seg = segments[i]!;
        const last = i === segments.length - 1;
        if (isMap(node)) {
          const pair = findPair(doc, node.items, seg);
          if (!pair) return best;
          const keyPos = rangeOf(pair.key);
          if (last && target === 'key') return keyPos ?? best;
          best = keyPos ?? best;
          node = pair.value;
          // An empty value (`key:`) has no node of its own: the key is the place.
          if (last) return rangeOf(pair.value) ?? best;
        } else if (isSeq(node)) {
          const item: unknown = node.items[Number(seg)];
          if (!/^\d+$/.test(seg) || item === undefined) return best;
          best = rangeOf(item) ?? best;
          node = item;
          if (last) return best;
        } else {
          return best;
        }
      }
      return segments.length === 0 ? docStart() : best;
    },
  };
}

function resolveAlias(doc: Document.Parsed, node: unknown): unknown {
  let current = node;
  for (let hops = 0; isAlias(current) && hops < 100; hops++) current = current.resolve(doc);
  return current;
}

function keyText(key: unknown): string | undefined {
  if (isScalar(key)) {
    const v = key.value;
    if (typeof v === 'symbol') return v.description;
    return v === null ? '' : String(v);
  }
  return undefined;
}

/** The pair for `key` in a mapping, looking through merge keys (`<<: *base`) like the loader does. */
function findPair(doc: Document.Parsed, items: readonly unknown[], key: string, depth = 0): Pair | undefined {
  for (const item of items) {
    if (isPair(item) && keyText(item.key) === key && !isMergeKey(item.key)) return item;
  }
  if (depth > 20) return undefined;
  for (const item of items) {
    if (!isPair(item) || !isMergeKey(item.key)) continue;
    const source = resolveAlias(doc, item.value);
    const maps = isSeq(source) ? source.items.map((s) => resolveAlias(doc, s)) : [source];
    for (const m of maps) {
      if (!isMap(m)) continue;
      const found = findPair(doc, m.items, key, depth + 1);
      if (found) return found;
    }
  }
  return undefined;
}

function isMergeKey(key: unknown): boolean {
  if (!isScalar(key)) return false;
  const v = key.value;
  return (typeof v === 'symbol' && v.description === '<<') || (v === '<<' && (!key.type || key.type === 'PLAIN'));
}
