/**
 * Diagnostics: user mistakes reported like a compiler reports them, by every stage that finds
 * them: the manifest loader, the configuration loader, the planner. They are values, never
 * exceptions (a configuration that cannot be used travels in a `ConfigError`, src/errors.ts), and
 * every renderer (text, JSON, GitHub annotations; src/render/diagnostics.ts) shows them alike.
 *
 * Codes are stable: users grep for them, CI annotations show them as titles, tests pin them.
 * Never reuse or renumber a code; add new ones at the end of their block. This table is the one
 * list of them.
 * What each code means, with an example and a fix (`mftops explain`), is in
 * src/diagnostic-catalogue.ts.
 *
 * Manifests (src/manifest):
 *
 * | code  | name                 | what                                                               |
 * |-------|----------------------|--------------------------------------------------------------------|
 * | MF001 | yaml-syntax          | YAML the parser rejects (also tabs as indentation, bad aliases)    |
 * | MF002 | duplicate-key        | a key written twice in one mapping                                 |
 * | MF003 | resource-limit       | alias expansion or nesting beyond the limits (e.g. "billion laughs")|
 * | MF004 | file-too-large       | a file over the size limit (10 MB by default), not read            |
 * | MF005 | not-text             | binary content or bytes that are not UTF-8                         |
 * | MF006 | no-manifests         | an empty file, or a folder without `*.yaml`/`*.yml` files          |
 * | MF007 | unreadable-path      | a path that does not exist or cannot be read (a file, no line)     |
 * | MF008 | manifests-too-large  | all manifests of a run together over the total limit (64 MB by default), none checked |
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
 * | MF311 | policy-expression    | a Policy's CEL expression that does not compile                    |
 * | MF312 | policy-violation     | validate: a manifest breaks a policy that reads only `object` (a warning for a `warn` policy) |
 * | MF320 | undefined-variable   | a `${var:NAME}` the environment does not define (or no environment) |
 * | MF321 | variable-use         | a `${var:}` in a secret field, or a list variable inside a text    |
 * | MF322 | unknown-environment  | `metadata.environments` names an environment mftops.yaml lacks     |
 * | MF323 | patch-target         | a `kind: Patch` whose target is not defined in an environment      |
 * | MF324 | folder-path          | a folder path with a `.` or `..` name, a control character or a character folder names cannot hold |
 * | MF325 | secret-file-place    | a `${file:}` outside the repository and `secrets.fileRoots`, below /proc, /sys or /dev, or not a regular file |
 * | MF326 | credential-variable  | a manifest `${env:}` naming a variable mftops.yaml signs in with   |
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
 * | MF409 | unknown-target         | (warning) a `--target` address that names nothing in the plan (no file: the address is the place); an error when it is not a `Kind/name` address |
 * | MF410 | host-type              | a step's `Type` that is not the type of its host                  |
 * | MF411 | no-service             | manifests for a service the environment does not configure        |
 * | MF412 | previous-folder-exists | (warning) a folder at a previous path of a folder that exists too  |
 * | MF413 | unmatched-ignore       | (warning) a `drift.ignore` entry of mftops.yaml whose address matches no object of the drift run (at the entry) |
 * | MF414 | unresolved-secret      | (warning) a `${env:}` variable that is not set, or a `${file:}` that is missing, unreadable or empty, which a change of the plan sends: apply would refuse the plan |
 * | MF415 | transfer-folder        | (warning) a task step on a transfer host (`transferHosts`) names a folder the transfer server does not have and the plan does not create |
 * | MF416 | transfer-rights        | (warning) the account of a task step on a transfer host lacks a permission the step needs on its folder (through its groups too), or is not a user there |
 * | MF417 | observed-group         | (warning) a Group with `manage: observe` differs from the server (or is missing there): reported, never written |
 * | MF420 | unmatched-allowed-account | (warning) a `privilegedAccounts.allowUnmanaged` entry of mftops.yaml that names no account of the servers read (at the entry) |
 *
 * Configuration (`mftops.yaml`, src/config/load-config.ts; reported in a `ConfigError`, since a
 * command cannot start without its configuration):
 *
 * | code  | name                     | what                                                            |
 * |-------|--------------------------|-----------------------------------------------------------------|
 * | MF501 | config-unreadable        | the configuration file does not exist or cannot be read (no line) |
 * | MF502 | config-yaml              | YAML the parser rejects, or a key written twice                 |
 * | MF503 | config-unknown-key       | a key the configuration does not know                           |
 * | MF504 | config-missing-key       | a required key is absent (an environment without a service, no environment) |
 * | MF505 | config-bad-value         | a value of the wrong type, outside its list or bounds, of the wrong form, a date not of the calendar |
 * | MF506 | config-literal-secret    | a password written as a literal, not `${env:}`/`${file:}`        |
 * | MF507 | config-service-url       | a service URL that is not a URL, holds credentials, or is plain http to a non-loopback host |
 * | MF508 | config-unresolved-secret | an `${env:NAME}` that is not set or a `${file:PATH}` that cannot be read, when a command needs it |
 */

import { withDefined } from './with-defined.js';

export const DIAGNOSTIC_CODES = {
  MF001: 'yaml-syntax',
  MF002: 'duplicate-key',
  MF003: 'resource-limit',
  MF004: 'file-too-large',
  MF005: 'not-text',
  MF006: 'no-manifests',
  MF007: 'unreadable-path',
  MF008: 'manifests-too-large',
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
  MF311: 'policy-expression',
  MF312: 'policy-violation',
  MF320: 'undefined-variable',
  MF321: 'variable-use',
  MF322: 'unknown-environment',
  MF323: 'patch-target',
  MF324: 'folder-path',
  MF325: 'secret-file-place',
  MF326: 'credential-variable',
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
  MF413: 'unmatched-ignore',
  MF414: 'unresolved-secret',
  MF415: 'transfer-folder',
  MF416: 'transfer-rights',
  MF417: 'observed-group',
  MF420: 'unmatched-allowed-account',
  MF501: 'config-unreadable',
  MF502: 'config-yaml',
  MF503: 'config-unknown-key',
  MF504: 'config-missing-key',
  MF505: 'config-bad-value',
  MF506: 'config-literal-secret',
  MF507: 'config-service-url',
  MF508: 'config-unresolved-secret',
} as const;

export type DiagnosticCode = keyof typeof DIAGNOSTIC_CODES;

/** `error` makes `validate` fail (exit 1) and stops `plan`; `warning` is shown and ignored. */
export type Severity = 'error' | 'warning';

/**
 * Where in the sources a problem is: a file, and the span in it when one applies (a file that
 * cannot be read has none). Lines and columns count from 1; columns count UTF-16 code units, like
 * editors. `line` and `col` come together; the end only with them.
 */
export interface SourceRange {
  /** Path of the file as the loader opened it (absolute); renderers show it relative to the working folder. */
  readonly file: string;
  readonly line?: number;
  readonly col?: number;
  /** End of the offending node (exclusive), when known. */
  readonly endLine?: number;
  readonly endCol?: number;
}

/** A place in a file: a range whose start is known (what a YAML source map answers). */
export interface SourcePosition extends SourceRange {
  readonly line: number;
  readonly col: number;
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
 * One problem. `summary` is one line in the user's terms (field names as written, in backticks);
 * `detail` optional further lines; `hint` an optional line saying how to fix it. None of them
 * ever holds the value of a secret.
 *
 * Where it is: a source range (`file`, and `line`/`col`/end when a place in the file applies),
 * an `address` (`Kind/name`) when it concerns one object, or both. A problem with a command-line
 * address (`--target`) has an address and no file; an unreadable path has a file and no line.
 */
export interface Diagnostic {
  readonly severity: Severity;
  readonly code: DiagnosticCode;
  readonly summary: string;
  readonly detail?: string;
  readonly hint?: string;
  readonly file?: string;
  /** Only with `file`; absent when the problem is with the whole file. */
  readonly line?: number;
  readonly col?: number;
  readonly endLine?: number;
  readonly endCol?: number;
  /** `Kind/name` of the object concerned (as the user wrote it, for a `--target`). */
  readonly address?: string;
  readonly related?: RelatedPosition;
}

/** The optional parts of a diagnostic. */
export interface DiagnosticExtra {
  readonly detail?: string | undefined;
  readonly hint?: string | undefined;
  readonly address?: string | undefined;
  readonly related?: RelatedPosition | undefined;
}

/**
 * A diagnostic at a range (or at none: give the address in `extra`), with the optional parts left
 * out when absent (exactOptionalPropertyTypes-safe).
 */
export function createDiagnostic(
  severity: Severity,
  code: DiagnosticCode,
  at: SourceRange | undefined,
  summary: string,
  extra: DiagnosticExtra = {},
): Diagnostic {
  const positioned = at?.line !== undefined && at.col !== undefined;
  return {
    severity,
    code,
    summary,
    ...withDefined({
      detail: extra.detail,
      hint: extra.hint,
      file: at?.file,
      line: positioned ? at.line : undefined,
      col: positioned ? at.col : undefined,
      endLine: positioned ? at.endLine : undefined,
      endCol: positioned ? at.endCol : undefined,
      address: extra.address,
      related: extra.related,
    }),
  };
}

/**
 * Where a diagnostic points, as one-line text: `FILE:LINE:COL`, `FILE` (the whole file), the
 * address when there is no file, or undefined. `showFile` turns the absolute path into the one to
 * print.
 */
export function placeOf(d: Diagnostic, showFile: (file: string) => string = (file) => file): string | undefined {
  if (d.file === undefined) return d.address;
  const file = showFile(d.file);
  return d.line !== undefined && d.col !== undefined ? `${file}:${d.line}:${d.col}` : file;
}

/**
 * Problems without a file first (the command line), then file, line, column, code: the order a
 * reader walks a file in. A whole-file problem comes before the lines of its file.
 */
export function compareDiagnostics(a: Diagnostic, b: Diagnostic): number {
  return (
    compareText(a.file ?? '', b.file ?? '') ||
    compareText(a.address ?? '', b.address ?? '') ||
    (a.line ?? 0) - (b.line ?? 0) ||
    (a.col ?? 0) - (b.col ?? 0) ||
    compareText(a.code, b.code) ||
    compareText(a.summary, b.summary)
  );
}

/** Sorted, with exact repeats (same code, place and summary) dropped. */
export function sortDiagnostics(diagnostics: readonly Diagnostic[]): Diagnostic[] {
  const sorted = [...diagnostics].sort(compareDiagnostics);
  return sorted.filter((d, i) => {
    const prev = sorted[i - 1];
    return !(prev && compareDiagnostics(prev, d) === 0);
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

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
