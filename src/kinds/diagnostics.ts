import { suggestName } from '../manifest/suggest.js';
import { createDiagnostic, sortDiagnostics, type Diagnostic, type DiagnosticCode, type DiagnosticExtra, type SourceRange } from '../diagnostics.js';

/**
 * Diagnostics found at plan time: the manifests are valid on their own, but do not fit the live
 * servers (a host name the server does not have, a folder that is missing), or a `--target` names
 * nothing. They are ordinary `Diagnostic`s with codes from the MF4xx block of the one code table
 * (src/diagnostics.ts), so every renderer and exit-code rule treats them alike.
 */
export type PlanDiagnostic = Diagnostic;

/** The MF4xx codes. */
export type PlanDiagnosticCode = Extract<DiagnosticCode, `MF4${string}`>;

/**
 * Plan-time problems are errors: the plan cannot be trusted with them. `at` is the place in a
 * manifest; a problem with the command line (a `--target`) has none, only its address.
 */
export function createPlanDiagnostic(code: PlanDiagnosticCode, at: SourceRange | undefined, message: string, extra: DiagnosticExtra = {}): PlanDiagnostic {
  return createDiagnostic('error', code, at, message, extra);
}

/** Something the plan works around but the user should know (it does not stop plan or apply). */
export function createPlanWarning(code: PlanDiagnosticCode, at: SourceRange | undefined, message: string, extra: DiagnosticExtra = {}): PlanDiagnostic {
  return createDiagnostic('warning', code, at, message, extra);
}

/** ` — did you mean \`x\`?` when a candidate is close, else ''. */
export function didYouMean(input: string, candidates: Iterable<string>): string {
  const guess = suggestName(input, [...candidates]);
  return guess !== undefined && guess !== input ? ` — did you mean \`${guess}\`?` : '';
}

/** Command line first, then file, line, column, code: the loader's order. */
export const sortPlanDiagnostics: (diagnostics: readonly PlanDiagnostic[]) => PlanDiagnostic[] = sortDiagnostics;
