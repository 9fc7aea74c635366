// The plan-time diagnostics moved down to src/kinds/diagnostics.ts, which the kinds' resolve and planning use.
export { createPlanDiagnostic, createPlanWarning, didYouMean, sortPlanDiagnostics } from '../kinds/diagnostics.js';
export type { PlanDiagnostic, PlanDiagnosticCode } from '../kinds/diagnostics.js';
