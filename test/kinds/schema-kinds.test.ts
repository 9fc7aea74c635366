import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { EVERY_KIND, PRUNABLE_KINDS } from '../../src/kinds/registry.js';

const SCHEMAS = fileURLToPath(new URL('../../schemas/', import.meta.url));

/** Every `enum` that lists resource kinds (it holds `Task` and `FolderPermissions`), with its JSON path. */
function kindEnums(): { file: string; path: string; values: readonly string[] }[] {
  const found: { file: string; path: string; values: readonly string[] }[] = [];
  for (const file of readdirSync(SCHEMAS).filter((f) => f.endsWith('.json'))) {
    const walk = (node: unknown, path: string): void => {
      if (Array.isArray(node)) node.forEach((item, i) => walk(item, `${path}/${i}`));
      else if (node !== null && typeof node === 'object') {
        for (const [key, value] of Object.entries(node)) {
          if (key === 'enum' && Array.isArray(value) && value.includes('Task') && value.includes('FolderPermissions'))
            found.push({ file, path, values: value as string[] });
          else walk(value, `${path}/${key}`);
        }
      }
    };
    walk(JSON.parse(readFileSync(`${SCHEMAS}${file}`, 'utf8')), '');
  }
  return found;
}

/**
 * The schemas spell the kinds out by hand (a JSON Schema cannot import the registry): this is the
 * check that finds every list a new kind must join, as the compiler does for the code.
 */
describe('the kinds in the JSON schemas', () => {
  it('every enum of resource kinds lists exactly the registry kinds, in manifest order (prune: the prunable ones)', () => {
    const enums = kindEnums();
    expect(enums.length).toBeGreaterThanOrEqual(10);
    for (const { file, path, values } of enums) {
      const expected = path.includes('/prune/') ? PRUNABLE_KINDS : EVERY_KIND;
      // The manifest schema's `kind` also takes the documents that are not resources.
      const kinds = file === 'manifest.schema.json' ? values.filter((v) => v !== 'Policy' && v !== 'Patch') : values;
      expect({ file, path, kinds }).toEqual({ file, path, kinds: [...expected] });
    }
  });
});
