/**
 * A CEL expression of comprehensions nested `depth` deep, each over a list literal of `length`
 * numbers, the innermost comparing nested list literals: `[1,…].all(v0, [1,…].all(v1, … [[1,2],[1,2]] == [[1,2],[1,2]]))`.
 * Its work is length^depth; the text grows only linearly (depth 6, length 40: about 750 characters).
 */
export function nestedComprehension(depth: number, length: number): string {
  const list = `[${Array.from({ length }, (_, i) => i + 1).join(',')}]`;
  let body = '[[1,2],[1,2]] == [[1,2],[1,2]]';
  for (let i = depth - 1; i >= 0; i--) body = `${list}.all(v${i}, ${body})`;
  return body;
}
