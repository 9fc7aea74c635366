/**
 * Diagnostics: user mistakes found in manifests, reported like a compiler reports them. They are
 * values returned by the loader, never exceptions, and every one points at a place in a file.
 *
 * Codes are stable: users grep for them, CI annotations show them as titles, tests pin them.
 * Never reuse or renumber a code; add new ones at the end of their block.
 *
 * | code  | name                 | what                                                               |
 * |-------|----------------------|--------------------------------------------------------------------|
 * | MF001 | yaml-syntax          | YAML the parser rejects (also tabs as indentation, bad aliases)    |
 * | MF002 | duplicate-key        | a key written twice in one mapping                                 |
 * | MF003 | resource-limit       | alias expansion or nesting beyond the limits (e.g. "billion laughs")|
 * | MF004 | file-too-large       | a file over the size limit (10 MB by default), not read            |
 * | MF005 | not-text             | binary content or bytes that are not UTF-8                         |
 * | MF006 | no-manifests         | an empty file, or a folder without `*.yaml`/`*.yml` files          |
 * | MF007 | unreadable-path      | a path that does not exist or cannot be read                       |
 * | MF100 | not-a-mapping        | a document that is not a mapping (a list, a scalar)                |
 * | MF101 | api-version          | `apiVersion` missing or not `mftops/v1`                            |
 * | MF102 | kind                 | `kind` missing or unknown ("did you mean")                         |
 * | MF103 | name                 | `metadata` / `metadata.name` missing or malformed                  |
 * | MF201 | unknown-field        | a field the schema does not know ("did you mean")                  |
 * | MF202 | missing-field        | a required field is absent                                         |
 * | MF203 | wrong-type           | e.g. a string where an integer is expected, a list for a mapping   |
 * | MF204 | not-allowed          | a value outside an enumeration                                     |
 * | MF205 | out-of-range         | a number outside its bounds                                        |
 * | MF206 | bad-format           | a string that does not have the required form                      |
 * | MF207 | bad-list             | empty, duplicate or surplus items (also one-key step mappings)     |
 * | MF208 | server-field         | a server-numbered or read-only field (`ID`, `NextEID`, `x…`, ...)  |
 * | MF209 | no-matching-form     | a value that matches none (or several) of the allowed forms        |
 * | MF301 | duplicate-identity   | two documents for one object (task name, ACL pair, folder path)   |
 * | MF302 | previous-name        | a `previousNames` entry that is a live name, or claimed twice      |
 * | MF303 | acl-permissions      | `TaskAddEditDelete` without `TaskEditExisting`                     |
 * | MF304 | rename-original      | `DelRename`/`RenameTo` without `DeleteOrig: 2`                     |
 * | MF305 | time-of-day          | `StartTime`/`EndTime` not `HH:mm` within 00:00–23:59               |
 * | MF307 | literal-secret       | a password or secret value that is not `${env:}`/`${file:}`        |
 * | MF308 | step-reference       | `Host` and `HostID` (or `Script` and `ScriptID`) together, or none |
 * | MF309 | duplicate-entry      | one user or group twice in a folder's entries                      |
 * | MF310 | secret-like-literal  | (warning) a parameter named like a secret holding a literal        |
 *
 * MF306 is reserved (date checks for a date-list kind, which manifests do not have yet).
 *
 * Plan time (the manifests are valid, but do not fit the live servers; src/plan/diagnostics.ts):
 *
 * | code  | name                   | what                                                              |
 * |-------|------------------------|-------------------------------------------------------------------|
 * | MF401 | unknown-host           | a step's `Host` (or `HostID`) the automation server does not have |
 * | MF402 | unknown-script         | a Process step's `Script` (or `ScriptID`), custom or standard     |
 * | MF403 | unknown-date-list      | a schedule's `DateListRef` name                                   |
 * | MF404 | unknown-resource-group | a task's `Group` or an ACL's `resourceGroup`                      |
 * | MF405 | unknown-user-group     | an ACL's `userGroup` (only when user groups are readable)         |
 * | MF406 | unknown-user           | a folder entry's `user` on the transfer server                    |
 * | MF407 | unknown-group          | a folder entry's `group` on the transfer server                   |
 * | MF408 | missing-folder         | a folder that does not exist, without `createIfMissing`, or whose parent does not exist; or one below a folder the plan renames |
 * | MF409 | unknown-target         | a `--target` address that names nothing in the plan               |
 * | MF410 | host-type              | a step's `Type` that is not the type of its host                  |
 * | MF411 | no-service             | manifests for a service the environment does not configure        |
 * | MF412 | previous-folder-exists | (warning) a folder at a previous path of a folder that exists too  |
 */
export const DIAGNOSTIC_CODES = {
  MF001: 'yaml-syntax',
  MF002: 'duplicate-key',
  MF003: 'resource-limit',
  MF004: 'file-too-large',
  MF005: 'not-text',
  MF006: 'no-manifests',
  MF007: 'unreadable-path',
  MF100: 'not-a-mapping',
  MF101: 'api-version',
  MF102: 'kind',
  MF103: 'name',
  MF201: 'unknown-field',
  MF202: 'missing-field',
  MF203: 'wrong-type',
  MF204: 'not-allowed',
  MF205: 'out-of-range',
  MF206: 'bad-format',
  MF207: 'bad-list',
  MF208: 'server-field',
  MF209: 'no-matching-form',
  MF301: 'duplicate-identity',
  MF302: 'previous-name',
  MF303: 'acl-permissions',
  MF304: 'rename-original',
  MF305: 'time-of-day',
  MF307: 'literal-secret',
  MF308: 'step-reference',
  MF309: 'duplicate-entry',
  MF310: 'secret-like-literal',
  MF401: 'unknown-host',
  MF402: 'unknown-script',
  MF403: 'unknown-date-list',
  MF404: 'unknown-resource-group',
  MF405: 'unknown-user-group',
  MF406: 'unknown-user',
  MF407: 'unknown-group',
  MF408: 'missing-folder',
  MF409: 'unknown-target',
  MF410: 'host-type',
  MF411: 'no-service',
  MF412: 'previous-folder-exists',
} as const;

export type DiagnosticCode = keyof typeof DIAGNOSTIC_CODES;

/** `error` makes `validate` fail (exit 1) and stops `plan`; `warning` is shown and ignored. */
export type Severity = 'error' | 'warning';

/** A place in a file. Lines and columns count from 1; columns count UTF-16 code units, like editors. */
export interface SourcePosition {
  /** Path of the file as the loader opened it (absolute); renderers show it relative to the working folder. */
  readonly file: string;
  readonly line: number;
  readonly col: number;
  /** End of the offending node (exclusive), when known. */
  readonly endLine?: number;
  readonly endCol?: number;
}

/** Another place that explains the diagnostic, e.g. the first definition of a duplicate. */
export interface RelatedPosition {
  /** What is there, e.g. `first defined`; renderers print `<message> at FILE:LINE:COL`. */
  readonly message: string;
  readonly file: string;
  readonly line: number;
  readonly col: number;
}

/**
 * One problem at one place. `message` is one line in the user's terms (field names as written in
 * the manifest, in backticks); `hint` is an optional second line saying how to fix it. Neither
 * ever holds the value of a secret field.
 */
export interface Diagnostic extends SourcePosition {
  readonly severity: Severity;
  readonly code: DiagnosticCode;
  readonly message: string;
  readonly hint?: string;
  readonly related?: RelatedPosition;
}

/** A diagnostic at a position, with the optional parts left out when absent (exactOptionalPropertyTypes-safe). */
export function createDiagnostic(
  severity: Severity,
  code: DiagnosticCode,
  at: SourcePosition,
  message: string,
  extra: { hint?: string | undefined; related?: RelatedPosition | undefined } = {},
): Diagnostic {
  return {
    severity,
    code,
    message,
    file: at.file,
    line: at.line,
    col: at.col,
    ...(at.endLine !== undefined ? { endLine: at.endLine } : {}),
    ...(at.endCol !== undefined ? { endCol: at.endCol } : {}),
    ...(extra.hint !== undefined ? { hint: extra.hint } : {}),
    ...(extra.related !== undefined ? { related: extra.related } : {}),
  };
}

/** File, then line, then column, then code: the order a reader walks a file in. */
export function compareDiagnostics(a: Diagnostic, b: Diagnostic): number {
  if (a.file !== b.file) return a.file < b.file ? -1 : 1;
  return a.line - b.line || a.col - b.col || (a.code < b.code ? -1 : a.code > b.code ? 1 : 0) || (a.message < b.message ? -1 : a.message > b.message ? 1 : 0);
}

/** Sorted, with exact repeats (same code, place and message) dropped. */
export function sortDiagnostics(diagnostics: readonly Diagnostic[]): Diagnostic[] {
  const sorted = [...diagnostics].sort(compareDiagnostics);
  return sorted.filter((d, i) => {
    const prev = sorted[i - 1];
    return !(prev && prev.code === d.code && prev.file === d.file && prev.line === d.line && prev.col === d.col && prev.message === d.message);
  });
}

export function hasErrors(diagnostics: readonly Pick<Diagnostic, 'severity'>[]): boolean {
  return diagnostics.some((d) => d.severity === 'error');
}

export function countDiagnostics(diagnostics: readonly Pick<Diagnostic, 'severity'>[]): { errors: number; warnings: number } {
  let errors = 0;
  let warnings = 0;
  for (const d of diagnostics) {
    switch (d.severity) {
      case 'error':
        errors++;
        break;
      case 'warning':
        warnings++;
        break;
      default: {
        const never: never = d.severity;
        throw new Error(`unknown severity ${String(never)}`);
      }
    }
  }
  return { errors, warnings };
}
