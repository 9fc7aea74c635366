import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { ValidateFunction } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { PRECOMPILED_FILE, PRECOMPILED_SCHEMA_FILES, SCHEMA_FILES, createAjv } from '../../src/manifest/schemas.js';
import { MANIFEST_KINDS } from '../../src/vocabulary.js';

/**
 * The validators the build compiles ahead (scripts/compile-schemas.mjs, loaded by every command
 * run from dist/) judge exactly as the ones ajv compiles at run time (tests from src/, the
 * Action's bundle): the same verdict and the same errors, which the diagnostics are made of.
 */
const root = join(import.meta.dirname, '../..');
const table = createRequire(import.meta.url)(join(root, 'dist/manifest', PRECOMPILED_FILE)) as Record<string, ValidateFunction>;
const ahead = (file: string): ValidateFunction => table[`v${PRECOMPILED_SCHEMA_FILES.indexOf(file)}`]!;
const runtime = createAjv(false);
for (const file of PRECOMPILED_SCHEMA_FILES)
  if (!runtime.getSchema(file)) runtime.addSchema(JSON.parse(readFileSync(join(root, 'schemas', file), 'utf8')), file);
const compiled = (file: string): ValidateFunction => runtime.getSchema(file)!;

function verdict(validate: ValidateFunction, data: unknown): string {
  const valid = validate(data);
  return JSON.stringify({ valid, errors: validate.errors ?? null });
}

function yamlFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? yamlFiles(path) : /\.ya?ml$/.test(name) ? [path] : [];
  });
}

/** Every document of the examples and of the invalid corpus, with the schema file its `kind` names. */
const corpus = [...yamlFiles(join(root, 'examples')), ...yamlFiles(join(root, 'test/fixtures/invalid'))].flatMap((path) =>
  parseAllDocuments(readFileSync(path, 'utf8')).flatMap((doc) => {
    let data: unknown;
    try {
      data = doc.toJS();
    } catch {
      return []; // the corpus's alias bomb: never validated
    }
    const kind = (data as { kind?: unknown } | null)?.kind;
    const file =
      kind === 'Config' || path.endsWith('mftops.yaml')
        ? 'config.schema.json'
        : kind === 'Policy'
          ? 'policy.schema.json'
          : kind === 'Patch'
            ? 'patch.schema.json'
            : MANIFEST_KINDS.find((k) => k === kind) !== undefined
              ? SCHEMA_FILES[kind as keyof typeof SCHEMA_FILES]
              : undefined;
    return file === undefined ? [] : [{ path, file, data }];
  }),
);

describe('validators compiled at build time', () => {
  it('cover every schema the commands validate with at start', () => {
    for (const file of PRECOMPILED_SCHEMA_FILES) expect(typeof ahead(file), file).toBe('function');
    expect(corpus.length).toBeGreaterThan(100);
  });

  it('give the verdict and errors of run-time compiled ones on the examples and the invalid corpus', () => {
    for (const { path, file, data } of corpus) expect(verdict(ahead(file), data), path).toBe(verdict(compiled(file), data));
  });

  it('and on those documents with a value replaced anywhere by any JSON value', () => {
    fc.assert(
      fc.property(fc.nat(corpus.length - 1), fc.nat(), fc.jsonValue(), (i, at, value) => {
        const { file, data } = corpus[i]!;
        const copy = JSON.parse(JSON.stringify(data)) as unknown;
        replaceNth(copy, at, value);
        expect(verdict(ahead(file), copy)).toBe(verdict(compiled(file), copy));
      }),
      { numRuns: 2000 },
    );
  });

  it('and on plan files', () => {
    const plan = { formatVersion: 1, createdAt: 'not a date', changes: [{}] };
    expect(verdict(ahead('plan.schema.json'), plan)).toBe(verdict(compiled('plan.schema.json'), plan));
  });
});

/** Replace the `n mod count`-th value inside `node` (objects' and lists' members, depth first). */
function replaceNth(node: unknown, n: number, value: unknown): void {
  const slots: [Record<string, unknown> | unknown[], string | number][] = [];
  const walk = (v: unknown): void => {
    if (Array.isArray(v))
      v.forEach((item, i) => {
        slots.push([v, i]);
        walk(item);
      });
    else if (v !== null && typeof v === 'object')
      for (const [k, item] of Object.entries(v)) {
        slots.push([v as Record<string, unknown>, k]);
        walk(item);
      }
  };
  walk(node);
  if (slots.length === 0) return;
  const [holder, key] = slots[n % slots.length]!;
  (holder as Record<string | number, unknown>)[key] = value;
}
