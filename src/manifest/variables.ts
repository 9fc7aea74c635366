import { createDiagnostic } from './diagnostics.js';
import type { Diagnostic, SourcePosition } from './diagnostics.js';
import type { ParsedDocument } from './parse.js';
import { suggestName } from './suggest.js';
import type { JsonPath, VarValue } from './types.js';
import { isRecord } from '../is-record.js';

/**
 * The environment manifests are read for (README: Environments): which documents count
 * (`metadata.environments`) and what `${var:NAME}` stands for.
 */
export interface ManifestEnvironment {
  /** The environment's name; absent when manifests are checked without one (`validate PATH…` without a configuration). */
  readonly name?: string;
  /** `environments.<name>.vars` of mftops.yaml. */
  readonly vars: Readonly<Record<string, VarValue>>;
  /** Every environment of the configuration, for checking `metadata.environments`; absent: no configuration. */
  readonly known?: readonly string[];
  /** `limits.manifestMegabytes` of mftops.yaml, in bytes: the most all manifests of one run may hold together (MF008). */
  readonly maxManifestBytes?: number;
}

/** `${var:NAME}`, or the escape `$${var:NAME}` (group 1 is `$`), which stands for the text `${var:NAME}`. */
const VAR_REFERENCE = /\$(\$?)\{var:([^}]*)\}/g;
const WHOLE_REFERENCE = /^\$\{var:([^}]*)\}$/;

/**
 * Whether a document is for this environment: `metadata.environments` absent, or naming it.
 * Without an environment every document counts. Names the configuration does not have are MF322
 * (a typo would otherwise drop the document silently). The list is read literally: it holds no
 * variables.
 */
export function selectDocument(doc: ParsedDocument, env: ManifestEnvironment, diagnostics: Diagnostic[]): boolean {
  const metadata = isRecord(doc.data) ? doc.data.metadata : undefined;
  const names = isRecord(metadata) && Array.isArray(metadata.environments) ? metadata.environments : undefined;
  if (names === undefined) return true;
  if (env.known !== undefined) {
    names.forEach((n: unknown, i) => {
      if (typeof n !== 'string' || env.known!.includes(n)) return;
      const guess = suggestName(n, env.known!);
      diagnostics.push(
        createDiagnostic(
          'error',
          'MF322',
          doc.sourceMap.locate(['metadata', 'environments', i]),
          `environment \`${n}\` is not in the configuration${guess ? ` — did you mean \`${guess}\`?` : ''}`,
          {
            hint: `environments: ${env.known!.join(', ')}`,
          },
        ),
      );
    });
  }
  return env.name === undefined || names.includes(env.name);
}

/**
 * The document with every `${var:NAME}` in its string values replaced (keys are left alone). A
 * value that is only a reference takes the variable's type (a number stays a number, a list a
 * list); inside a longer text the value is written as text. The data is copied only where it
 * changes; paths do not change, so the document's source map still places every value (a value
 * that came from a variable is placed at its reference). Problems are diagnostics at the value
 * holding the reference: MF320 for a variable the environment does not define (or no
 * environment), MF321 for a reference in a secret field or a list inside a longer text.
 * `used` collects the variables read.
 */
export function substituteVariables(doc: ParsedDocument, env: ManifestEnvironment, diagnostics: Diagnostic[], used: Map<string, VarValue>): ParsedDocument {
  const unresolved: JsonPath[] = [];
  /** The reference in the text at `path` starting at `offset` (see referenceAt), or the value. */
  let reference: { readonly text: string; readonly offset: number } | undefined;
  const problem = (code: 'MF320' | 'MF321', path: JsonPath, summary: string, hint?: string): void => {
    const at = doc.sourceMap.locate(path);
    diagnostics.push(createDiagnostic('error', code, reference === undefined ? at : referenceAt(at, reference.text, reference.offset), summary, { hint }));
    unresolved.push(path);
  };
  const lookup = (name: string, path: JsonPath): VarValue | undefined => {
    if (Object.hasOwn(env.vars, name)) {
      const value = env.vars[name]!;
      used.set(name, value);
      return value;
    }
    if (env.name === undefined) {
      problem(
        'MF320',
        path,
        `variable \`${name}\` needs an environment`,
        'variables come from mftops.yaml: run with --env NAME (and --config FILE when it is not ./mftops.yaml)',
      );
    } else {
      const guess = suggestName(name, Object.keys(env.vars));
      problem(
        'MF320',
        path,
        `variable \`${name}\` is not defined for environment \`${env.name}\`${guess ? ` — did you mean \`${guess}\`?` : ''}`,
        `add it to environments.${env.name}.vars in mftops.yaml`,
      );
    }
    return undefined;
  };
  const text = (value: string, path: JsonPath, secret: boolean): unknown => {
    if (!value.includes('{var:')) return value;
    reference = undefined;
    if (secret && /(^|[^$])\$\{var:/.test(value)) {
      problem(
        'MF321',
        path,
        'a variable cannot stand for a secret',
        'secrets stay ${env:NAME} or ${file:PATH} references; variables are recorded in plan files',
      );
      return value;
    }
    const whole = WHOLE_REFERENCE.exec(value);
    if (whole) {
      reference = { text: value, offset: 0 };
      const found = lookup(whole[1]!.trim(), path);
      return found === undefined ? value : Array.isArray(found) ? [...found] : found;
    }
    return value.replace(VAR_REFERENCE, (match, escape: string, name: string, offset: number) => {
      if (escape === '$') return match.slice(1);
      reference = { text: value, offset };
      const found = lookup(name.trim(), path);
      if (found === undefined) return match;
      if (Array.isArray(found)) {
        problem('MF321', path, `variable \`${name.trim()}\` is a list and cannot be part of a longer text`, 'use it as the whole value: `Field: ${var:NAME}`');
        return match;
      }
      return String(found);
    });
  };
  // One path stack, copied only at a problem: a new path per value was most of what loading
  // allocated, and nearly no value holds a variable.
  const path: (string | number)[] = [];
  const walk = (value: unknown): unknown => {
    if (Array.isArray(value)) {
      let out: unknown[] | undefined;
      for (let i = 0; i < value.length; i++) {
        const item: unknown = value[i];
        if (typeof item === 'string' ? !item.includes('{var:') : typeof item !== 'object' || item === null) continue;
        path.push(i);
        const next = typeof item === 'string' ? text(item, [...path], false) : walk(item);
        path.pop();
        if (next !== item) (out ??= [...value])[i] = next;
      }
      return out ?? value;
    }
    if (isRecord(value)) {
      let out: Record<string, unknown> | undefined;
      // A secret parameter (`{value, secret: true}`) and any password field hold secrets only.
      const secretValue = value.secret === true;
      for (const key of Object.keys(value)) {
        const item = value[key];
        if (typeof item === 'string' ? !item.includes('{var:') : typeof item !== 'object' || item === null) continue;
        path.push(key);
        const next = typeof item === 'string' ? text(item, [...path], /password/i.test(key) || (secretValue && key === 'value')) : walk(item);
        path.pop();
        if (next !== item) {
          out ??= { ...value };
          // defineProperty: `__proto__` is an ordinary key of manifest data.
          Object.defineProperty(out, key, { value: next, enumerable: true, writable: true, configurable: true });
        }
      }
      return out ?? value;
    }
    return value;
  };
  const data = typeof doc.data === 'string' ? text(doc.data, [], false) : walk(doc.data);
  if (data === doc.data && unresolved.length === 0) return doc;
  return { ...doc, data, ...(unresolved.length > 0 ? { unresolved } : {}) };
}

/**
 * The place of a reference `offset` characters into a one-line text written at `at`: exact when
 * the text is written as it reads, plain or quoted without escapes (its written length tells
 * which); otherwise the value's place.
 */
function referenceAt(at: SourcePosition, text: string, offset: number): SourcePosition {
  if (at.endLine !== at.line || at.endCol === undefined || text.includes('\n')) return at;
  const written = at.endCol - at.col;
  const shift = written === text.length ? offset : written === text.length + 2 ? offset + 1 : undefined;
  return shift === undefined ? at : { file: at.file, line: at.line, col: at.col + shift };
}
