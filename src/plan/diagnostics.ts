import { suggestName } from '../manifest/suggest.js';
import type { Diagnostic, DiagnosticCode, RelatedPosition, SourcePosition } from '../manifest/diagnostics.js';

/**
 * Diagnostics found at plan time: the manifests are valid on their own, but do not fit the live
 * servers (a host name the server does not have, a folder that is missing). Same shape and
 * rendering as the loader's diagnostics, in their own code block, stable like theirs.
 *
 * | code  | name                  | what                                                              |
 * |-------|-----------------------|-------------------------------------------------------------------|
 * | MF401 | unknown-host          | a step's `Host` (or `HostID`) the automation server does not have |
 * | MF402 | unknown-script        | a Process step's `Script` (or `ScriptID`), custom or standard     |
 * | MF403 | unknown-date-list     | a schedule's `DateListRef` name                                   |
 * | MF404 | unknown-resource-group| a task's `Group` or an ACL's `resourceGroup`                      |
 * | MF405 | unknown-user-group    | an ACL's `userGroup` (only when user groups are readable)          |
 * | MF406 | unknown-user          | a folder entry's `user` on the transfer server                    |
 * | MF407 | unknown-group         | a folder entry's `group` on the transfer server                   |
 * | MF408 | missing-folder        | a FolderPermissions folder that does not exist, without `createIfMissing`, or whose parent does not exist |
 * | MF409 | unknown-target        | a `--target` address that names nothing in the plan               |
 * | MF410 | host-type             | a step's `Type` that is not the type of its host                  |
 * | MF411 | no-service            | manifests for a service the environment does not configure        |
 */
export const PLAN_DIAGNOSTIC_CODES = {
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
} as const;

export type PlanDiagnosticCode = keyof typeof PLAN_DIAGNOSTIC_CODES;

/**
 * A loader diagnostic or a plan-time one. Identical to `Diagnostic` but for the wider code type
 * (the loader's `DiagnosticCode` does not list the MF4xx block).
 */
export interface PlanDiagnostic extends Omit<Diagnostic, 'code'> {
  readonly code: DiagnosticCode | PlanDiagnosticCode;
}

/** The place `--target` problems are reported at: the command line has no file. */
export const COMMAND_LINE: SourcePosition = { file: '--target', line: 1, col: 1 };

export function createPlanDiagnostic(code: PlanDiagnosticCode, at: SourcePosition, message: string, extra: { hint?: string | undefined; related?: RelatedPosition | undefined } = {}): PlanDiagnostic {
  return {
    severity: 'error',
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

/** ` — did you mean \`x\`?` when a candidate is close, else ''. */
export function didYouMean(input: string, candidates: Iterable<string>): string {
  const guess = suggestName(input, [...candidates]);
  return guess !== undefined && guess !== input ? ` — did you mean \`${guess}\`?` : '';
}

/** File, line, column, code: the loader's order. */
export function sortPlanDiagnostics(diagnostics: readonly PlanDiagnostic[]): PlanDiagnostic[] {
  return [...diagnostics].sort((a, b) => {
    if (a.file !== b.file) return a.file < b.file ? -1 : 1;
    return a.line - b.line || a.col - b.col || (a.code < b.code ? -1 : a.code > b.code ? 1 : 0);
  });
}
