/** `${var:…}`, `${env:…}` or `${file:…}` anywhere in a text (an escaped `$${var:…}` is text). */
const REFERENCE_SYNTAX = /(?<!\$)\$\{\s*(var|env|file)\s*:/i;

/**
 * Why a value read from a server cannot be written into a manifest (import, drift --adopt): a
 * text that reads as a `${…}` reference would be loaded as one, so whoever can edit the object on
 * the server could make mftops send one of its environment variables or files there on the next
 * apply. `allowed`: the `${env:}` placeholders the writer itself put where the server keeps a
 * secret. Looks through lists and objects (keys too); undefined: nothing of the kind.
 */
export function referenceLookalike(value: unknown, allowed: readonly string[] | ReadonlySet<string>): string | undefined {
  if (typeof value === 'string') {
    // `${` first: a substring search spares the regex on nearly every string (an import checks ~500,000).
    if (!value.includes('${') || !REFERENCE_SYNTAX.test(value) || isAllowed(value, allowed)) return undefined;
    return "the server's value holds `${…}`, which a manifest reads as a variable or secret reference: not written into a manifest (write it by hand, escaped as `$${var:…}` where meant)";
  }
  if (Array.isArray(value)) {
    for (const item of value) {
      const why = referenceLookalike(item, allowed);
      if (why !== undefined) return why;
    }
    return undefined;
  }
  if (typeof value === 'object' && value !== null) {
    for (const [k, v] of Object.entries(value)) {
      const why = referenceLookalike(k, allowed) ?? referenceLookalike(v, allowed);
      if (why !== undefined) return why;
    }
  }
  return undefined;
}

function isAllowed(value: string, allowed: readonly string[] | ReadonlySet<string>): boolean {
  return Array.isArray(allowed) ? allowed.includes(value) : (allowed as ReadonlySet<string>).has(value);
}
