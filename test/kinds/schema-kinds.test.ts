import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { KIND_IO } from '../../src/kinds/io-registry.js';
import { EVERY_KIND, KINDS, PRUNABLE_KINDS } from '../../src/kinds/registry.js';
import { getAjv, KINDS_SCHEMA_FILE, SCHEMA_BASE_URL, schemaFileOf, SCHEMA_FILES, readSchema } from '../../src/manifest/schemas.js';
import { DOCUMENT_KINDS } from '../../src/vocabulary.js';

const SCHEMAS = fileURLToPath(new URL('../../schemas/', import.meta.url));
const FILES = readdirSync(SCHEMAS).filter((f) => f.endsWith('.json'));
const KIND_NAMES: readonly string[] = EVERY_KIND;

interface Found {
  readonly file: string;
  readonly path: string;
}

/** Calls `visit` on every object node of every schema file, with its JSON path. */
function walkSchemas(visit: (node: Record<string, unknown>, at: Found) => void): void {
  for (const file of FILES) {
    const walk = (node: unknown, path: string): void => {
      if (Array.isArray(node)) node.forEach((item, i) => walk(item, `${path}/${i}`));
      else if (node !== null && typeof node === 'object') {
        visit(node as Record<string, unknown>, { file, path });
        for (const [key, value] of Object.entries(node)) walk(value, `${path}/${key}`);
      }
    };
    walk(JSON.parse(readFileSync(`${SCHEMAS}${file}`, 'utf8')), '');
  }
}

/** The values of `candidates` the definition `name` of kinds.schema.json accepts (ajv decides: refs and `anyOf` included). */
function accepted(name: string, candidates: readonly string[]): string[] {
  const validate = getAjv().getSchema(`${SCHEMA_BASE_URL}${KINDS_SCHEMA_FILE}#/$defs/${name}`)!;
  return candidates.filter((value) => validate(value) === true);
}

const CANDIDATES = [...DOCUMENT_KINDS, 'Config', 'task', 'NoSuchKind', ''];

/**
 * The schemas name the kinds in one place, `schemas/kinds.schema.json`, and refer to it (a JSON
 * Schema cannot import the registry): these checks hold it to the registry and keep every other
 * schema from spelling a list of kinds by hand again.
 */
describe('the kinds in the JSON schemas', () => {
  it('kinds.schema.json lists exactly the registry kinds, in manifest order; prune takes the prunable ones; a document also Policy and Patch', () => {
    const defs = readSchema(KINDS_SCHEMA_FILE).$defs as Record<string, { enum?: unknown }>;
    expect(defs.kind!.enum).toEqual([...EVERY_KIND]);
    expect(accepted('kind', CANDIDATES)).toEqual([...EVERY_KIND]);
    expect(accepted('prunableKind', CANDIDATES)).toEqual([...PRUNABLE_KINDS]);
    expect(accepted('documentKind', CANDIDATES)).toEqual([...DOCUMENT_KINDS]);
  });

  it('no other schema spells a list of kinds by hand: no enum and no object keyed by three or more kinds', () => {
    const byHand: string[] = [];
    walkSchemas((node, { file, path }) => {
      if (file === KINDS_SCHEMA_FILE) return;
      const enumKinds = Array.isArray(node.enum) ? node.enum.filter((v) => KIND_NAMES.includes(v as string)) : [];
      const keyedKinds = path.endsWith('/properties') ? Object.keys(node).filter((k) => KIND_NAMES.includes(k)) : [];
      if (enumKinds.length >= 3 || keyedKinds.length >= 3) byHand.push(`${file}${path}`);
    });
    expect(byHand).toEqual([]);
  });

  it('every list of kinds refers to kinds.schema.json, and each of those refers to a definition it has', () => {
    const refs: string[] = [];
    walkSchemas((node, { file, path }) => {
      if (typeof node.$ref === 'string' && node.$ref.startsWith(`${KINDS_SCHEMA_FILE}#`))
        refs.push(`${file}${path} → ${node.$ref.slice(KINDS_SCHEMA_FILE.length)}`);
    });
    const kind = '#/$defs/kind';
    expect(refs).toEqual(
      expect.arrayContaining([
        `config.schema.json/$defs/environment/properties/prune/items → #/$defs/prunableKind`,
        `manifest.schema.json/properties/kind → #/$defs/documentKind`,
        `output-apply.schema.json/properties/perKind/propertyNames → ${kind}`,
        `output-apply.schema.json/properties/results/items/properties/kind → ${kind}`,
        `output-diff-env.schema.json/properties/objects/items/properties/kind → ${kind}`,
        `output-drift.schema.json/$defs/drifted/properties/kind → ${kind}`,
        `output-drift.schema.json/$defs/unmanaged/properties/kind → ${kind}`,
        `output-plan.schema.json/properties/pruneOff/properties/kinds/items → ${kind}`,
        `output-plan.schema.json/$defs/change/properties/kind → ${kind}`,
        `patch.schema.json/$defs/spec/properties/target/properties/kind → ${kind}`,
        `plan.schema.json/$defs/plan/properties/pruneOff/properties/kinds/items → ${kind}`,
        `plan.schema.json/$defs/change/properties/kind → ${kind}`,
        `policy.schema.json/$defs/match/properties/kinds/items → ${kind}`,
      ]),
    );
    const defs = Object.keys(readSchema(KINDS_SCHEMA_FILE).$defs as object);
    expect(refs.filter((r) => !defs.includes(r.slice(r.lastIndexOf('/') + 1)))).toEqual([]);
  });

  describe('an apply report', () => {
    const ajv = new Ajv2020({ strict: true, strictRequired: false, allowUnionTypes: true });
    addFormats.default(ajv);
    for (const file of [KINDS_SCHEMA_FILE, 'plan.schema.json', 'output-apply.schema.json']) ajv.addSchema(readSchema(file));
    const at = (pointer: string) => ajv.getSchema(`${SCHEMA_BASE_URL}output-apply.schema.json#${pointer}`)!;

    it('counts the results of every kind (perKind once lacked Group)', () => {
      const validate = at('/properties/perKind');
      const counts = { ok: 1, failed: 0, skipped: 0 };
      expect(validate(Object.fromEntries(EVERY_KIND.map((kind) => [kind, counts]))), JSON.stringify(validate.errors)).toBe(true);
      expect(validate({ NoSuchKind: counts })).toBe(false);
    });

    it("takes the ids every kind's writes return (a User's once broke the schema)", () => {
      const validate = at('/properties/results/items/properties/ids');
      for (const kind of EVERY_KIND) expect([kind, validate(KIND_IO[kind].idsOf('4711')), validate.errors]).toEqual([kind, true, null]);
    });
  });

  it('each kind has its branch where a schema gives every kind its own shape: the editor union, the payloads, the unmanaged details', () => {
    type Branch = {
      readonly if?: { properties?: { kind?: { const?: string } } };
      readonly then?: { $ref?: string };
      readonly properties?: { kind?: { const?: string } };
    };
    const defs = (file: string) => readSchema(file).$defs as Record<string, { oneOf?: Branch[]; properties?: Record<string, { oneOf?: Branch[] }> }>;
    const dispatch = (readSchema('manifest.schema.json').allOf as Branch[]).map((b) => [b.if?.properties?.kind?.const, b.then?.$ref]);
    expect(dispatch).toEqual(expect.arrayContaining(EVERY_KIND.map((kind) => [kind, SCHEMA_FILES[kind]])));
    const payloads = defs('plan.schema.json').payload!.oneOf!.map((b) => b.properties?.kind?.const);
    expect(payloads.sort()).toEqual([...EVERY_KIND].sort());
    const details = defs('output-drift.schema.json').unmanaged!.properties!.detail!.oneOf!.map((b) => b.properties?.kind?.const);
    expect(details.sort()).toEqual([...EVERY_KIND].sort());
  });

  it("a kind's manifest schema is its name in kebab case, and holds that kind (the registry names the same file)", () => {
    expect(schemaFileOf('ResourceGroupAcl')).toBe('resource-group-acl.schema.json');
    for (const kind of EVERY_KIND) {
      expect([kind, KINDS[kind].schema, FILES.includes(SCHEMA_FILES[kind])]).toEqual([kind, SCHEMA_FILES[kind], true]);
      expect((readSchema(SCHEMA_FILES[kind]).properties as Record<string, { const?: string }>).kind!.const).toBe(kind);
    }
  });
});
