import { isAbsolute, relative, sep } from 'node:path';
import { isMftopsError } from '../errors.js';
import type { LiveState } from '../live/model.js';
import { hasErrors } from '../manifest/diagnostics.js';
import type { SourcePosition } from '../manifest/diagnostics.js';
import type { Manifest } from '../manifest/types.js';
import { readAndPlan } from './read-and-plan.js';
import type { ReadAndPlanInput } from './read-and-plan.js';
import { createPlanWarning, didYouMean, sortPlanDiagnostics } from '../plan/diagnostics.js';
import type { PlanDiagnostic } from '../plan/diagnostics.js';
import type { DriftIgnoreRule } from '../config/model.js';
import { PRUNABLE_KINDS } from '../kinds/registry.js';
import { unmatchedRules } from '../drift/acknowledge.js';
import { ApiError } from '../services/errors.js';
import { assembleDrift, attributeAuditRecords, auditQueriesFor, driftAddresses, withAuditFailure, withLivePolicy } from '../drift/assemble-drift.js';
import { liveSpecs } from '../import/removed-content.js';
import type { Plan } from '../plan/model.js';
import { evaluateObjectPolicies, liveObjectOf } from '../policy/evaluate.js';
import { createPolicyRunner } from './run-policy-checks.js';
import type { PolicySubject } from '../policy/evaluate.js';
import type { AuditAnswer, MissingFolder } from '../drift/assemble-drift.js';
import type { DriftReport } from '../drift/model.js';
import { DEFAULT_PRIVILEGED_ACCOUNTS } from '../config/model.js';
import type { PrivilegedAccountSettings } from '../config/model.js';
import { assessAccounts, declaredUsernames, withAccounts } from '../drift/privileged-accounts.js';
import { readAccounts } from '../live/read-accounts.js';
import { withCredentials } from '../drift/credentials.js';
import { credentialSection } from './status-credentials.js';
import { withDefined } from '../with-defined.js';

/** What readAndPlan takes, but never `--target`: drift looks at everything. */
export interface DetectDriftInput extends Omit<ReadAndPlanInput, 'targets'> {
  /**
   * Only part of the manifests was given (`PruneChoice.partial`): objects in scope that none of
   * them names are not looked for, since the others may manage them; the report says so.
   */
  readonly partial?: boolean;
  /** Where `drift.ignore[index]` of the environment is written (mftops.yaml), for the warning about one that matches nothing. */
  readonly locateIgnore?: (index: number) => SourcePosition;
  /** The clock of the keys-and-certificates section (`MFTOPS_NOW`); default `now`. */
  readonly expiryNow?: () => Date;
  /** Keys and certificates expiring within this many days are listed (`drift --expiring-within`); default 30. */
  readonly expiringWithinDays?: number;
  /** Where `privilegedAccounts.allowUnmanaged[index]` is written (mftops.yaml), for the warning about one that names no account. */
  readonly locateAllowed?: (index: number) => SourcePosition;
  /** Addresses no acknowledgement covers in this run (`drift --adopt ADDRESS`: an acknowledged object named is adopted). */
  readonly unacknowledged?: readonly string[];
}

export interface DetectDriftResult {
  /** Undefined when the manifests or the plan have errors (then show `diagnostics`). */
  readonly report?: DriftReport;
  /** Loader and plan diagnostics (warnings included), sorted by place. */
  readonly diagnostics: readonly PlanDiagnostic[];
  readonly live?: LiveState;
}

/**
 * `mftops drift` as a library call: a plan of every manifest with every kind's unmanaged objects
 * in scope, through the read-only clients, then the acknowledgements, then the audit queries for
 * the tasks and ACLs that drifted (POSTs that only read: one per kind at most). An unreadable
 * audit report is noted in the report, never an error.
 */
export async function detectDrift(input: DetectDriftInput): Promise<DetectDriftResult> {
  const env = input.environment;
  const now = input.now ?? (() => new Date());
  const { partial, unacknowledged, ...planInput } = input;
  // Every prunable kind: the plan must list the unmanaged objects of all of them, pruned or not.
  const result = await readAndPlan({ ...planInput, environment: { ...env, prune: partial === true ? [] : PRUNABLE_KINDS }, now });
  const { plan, live } = result;
  const { missingFolders, diagnostics } = separateMissingFolders(input.manifests.manifests, result.diagnostics, input.cwd ?? process.cwd());
  if (plan === undefined || live === undefined || hasErrors(diagnostics)) return { diagnostics: result.diagnostics, ...(live ? { live } : {}) };
  const ignore = env.drift?.ignore ?? [];
  let report = assembleDrift({
    plan,
    live,
    prune: env.prune,
    ignore,
    now: now(),
    missingFolders,
    ...(partial === true ? { unmanagedOmitted: 'partial-manifests' as const } : {}),
    ...withDefined({ unacknowledged }),
  });
  const policies = input.manifests.policies;
  if (policies.length > 0)
    report = withLivePolicy(report, await evaluateObjectPolicies(liveSubjects(plan, live), policies, input.cwd ?? process.cwd(), createPolicyRunner()));
  // Read only, as the plan's reads: every transfer user, the automation administrators.
  const settings = env.privilegedAccounts ?? DEFAULT_PRIVILEGED_ACCOUNTS;
  const accounts = assessAccounts({
    read: await readAccounts(input.clients, settings.automationAdminGroup, live),
    declared: declaredUsernames(input.manifests.manifests),
    settings,
    signedInAs: withDefined({ transfer: input.servers.transfer?.username, automation: input.servers.automation?.username }),
    now: now(),
    ...withDefined({ omitted: partial === true ? ('partial-manifests' as const) : undefined }),
  });
  report = withAccounts(report, accounts.report);
  const warnings = [
    ...unmatchedIgnoreWarnings(ignore, driftAddresses(plan, missingFolders), input.locateIgnore),
    ...unmatchedAllowedWarnings(settings, accounts.unmatchedAllowed, input.locateAllowed),
  ];
  const queries = auditQueriesFor(report);
  const automation = input.clients.automation;
  if (queries.length > 0 && automation !== undefined) {
    try {
      const answers: AuditAnswer[] = [];
      // One after the other: when the first is refused, so would the second be.
      for (const query of queries) answers.push({ query, records: await automation.auditReport(query) });
      report = attributeAuditRecords(report, answers);
    } catch (err) {
      if (!isMftopsError(err)) throw err;
      report = withAuditFailure(
        report,
        err instanceof ApiError ? { httpStatus: err.status, ...(err.detail ? { detail: err.detail } : {}) } : { detail: err.message },
      );
    }
  }
  if (automation !== undefined) {
    const known = withDefined({ tasks: live.automation?.tasks?.items, hosts: live.automation?.hosts?.items });
    report = withCredentials(report, await credentialSection(automation, (input.expiryNow ?? now)(), input.expiringWithinDays, known));
  }
  return { report, diagnostics: warnings.length > 0 ? sortPlanDiagnostics([...diagnostics, ...warnings]) : diagnostics, live };
}

/** Each managed object as read (a change with a manifest and a live object), in manifest form, for the policies. */
function liveSubjects(plan: Plan, live: LiveState): PolicySubject[] {
  const managed = plan.changes.filter((c) => c.source !== undefined);
  const specs = liveSpecs(managed, live);
  return managed.flatMap((c) => {
    const spec = specs.get(c.address);
    return spec === undefined
      ? []
      : [
          {
            address: c.address,
            kind: c.kind,
            name: c.name,
            object: liveObjectOf(c.kind, c.previousName ?? c.name, spec),
            ...(c.source ? { source: c.source } : {}),
          },
        ];
  });
}

/** MF413 for each `drift.ignore` entry whose address names no object of the run, at the entry. */
function unmatchedIgnoreWarnings(ignore: readonly DriftIgnoreRule[], addresses: readonly string[], locate: DetectDriftInput['locateIgnore']): PlanDiagnostic[] {
  return unmatchedRules(ignore, addresses).map((i) => {
    const { address } = ignore[i]!;
    const guess = address.includes('*') ? '' : didYouMean(address, addresses);
    return createPlanWarning('MF413', locate?.(i), `drift.ignore address \`${address}\` matches no object of this environment${guess}`, {
      hint: 'it acknowledges nothing: correct the address (Kind/name, * for any run of characters) or remove the entry',
      ...(locate === undefined ? { address } : {}),
    });
  });
}

/** MF420 for each `privilegedAccounts.allowUnmanaged` entry that names no account of the servers read, at the entry. */
function unmatchedAllowedWarnings(
  settings: PrivilegedAccountSettings,
  unmatched: readonly number[],
  locate: DetectDriftInput['locateAllowed'],
): PlanDiagnostic[] {
  return unmatched.map((i) => {
    const entry = settings.allowUnmanaged[i]!;
    const where =
      entry.service === undefined
        ? 'no transfer user and no automation administrator'
        : entry.service === 'transfer'
          ? 'no transfer user'
          : 'no automation administrator';
    return createPlanWarning('MF420', locate?.(i), `privilegedAccounts.allowUnmanaged names \`${entry.name}\`, which is ${where} of this environment`, {
      hint: 'it allows nothing: correct the name or remove the entry',
    });
  });
}

/**
 * A managed folder missing on the server is an error to plan (MF408: it cannot create it) but
 * drift to `drift`: someone deleted or renamed it. The diagnostic is matched to its manifest by
 * place (it points at `metadata.name`).
 */
function separateMissingFolders(
  manifests: readonly Manifest[],
  all: readonly PlanDiagnostic[],
  cwd: string,
): { missingFolders: MissingFolder[]; diagnostics: PlanDiagnostic[] } {
  const missingFolders: MissingFolder[] = [];
  const diagnostics: PlanDiagnostic[] = [];
  for (const d of all) {
    const m = d.code === 'MF408' ? manifests.find((x) => x.kind === 'FolderPermissions' && samePlace(x.sourceMap.locate(['metadata', 'name']), d)) : undefined;
    if (m === undefined) {
      diagnostics.push(d);
      continue;
    }
    const file = relative(cwd, m.source.file);
    const shown = file !== '' && !file.startsWith('..') && !isAbsolute(file) ? file.split(sep).join('/') : m.source.file;
    missingFolders.push({ path: m.name, reason: d.summary, source: { file: shown, line: m.source.line, col: m.source.col } });
  }
  return { missingFolders, diagnostics };
}

function samePlace(a: SourcePosition, b: PlanDiagnostic): boolean {
  return a.file === b.file && a.line === b.line && a.col === b.col;
}
