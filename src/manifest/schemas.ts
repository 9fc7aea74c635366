import { existsSync, readFileSync } from 'node:fs';
// Aliased: the Action's bundle declares its own createRequire (scripts/build-action.mjs's banner).
import { createRequire as requireFrom } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Ajv2020, AnySchemaObject, ValidateFunction } from 'ajv/dist/2020.js';
import { MANIFEST_KINDS } from '../vocabulary.js';
import type { ManifestKind } from './types.js';
import { MEANINGS_KEYWORD, readValueVocabulary, resolveRef } from './value-words.js';
import type { ValueVocabulary } from './value-words.js';

/**
 * The schema file of a kind, in `schemas/` at the package root: its name in kebab case
 * (`ResourceGroupAcl` → `resource-group-acl.schema.json`), so a new kind adds no line here
 * (`KindDefinition.schema` names the same file: test/kinds/registry.test.ts holds both).
 */
export function schemaFileOf(kind: ManifestKind): string {
  return `${kind.replace(/(?<=[a-z0-9])(?=[A-Z])/g, '-').toLowerCase()}.schema.json`;
}

/** The schema file of each kind (`schemaFileOf`). */
export const SCHEMA_FILES: Readonly<Record<ManifestKind, string>> = Object.fromEntries(MANIFEST_KINDS.map((kind) => [kind, schemaFileOf(kind)])) as Record<
  ManifestKind,
  string
>;

/**
 * The one list of resource kinds the other schemas refer to (`kinds.schema.json#/$defs/kind`):
 * added to every ajv instance before a schema that refers to it.
 */
export const KINDS_SCHEMA_FILE = 'kinds.schema.json';

/** The schema of `kind: Policy` (policies are not resources: see DOCUMENT_KINDS). */
export const POLICY_SCHEMA_FILE = 'policy.schema.json';

/** The schema of `kind: Patch` (overlays, applied by the loader: never resources). */
export const PATCH_SCHEMA_FILE = 'patch.schema.json';

/** The union of all kinds, for editors (`# yaml-language-server: $schema=…`). */
export const MANIFEST_SCHEMA_FILE = 'manifest.schema.json';

/**
 * Where the schemas are published: every file of `schemas/` has the `$id` `<base><file name>`, so
 * a `$schema` line naming it works on any machine, and the refs between the files (by file name)
 * resolve against it, in ajv and in editors alike.
 */
export const SCHEMA_BASE_URL = 'https://mftops.dev/schemas/';

/**
 * Keywords the schemas carry for editors (VS Code / yaml-language-server show them); ajv treats
 * them as annotations and the error mapper uses them for messages. `x-mftops-meanings` holds what
 * enumerated codes mean, for plans (src/manifest/value-words.ts).
 */
const ANNOTATION_KEYWORDS = ['patternErrorMessage', 'errorMessage', 'markdownDescription', MEANINGS_KEYWORD];

let schemasDir: string | undefined;

/**
 * `schemas/` of this package, found by walking up from this module: the same code runs from
 * `src/` (tests), `dist/` (tsc output) and a bundle, and the package ships `schemas/` at its root.
 */
export function findSchemasDir(): string {
  if (schemasDir !== undefined) return schemasDir;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, 'schemas');
    if (existsSync(join(candidate, SCHEMA_FILES.Task))) return (schemasDir = candidate);
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`schemas/${SCHEMA_FILES.Task} not found above ${fileURLToPath(import.meta.url)}`);
    dir = parent;
  }
}

/** A schema file of this package, parsed. */
export function readSchema(file: string): AnySchemaObject {
  return JSON.parse(readFileSync(join(findSchemasDir(), file), 'utf8')) as AnySchemaObject;
}

/**
 * ajv's compiler and ajv-formats, which the build's validators (PRECOMPILED_FILE) do not need:
 * loaded as this module loads only where those are missing (tests from src/, the Action's
 * bundle), else by `loadAjv`. Loading them cost each validate, plan and apply ~100 ms of CPU at
 * start, for validators it then took from the build (measured: issue 29).
 */
let compiler: { readonly Ajv2020: typeof Ajv2020; readonly addFormats: (ajv: Ajv2020) => void } | undefined;

/** Load ajv for `createAjv` and `getAjv` (the build's script, which compiles the validators). */
export async function loadAjv(): Promise<void> {
  if (compiler !== undefined) return;
  const [{ Ajv2020: ajvClass }, formats] = await Promise.all([import('ajv/dist/2020.js'), import('ajv-formats')]);
  compiler = { Ajv2020: ajvClass, addFormats: (instance) => void formats.default.default(instance) };
}

let ajv: Ajv2020 | undefined;
const validators = new Map<string, ValidateFunction>();
const parsedSchemas = new Map<string, AnySchemaObject>();

/** A schema file parsed once per process: the object ajv compiles is the one `getKindSchema` gives. */
function parsedSchema(file: string): AnySchemaObject {
  let schema = parsedSchemas.get(file);
  if (schema === undefined) parsedSchemas.set(file, (schema = readSchema(file)));
  return schema;
}

/** The one ajv instance; every schema is added (and compiled lazily) once per process. */
export function getAjv(): Ajv2020 {
  if (ajv) return ajv;
  ajv = createAjv(false);
  return ajv;
}

/**
 * An ajv instance with every schema of this package added. `source`: keep each validator's code,
 * for `scripts/compile-schemas.mjs`, which writes them out at build time (PRECOMPILED_FILE).
 */
export function createAjv(source: boolean): Ajv2020 {
  if (compiler === undefined) throw new Error('bug: ajv is not loaded (the build has validators for every schema it runs; loadAjv loads it)');
  const instance = new compiler.Ajv2020({
    allErrors: true,
    verbose: true,
    strict: true,
    // `oneOf: [{required: [user]}, {required: [group]}]` names properties defined beside it.
    strictRequired: false,
    allowUnionTypes: true,
    // The optimiser's passes over the generated code cost a third of compiling the schemas at each
    // start and do not make validating thousands of manifests measurably faster.
    code: { optimize: false, source },
    // Schema mistakes are bugs: fail loudly instead of logging.
    logger: {
      log: () => {},
      warn: (...args: unknown[]) => {
        throw new Error(`schema warning: ${args.map(String).join(' ')}`);
      },
      error: (...args: unknown[]) => {
        throw new Error(`schema error: ${args.map(String).join(' ')}`);
      },
    },
  });
  compiler.addFormats(instance);
  instance.addVocabulary(ANNOTATION_KEYWORDS);
  for (const file of [KINDS_SCHEMA_FILE, ...Object.values(SCHEMA_FILES), POLICY_SCHEMA_FILE, PATCH_SCHEMA_FILE]) instance.addSchema(parsedSchema(file), file);
  return instance;
}

/**
 * The schema files whose validators the build compiles ahead (`npm run build` runs
 * scripts/compile-schemas.mjs after tsc): what commands validate at every start. Compiling them
 * cost 250-500 ms of each plan's, apply's and validate's CPU (measured, issue 29).
 */
export const PRECOMPILED_SCHEMA_FILES: readonly string[] = [
  'config.schema.json',
  ...Object.values(SCHEMA_FILES),
  POLICY_SCHEMA_FILE,
  PATCH_SCHEMA_FILE,
  'plan.schema.json',
];

/** Beside this module in dist/: the validators of PRECOMPILED_SCHEMA_FILES, by file name, as ajv's standalone code. */
export const PRECOMPILED_FILE = 'compiled-validators.cjs';

let precompiled: Readonly<Record<string, ValidateFunction>> | null | undefined;

/**
 * The build's validators, or null where there are none (tests run from src/, the Action's bundle):
 * then each is compiled at first use, as before. A file that is there but does not load is a bug.
 */
function readPrecompiled(): Readonly<Record<string, ValidateFunction>> | null {
  if (precompiled !== undefined) return precompiled;
  const path = precompiledPath();
  if (path === undefined) return (precompiled = null);
  const table = requireFrom(import.meta.url)(path) as Record<string, ValidateFunction>;
  return (precompiled = Object.fromEntries(PRECOMPILED_SCHEMA_FILES.map((file, i) => [file, table[`v${i}`]!])));
}

/** The build's validators file beside this module, if there is one. */
function precompiledPath(): string | undefined {
  const url = new URL(`./${PRECOMPILED_FILE}`, import.meta.url);
  return url.protocol === 'file:' && existsSync(fileURLToPath(url)) ? fileURLToPath(url) : undefined;
}

if (precompiledPath() === undefined) await loadAjv();

/** The compiled validator of a kind (compiled on first use, then cached). */
export function getValidator(kind: ManifestKind): ValidateFunction {
  return getValidatorByFile(SCHEMA_FILES[kind]);
}

/** The compiled validator of any schema file of this package, including `manifest.schema.json`. */
export function getValidatorByFile(file: string): ValidateFunction {
  const cached = validators.get(file);
  if (cached) return cached;
  const ahead = readPrecompiled()?.[file];
  if (ahead !== undefined) {
    validators.set(file, ahead);
    return ahead;
  }
  const instance = getAjv();
  let validate = instance.getSchema(file);
  if (!validate) {
    instance.addSchema(parsedSchema(file), file);
    validate = instance.getSchema(file);
  }
  if (!validate) throw new Error(`schema ${file} did not compile`);
  validators.set(file, validate);
  return validate;
}

/** A schema file of this package, parsed once per process (the object `getValidatorByFile` validates against). */
export function getSchemaByFile(file: string): AnySchemaObject {
  return parsedSchema(file);
}

/**
 * The root schema object of a kind (for walking alongside data, e.g. normalisation), without
 * compiling its validator: import and fmt walk the schema and validate nothing (compiling the
 * Task schema cost about 350 ms of an import's CPU, measured).
 */
export function getKindSchema(kind: ManifestKind): AnySchemaObject {
  return parsedSchema(SCHEMA_FILES[kind]);
}

const vocabularies = new Map<ManifestKind, ValueVocabulary>();

/** The words of a kind's spec fields (flags, meanings of codes), read from its schema once per process. */
export function getValueVocabulary(kind: ManifestKind): ValueVocabulary {
  const cached = vocabularies.get(kind);
  if (cached) return cached;
  const root = getKindSchema(kind);
  const spec = (root.properties as Record<string, AnySchemaObject> | undefined)?.spec;
  const vocabulary = spec === undefined ? new Map() : readValueVocabulary(resolveRef(spec, root), root);
  vocabularies.set(kind, vocabulary);
  return vocabulary;
}
