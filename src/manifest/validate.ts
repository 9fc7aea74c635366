import type { AnySchemaObject } from 'ajv/dist/2020.js';
import { createDiagnostic, sortDiagnostics } from './diagnostics.js';
import type { Diagnostic } from './diagnostics.js';
import { normalizeSpec } from './normalize.js';
import type { ParsedDocument, ParsedFile } from './parse.js';
import { RULES, runRules } from './rules.js';
import type { CheckedDocument, Rule } from './rules.js';
import { describeSchemaProblems, locateSchemaErrors, rejectedPath } from './schema-errors.js';
import { POLICY_SCHEMA_FILE, getKindSchema, getValidator, getValidatorByFile } from './schemas.js';
import { suggestName } from './suggest.js';
import { API_VERSION, DOCUMENT_KINDS } from './types.js';
import type { DocumentKind, Manifest, PolicyManifest, PolicySpec, VarValue } from './types.js';
import { selectDocument, substituteVariables } from './variables.js';
import { applyPatches } from './patch.js';
import type { ManifestEnvironment } from './variables.js';
import { isRecord } from '../is-record.js';
import { compileExpression } from './policy-expression.js';

/**
 * The result of loading manifests: the desired state and everything wrong with it.
 * `manifests` holds only documents that passed their schema; when `diagnostics` has an error the
 * set as a whole must not be planned.
 */
export interface ManifestSet {
  readonly manifests: readonly Manifest[];
  /** `kind: Policy` documents whose schema passed and whose expressions all compile; never resources. */
  readonly policies: readonly PolicyManifest[];
  /** Sorted by file, line, column. */
  readonly diagnostics: readonly Diagnostic[];
  /** Every file read, sorted. */
  readonly files: readonly string[];
  /** `sha256:<hex>` of each file's bytes as read, by file (files that could not be read have none). */
  readonly fileHashes: ReadonlyMap<string, string>;
  /** The variables the manifests use (`${var:NAME}`), by name, with their values; empty without an environment. */
  readonly variables: ReadonlyMap<string, VarValue>;
}

/**
 * Checks parsed files: envelope, schema, normalisation, then the rules across all documents, those
 * with schema errors included (a rule skips only the values the schema rejected). First, for the
 * environment: the documents for it are chosen, their variables substituted (before the schema,
 * so its errors see the values) and its patches applied; without one, every document counts and
 * a `${var:}` is MF320. Pure. Every problem of every file is reported; nothing stops at the
 * first, or at a stage. `keepManifests` false: the same diagnostics, `manifests` left empty.
 */
export function validateParsedFiles(
  files: readonly ParsedFile[],
  rules?: readonly Rule[],
  environment: ManifestEnvironment = NO_ENVIRONMENT,
  keepManifests = true,
): ManifestSet {
  const steps = checkParsedFiles(files, rules, environment, keepManifests);
  let step = steps.next();
  while (step.done !== true) step = steps.next();
  return step.value;
}

/**
 * validateParsedFiles, letting the event loop turn every few documents (and between rules), so
 * that requests started while the manifests load (plan's and drift's read-ahead) are sent and
 * their answers taken in while the set is checked: the same result and diagnostics, in the same
 * order. Checking 13,000 documents in one go held those reads up for seconds.
 */
export async function validateParsedFilesInTurns(
  files: readonly ParsedFile[],
  rules?: readonly Rule[],
  environment: ManifestEnvironment = NO_ENVIRONMENT,
  keepManifests = true,
): Promise<ManifestSet> {
  const steps = checkParsedFiles(files, rules, environment, keepManifests);
  let step = steps.next();
  while (step.done !== true) {
    await new Promise<void>((turn) => setImmediate(turn));
    step = steps.next();
  }
  return step.value;
}

/** Documents checked between two pauses of checkParsedFiles (a few milliseconds of work). */
const DOCUMENTS_PER_STEP = 100;

/** validateParsedFiles as steps: it pauses (yields) every DOCUMENTS_PER_STEP documents and after each rule. */
function* checkParsedFiles(
  files: readonly ParsedFile[],
  rules: readonly Rule[] | undefined,
  environment: ManifestEnvironment,
  keepManifests: boolean,
): Generator<void, ManifestSet, void> {
  const out: CheckOutput = { diagnostics: [], checked: [], manifests: [], policies: [], keepManifests };
  const diagnostics = out.diagnostics;
  const fileHashes = new Map<string, string>();
  const variables = new Map<string, VarValue>();
  const docs: ParsedDocument[] = [];
  let sinceStep = 0;
  for (let f = 0; f < files.length; f++) {
    const file = files[f]!;
    for (let i = 0; i < file.diagnostics.length; i++) diagnostics.push(file.diagnostics[i]!);
    for (let i = 0; i < file.documents.length; i++) {
      const doc = file.documents[i]!;
      if (selectDocument(doc, environment, diagnostics)) docs.push(file.noVariables ? doc : substituteVariables(doc, environment, diagnostics, variables));
    }
    if (file.sha256 !== undefined) fileHashes.set(file.file, file.sha256);
    if ((sinceStep += file.documents.length) >= DOCUMENTS_PER_STEP) {
      sinceStep = 0;
      yield;
    }
  }
  const patched = applyPatches(docs, environment.name, diagnostics);
  for (let i = 0; i < patched.length; i++) {
    checkDocument(patched[i]!, out);
    if (i % DOCUMENTS_PER_STEP === DOCUMENTS_PER_STEP - 1) yield;
  }
  for (const rule of rules ?? RULES) {
    yield;
    for (const d of runRules(out.checked, [rule])) diagnostics.push(d);
  }
  for (const d of duplicatePolicies(out.policies)) diagnostics.push(d);
  return {
    manifests: out.manifests,
    policies: out.policies,
    diagnostics: sortDiagnostics(diagnostics),
    files: files.map((f) => f.file).sort(),
    fileHashes,
    variables,
  };
}

/** `previousNames` of the many manifests without any: one frozen list, not an array each. */
const NO_NAMES: readonly string[] = Object.freeze([]);

/** Manifests read without an environment: every document, no variable. */
const NO_ENVIRONMENT: ManifestEnvironment = { vars: {} };

/** Where checkDocument puts what it finds (one set of lists for a whole run, not one per document). */
interface CheckOutput {
  readonly diagnostics: Diagnostic[];
  readonly checked: CheckedDocument[];
  readonly manifests: Manifest[];
  readonly policies: PolicyManifest[];
  /** False: the resources are checked, not normalised nor kept (LoadOptions.diagnosticsOnly). */
  readonly keepManifests: boolean;
}

function checkDocument(doc: ParsedDocument, out: CheckOutput): void {
  const { data, sourceMap } = doc;
  const diagnostics = out.diagnostics;
  // This document's diagnostics are the ones from here on.
  const first = diagnostics.length;
  if (!isRecord(data)) {
    const found = Array.isArray(data) ? 'a list' : data === null ? 'empty' : `a ${typeof data === 'string' ? 'text' : typeof data} value`;
    diagnostics.push(
      createDiagnostic('error', 'MF100', doc.start, `a manifest must be a mapping with apiVersion, kind, metadata and spec; this document is ${found}`, {
        hint: Array.isArray(data) ? 'separate documents with `---` lines instead of making a list of them' : undefined,
      }),
    );
    return;
  }

  if (!Object.hasOwn(data, 'apiVersion')) {
    diagnostics.push(createDiagnostic('error', 'MF101', doc.start, `missing \`apiVersion: ${API_VERSION}\``));
  } else if (data.apiVersion !== API_VERSION) {
    diagnostics.push(
      createDiagnostic('error', 'MF101', sourceMap.locate(['apiVersion']), `\`apiVersion\` must be \`${API_VERSION}\`, not ${show(data.apiVersion)}`, {
        hint: 'this version of mftops reads mftops/v1 manifests',
      }),
    );
  }

  const kind = data.kind;
  if (!Object.hasOwn(data, 'kind')) {
    diagnostics.push(createDiagnostic('error', 'MF102', doc.start, `missing \`kind\`: one of ${DOCUMENT_KINDS.join(', ')}`));
    return;
  }
  if (!isKind(kind)) {
    const at = sourceMap.locate(['kind']);
    const guess = typeof kind === 'string' ? suggestName(kind, DOCUMENT_KINDS) : undefined;
    if (kind === 'Config') {
      diagnostics.push(
        createDiagnostic('error', 'MF102', at, '`kind: Config` is the configuration file (mftops.yaml), not a manifest', {
          hint: 'pass the manifest folders to validate, not the configuration file',
        }),
      );
    } else {
      diagnostics.push(
        createDiagnostic('error', 'MF102', at, `unknown kind ${show(kind)}${guess ? ` — did you mean \`${guess}\`?` : ''}`, {
          hint: guess ? undefined : `kinds: ${DOCUMENT_KINDS.join(', ')}`,
        }),
      );
    }
    return;
  }

  if (kind === 'Policy') {
    checkPolicy(doc, data, out);
    return;
  }
  // Patches were applied (or reported) before: applyPatches passes none on.
  if (kind === 'Patch') return;
  const validate = getValidator(kind);
  const schemaValid = validate(data) === true;
  const unresolved = (doc.unresolved ?? []).map((p) => p.map(String));
  const located = schemaValid ? [] : locateSchemaErrors(validate.errors ?? [], sourceMap);
  // A value whose variable was not substituted is reported once, by MF320/MF321.
  const problems = unresolved.length === 0 ? located : located.filter((p) => !unresolved.some((u) => u.every((s, i) => p.path[i] === s)));
  for (const d of describeSchemaProblems(problems, { kind, sourceMap })) diagnostics.push(d);
  const rejected: (readonly string[])[] = [...unresolved];
  for (const p of problems) {
    const path = rejectedPath(p);
    if (path !== undefined) rejected.push(path);
  }

  const metadata = isRecord(data.metadata) ? data.metadata : undefined;
  let metadataErrors = false;
  for (let i = first; i < diagnostics.length; i++) if (diagnostics[i]!.code === 'MF103') metadataErrors = true;
  const name = !metadataErrors && typeof metadata?.name === 'string' ? metadata.name : undefined;
  const previousNames =
    !metadataErrors && Array.isArray(metadata?.previousNames) ? metadata.previousNames.filter((n): n is string => typeof n === 'string') : NO_NAMES;
  // Every document of a known kind goes to the rules, valid or not: their problems come with the schema's.
  const environments = Array.isArray(metadata?.environments) ? metadata.environments.filter((e): e is string => typeof e === 'string') : undefined;
  out.checked.push({
    kind,
    name,
    previousNames,
    spec: data.spec,
    rejected,
    start: doc.start,
    sourceMap,
    ...(environments !== undefined ? { environments } : {}),
  });
  if (!schemaValid || diagnostics.length > first || name === undefined || !out.keepManifests) return;

  const root = getKindSchema(kind);
  const specSchema = ((root.$defs as Record<string, AnySchemaObject> | undefined) ?? {}).spec ?? {};
  const spec = normalizeSpec(data.spec, specSchema, root);
  out.manifests.push({ kind, name, previousNames, spec, source: doc.start, sourceMap } as Manifest);
}

/**
 * A policy: its schema, then each expression compiled (MF311 at the expression). Policies skip
 * the resource rules: none of them applies to a policy.
 */
function checkPolicy(doc: ParsedDocument, data: Record<string, unknown>, out: CheckOutput): void {
  const { sourceMap } = doc;
  const first = out.diagnostics.length;
  const validate = getValidatorByFile(POLICY_SCHEMA_FILE);
  if (validate(data) !== true) {
    for (const d of describeSchemaProblems(locateSchemaErrors(validate.errors ?? [], sourceMap), { kind: 'Policy', sourceMap })) out.diagnostics.push(d);
  }
  const spec = data.spec as PolicySpec | undefined;
  const validations = isRecord(spec) && Array.isArray(spec.validations) ? spec.validations : [];
  for (let i = 0; i < validations.length; i++) {
    const v: unknown = validations[i];
    if (!isRecord(v) || typeof v.expression !== 'string' || v.expression === '') continue;
    const compiled = compileExpression(v.expression);
    if (compiled.ok) continue;
    out.diagnostics.push(
      createDiagnostic('error', 'MF311', sourceMap.locate(['spec', 'validations', i, 'expression']), `policy expression does not compile: ${compiled.reason}`, {
        hint: 'policy expressions are CEL, e.g. `object.spec.Active == 1`',
      }),
    );
  }
  const name = (data.metadata as { name?: unknown } | undefined)?.name;
  if (out.diagnostics.length > first || typeof name !== 'string' || spec === undefined) return;
  out.policies.push({ kind: 'Policy', name, spec, source: doc.start, sourceMap });
}

/** MF301 for a policy name used twice (case aside): a violation must name one policy. */
function duplicatePolicies(policies: readonly PolicyManifest[]): Diagnostic[] {
  const out: Diagnostic[] = [];
  const first = new Map<string, PolicyManifest>();
  for (const p of policies) {
    const key = p.name.toLowerCase();
    const earlier = first.get(key);
    if (earlier === undefined) {
      first.set(key, p);
      continue;
    }
    const at = earlier.sourceMap.locate(['metadata', 'name']);
    out.push(
      createDiagnostic('error', 'MF301', p.sourceMap.locate(['metadata', 'name']), `Policy \`${p.name}\` is defined twice`, {
        hint: 'one policy, one document: merge the two or rename one',
        related: { message: 'first defined', file: at.file, line: at.line, col: at.col },
      }),
    );
  }
  return out;
}

function isKind(v: unknown): v is DocumentKind {
  return typeof v === 'string' && (DOCUMENT_KINDS as readonly string[]).includes(v);
}

function show(v: unknown): string {
  if (typeof v === 'string') return `\`${v.length > 60 ? `${v.slice(0, 57)}...` : v}\``;
  if (v === null || v === undefined) return 'empty';
  if (typeof v === 'object') return Array.isArray(v) ? 'a list' : 'a mapping';
  return `\`${String(v)}\``;
}
