import { visit } from 'yaml';
import type { Document, ToStringOptions } from 'yaml';

// How the canonical manifest form (canonical-form.ts) writes scalars, apart from the schemas it
// loads: plan renderers draw manifest YAML too and may not load files.

/** A string that must be quoted because a YAML reader other than ours could read it as another type. */
export function isAmbiguousScalar(value: string): boolean {
  return AMBIGUOUS.test(value);
}

const AMBIGUOUS = /^(?:y|n|yes|no|on|off|true|false|null|~|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9]*)?|0[0-7]+|0x[0-9a-f]+|[-+]?\.?[0-9][0-9_.e+-]*)$/i;

/**
 * Quoting of every scalar string as the canonical form writes it. Import calls this on the
 * documents it builds; `formatManifestText` on the documents it reads.
 */
export function canonicalizeQuoting(doc: Document): void {
  visit(doc, {
    Scalar(_key, node) {
      if (typeof node.value === 'string') node.type = isAmbiguousScalar(node.value) ? 'QUOTE_DOUBLE' : undefined;
    },
  });
}

/** How canonical documents are written (`lineWidth: 0`: a long string is never folded). */
export const TO_STRING_OPTIONS: ToStringOptions = { lineWidth: 0 };
