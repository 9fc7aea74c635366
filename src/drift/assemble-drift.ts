import type { DriftIgnoreRule, PrunableKind } from '../config/model.js';
import type { LiveState } from '../live/model.js';
import { MANIFEST_KINDS } from '../manifest/types.js';
import { assemblePlan } from '../plan/assemble-plan.js';
import { FLAGGED_ACL_GRANTS, FLAGGED_GRANTS } from '../plan/access-changes.js';
import { EVERY_KIND, kindOf } from '../kinds/registry.js';
import type { KindAudit } from '../kinds/kind.js';
import { formatAddress } from '../plan/model.js';
import type { AccessReport, Change, EntryChange, FieldChange, Plan, PolicyReport, SourceRef } from '../plan/model.js';
import type { AuditRecord } from '../services/automation/types.js';
import { expiredOf, judgeDifference, normalizeAddress, ruleOf } from './acknowledge.js';
import type { DifferenceRef } from './acknowledge.js';
import { DRIFT_FORMAT_VERSION } from './model.js';
import { compareText } from '../order.js';
import type {
  AcknowledgedItem,
  AuditAttribution,
  AuditedKind,
  AuditQueryUsed,
  AuditStatus,
  DriftedEntry,
  DriftedField,
  DriftedObject,
  DriftKind,
  DriftReport,
  UnmanagedDetail,
  UnmanagedObject,
  UnmanagedOmitted,
} from './model.js';

export interface AssembleDriftInput {
  /**
   * A plan computed with **every** kind pruned, so that it holds a `delete` for each unmanaged
   * object in scope; this function keeps those deletes in the report's plan only for the kinds
   * the environment really prunes.
   */
  readonly plan: Plan;
  /** The live state the plan was computed from (for what unmanaged objects are). */
  readonly live: LiveState;
  /** What this run prunes: the environment's `prune`, unless the run turned it off. */
  readonly prune: readonly PrunableKind[];
  readonly ignore: readonly DriftIgnoreRule[];
  /** The clock acknowledgements expire by. */
  readonly now: Date;
  /**
   * Managed folders the server does not have and the plan cannot create (no `createIfMissing`):
   * plan reports them as errors, drift as objects missing on the server.
   */
  readonly missingFolders?: readonly MissingFolder[];
  /** Unmanaged objects were not looked for (the plan has no delete), and why. */
  readonly unmanagedOmitted?: UnmanagedOmitted;
  /**
   * Addresses (as a user names them: any of an object's addresses) that no acknowledgement
   * covers in this report: `drift --adopt ADDRESS` of an acknowledged object adopts its
   * differences, so it must see them.
   */
  readonly unacknowledged?: readonly string[];
}

export interface MissingFolder {
  readonly path: string;
  /** Why apply cannot bring it back (the plan's message). */
  readonly reason: string;
  readonly source?: SourceRef;
}

/**
 * The drift report of a plan (pure): differences split into drift and acknowledged, unmanaged
 * objects listed for every kind. The audit is `not-needed` here; `attributeAuditRecords` or
 * `withAuditFailure` fill it in.
 */
export function assembleDrift(input: AssembleDriftInput): DriftReport {
  const { now } = input;
  const lifted = new Set((input.unacknowledged ?? []).map(liftedKey));
  // An object named in `unacknowledged` is judged by no rule; every other by all of them.
  const rulesFor = (addresses: readonly string[]): readonly DriftIgnoreRule[] => (addresses.some((a) => lifted.has(liftedKey(a))) ? [] : input.ignore);
  const acknowledged: AcknowledgedItem[] = [];
  const drifted: DriftedObject[] = [];
  const unmanaged: UnmanagedObject[] = [];
  const kept: Change[] = [];

  for (const change of input.plan.changes) {
    if (isUnmanaged(change)) {
      const pruned = input.prune.includes(change.kind);
      if (pruned) kept.push(change);
      const addresses = [change.address];
      const verdict = judgeDifference(rulesFor(addresses), { addresses }, now);
      if (verdict.active) {
        acknowledged.push({ address: change.address, what: 'unmanaged', rule: ruleOf(verdict.active) });
        continue;
      }
      unmanaged.push({
        address: change.address,
        kind: change.kind,
        name: change.name,
        ...(change.liveId !== undefined ? { liveId: change.liveId } : {}),
        pruned,
        detail: unmanagedDetail(change, input.live),
        ...(verdict.expired ? { expired: expiredOf(verdict.expired) } : {}),
      });
      continue;
    }
    kept.push(change);
    if (change.action === 'no-op') continue;
    const object = driftOf(change, rulesFor(addressesOf(change)), now, acknowledged);
    if (object) drifted.push(object);
  }

  for (const f of input.missingFolders ?? []) {
    const address = formatAddress('FolderPermissions', f.path);
    const verdict = judgeDifference(rulesFor([address]), { addresses: [address] }, now);
    if (verdict.active) {
      acknowledged.push({ address, what: 'missing', rule: ruleOf(verdict.active) });
      continue;
    }
    drifted.push({
      address,
      kind: 'FolderPermissions',
      name: f.path,
      drift: 'missing',
      action: 'blocked',
      problem: f.reason,
      ...(f.source ? { source: f.source } : {}),
      fields: [],
      entries: [],
      ...(verdict.expired ? { expired: expiredOf(verdict.expired) } : {}),
    });
  }

  const keptAccess = accessOfChanges(input.plan.access, kept);
  const plan = assemblePlan(input.plan, kept, input.plan.errored, keptAccess);
  const driftedAddresses = new Set(drifted.map((d) => d.address));
  const access = accessOfChanges(
    keptAccess,
    kept.filter((c) => driftedAddresses.has(c.address)),
  );
  const managed = kept.filter((c) => !isUnmanaged(c)).length + (input.missingFolders?.length ?? 0);
  unmanaged.sort((a, b) => kindRank(a) - kindRank(b) || compareText(a.address.toLowerCase(), b.address.toLowerCase()));
  const expired =
    drifted.reduce((n, d) => n + (d.expired ? 1 : 0) + d.fields.filter((f) => f.expired).length + d.entries.filter((e) => e.expired).length, 0) +
    unmanaged.filter((u) => u.expired).length;
  return {
    formatVersion: DRIFT_FORMAT_VERSION,
    environment: plan.environment,
    createdAt: plan.createdAt,
    status: drifted.length > 0 || unmanaged.length > 0 ? 'drift' : 'in-sync',
    summary: { managed, inSync: managed - drifted.length, drifted: drifted.length, unmanaged: unmanaged.length, acknowledged: acknowledged.length, expired },
    drifted,
    unmanaged,
    ...(input.unmanagedOmitted !== undefined ? { unmanagedOmitted: input.unmanagedOmitted } : {}),
    acknowledged,
    audit: { state: 'not-needed' },
    ...(access !== undefined ? { access: serverSideAccess(access) } : {}),
    plan,
  };
}

/** The part of a plan's access report that comes from these changes, or undefined when none does. */
function accessOfChanges(report: AccessReport | undefined, changes: readonly Change[]): AccessReport | undefined {
  if (report === undefined) return undefined;
  const addresses = new Set(changes.map((c) => c.address));
  const kept = report.changes.filter((c) => addresses.has(c.address));
  if (kept.length === 0) return undefined;
  const groups = new Set(kept.filter((c) => c.who.type === 'Group').map((c) => c.who.name));
  const userGroupsUnknown = report.userGroupsUnknown?.filter((g) => groups.has(g)) ?? [];
  return { changes: kept, membersUnknown: report.membersUnknown.filter((g) => groups.has(g)), ...(userGroupsUnknown.length > 0 ? { userGroupsUnknown } : {}) };
}

/**
 * A plan's access report read the drift way: the plan goes from the server to git, drift from git
 * to the server, so what apply would grant is what the server lacks. `removed` and `flagged` are
 * reread for that direction: no access left on the server; `admin`, `deleteFiles`, `share` the
 * server grants beyond git.
 */
function serverSideAccess(report: AccessReport): AccessReport {
  return {
    ...report,
    changes: report.changes.map((c) => ({
      ...c,
      gained: c.lost,
      lost: c.gained,
      removed: false,
      flagged: c.lost.filter((p) => (c.service === 'transfer' ? FLAGGED_GRANTS : FLAGGED_ACL_GRANTS).includes(p)),
    })),
  };
}

function kindRank(o: { kind: string }): number {
  return (MANIFEST_KINDS as readonly string[]).indexOf(o.kind);
}

/** How a plan action reads as drift; `no-op` and `delete` never get here. */
function driftKindOf(change: Change): DriftKind {
  switch (change.action) {
    case 'create':
      return 'missing';
    case 'update':
      return 'changed';
    case 'replace':
      return 'replace';
    case 'blocked':
      return 'blocked';
    case 'delete':
    case 'no-op':
      throw new Error(`bug: ${change.action} is not drift of a managed object`);
    default: {
      const never: never = change.action;
      throw new Error(`unknown action ${String(never)}`);
    }
  }
}

/** How `unacknowledged` names an object: its address, case and a folder path's doubled slash ignored. */
function liftedKey(address: string): string {
  return normalizeAddress(address).toLowerCase();
}

/** The unacknowledged part of one change, or undefined when every difference is acknowledged. */
function driftOf(change: Change, ignore: readonly DriftIgnoreRule[], now: Date, acknowledged: AcknowledgedItem[]): DriftedObject | undefined {
  const addresses = addressesOf(change);
  const base = {
    address: change.address,
    kind: change.kind,
    name: change.name,
    drift: driftKindOf(change),
    action: change.action,
    ...(change.reason !== undefined ? { reason: change.reason } : {}),
    ...(change.liveId !== undefined ? { liveId: change.liveId } : {}),
    ...(change.source !== undefined ? { source: change.source } : {}),
  };
  if (change.action === 'create') {
    const verdict = judgeDifference(ignore, { addresses }, now);
    if (verdict.active) {
      acknowledged.push({ address: change.address, what: 'missing', rule: ruleOf(verdict.active) });
      return undefined;
    }
    return { ...base, fields: [], entries: [], ...(verdict.expired ? { expired: expiredOf(verdict.expired) } : {}) };
  }

  const fields: DriftedField[] = [];
  for (const f of change.fields) {
    if (f.sensitive === true) continue; // write-only: never compared, so never drift
    const item = fieldItem(f);
    const verdict = judgeDifference(ignore, { addresses, path: f.path }, now);
    if (verdict.active) {
      acknowledged.push({ address: change.address, what: f.path, ...values(item), rule: ruleOf(verdict.active) });
      continue;
    }
    fields.push(verdict.expired ? { ...item, expired: expiredOf(verdict.expired) } : item);
  }
  const entries: DriftedEntry[] = [];
  for (const e of change.entries ?? []) {
    const item = entryItem(e);
    if (item === undefined) continue;
    const diff: DifferenceRef = { addresses, path: item.path };
    const verdict = judgeDifference(ignore, diff, now);
    if (verdict.active) {
      acknowledged.push({
        address: change.address,
        what: item.path,
        ...(item.expected ? { expected: grantJson(item.expected) } : {}),
        ...(item.actual ? { actual: grantJson(item.actual) } : {}),
        rule: ruleOf(verdict.active),
      });
      continue;
    }
    entries.push(verdict.expired ? { ...item, expired: expiredOf(verdict.expired) } : item);
  }
  if (fields.length === 0 && entries.length === 0) return undefined;
  return { ...base, fields, entries };
}

/**
 * Every address the drift of `plan` (computed with every kind pruned) can judge: its changes (an
 * ACL also as `resourceGroup/userGroup`) and the missing folders; what `drift.ignore` may name.
 */
export function driftAddresses(plan: Plan, missingFolders: readonly MissingFolder[] = []): string[] {
  return [...plan.changes.flatMap(addressesOf), ...missingFolders.map((f) => formatAddress('FolderPermissions', f.path))];
}

function addressesOf(change: Change): string[] {
  return [change.address, ...kindOf(change.kind).aliasesOf(change)];
}

/** A change that stands for an object no manifest manages: a prune's delete, or a prune its kind's API cannot carry out. */
function isUnmanaged(change: Change): boolean {
  return change.action === 'delete' || kindOf(change.kind).isBlockedPrune(change);
}

/** A plan field (server `before`, git `after`) as drift (git `expected`, server `actual`). */
function fieldItem(f: FieldChange): DriftedField {
  return {
    path: f.path,
    ...(f.after !== undefined ? { expected: f.after } : {}),
    ...(f.before !== undefined ? { actual: f.before } : {}),
    ...(f.forcesReplace === true ? { forcesReplace: true } : {}),
    ...(f.words !== undefined
      ? {
          words: {
            form: f.words.form,
            ...(f.words.after !== undefined ? { expected: f.words.after } : {}),
            ...(f.words.before !== undefined ? { actual: f.words.before } : {}),
          },
        }
      : {}),
    ...(f.innerWords !== undefined
      ? {
          innerWords: {
            ...(f.innerWords.after !== undefined ? { expected: f.innerWords.after } : {}),
            ...(f.innerWords.before !== undefined ? { actual: f.innerWords.before } : {}),
          },
        }
      : {}),
  };
}

function values(item: DriftedField): Pick<AcknowledgedItem, 'expected' | 'actual'> {
  return { ...(item.expected !== undefined ? { expected: item.expected } : {}), ...(item.actual !== undefined ? { actual: item.actual } : {}) };
}

/** The path an ignore rule matches for a folder entry: `entries.group:Acme Partners`. */
export function entryPath(e: EntryChange): string {
  return `entries.${e.principal.type.toLowerCase()}:${e.principal.name}`;
}

function entryItem(e: EntryChange): DriftedEntry | undefined {
  const base = { path: entryPath(e), principal: e.principal };
  const grant = (p: EntryChange['before']) => (p ? { permissions: [...p.permissions], sharePermissions: [...p.sharePermissions] } : undefined);
  const expected = grant(e.after);
  const actual = grant(e.before);
  switch (e.action) {
    case 'no-op':
      return undefined;
    case 'create':
      return { ...base, drift: 'missing', ...(expected ? { expected } : {}) };
    case 'update':
      return { ...base, drift: 'changed', ...(expected ? { expected } : {}), ...(actual ? { actual } : {}) };
    case 'delete':
      return { ...base, drift: 'extra', ...(actual ? { actual } : {}) };
    case 'blocked':
      return { ...base, drift: 'blocked', ...(expected ? { expected } : {}), ...(actual ? { actual } : {}) };
    default: {
      const never: never = e.action;
      throw new Error(`unknown entry action ${String(never)}`);
    }
  }
}

function grantJson(g: { permissions: readonly string[]; sharePermissions: readonly string[] }): { permissions: string[]; sharePermissions: string[] } {
  return { permissions: [...g.permissions], sharePermissions: [...g.sharePermissions] };
}

function unmanagedDetail(change: Change, live: LiveState): UnmanagedDetail {
  return kindOf(change.kind).unmanagedDetail(change, live);
}

// ------------------------------------------------------------------------------------- audit

/** How many audit records one drift run asks for per kind, newest first. */
export const AUDIT_MAX_COUNT = 500;

/** Audit actions that run a task rather than change it. */
const NOT_A_CHANGE = new Set(['run', 'start', 'stop']);

/** The kinds whose definition says how to ask the audit report (`KindDefinition.audit`; its `TargetType`: SPEC rule 69), in manifest order. */
const AUDITED_KINDS: readonly AuditedKind[] = EVERY_KIND.filter((kind): kind is AuditedKind => kindOf(kind).audit !== undefined);

function auditOf(kind: AuditedKind): KindAudit {
  return kindOf(kind).audit!;
}

/** One audit query and the records it answered. */
export interface AuditAnswer {
  readonly query: AuditQueryUsed;
  readonly records: readonly AuditRecord[];
}

/**
 * The audit queries for the report's drifted and unmanaged tasks and ACLs: none, one, or one per
 * kind (the report's RSQL has no OR). One object of a kind is asked for by id, several by type
 * (then matched here), newest first and bounded. A task is also matched by name, so a deleted one
 * counts; an ACL only by id, so one missing on the server (its id unknown) asks for nothing.
 */
export function auditQueriesFor(report: DriftReport): AuditQueryUsed[] {
  const queries: AuditQueryUsed[] = [];
  for (const kind of AUDITED_KINDS) {
    const subjects = auditSubjects(report, kind);
    if (subjects.length === 0) continue;
    const only = subjects.length === 1 ? subjects[0]!.liveId : undefined;
    const type = `TargetType=="${auditOf(kind).targetType}"`;
    const predicate = only !== undefined ? `${type};TargetID=="${only.replace(/["\\]/g, '')}"` : type;
    queries.push({ for: kind, predicate, orderBy: '!LogTime', maxCount: AUDIT_MAX_COUNT });
  }
  return queries;
}

function auditSubjects(report: DriftReport, kind: AuditedKind): { name: string; liveId?: string }[] {
  const byName = auditOf(kind).nameField !== undefined;
  return [...report.drifted, ...report.unmanaged].filter((o) => o.kind === kind && (byName || o.liveId !== undefined));
}

/** The report with each drifted or unmanaged task's and ACL's latest change from the answers (pure). */
export function attributeAuditRecords(report: DriftReport, answers: readonly AuditAnswer[]): DriftReport {
  const latestBy = new Map<string, (o: { name: string; liveId?: string }) => AuditAttribution | undefined>();
  for (const { query, records } of answers) latestBy.set(query.for, latestChangeOf(query.for, records));
  const withChange = <T extends { kind: string; name: string; liveId?: string }>(o: T): T => {
    const last = latestBy.get(o.kind)?.(o);
    return last ? { ...o, lastChange: last } : o;
  };
  const audit: AuditStatus = { state: 'read', records: answers.reduce((n, a) => n + a.records.length, 0), queries: answers.map((a) => a.query) };
  return { ...report, drifted: report.drifted.map(withChange), unmanaged: report.unmanaged.map(withChange), audit };
}

/** Finds the latest change of one object of `kind` among `records`. */
function latestChangeOf(kind: AuditedKind, records: readonly AuditRecord[]): (o: { name: string; liveId?: string }) => AuditAttribution | undefined {
  const { targetType, nameField } = auditOf(kind);
  const type = targetType.toLowerCase();
  const changes = records
    .filter((r) => typeof r.Username === 'string' && typeof r.LogTime === 'string' && !NOT_A_CHANGE.has(String(r.Action ?? '').toLowerCase()))
    .filter((r) => r.TargetType === undefined || String(r.TargetType).toLowerCase() === type)
    // Newest first whatever order the server kept; equal times keep the server's order.
    .map((r, i) => ({ r, i, t: Date.parse(String(r.LogTime)) }))
    .sort((a, b) => (Number.isFinite(b.t) && Number.isFinite(a.t) ? b.t - a.t : 0) || a.i - b.i)
    .map((x) => x.r);
  const idOf = (r: AuditRecord) => (r.TargetID === undefined || String(r.TargetID) === '' ? undefined : String(r.TargetID));
  // By id when both have one, else by the name field of a kind whose records name the object.
  const matches = (o: { name: string; liveId?: string }, r: AuditRecord): boolean => {
    const id = idOf(r);
    if (o.liveId !== undefined && id !== undefined) return id === o.liveId;
    return nameField !== undefined && String(r[nameField] ?? '').toLowerCase() === o.name.toLowerCase();
  };
  return (o) => {
    const hit = changes.find((r) => matches(o, r));
    return hit ? { user: String(hit.Username), time: String(hit.LogTime), action: String(hit.Action ?? '') } : undefined;
  };
}

/** The report saying, once, that the audit report could not be read; the run goes on. */
export function withAuditFailure(report: DriftReport, failure: { readonly httpStatus?: number; readonly detail?: string }): DriftReport {
  const status = failure.httpStatus;
  const message =
    status === 401 || status === 403
      ? `audit report not readable with this account: ${status}`
      : status === 404
        ? 'audit report not available on this server: 404'
        : `audit report could not be read${status !== undefined ? `: ${status}` : ''}${failure.detail ? ` (${failure.detail})` : ''}`;
  return { ...report, audit: { state: 'unreadable', ...(status !== undefined ? { httpStatus: status } : {}), message } };
}

/**
 * The report with the policy checks of the live state (`DriftReport.policy`): a violation of a
 * `deny` policy makes it drift, the object having moved where no manifest may take it.
 */
export function withLivePolicy(report: DriftReport, policy: PolicyReport): DriftReport {
  const { plan, ...rest } = report;
  const denied = policy.violations.some((v) => v.severity === 'deny');
  return { ...rest, ...(denied ? { status: 'drift' as const } : {}), policy, plan };
}
