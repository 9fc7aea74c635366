/**
 * Optimal-string-alignment distance (Levenshtein plus adjacent transpositions), so `FileMsk`,
 * `FielMask` and `filemask` are all close to `FileMask`.
 */
export function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  if (a.length === 0) return b.length;
  if (b.length === 0) return a.length;
  let prevPrev: number[] = [];
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, prevPrev[j - 2]! + 1);
      cur.push(v);
    }
    prevPrev = prev;
    prev = cur;
  }
  return prev[b.length]!;
}

/**
 * The candidate the user most likely meant, or undefined when none is close. A case-only
 * difference always wins; otherwise the distance must be small for the word's length.
 */
export function suggestName(input: string, candidates: readonly string[]): string | undefined {
  if (input === '') return undefined;
  candidates = candidates.filter((c) => c !== '');
  const lower = input.toLowerCase();
  const sameLetters = candidates.find((c) => c.toLowerCase() === lower);
  if (sameLetters !== undefined) return sameLetters;
  // Short inputs (`B`, `GT`) are close to too much to guess from.
  const limit = input.length < 3 ? 0 : Math.max(1, Math.min(3, Math.floor(input.length / 3)));
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const c of candidates) {
    const d = editDistance(lower, c.toLowerCase());
    if (d < bestDistance) {
      best = c;
      bestDistance = d;
    }
  }
  return bestDistance <= limit ? best : undefined;
}
