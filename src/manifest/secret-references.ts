import { isRecord } from '../is-record.js';
import { parseSecretRef, type SecretRef } from '../secret.js';
import type { JsonPath, Manifest } from './types.js';

/** One `${env:}`/`${file:}` reference a manifest writes: the manifest, where in it, and what. */
export interface SecretReferenceUse {
  readonly manifest: Manifest;
  /** Path of the value in the document (`['spec', 'steps', 1, 'Destination', 'Password']`). */
  readonly path: JsonPath;
  readonly ref: SecretRef;
}

/**
 * Every reference in the manifests' specs, wherever it stands: apply replaces a reference in any
 * value of a payload, so every one is checked, not only those in fields named like a secret. Pure.
 */
export function listSecretReferences(manifests: readonly Manifest[]): SecretReferenceUse[] {
  const out: SecretReferenceUse[] = [];
  for (const manifest of manifests) {
    const walk = (value: unknown, path: JsonPath): void => {
      if (typeof value === 'string') {
        // Cheap test first: most values are no reference.
        if (!value.includes('${')) return;
        const ref = parseSecretRef(value);
        if (ref !== undefined) out.push({ manifest, path, ref });
        return;
      }
      if (Array.isArray(value)) value.forEach((item, i) => walk(item, [...path, i]));
      else if (isRecord(value)) for (const [key, item] of Object.entries(value)) walk(item, [...path, key]);
    };
    walk(manifest.spec, ['spec']);
  }
  return out;
}
