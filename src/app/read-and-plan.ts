import { compareText } from '../order.js';
import type { EnvironmentSettings, ServiceName } from '../config/model.js';
import type { LiveState } from '../live/model.js';
import { readLiveState, readUserGroupMembers } from '../live/read-live-state.js';
import type { AutomationReader, ProgressCallback, TransferReader } from '../live/read-live-state.js';
import { hasErrors } from '../manifest/diagnostics.js';
import { getValueVocabulary } from '../manifest/schemas.js';
import type { ManifestSet } from '../manifest/validate.js';
import { VERSION } from '../version.js';
import { withDefined } from '../with-defined.js';
import { liveSpecs, withRemovedContent } from '../import/removed-content.js';
import { sortPlanDiagnostics } from '../plan/diagnostics.js';
import type { PlanDiagnostic } from '../plan/diagnostics.js';
import { manifestDigest } from '../plan/manifest-digest.js';
import { formatAddress } from '../plan/model.js';
import type { AccessReport, Plan, PruneOff, ServerIdentity } from '../plan/model.js';
import { checkTransferSteps, findTransferSteps, hostnameOf } from '../plan/cross-server.js';
import type { TransferHostMatch } from '../plan/cross-server.js';
import { computePlan } from '../plan/compute-plan.js';
import { resolveDesired } from '../plan/resolve-desired.js';
import { evaluatePolicies } from '../policy/evaluate.js';
import { createPolicyRunner } from './run-policy-checks.js';
import { readPolicyKeys } from './policy-keys.js';

export interface ReadAndPlanInput {
  /** Loaded manifests (`loadManifests`); with an error among their diagnostics nothing is read. */
  readonly manifests: ManifestSet;
  /** Read-only clients: building a plan cannot write. A service without a client is not read. */
  readonly clients: { readonly automation?: AutomationReader; readonly transfer?: TransferReader };
  /** The environment, its `prune` the kinds this run prunes (`choosePrune`). */
  readonly environment: EnvironmentSettings;
  /** Why the environment's `prune` is off for this run, for the plan to say. */
  readonly pruneOff?: PruneOff;
  /** URL and account of each configured server, as configured (never credentials). */
  readonly servers: Partial<Record<ServiceName, { readonly url: string; readonly username: string }>>;
  /** Per-folder requests in flight. Default 10. */
  readonly parallelism?: number;
  /** `--target` addresses. */
  readonly targets?: readonly string[];
  /** `--rotate-passwords`: existing users are sent their manifest's password again. */
  readonly rotatePasswords?: boolean;
  readonly progress?: ProgressCallback;
  /** Working folder: manifest paths in the plan and the digest are relative to it. Default `process.cwd()`. */
  readonly cwd?: string;
  readonly toolVersion?: string;
  readonly now?: () => Date;
  /** `manifestDigest(manifests, cwd)`, when the caller already has it (apply's verification re-plan): not computed again. */
  readonly manifestDigest?: string;
}

export interface ReadAndPlanResult {
  /**
   * The plan; undefined when the manifests have errors (then the servers were not contacted).
   * When `diagnostics` holds an error the plan leaves the objects concerned out: show it, but
   * never apply or save it.
   */
  readonly plan?: Plan;
  /** Loader diagnostics (warnings included) and plan-time ones, sorted by place. */
  readonly diagnostics: readonly PlanDiagnostic[];
  /** What was read (for drift reports and tests). */
  readonly live?: LiveState;
}

/**
 * The composition root of `mftops plan`: read live state (read-only clients), resolve names to
 * ids, diff. I/O happens in `readLiveState` and in reading the manifest bytes for the digest;
 * everything else is pure.
 */
export async function readAndPlan(input: ReadAndPlanInput): Promise<ReadAndPlanResult> {
  const cwd = input.cwd ?? process.cwd();
  const loaded = input.manifests;
  if (hasErrors(loaded.diagnostics)) return { diagnostics: loaded.diagnostics };
  const env = input.environment;
  const transferUrl = input.servers.transfer?.url;
  const transferHostname = transferUrl !== undefined ? hostnameOf(transferUrl) : undefined;
  const match: TransferHostMatch = { transferHosts: env.transferHosts ?? [], ...withDefined({ transferHostname }) };
  const checking = input.clients.transfer !== undefined && (match.transferHosts.length > 0 || transferHostname !== undefined);
  // The last progress reported, for the user-group read after the plan (numbered on from it).
  let reported = { done: 0, total: 0 };
  const report = input.progress;
  const progress: ProgressCallback | undefined = report
    ? (done, total, what) => {
        reported = { done, total };
        report(done, total, what);
      }
    : undefined;
  const read = await readLiveState({
    manifests: loaded.manifests,
    ...withDefined({ automation: input.clients.automation, transfer: input.clients.transfer }),
    scope: env.scope,
    prune: env.prune,
    ...withDefined({ parallelism: input.parallelism, progress }),
    ...(checking
      ? {
          stepFolders: (automation) => {
            const steps = findTransferSteps(loaded.manifests, automation, match);
            return { paths: steps.map((s) => s.path), accounts: steps.some((s) => s.account !== undefined) };
          },
        }
      : {}),
  });
  const resolved = resolveDesired(loaded.manifests, read);
  const planInput = {
    desired: resolved.desired,
    live: read,
    environment: env.name,
    servers: serverIdentities(input.servers, read),
    manifestDigest: input.manifestDigest ?? manifestDigest(loaded, cwd),
    variables: Object.fromEntries([...loaded.variables].sort(([a], [b]) => compareText(a, b))),
    scope: env.scope,
    prune: env.prune,
    ...withDefined({ pruneOff: input.pruneOff, targets: input.targets, rotatePasswords: input.rotatePasswords }),
    toolVersion: input.toolVersion ?? VERSION,
    now: (input.now ?? (() => new Date()))(),
    cwd,
    taskVocabulary: getValueVocabulary('Task'),
  };
  const first = computePlan(planInput);
  // User-group members are read only for a plan that changes an ACL's permissions, then
  // the plan is made again (pure) with them: its access section names each member.
  const automation = input.clients.automation;
  const members =
    automation && read.automation && first.plan.access?.changes.some((c) => c.service === 'automation') ? await readUserGroupMembers(automation) : undefined;
  if (members) progress?.(reported.done + 1, Math.max(reported.done, reported.total) + 1, 'user groups');
  const live: LiveState = members && read.automation ? { ...read, automation: { ...read.automation, userGroupMembers: members } } : read;
  const planned =
    members && read.automation ? { ...first, plan: withAccess(first.plan, first.accessWith({ members, acls: read.automation.acls ?? new Map() })) } : first;
  // With --target, only the targeted tasks' steps: the plan is about them.
  const targeted = input.targets ? new Set(planned.plan.changes.map((c) => c.address)) : undefined;
  const steps = checking
    ? findTransferSteps(loaded.manifests, live.automation, match).filter((s) => targeted === undefined || targeted.has(formatAddress('Task', s.manifest.name)))
    : [];
  const cross = checkTransferSteps({ steps, live, changes: planned.plan.changes, cwd });
  const checked = withRemovedContent(cross.checks !== undefined ? { ...planned.plan, transferChecks: cross.checks } : planned.plan, live);
  // Policies see the finished plan: each change's action, its live object, and the access report
  // as made again with the user-group members.
  const plan =
    loaded.policies.length > 0
      ? {
          ...checked,
          policy: await evaluatePolicies(
            checked,
            loaded.policies,
            loaded.manifests,
            cwd,
            liveSpecs(checked.changes, live),
            createPolicyRunner(),
            await readPolicyKeys(loaded.policies, input.clients.automation, live, planInput.now, cwd),
          ),
        }
      : checked;
  return { plan, diagnostics: sortPlanDiagnostics([...loaded.diagnostics, ...resolved.diagnostics, ...planned.diagnostics, ...cross.diagnostics]), live };
}

/** The plan with another access report, in the model's key order. */
function withAccess(plan: Plan, access: AccessReport | undefined): Plan {
  const { access: _previous, transferChecks, ...rest } = plan;
  return { ...rest, ...withDefined({ access, transferChecks }) };
}

function serverIdentities(servers: ReadAndPlanInput['servers'], live: LiveState): Plan['servers'] {
  const out: Partial<Record<ServiceName, ServerIdentity>> = {};
  if (servers.automation) {
    const version = live.automation?.info?.appVersion;
    out.automation = { url: servers.automation.url, username: servers.automation.username, ...(typeof version === 'string' ? { version } : {}) };
  }
  if (servers.transfer) out.transfer = { url: servers.transfer.url, username: servers.transfer.username };
  return out;
}
