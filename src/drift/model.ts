import type { CredentialSection } from '../credentials/model.js';
import type {
  AccessReport,
  Action,
  ChangeReason,
  EntryPermissions,
  FieldWords,
  InnerWords,
  JsonValue,
  Plan,
  PolicyReport,
  Principal,
  ResourceKind,
  SourceRef,
} from '../plan/model.js';

/**
 * The drift report: what `mftops drift` found, as plain JSON data (the `--report FILE` content and
 * what every renderer draws from). It is computed by pure functions from a plan of every manifest
 * against the live servers, the live objects in the environment's `scope` that no manifest names,
 * the environment's acknowledgements (`drift.ignore`) and, for tasks and resource-group ACLs, the
 * automation server's audit report (the transfer service has none: folders are never attributed).
 *
 * Direction: a plan says what apply would do to the server (`before` = server, `after` = git); a
 * drift report says how the server moved away from git, so every difference here reads
 * `expected` (git, the old value) → `actual` (the server, the new value).
 *
 * **No secret value is ever in a report:** write-only fields cannot be compared and are left out.
 */
export interface DriftReport {
  /** Bumped on any incompatible change of this shape. */
  readonly formatVersion: typeof DRIFT_FORMAT_VERSION;
  /** Environment name from mftops.yaml. */
  readonly environment: string;
  /** ISO 8601 UTC: when the live state was compared. */
  readonly createdAt: string;
  /**
   * `in-sync`: nothing but acknowledged differences (exit 0); `drift`: anything else, a live
   * object that breaks a `deny` policy included (exit 2).
   */
  readonly status: DriftStatus;
  readonly summary: DriftSummary;
  /** Objects whose server state differs from their manifest, acknowledged parts left out. */
  readonly drifted: readonly DriftedObject[];
  /** Live objects in scope that no manifest names (every kind, pruned or not), unless acknowledged. */
  readonly unmanaged: readonly UnmanagedObject[];
  /**
   * Set when unmanaged objects were not looked for (`unmanaged` is then empty), and why:
   * `partial-manifests`, only part of the manifests was given (paths other than the environment's,
   * without `--prune`), so an object none of them names may well be managed by the others.
   */
  readonly unmanagedOmitted?: UnmanagedOmitted;
  /** Differences an `ignore` rule accepts (not drift). */
  readonly acknowledged: readonly AcknowledgedItem[];
  /** Whether the audit report could be read for the attribution of task and ACL changes. */
  readonly audit: AuditStatus;
  /**
   * Who has access on the server that git does not give, or lacks access git gives, through the
   * drifted folder entries and resource-group ACLs (acknowledged objects left out): `gained` is
   * what the server grants beyond git, `lost` what git grants that the server does not. Absent
   * when nobody's access differs.
   */
  readonly access?: AccessReport;
  /**
   * The policies that read only `object` (src/policy/evaluate.ts `isObjectPolicy`) evaluated on
   * the live state: each managed object as read, in manifest form, as `object`. A violation (or
   * evaluation error) of a `deny` policy is drift (`status: drift`); of a `warn` policy, shown
   * only. `policies` counts the policies evaluated. Absent when no policy was loaded.
   */
  readonly policy?: PolicyReport;
  /**
   * The guard on privileged accounts and the sign-on report (src/drift/privileged-accounts.ts):
   * an unmanaged privileged account is drift (`status: drift`); the sign-on report never is.
   * Absent when neither service's accounts were looked at.
   */
  readonly accounts?: AccountsReport;
  /**
   * Keys and certificates of the automation service expired or expiring within 30 days, with the
   * hosts and tasks that use each (issue 28 item 5): a report, never drift (the status and exit
   * code do not change). Absent when the server has none and every list was readable, or the
   * automation service is not configured.
   */
  readonly credentials?: CredentialSection;
  /**
   * The plan the report was computed from: every manifest, plus `delete`s for the unmanaged
   * objects of the kinds the environment prunes (exactly what `mftops plan` would show). The
   * JSON report holds its public view (`PlanJsonView`, as `mftops plan --format json` prints it).
   */
  readonly plan: Plan;
}

export const DRIFT_FORMAT_VERSION = 3;

/** Why a drift report lists no unmanaged object without having looked (see `DriftReport.unmanagedOmitted`). */
export type UnmanagedOmitted = 'partial-manifests';

export type DriftStatus = 'in-sync' | 'drift';

export interface DriftSummary {
  /** Objects the manifests name (the plan's changes that are not deletes). */
  readonly managed: number;
  /** Of those, objects with no unacknowledged difference. */
  readonly inSync: number;
  readonly drifted: number;
  readonly unmanaged: number;
  /** Acknowledged differences (items, not objects). */
  readonly acknowledged: number;
  /** Acknowledged differences whose rule has expired: they are drift again. */
  readonly expired: number;
}

/**
 * How an object drifted, from the plan's action:
 * - `changed`: fields differ (plan `update`);
 * - `missing`: the manifest names an object the server does not have (plan `create`);
 * - `replace`: a field that cannot change in place differs (plan `replace`, e.g. a task's `Group`);
 * - `blocked`: it differs but the API cannot put it back (plan `blocked`, e.g. an advanced task).
 */
export type DriftKind = 'changed' | 'missing' | 'replace' | 'blocked';

/** A managed object that is not as its manifest says. */
export interface DriftedObject {
  /** `Kind/name`, as in plans. */
  readonly address: string;
  readonly kind: ResourceKind;
  readonly name: string;
  readonly drift: DriftKind;
  /** The plan's action for it (what `mftops apply` would do). */
  readonly action: Action;
  /** The plan's reason, when it gives one (why blocked, why a replace): a code, rendered by `describeReason`. */
  readonly reason?: ChangeReason;
  /**
   * A managed folder the server does not have and the plan cannot create: the plan-time error
   * (its diagnostic's message) that keeps apply from bringing it back.
   */
  readonly problem?: string;
  /** Server id, when the object exists. */
  readonly liveId?: string;
  /** Where the manifest declares it. */
  readonly source?: SourceRef;
  /** Field differences not acknowledged, in manifest order. Empty for `missing`. */
  readonly fields: readonly DriftedField[];
  /** Folder ACL entries that differ and are not acknowledged (FolderPermissions only). */
  readonly entries: readonly DriftedEntry[];
  /** Set when an expired acknowledgement covered the whole object (missing objects). */
  readonly expired?: ExpiredAcknowledgement;
  /** Tasks and resource-group ACLs: the latest change the audit report shows for it. */
  readonly lastChange?: AuditAttribution;
}

/** One field that differs: git says `expected`, the server has `actual`. */
export interface DriftedField {
  /** Display path relative to the spec: `Info.Description`, `Schedules.Schedule[0].Frequency.Interval[0].StartTime`. */
  readonly path: string;
  /** The manifest's value (the old one); absent when the server has an item the manifest lacks. */
  readonly expected?: JsonValue;
  /** The server's value (the new one); absent when the server lacks the field or item. */
  readonly actual?: JsonValue;
  /** The difference needs a replace to be undone (a task's `Group`). */
  readonly forcesReplace?: boolean;
  /** The values in words (see `FieldWords`): an enumerated code's meaning, a flag as true/false. */
  readonly words?: { readonly form: FieldWords['form']; readonly expected?: string; readonly actual?: string };
  /** Words of the values inside an object or list value, per side (see `InnerWords`). */
  readonly innerWords?: { readonly expected?: readonly InnerWords[]; readonly actual?: readonly InnerWords[] };
  /** An acknowledgement covered this field but has expired. */
  readonly expired?: ExpiredAcknowledgement;
}

/**
 * One folder ACL entry that differs. `missing`: git lists it, the server does not have it;
 * `changed`: permissions differ; `extra`: the server has it and an `exact` manifest does not list
 * it; `blocked`: it differs but the server does not let it be changed (not editable).
 */
export interface DriftedEntry {
  /** `entries.group:Acme Partners`, `entries.user:alice`: the path ignore rules match. */
  readonly path: string;
  readonly principal: Principal;
  readonly drift: 'missing' | 'changed' | 'extra' | 'blocked';
  /** Permission names granted, per the manifest; absent for `extra`. */
  readonly expected?: EntryGrant;
  /** Permission names granted on the server; absent for `missing`. */
  readonly actual?: EntryGrant;
  readonly expired?: ExpiredAcknowledgement;
}

/** Permission names granted to one folder entry: the plan's own shape. */
export type EntryGrant = EntryPermissions;

/** A live object in scope that no manifest names. */
export interface UnmanagedObject {
  /** `Task/<name>`, `ResourceGroupAcl/<resourceGroup>/<userGroup>`, `FolderPermissions/<path>`. */
  readonly address: string;
  readonly kind: ResourceKind;
  readonly name: string;
  readonly liveId?: string;
  /** The environment prunes this kind: `mftops apply --allow-delete` would delete it. */
  readonly pruned: boolean;
  readonly detail: UnmanagedDetail;
  readonly expired?: ExpiredAcknowledgement;
  /** Tasks and resource-group ACLs: the latest change the audit report shows for it (who created it, typically). */
  readonly lastChange?: AuditAttribution;
}

/** What an unmanaged object is, in a line (each kind's: `KindDefinition.unmanagedDetail`). */
export type { UnmanagedDetail } from '../kinds/kind.js';
import type { UnmanagedDetail } from '../kinds/kind.js';

/** A difference an `ignore` rule accepts. */
export interface AcknowledgedItem {
  readonly address: string;
  /**
   * What is acknowledged: a field path, an entry path, or `missing` / `unmanaged` for a whole
   * object.
   */
  readonly what: string;
  readonly expected?: JsonValue;
  readonly actual?: JsonValue;
  readonly rule: AcknowledgementRule;
}

/** The `drift.ignore` rule behind an acknowledgement, as written. */
export interface AcknowledgementRule {
  readonly address: string;
  readonly path?: string;
  readonly until?: string;
  readonly reason?: string;
  /** `mftops.yaml:LINE:COL`. */
  readonly where: string;
}

/** A rule that would have acknowledged a difference, had it not expired. */
export interface ExpiredAcknowledgement {
  /** The rule's `until`: the last day it held. */
  readonly until: string;
  readonly reason?: string;
  readonly where: string;
}

/** The latest change of a task or resource-group ACL according to the automation server's audit report. */
export interface AuditAttribution {
  readonly user: string;
  /** ISO date-time as the server logged it. */
  readonly time: string;
  /** The audit action (`Edit`, `Add`, `Delete`, …). */
  readonly action: string;
}

/**
 * - `not-needed`: no drifted or unmanaged task or ACL the report could name, so the audit report
 *   was not asked for;
 * - `read`: asked once per kind that needed it (`queries`, in the order sent); `records` is how
 *   many records came back in all;
 * - `unreadable`: the account may not read it (403), the server has no such report (404), or a
 *   request failed; the run still completes, without attribution for any kind.
 */
export type AuditStatus =
  | { readonly state: 'not-needed' }
  | { readonly state: 'read'; readonly records: number; readonly queries: readonly AuditQueryUsed[] }
  | { readonly state: 'unreadable'; readonly httpStatus?: number; readonly message: string };

/** The kinds the audit report can attribute: the automation server's objects (defined with the kinds). */
export type { AuditedKind } from '../kinds/kind.js';
import type { AuditedKind } from '../kinds/kind.js';

/**
 * An audit query a drift run sends (POST /reports/audit is a read): at most one per audited kind.
 * The report's RSQL joins clauses with `;` (AND) only, so one predicate cannot ask for task and
 * ACL records at once without asking for every record type.
 */
export interface AuditQueryUsed {
  /** Whose records it asks for; not sent. */
  readonly for: AuditedKind;
  readonly predicate: string;
  readonly orderBy: string;
  readonly maxCount: number;
}

/** Exit code of `mftops drift` for a report: 0 in sync, 2 drift. */
export function driftExitCode(report: DriftReport): 0 | 2 {
  switch (report.status) {
    case 'in-sync':
      return 0;
    case 'drift':
      return 2;
    default: {
      const never: never = report.status;
      throw new Error(`unknown drift status ${String(never)}`);
    }
  }
}

/** The services whose accounts the guard reads. */
export type AccountService = 'transfer' | 'automation';

/**
 * Privileged accounts and sign-on dates (issue 26): a transfer user whose `permission` is `Admin`,
 * `SysAdmin` or `FileAdmin`, or a member of the automation server's administrators user group, is
 * privileged; one that no `User` manifest declares, that `privilegedAccounts.allowUnmanaged` does
 * not allow and that mftops does not sign in with is drift, whether users are managed or not.
 */
export interface AccountsReport {
  /** Unmanaged privileged accounts (drift), by service then username. */
  readonly privileged: readonly PrivilegedAccount[];
  /** Privileged accounts that exist unmanaged because they are allowed (not drift). */
  readonly allowed: readonly AllowedPrivilegedAccount[];
  /**
   * Set when privileged accounts were not judged (`privileged` and `allowed` are then empty):
   * `partial-manifests`, only part of the manifests was given, so a `User` manifest among the
   * others may declare them.
   */
  readonly omitted?: UnmanagedOmitted;
  /** What was read, per configured service: how many accounts were looked at, or why none were. */
  readonly checks: { readonly transfer?: AccountCheck; readonly automation?: AccountCheck };
  /** The transfer accounts that never signed on or not for a long time; absent when the users were not read. */
  readonly signOn?: SignOnReport;
}

/**
 * - `checked`: `accounts` accounts were looked at (transfer users; automation administrators);
 * - `not-checked`: the list could not be read (`message` says why: a 403, a missing group).
 */
export type AccountCheck =
  | { readonly state: 'checked'; readonly accounts: number }
  | { readonly state: 'not-checked'; readonly httpStatus?: number; readonly message: string };

/** A privileged account no manifest declares and nothing allows. */
export interface PrivilegedAccount {
  readonly service: AccountService;
  readonly username: string;
  /** Transfer: the `permission` (`Admin`, `SysAdmin`, `FileAdmin`); automation: the administrators user group's name. */
  readonly role: string;
  /** Transfer: the user's id. */
  readonly liveId?: string;
  readonly creator: AccountCreator;
}

/**
 * Who created the account. `unknown`: `no-audit-record`, the transfer API has no audit record to
 * ask; `not-asked`, the automation audit report does not say how it records user-group changes.
 */
export type AccountCreator = { readonly state: 'unknown'; readonly why: 'no-audit-record' | 'not-asked' };

/** A privileged account that may exist unmanaged. */
export interface AllowedPrivilegedAccount {
  readonly service: AccountService;
  readonly username: string;
  readonly role: string;
  /** `config`: an `allowUnmanaged` entry (`where`, `reason`); `sign-in`: the account mftops signs in with. */
  readonly by: 'config' | 'sign-in';
  readonly reason?: string;
  /** `mftops.yaml:LINE:COL` of the entry. */
  readonly where?: string;
}

/**
 * Transfer accounts by last sign-on (`lastLoginStamp`), a report and never drift. Templates
 * (`status: Template`) are left out: nobody signs on with them.
 */
export interface SignOnReport {
  /** False when no user record had a `lastLoginStamp` (a server that does not send it): then nothing is listed. */
  readonly available: boolean;
  /** The setting the report was made with; 0: stale sign-ons are not listed. */
  readonly staleSignOnDays: number;
  /** Accounts that never signed on. */
  readonly never: readonly SignOnAccount[];
  /** Accounts whose last sign-on is more than `staleSignOnDays` days old, oldest first. */
  readonly stale: readonly SignOnAccount[];
  /** Accounts whose `lastLoginStamp` is no date mftops can read (`stamp`). */
  readonly unknown: readonly SignOnAccount[];
}

export interface SignOnAccount {
  readonly username: string;
  readonly permission?: string;
  /** Shown when not `Active`. */
  readonly status?: string;
  /** ISO 8601 UTC: the last sign-on (stale accounts). */
  readonly lastSignOn?: string;
  /** Whole days since `lastSignOn`. */
  readonly days?: number;
  /** The `lastLoginStamp` as sent, when it is no date. */
  readonly stamp?: string;
}
