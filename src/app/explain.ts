import { DIAGNOSTIC_EXPLANATIONS } from '../diagnostic-catalogue.js';
import { DIAGNOSTIC_CODES, type DiagnosticCode } from '../diagnostics.js';
import { suggestName } from '../manifest/suggest.js';
import type { ExplainedCode, ExplainReport } from '../render/explain.js';
import { withDefined } from '../with-defined.js';

export interface ExplainOptions {
  /** A code (`MF201`, `mf201`, `201`) or a code's name (`unknown-field`); none: every code. */
  readonly code?: string;
}

/** What a diagnostic code means, from the catalogue in src/diagnostic-catalogue.ts; no I/O. */
export function explainCode(options: ExplainOptions): ExplainReport {
  const codes = (Object.keys(DIAGNOSTIC_CODES) as DiagnosticCode[]).map(explained);
  if (options.code === undefined || options.code.trim() === '') return { status: 'list', codes };
  const query = options.code.trim();
  const wanted = /^(?:mf)?\d{3}$/i.test(query) ? `MF${query.slice(-3)}` : query.toLowerCase();
  const found = codes.find((c) => c.code === wanted || c.name === wanted);
  if (found) return { status: 'found', code: found };
  const suggestion = suggestName(wanted, [...codes.map((c) => c.code), ...codes.map((c) => c.name)]);
  return { status: 'unknown', query, ...withDefined({ suggestion }) };
}

function explained(code: DiagnosticCode): ExplainedCode {
  return { code, name: DIAGNOSTIC_CODES[code], explanation: DIAGNOSTIC_EXPLANATIONS[code] };
}
