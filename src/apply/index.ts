/**
 * `mftops apply` as a library (DESIGN.md §5): the stale-plan guard, the ordered executor with its
 * ledger, and verification. The CLI (src/cli/commands/apply.ts) wires configuration, clients,
 * the snapshot store and rendering around `applyPlan`.
 */
export { applyPlan, LEDGER_FILE, touchedFolders } from './apply-plan.js';
export type { AppliedChange, ApplyPhase, ApplyPlanInput } from './apply-plan.js';
export { executeChanges } from './execute.js';
export type { ExecuteInput, ExecuteResult, StepRetryOptions } from './execute.js';
export { blockedChanges, checkPermissions, checkPlanTarget, DEFAULT_MAX_DELETES, writeChanges } from './guard.js';
export type { ApplyPermissions } from './guard.js';
export { memoryLedger, openLedger } from './ledger.js';
export type { LedgerEntry, LedgerWriter } from './ledger.js';
export { holdsSent } from '../kinds/task/io-match.js';
export * from './model.js';
export { StepError } from './operations.js';
export type { AutomationWriter, Confirmation, StepContext, TransferWriter, WriteClients } from './operations.js';
export { describeSecretProblems, findSecretProblems, redactSecrets, resolveChangeSecrets } from './secrets.js';
export type { ResolvedSecrets, SecretContext, SecretProblem, SecretResolution } from './secrets.js';
export { findStaleObjects, readTouchedObjects } from './stale-check.js';
export type { StaleCheckReaders, TouchedObjects } from './stale-check.js';
export { planSteps } from './steps.js';
export type { EntryRef, EntrySet, Step, StepOp } from './steps.js';
export { findUnconverged, verifyPayloads } from './verify.js';
