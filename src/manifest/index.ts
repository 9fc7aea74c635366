/** The manifest layer: YAML files → checked desired state with source positions, or diagnostics. */
export { loadManifests, collectManifestFiles, readManifestFile, isManifestFileName } from './load.js';
export type { LoadOptions } from './load.js';
export { parseManifestFile, DEFAULT_PARSE_LIMITS } from './parse.js';
export type { ParsedDocument, ParsedFile, ParseLimits } from './parse.js';
export { validateParsedFiles } from './validate.js';
export type { ManifestSet } from './validate.js';
export { RULES, runRules } from './rules.js';
export type { CheckedDocument, Rule } from './rules.js';
export { DIAGNOSTIC_CODES, compareDiagnostics, countDiagnostics, createDiagnostic, hasErrors, sortDiagnostics } from './diagnostics.js';
export type { Diagnostic, DiagnosticCode, RelatedPosition, Severity, SourcePosition } from './diagnostics.js';
export { getValidator, getValidatorByFile, findSchemasDir, SCHEMA_FILES, MANIFEST_SCHEMA_FILE } from './schemas.js';
export * from './types.js';
