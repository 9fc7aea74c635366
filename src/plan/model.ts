import type { PrunableKind, ServiceName } from '../config/model.js';
import type { PolicySeverity, VarValue } from '../manifest/types.js';
import type { Action, Change, Principal, SourceRef } from '../resources/model.js';
import type { PlanCalendar } from '../schedule/plan-calendar.js';
export type { ResourceKind } from '../kinds/kind.js';
export { formatAddress, parseAddress } from '../kinds/address.js';
import { isPathNamed } from '../kinds/address.js';
export type {
  Action,
  Change,
  SourceRef,
  ChangeReason,
  EntryChange,
  EntryReason,
  ReasonCode,
  EntryPermissions,
  FieldChange,
  FieldWords,
  InnerWords,
  RefNames,
  FolderPermissionsPayload,
  GroupPayload,
  JsonObject,
  JsonValue,
  Payload,
  Principal,
  RefKind,
  NameKind,
  ResolvedName,
  ResourceGroupAclPayload,
  TaskPayload,
  ValueMarker,
} from '../resources/model.js';
export { ACTIONS, readMarker } from '../resources/model.js';

/**
 * The plan: what `mftops plan` computed and `mftops apply` executes, as plain data. Like
 * Terraform's `plans.Plan`, it is computed by a pure function of (desired state, live state) and
 * carries everything apply needs, so apply never re-derives intent from manifests — its order
 * included. This is the in-memory model; it reaches the world in two forms of its own:
 * - the plan file (`--out`, src/plan/plan-file.ts): `PlanFile`, format 3, described by
 *   `schemas/plan.schema.json`, read back only by mftops (payloads and fingerprints included);
 * - the `--format json` view (src/render/plan-json.ts): `PlanJsonView`, a public shape with its
 *   own `formatVersion`, for scripts.
 *
 * **No secret value is ever in a plan.** Write-only fields appear as `sensitive` field changes
 * without values (or `$sensitive` markers inside a value), and `payload`s hold secrets as
 * `${env:}`/`${file:}` reference text that apply resolves, all of it, before its first write.
 */
export interface Plan {
  /** mftops version that made the plan. */
  readonly toolVersion: string;
  /** ISO 8601 UTC. */
  readonly createdAt: string;
  /** Environment name from mftops.yaml; apply refuses a plan for another environment. */
  readonly environment: string;
  /** The servers the live state was read from; apply refuses a plan made against other servers. */
  readonly servers: Readonly<Partial<Record<ServiceName, ServerIdentity>>>;
  /** sha256 over the manifest files (paths and bytes) the plan was computed from. */
  readonly manifestDigest: string;
  /**
   * The variables the manifests used (`${var:NAME}` → value from mftops.yaml), by name; absent
   * when they used none. Variables are not secrets by definition (secrets are `${env:}`/`${file:}`
   * references, which a variable may not hold), so they may be recorded and shown.
   */
  readonly variables?: Readonly<Record<string, VarValue>>;
  /** `--target` addresses, when the plan was limited to them. */
  readonly targets?: readonly string[];
  /** Set when the environment configures `prune` but this plan pruned nothing, and why. */
  readonly pruneOff?: PruneOff;
  /**
   * Plan-time errors (a name the servers do not know, a folder that cannot be created, a
   * `--target` that names nothing) left objects out: the plan may be shown, never saved or
   * applied. The diagnostics that say why travel beside the plan, not in it.
   */
  readonly errored: boolean;
  /** Not `errored`, and some change writes (create, update, replace, delete): apply has something to do. */
  readonly applyable: boolean;
  /**
   * Every managed object, in execution order (dependencies first, deletes last), no-ops included.
   * The order is computed once, by the planner (`scheduleChanges`): each write change carries its
   * `wave` and what it `needs`, and apply follows them as given.
   */
  readonly changes: readonly Change[];
  /** Counts per action; derived from `changes`, kept for readers of the file. */
  readonly summary: PlanSummary;
  /**
   * Who gains or loses what through the plan's permission changes (folder entries, resource-group
   * ACLs); absent when no change grants or removes anything. Optional: plan files of format 2
   * written before it stay readable.
   */
  readonly access?: AccessReport;
  /**
   * The cross-server checks of task steps on transfer hosts (`transferHosts`); absent when no
   * step ran on one. Warnings, never a reason to refuse the plan.
   */
  readonly transferChecks?: TransferStepChecks;
  /**
   * The policy checks (issue 17, src/policy/evaluate.ts); absent when no policy was loaded. A plan
   * with a `deny` violation is never saved, so a plan file holds `warn` violations only.
   */
  readonly policy?: PolicyReport;
  /** Next runs of the tasks it writes, and the change windows now (issue 28, src/schedule/plan-calendar.ts). */
  readonly calendar?: PlanCalendar;
}

/**
 * One policy check that did not pass on one change of a plan (issue 17): a validation that
 * evaluated to `false` (`outcome: 'violated'`), or one that could not be evaluated to a boolean
 * (`outcome: 'error'`: an evaluation error, a value of another type, an input too large); an
 * error is never a pass. Plain data: it travels in the plan (`Plan.policy`), the plan file and
 * the JSON view.
 */
export interface PolicyViolation {
  /** `metadata.name` of the policy. */
  readonly policy: string;
  /** The policy's: any `deny` stops plan (exit 1, no plan file); `warn` is shown only. */
  readonly severity: PolicySeverity;
  readonly outcome: 'violated' | 'error';
  /** The validation's `message`; for an error, what went wrong. */
  readonly message: string;
  /** The change checked, `Kind/name`. */
  readonly address: string;
  /** Where the object is declared (absent for the delete of an object no manifest declares). */
  readonly source?: SourceRef;
  /** Where the validation's expression is written. */
  readonly expressionSource: SourceRef;
}

/** The policy checks of a plan; absent from a plan when no policy was loaded. */
export interface PolicyReport {
  /** Policies evaluated (every loaded one, matching changes or not). */
  readonly policies: number;
  /** In plan order, then policy name and validation order. */
  readonly violations: readonly PolicyViolation[];
}

/**
 * The effective access changes of a plan (issue 16, src/plan/access-changes.ts): for each folder
 * a write changes, every user whose permissions there differ before and after, through the
 * user's own entry and the entries of the user's groups; for each resource group an ACL change
 * touches, likewise through the user's user groups (members from `GET /usergroups`), or the user
 * group itself when its members could not be read.
 */
export interface AccessReport {
  /** Users first (by name), then groups whose members are not known; per target in plan order. */
  readonly changes: readonly AccessChange[];
  /**
   * Transfer groups whose entries change but whose members could not be read (the server lists
   * them in no form, or the account may not): their change is shown per group instead.
   */
  readonly membersUnknown: readonly string[];
  /**
   * Automation user groups whose ACL changes but whose members could not be read (the account is
   * not an administrator, the server has no user-group list or lists no members): shown per user
   * group instead. Absent when members were not read, or were read for every group concerned.
   */
  readonly userGroupsUnknown?: readonly string[];
  /**
   * Set when the plan changes the members of a group (issue 26): the folders whose entries were
   * checked for what the groups grant are the ones the plan read (`foldersRead`: the folders the
   * manifests name, their parents, and the scope's when pruning), so the groups may also hold
   * entries on other folders, where the same members gain or lose too. Absent otherwise.
   */
  readonly membershipScope?: MembershipScope;
}

/** What an access report could not see of the membership changes of a plan: folders it did not read. */
export interface MembershipScope {
  /** The groups whose members the plan changes, in plan order. */
  readonly groups: readonly string[];
  /** The folders read (and so checked), whether or not they grant the groups anything. */
  readonly foldersRead: number;
}

/**
 * One principal's access change on one object. `who` is a user; or a group whose members are
 * not known (a transfer group of `membersUnknown`, an automation user group), for which the
 * change is the group's own.
 */
export interface AccessChange {
  /** The address of the change it comes from (`FolderPermissions/A/B`, `ResourceGroupAcl/x`). */
  readonly address: string;
  readonly who: Principal;
  readonly service: ServiceName;
  /** The folder path (transfer) or the resource group (automation). */
  readonly target: string;
  /** Permissions granted after and not before, in canonical order. */
  readonly gained: readonly string[];
  /** Permissions granted before and not after, in canonical order. */
  readonly lost: readonly string[];
  /** The entries through which `gained` are granted and `lost` were: the user's own, then groups. */
  readonly via: readonly Principal[];
  /** Some access before, none after: the principal is removed from the object. */
  readonly removed: boolean;
  /** Gained permissions a reviewer must look at: `admin`, `deleteFiles`, `share` (folders), `TaskAddEditDelete`, `HostAddEditDelete`, `ScriptAddEditDelete` (resource groups). */
  readonly flagged: readonly string[];
  /**
   * The groups whose membership change in this plan the change comes through (the user joins
   * them, for what is gained, or leaves them, for what is lost), as the plan names them; `address`
   * is then the first one's change. Absent when it comes from entries or ACLs alone.
   */
  readonly memberships?: readonly string[];
}

/**
 * The checks of the task steps that run on an automation host pointing at this environment's
 * transfer service (`automation.transferHosts` in mftops.yaml, or a host whose `Host` is the
 * transfer URL's hostname), against the transfer server as it will be once the plan is applied:
 * the step's `Path` exists (or the plan creates it), and the account (the step's `Username`, else
 * the host's `DefUsername`) has the rights the step needs, through its own entry and its groups'.
 */
export interface TransferStepChecks {
  /** Steps checked. */
  readonly checked: number;
  /** What failed, in manifest order; each is also a warning (MF415, MF416). */
  readonly problems: readonly TransferStepProblem[];
  /** Set when no account could be checked: `users-unreadable`, the transfer account may not list users. */
  readonly rightsUnchecked?: 'users-unreadable';
  /**
   * Set when a problem may be wrong: `membership-unreadable`, the transfer server did not tell
   * who is in a group whose entry grants what a step lacks (T-16).
   */
  readonly groupsUncounted?: 'membership-unreadable';
}

/**
 * - `missing-folder`: the folder does not exist on the transfer server and the plan does not create it;
 * - `unknown-account`: the account is not a user of the transfer server (or the step has none);
 * - `missing-rights`: the account lacks some of the permissions the step needs (`missing`).
 */
export type TransferStepProblemKind = 'missing-folder' | 'unknown-account' | 'missing-rights';

/** One step that would fail on the transfer server. */
export interface TransferStepProblem {
  readonly problem: TransferStepProblemKind;
  /** `Task/name` of the task. */
  readonly address: string;
  /** Index of the step in the manifest's `spec.steps` (0-based). */
  readonly step: number;
  readonly stepKind: 'Source' | 'Destination';
  /** The automation host's name. */
  readonly host: string;
  /** The folder on the transfer server, as the step names it. */
  readonly path: string;
  /** The account checked; absent when neither the step nor the host has one. */
  readonly account?: string;
  /** Permissions the step needs that the account does not have (every one for `unknown-account`). */
  readonly missing?: readonly string[];
  /** The step's `Path` in its manifest. */
  readonly source?: SourceRef;
}

/**
 * Why a plan deletes no unmanaged object although its environment lists kinds under `prune`:
 * - `partial-manifests`: manifest paths were given (the command line's, the Action's `paths`) that
 *   are not the environment's own: objects none of them names may be managed by the others, so
 *   pruning them would delete what other manifests manage. `--prune` (the Action's `prune: true`)
 *   prunes anyway.
 * - `disabled`: `--no-prune` (the Action's `prune: false`) turned prune off for the run.
 */
export interface PruneOff {
  readonly reason: 'partial-manifests' | 'disabled';
  /** The kinds the environment prunes (its `prune`), none of which this plan deletes. */
  readonly kinds: readonly PrunableKind[];
}

export interface ServerIdentity {
  /** Base URL as configured (no credentials ever). */
  readonly url: string;
  /** Application version the server reported, when it reports one. */
  readonly version?: string;
  /** Account the plan was read with. */
  readonly username: string;
}

export interface PlanSummary {
  readonly create: number;
  readonly update: number;
  readonly replace: number;
  readonly delete: number;
  readonly 'no-op': number;
  readonly blocked: number;
}

/**
 * A folder change that makes its path exist: a create, or a rename (`previousName`). A change to a
 * folder below that path must wait for it.
 */
export function establishesFolderPath(change: Change): boolean {
  return isPathNamed(change.kind) && (change.action === 'create' || (change.action === 'update' && change.previousName !== undefined));
}

/** The actions apply sends requests for; `no-op` and `blocked` never reach the executor. */
export type WriteAction = Extract<Action, 'create' | 'update' | 'replace' | 'delete'>;

export function isWriteAction(action: Action): action is WriteAction {
  return action === 'create' || action === 'update' || action === 'replace' || action === 'delete';
}

/** `applyable` of a plan with these changes. */
export function isApplyable(errored: boolean, changes: readonly Change[]): boolean {
  return !errored && changes.some((c) => isWriteAction(c.action));
}

/** What a plan says about itself, apart from what follows from its changes. */
export type PlanHeader = Omit<Plan, 'errored' | 'applyable' | 'changes' | 'summary' | 'access'>;

/** Counts per action. */
export function summarize(changes: readonly Change[]): PlanSummary {
  const counts = { create: 0, update: 0, replace: 0, delete: 0, 'no-op': 0, blocked: 0 };
  for (const c of changes) counts[c.action]++;
  return counts;
}

/** A plan changes something when any change is not a no-op (blocked ones count: they need a person). */
export function hasChanges(plan: Plan): boolean {
  return plan.changes.some((c) => c.action !== 'no-op');
}
