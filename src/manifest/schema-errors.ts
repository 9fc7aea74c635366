import type { AnySchemaObject, ErrorObject } from 'ajv/dist/2020.js';
import { createDiagnostic } from './diagnostics.js';
import type { Diagnostic, DiagnosticCode, SourcePosition } from './diagnostics.js';
import { parseJsonPointer } from './positions.js';
import { suggestName } from './suggest.js';
import type { SourceMap } from './types.js';
import { isRecord } from '../is-record.js';

/** Fields the server numbers or computes; a manifest never holds them (automation API §2.1, gaps.md). */
const SERVER_FIELDS = new Set(['ID', 'NextEID', 'Renamed', 'Scheduled', 'Watched', 'DisplayValue', 'ACLID']);
const isServerField = (key: string): boolean => SERVER_FIELDS.has(key) || /^x[A-Z]/.test(key);

/** Step kinds of the API that manifests do not model (their fields are not documented). */
const UNSUPPORTED_STEPS = new Set(['For', 'If', 'Email', 'RunTask', 'UpdOrig']);

const YAML11_BOOLEANS = new Set(['yes', 'no', 'on', 'off', 'y', 'n', 'True', 'False', 'TRUE', 'FALSE', 'Yes', 'No', 'On', 'Off']);

interface MapContext {
  readonly kind: string;
  readonly sourceMap: SourceMap;
}

/** One ajv error to report, and where. */
export interface SchemaProblem {
  readonly error: ErrorObject;
  /** The instance path as segments: `['spec', 'steps', '0']`. */
  readonly path: readonly string[];
  /**
   * An unknown key or a bad key name: the key; a missing key (also "one of these keys"): the key
   * of the mapping that lacks it; a repeated item: the repeat; anything else: the value.
   */
  readonly at: SourcePosition;
}

/**
 * ajv's errors for one YAML document (a manifest, `mftops.yaml`), as the problems to report, each
 * at its place: alternatives collapsed (`collapseAlternatives`), the rest located in the source.
 * Both loaders word the problems themselves; where they point is decided here, once.
 */
export function locateSchemaErrors(errors: readonly ErrorObject[], sourceMap: SourceMap): SchemaProblem[] {
  // A failed `propertyNames` comes with the error about the name itself (which names it): that one is kept.
  return collapseAlternatives(errors.filter((e) => e.keyword !== 'propertyNames')).map((error) => {
    const path = parseJsonPointer(error.instancePath);
    return { error, path, at: placeOfError(error, path, sourceMap) };
  });
}

function placeOfError(err: ErrorObject, path: readonly string[], sourceMap: SourceMap): SourcePosition {
  const params = err.params as Record<string, unknown>;
  // An error about a key's name (`propertyNames`): the key.
  if (err.propertyName !== undefined) return sourceMap.locate([...path, err.propertyName], 'key');
  switch (err.keyword) {
    case 'additionalProperties':
    case 'unevaluatedProperties':
      return sourceMap.locate([...path, String(params.additionalProperty ?? params.unevaluatedProperty)], 'key');
    case 'required':
      return sourceMap.locate(path, 'key');
    case 'oneOf':
    case 'anyOf':
      return requiresKeysOnly(err) ? sourceMap.locate(path, 'key') : sourceMap.locate(path);
    case 'uniqueItems':
      return sourceMap.locate([...path, Math.max(Number(params.i), Number(params.j))]);
    default:
      return sourceMap.locate(path);
  }
}

/** A oneOf/anyOf whose alternatives only require keys (`anyOf: [{required: [a]}, {required: [b]}]`): a missing-key problem. */
function requiresKeysOnly(err: ErrorObject): boolean {
  const alternatives = ((err.parentSchema ?? {}) as AnySchemaObject)[err.keyword] as unknown;
  return (
    Array.isArray(alternatives) && alternatives.length > 0 && alternatives.every((a) => isRecord(a) && Object.keys(a).length === 1 && Array.isArray(a.required))
  );
}

/**
 * Turns the located problems of one document into diagnostics in the user's terms: one line, the
 * field as written, the place of the offending node (of the key, for unknown fields), "did you
 * mean" for misspellings, and oneOf/anyOf fan-out collapsed into one message. Never ajv's raw text
 * for a keyword the schemas use, and never the value of a secret (`writeOnly`) field.
 */
export function describeSchemaProblems(problems: readonly SchemaProblem[], ctx: MapContext): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const problem of problems) {
    const d = mapOne(problem, ctx);
    if (d) out.push(d);
  }
  return out;
}

/**
 * The value a problem says is wrong, as an instance path: the key for an unknown or badly named
 * key, the value itself for a wrong type, value, form or size. None for a missing key (what is
 * there is not wrong): later checks look at the rest (`touchesRejected`).
 */
export function rejectedPath({ error, path }: SchemaProblem): readonly string[] | undefined {
  const params = error.params as Record<string, unknown>;
  if (error.propertyName !== undefined) return [...path, error.propertyName];
  switch (error.keyword) {
    case 'required':
      return undefined;
    case 'oneOf':
    case 'anyOf':
      // None of the keys (missing) leaves the rest checkable; several (`user` and `group`) does not.
      return requiresKeysOnly(error) && !Array.isArray(params.passingSchemas) ? undefined : path;
    case 'additionalProperties':
    case 'unevaluatedProperties':
      return [...path, String(params.additionalProperty ?? params.unevaluatedProperty)];
    default:
      return path;
  }
}

/**
 * A check after the schema may not look at the value at `path`: the schema rejected it, what holds
 * it, or something in it (an unknown key in a step says nothing sure about which host the step
 * names). The schema's error already says what is wrong there: one mistake, one error.
 */
export function touchesRejected(rejected: readonly (readonly string[])[], path: readonly (string | number)[]): boolean {
  for (const r of rejected) {
    let i = 0;
    while (i < r.length && i < path.length && r[i] === String(path[i])) i++;
    if (i === r.length || i === path.length) return true;
  }
  return false;
}

/**
 * Replaces each failed oneOf/anyOf with one error: its own when the schema gives `errorMessage`,
 * when the value matched several alternatives, or when the alternatives only require keys; else
 * the errors of the branch that came closest (fewest errors, not a type mismatch).
 */
function collapseAlternatives(errors: readonly ErrorObject[]): ErrorObject[] {
  const alternatives = errors.filter((e) => e.keyword === 'oneOf' || e.keyword === 'anyOf');
  if (alternatives.length === 0) return errors.filter((e) => e.keyword !== 'if');
  const inside = (e: ErrorObject, alt: ErrorObject) => e !== alt && e.schemaPath.startsWith(`${alt.schemaPath}/`);
  const result: ErrorObject[] = [];
  for (const e of errors) {
    if (e.keyword === 'if') continue;
    if (alternatives.some((alt) => inside(e, alt))) continue;
    if (e.keyword !== 'oneOf' && e.keyword !== 'anyOf') {
      result.push(e);
      continue;
    }
    const passing = (e.params as { passingSchemas?: unknown }).passingSchemas;
    if ((e.parentSchema as AnySchemaObject | undefined)?.errorMessage || Array.isArray(passing) || requiresKeysOnly(e)) {
      result.push(e);
      continue;
    }
    const branches = new Map<string, ErrorObject[]>();
    for (const sub of errors) {
      if (!inside(sub, e)) continue;
      const branch = sub.schemaPath.slice(e.schemaPath.length + 1).split('/')[0]!;
      branches.set(branch, [...(branches.get(branch) ?? []), sub]);
    }
    const plausible = [...branches.values()].filter((list) => !list.some((s) => s.keyword === 'type' && s.instancePath === e.instancePath));
    plausible.sort((a, b) => a.length - b.length);
    const best = plausible[0];
    if (best) result.push(...collapseAlternatives(best));
    else result.push(e);
  }
  return result;
}

function mapOne({ error: err, path, at }: SchemaProblem, ctx: MapContext): Diagnostic | undefined {
  const parent = (err.parentSchema ?? {}) as AnySchemaObject;
  const label = fieldLabel(path);
  const secret = parent.writeOnly === true;
  const params = err.params as Record<string, unknown>;
  const value = (code: DiagnosticCode, message: string, hint?: string) => createDiagnostic('error', code, at, message, { hint });

  // The envelope (apiVersion, kind) is checked before the schema, with better messages.
  if (path[0] === 'apiVersion' || path[0] === 'kind') return undefined;
  if (path.length === 0 && err.keyword === 'required' && (params.missingProperty === 'apiVersion' || params.missingProperty === 'kind')) return undefined;
  const nameField = path[0] === 'metadata' && (path[1] === 'name' || path.length === 1);

  // A secret field takes a reference and nothing else; whatever else is there is a literal secret.
  if (secret && (err.keyword === 'type' || err.keyword === 'pattern')) {
    return value(
      'MF307',
      `${label} must be a \`\${env:NAME}\` or \`\${file:PATH}\` reference, not a literal secret`,
      'keep secrets out of git: reference an environment variable or a file',
    );
  }

  switch (err.keyword) {
    case 'additionalProperties':
    case 'unevaluatedProperties': {
      const key = String(params.additionalProperty ?? params.unevaluatedProperty);
      const where = contextNoun(parent, path, ctx.kind);
      if (key === 'Name' && path.length === 1 && path[0] === 'spec') {
        return createDiagnostic('error', 'MF208', at, `\`Name\` is not part of the spec: the task's name is \`metadata.name\``, {
          hint: 'move the name to metadata.name and delete this field',
        });
      }
      if (isServerField(key)) {
        return createDiagnostic('error', 'MF208', at, `\`${key}\` is set by the server and has no place in a manifest (${where})`, {
          hint: 'delete it: mftops matches objects by name and never sends server-numbered fields',
        });
      }
      if (parent.title === 'step') {
        const kinds = Object.keys((parent.properties ?? {}) as object);
        if (UNSUPPORTED_STEPS.has(key)) {
          return createDiagnostic('error', 'MF201', at, `\`${key}\` steps are not supported in manifests`, {
            hint: `manifests hold ${kinds.map((k) => `\`${k}\``).join(', ')} steps; keep tasks with other steps out of them`,
          });
        }
        const guess = suggestName(key, kinds);
        return createDiagnostic('error', 'MF201', at, `unknown step kind \`${printable(key)}\`${guess ? ` — did you mean \`${guess}\`?` : ''}`, {
          hint: `a step is one of ${kinds.map((k) => `\`${k}\``).join(', ')}`,
        });
      }
      const present = new Set(Object.keys(isRecord(err.data) ? err.data : {}));
      const known = Object.keys((parent.properties ?? {}) as object);
      const guess =
        key === '__proto__'
          ? undefined
          : suggestName(
              key,
              known.filter((k) => !present.has(k)),
            );
      return createDiagnostic('error', 'MF201', at, `unknown field \`${printable(key)}\` in ${where}${guess ? ` — did you mean \`${guess}\`?` : ''}`, {
        hint: guess ? undefined : known.length > 0 && known.length <= 8 ? `fields allowed here: ${known.join(', ')}` : undefined,
      });
    }
    case 'required': {
      const missing = String(params.missingProperty);
      if ((path.length === 0 && missing === 'metadata') || (path.length === 1 && path[0] === 'metadata' && missing === 'name')) {
        return createDiagnostic('error', 'MF103', at, path.length === 0 ? 'missing `metadata` (with `name`)' : 'missing `metadata.name`', {
          hint: 'every manifest has metadata.name: its identity on the server',
        });
      }
      if (path.length === 0 && missing === 'spec') {
        return createDiagnostic('error', 'MF202', at, `missing \`spec\`: the desired state of the ${ctx.kind}`);
      }
      return createDiagnostic('error', 'MF202', at, `missing required field \`${missing}\` in ${contextNoun(parent, path, ctx.kind)}`);
    }
    case 'type': {
      const expected = describeTypes(params.type);
      return value(nameField ? 'MF103' : 'MF203', `${label} must be ${expected}, not ${describeValue(err.data)}`, typeHint(err.data, params.type));
    }
    case 'enum': {
      const allowed = (params.allowedValues as unknown[]) ?? [];
      const isFlag = allowed.length === 4 && [0, 1, true, false].every((v) => allowed.includes(v));
      const data = err.data;
      const guess =
        typeof data === 'string'
          ? suggestName(
              data,
              allowed.filter((v): v is string => typeof v === 'string'),
            )
          : undefined;
      const mean = guess !== undefined ? ` — did you mean \`${guess}\`?` : '';
      const yamlHint =
        isFlag && typeof data === 'string' && YAML11_BOOLEANS.has(data) ? `YAML 1.2 reads \`${data}\` as text: write true or false (or 1 or 0)` : undefined;
      const last = path[path.length - 1];
      if (last !== undefined && /^\d+$/.test(last) && path.length >= 2) {
        const list = fieldLabel(path.slice(0, -1));
        return value('MF204', `${list} has an unknown value ${showValue(data, secret)}${mean}`, `allowed: ${formatAllowed(allowed)}`);
      }
      return value('MF204', `${label} must be one of ${formatAllowed(allowed)}${mean || (secret ? '' : `, not ${showValue(data, secret)}`)}`, yamlHint);
    }
    case 'const':
      return value('MF204', `${label} must be ${formatAllowed([params.allowedValue])}`);
    case 'minimum':
    case 'exclusiveMinimum':
    case 'maximum':
    case 'exclusiveMaximum': {
      const words = { minimum: 'at least', exclusiveMinimum: 'greater than', maximum: 'at most', exclusiveMaximum: 'less than' } as const;
      return value('MF205', `${label} must be ${words[err.keyword]} ${String(params.limit)}${secret ? '' : `, not ${String(err.data)}`}`);
    }
    case 'pattern': {
      const explained = typeof parent.patternErrorMessage === 'string' ? parent.patternErrorMessage : `must match ${String(params.pattern)}`;
      return value(nameField || isPreviousName(path) ? 'MF103' : 'MF206', `${label} ${explained}`);
    }
    case 'format':
      return value('MF206', `${label} must be a valid ${String(params.format)}`);
    case 'minLength':
      return value(
        nameField ? 'MF103' : 'MF206',
        Number(params.limit) === 1 ? `${label} must not be empty` : `${label} must be at least ${String(params.limit)} characters long`,
      );
    case 'maxLength':
      return value('MF206', `${label} must be at most ${String(params.limit)} characters long`);
    case 'uniqueItems': {
      const i = Number(params.i);
      const j = Number(params.j);
      const later = Math.max(i, j);
      const items = Array.isArray(err.data) ? (err.data as unknown[]) : [];
      const item = items[later];
      const what =
        isRecord(item) || Array.isArray(item) ? `the same item twice (items ${Math.min(i, j) + 1} and ${later + 1})` : `${showValue(item, secret)} twice`;
      return createDiagnostic('error', 'MF207', at, `${label} lists ${what}`, { hint: 'delete the repeat' });
    }
    case 'minItems':
      return value('MF207', Number(params.limit) === 1 ? `${label} must not be empty` : `${label} must have at least ${String(params.limit)} items`);
    case 'maxItems':
      return value('MF207', `${label} must have at most ${String(params.limit)} items`);
    case 'minProperties':
      if (parent.title === 'step') {
        return value('MF207', `${label} is empty: a step is one mapping key, \`Source\`, \`Process\` or \`Destination\``);
      }
      return value('MF207', `${label} must not be empty`);
    case 'maxProperties':
      if (parent.title === 'step' && isRecord(err.data)) {
        const keys = Object.keys(err.data);
        return value(
          'MF207',
          `${label} has ${keys.length} step kinds (${keys.map((k) => `\`${k}\``).join(', ')}); a step has exactly one`,
          'write each step as its own list item starting with `- `',
        );
      }
      return value('MF207', `${label} must have at most ${String(params.limit)} fields`);
    case 'oneOf':
    case 'anyOf': {
      const custom = parent.errorMessage;
      if (typeof custom === 'string') return value('MF209', `${label} ${custom}`);
      return value(
        'MF209',
        `${label} does not match ${err.keyword === 'oneOf' && Array.isArray(params.passingSchemas) ? 'exactly one' : 'any'} of the allowed forms`,
      );
    }
    default:
      return value('MF206', `${label} is not valid (${err.keyword})`);
  }
}

function isPreviousName(path: readonly string[]): boolean {
  return path[0] === 'metadata' && path[1] === 'previousNames';
}

/** `RetryCount`, `steps[1]`, `permissions[2]`; the whole document is `document`. */
export function fieldLabel(path: readonly string[]): string {
  if (path.length === 0) return 'the document';
  if (path.length === 2 && path[0] === 'metadata') return `\`metadata.${printable(path[1]!)}\``;
  const last = path[path.length - 1]!;
  if (/^\d+$/.test(last)) {
    const parent = path[path.length - 2];
    return parent === undefined ? `item ${last}` : `\`${printable(parent)}[${last}]\``;
  }
  return `\`${printable(last)}\``;
}

/** What the object holding a field is called in messages: its schema title, e.g. `Source step`. */
function contextNoun(schema: AnySchemaObject, path: readonly string[], kind: string): string {
  if (path.length === 0) return `${kind} document`;
  const title = typeof schema.title === 'string' ? schema.title : undefined;
  if (title === 'parameter') return `parameter \`${printable(path[path.length - 1]!)}\``;
  if (title === 'entry') return `entry ${fieldLabel(path)}`;
  if (title) return title;
  return fieldLabel(path);
}

function describeTypes(type: unknown): string {
  const list = Array.isArray(type) ? type : String(type).split(',');
  const words = list.map((t) => {
    switch (t) {
      case 'string':
        return 'text';
      case 'integer':
        return 'a whole number';
      case 'number':
        return 'a number';
      case 'boolean':
        return 'true or false';
      case 'array':
        return 'a list';
      case 'object':
        return 'a mapping';
      case 'null':
        return 'empty';
      default:
        return String(t);
    }
  });
  return words.length <= 1 ? (words[0] ?? 'valid') : `${words.slice(0, -1).join(', ')} or ${words[words.length - 1]}`;
}

function describeValue(data: unknown): string {
  if (data === null || data === undefined) return 'empty';
  if (Array.isArray(data)) return 'a list';
  switch (typeof data) {
    case 'string':
      return 'text';
    case 'number':
      return Number.isInteger(data) ? 'a whole number' : 'a fractional number';
    case 'boolean':
      return `\`${String(data)}\``;
    case 'object':
      return 'a mapping';
    default:
      return typeof data;
  }
}

function typeHint(data: unknown, type: unknown): string | undefined {
  const want = Array.isArray(type) ? type : [type];
  if (typeof data === 'string' && (want.includes('integer') || want.includes('number')) && /^-?\d+(\.\d+)?$/.test(data.trim())) {
    return 'remove the quotes around the number';
  }
  if ((want.includes('object') || want.includes('array')) && (data === null || data === undefined)) {
    return 'the value is missing: indent its fields under the key, or remove the key';
  }
  if (want.includes('string') && (typeof data === 'number' || typeof data === 'boolean')) return `quote it to make it text: "${String(data)}"`;
  if (want.includes('array') && !Array.isArray(data) && data !== null) return 'write a list: `[a, b]` or one `- item` per line';
  if (want.includes('object') && Array.isArray(data)) return 'write a mapping (`key: value` lines), not a list of `- ` items';
  return undefined;
}

function showValue(data: unknown, secret: boolean): string {
  if (secret) return 'value';
  if (typeof data === 'string') return `\`${printable(data)}\``;
  if (data === null || data === undefined) return 'empty';
  if (typeof data === 'object') return Array.isArray(data) ? 'a list' : 'a mapping';
  return `\`${String(data)}\``;
}

/** Allowed values as a user types them: `0, 1, 2`; strings with commas or spaces quoted. */
function formatAllowed(values: readonly unknown[]): string {
  const quote = values.some((v) => typeof v === 'string' && /[,\s]|^$/.test(v));
  return values.map((v) => (typeof v === 'string' ? (quote ? JSON.stringify(v) : v) : String(v))).join(', ');
}

/** Keeps control characters and very long keys out of one-line messages. */
function printable(text: string): string {
  const clean = text.replace(/[\u0000-\u001f\u007f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return clean.length > 80 ? `${clean.slice(0, 77)}...` : clean;
}
