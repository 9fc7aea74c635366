/**
 * The manifest loader's diagnostics: values it returns, never exceptions. Each points at a place
 * in a file (a path that cannot be read: at the file alone). The model, the code table (MF0xx to
 * MF3xx are the loader's) and the helpers are those of every stage, in src/diagnostics.ts; the
 * loader's modules take them from here.
 */
export { compareDiagnostics, countDiagnostics, createDiagnostic, DIAGNOSTIC_CODES, hasErrors, placeOf, sortDiagnostics } from '../diagnostics.js';
export type { Diagnostic, DiagnosticCode, DiagnosticExtra, RelatedPosition, Severity, SourcePosition, SourceRange } from '../diagnostics.js';
