import type {
  AccessReport,
  Action,
  ChangeReason,
  EntryPermissions,
  EntryReason,
  FieldChange,
  InnerWords,
  JsonObject,
  MembershipScope,
  Plan,
  PlanSummary,
  PolicyReport,
  Principal,
  PruneOff,
  ResourceKind,
  SourceRef,
  TransferStepChecks,
  TransferStepProblem,
} from '../plan/model.js';
import { transferProblemText, transferStepLabel } from './transfer-checks.js';
import type { ServiceName } from '../config/model.js';
import { describeReason } from '../resources/reasons.js';
import { pruneOffSentence } from './plan-common.js';
import { accessCountPhrase, describeAccessChange, membershipScopeSentence } from './access.js';
import { envelopeOf, type JsonEnvelope } from './json-output.js';
import { withDefined } from '../with-defined.js';
import type { PlanCalendar } from '../schedule/plan-calendar.js';

/**
 * The `--format json` view of a plan: a public shape for scripts, versioned on its own
 * (`formatVersion`), separate from the plan file (src/plan/plan-file.ts), which only mftops reads.
 * It shows what the plan does and why, not how apply does it: no request bodies (`payload`), no
 * fingerprints of the live objects, no waves (the changes are listed in the order apply runs
 * them). Keys always come in the order declared here.
 *
 * Version 2 (version 1 was the plan itself): reasons are codes with their parameters and the
 * sentence (`text`); field values are data with markers (see `FieldChange`); `errored`,
 * `applyable`; `kind` came with the one JSON contract of every command (src/render/json-output.ts).
 */
export interface PlanJsonView extends JsonEnvelope<'mftops.plan'> {
  /** mftops version that made the plan. */
  readonly toolVersion: string;
  /** ISO 8601 UTC. */
  readonly createdAt: string;
  readonly environment: string;
  /** URL, account and (when reported) application version of each server read. */
  readonly servers: Plan['servers'];
  /** sha256 over the manifest files the plan was computed from. */
  readonly manifestDigest: string;
  /** The variables the manifests used and their values (never secrets); absent when none. */
  readonly variables?: Plan['variables'];
  /** `--target` addresses, when the plan was limited to them. */
  readonly targets?: readonly string[];
  /** Set when the environment configures `prune` but this plan pruned nothing: why, and the kinds it would have pruned. */
  readonly pruneOff?: PruneOff & { readonly text: string };
  /** Plan-time errors left objects out (the diagnostics say which). */
  readonly errored: boolean;
  /** Not errored, and something to write: `mftops apply` would act. */
  readonly applyable: boolean;
  /** Changes per action. */
  readonly summary: PlanSummary;
  /** Every managed object, no-ops included, in the order apply runs them. */
  readonly changes: readonly ChangeJsonView[];
  /** Who gains or loses what (absent when nobody does). */
  readonly access?: AccessJsonView;
  /** The cross-server checks of task steps on transfer hosts, each problem with its sentence; absent when no step ran on one. */
  readonly transferChecks?: TransferStepChecksJsonView;
  /** The policy checks, as in the plan; absent when no policy was loaded. */
  readonly policy?: PolicyReport;
  /** The servers' clocks, as in the plan; absent when the plan has none. */
  readonly calendar?: PlanCalendar;
}

/** The effective access changes of the plan (see `AccessReport`), with their sentences. */
export interface AccessJsonView {
  /** `3 users gain access, 2 lose access`. */
  readonly summary: string;
  readonly changes: readonly AccessChangeJsonView[];
  /** Transfer groups whose entries change but whose members could not be read. */
  readonly membersUnknown: readonly string[];
  /** Automation user groups whose ACL changes but whose members could not be read (absent: none). */
  readonly userGroupsUnknown?: readonly string[];
  /** The plan changes group members: the folders checked were the ones it read, with the sentence saying so (absent: no membership changes). */
  readonly membershipScope?: MembershipScope & { readonly text: string };
}

/**
 * One user's access change on a folder: `user`, `folder`, `gained`, `lost`, `via` (the entries
 * it comes through). A group whose members are unknown (or an automation user group) has `group`
 * instead of `user`; a resource-group ACL has `resourceGroup` instead of `folder`.
 */
export interface AccessChangeJsonView {
  readonly service: ServiceName;
  readonly user?: string;
  readonly group?: string;
  readonly folder?: string;
  readonly resourceGroup?: string;
  readonly gained: readonly string[];
  readonly lost: readonly string[];
  readonly via: readonly Principal[];
  /** Some access before, none after. */
  readonly removed: boolean;
  /** Gained permissions to look at: `admin`, `deleteFiles`, `share`. */
  readonly flagged: readonly string[];
  /** The groups whose membership change in the plan this comes through (absent: it comes from entries or ACLs alone). */
  readonly memberships?: readonly string[];
  readonly text: string;
}

export interface TransferStepChecksJsonView extends Omit<TransferStepChecks, 'problems'> {
  readonly problems: readonly (TransferStepProblem & { readonly text: string })[];
}

export interface ChangeJsonView {
  /** `Kind/name`: the `--target` syntax. */
  readonly address: string;
  readonly kind: ResourceKind;
  readonly name: string;
  readonly service: ServiceName;
  readonly action: Action;
  readonly reason?: ReasonJsonView<ChangeReason>;
  /** The live name (a folder: path) when the object is renamed. */
  readonly previousName?: string;
  /** Server id of the live object. */
  readonly liveId?: string;
  /** Field differences, values as in the plan: `before` the server's, `after` the manifest's; `words` and `innerWords` say them (an enumerated code's meaning, a flag as true/false). */
  readonly fields: readonly FieldChange[];
  /** Folder ACL entries (FolderPermissions only). */
  readonly entries?: readonly EntryJsonView[];
  /** A delete or replace of a task or ACL: the live object's `spec` in manifest form, what its delete removes (secrets as `$sensitive` markers). */
  readonly removes?: JsonObject;
  /** Where the object is declared (paths relative to the working folder). */
  readonly source?: SourceRef;
}

export interface EntryJsonView {
  readonly principal: Principal;
  readonly action: 'create' | 'update' | 'delete' | 'no-op' | 'blocked';
  readonly reason?: ReasonJsonView<EntryReason>;
  readonly before?: EntryPermissions;
  readonly after?: EntryPermissions;
}

/** A reason code with its parameters, and its sentence as the text and markdown plans give it. */
export type ReasonJsonView<R extends ChangeReason | EntryReason> = R & { readonly text: string };

export function renderPlanJson(plan: Plan): string {
  return `${JSON.stringify(planJsonView(plan), null, 2)}\n`;
}

export function planJsonView(plan: Plan): PlanJsonView {
  return {
    ...envelopeOf('mftops.plan'),
    toolVersion: plan.toolVersion,
    createdAt: plan.createdAt,
    environment: plan.environment,
    servers: serversView(plan.servers),
    manifestDigest: plan.manifestDigest,
    ...(plan.variables !== undefined ? { variables: { ...plan.variables } } : {}),
    ...(plan.targets !== undefined ? { targets: [...plan.targets] } : {}),
    ...(plan.pruneOff !== undefined
      ? { pruneOff: { reason: plan.pruneOff.reason, kinds: [...plan.pruneOff.kinds], text: pruneOffSentence(plan.pruneOff) } }
      : {}),
    errored: plan.errored,
    applyable: plan.applyable,
    summary: {
      create: plan.summary.create,
      update: plan.summary.update,
      replace: plan.summary.replace,
      delete: plan.summary.delete,
      'no-op': plan.summary['no-op'],
      blocked: plan.summary.blocked,
    },
    changes: plan.changes.map((c) => ({
      address: c.address,
      kind: c.kind,
      name: c.name,
      service: c.service,
      action: c.action,
      ...(c.reason !== undefined ? { reason: reasonView(c.reason) } : {}),
      ...(c.previousName !== undefined ? { previousName: c.previousName } : {}),
      ...(c.liveId !== undefined ? { liveId: c.liveId } : {}),
      fields: c.fields.map((f) => ({
        path: f.path,
        ...(f.before !== undefined ? { before: f.before } : {}),
        ...(f.after !== undefined ? { after: f.after } : {}),
        ...(f.sensitive !== undefined ? { sensitive: f.sensitive } : {}),
        ...(f.forcesReplace !== undefined ? { forcesReplace: f.forcesReplace } : {}),
        ...(f.origin !== undefined ? { origin: { file: f.origin.file, line: f.origin.line, col: f.origin.col } } : {}),
        ...(f.words !== undefined
          ? {
              words: {
                form: f.words.form,
                ...(f.words.before !== undefined ? { before: f.words.before } : {}),
                ...(f.words.after !== undefined ? { after: f.words.after } : {}),
              },
            }
          : {}),
        ...(f.innerWords !== undefined
          ? {
              innerWords: {
                ...(f.innerWords.before !== undefined ? { before: f.innerWords.before.map(innerWordsView) } : {}),
                ...(f.innerWords.after !== undefined ? { after: f.innerWords.after.map(innerWordsView) } : {}),
              },
            }
          : {}),
      })),
      ...(c.entries !== undefined
        ? {
            entries: c.entries.map((e) => ({
              principal: { type: e.principal.type, name: e.principal.name },
              action: e.action,
              ...(e.reason !== undefined ? { reason: reasonView(e.reason) } : {}),
              ...(e.before !== undefined ? { before: permissionsView(e.before) } : {}),
              ...(e.after !== undefined ? { after: permissionsView(e.after) } : {}),
              ...(e.origin !== undefined ? { origin: { file: e.origin.file, line: e.origin.line, col: e.origin.col } } : {}),
            })),
          }
        : {}),
      ...(c.removes !== undefined ? { removes: c.removes } : {}),
      ...(c.source !== undefined ? { source: { file: c.source.file, line: c.source.line, col: c.source.col } } : {}),
    })),
    ...(plan.access !== undefined ? { access: accessJsonView(plan.access) } : {}),
    ...(plan.transferChecks !== undefined ? { transferChecks: transferChecksView(plan.transferChecks) } : {}),
    ...(plan.policy !== undefined ? { policy: plan.policy } : {}),
    ...withDefined({ calendar: plan.calendar }),
  };
}

/** The access report as JSON (plans, and drift reports read git → server). */
export function accessJsonView(report: AccessReport): AccessJsonView {
  return {
    summary: accessCountPhrase(report),
    changes: report.changes.map((c) => ({
      service: c.service,
      ...(c.who.type === 'User' ? { user: c.who.name } : { group: c.who.name }),
      ...(c.service === 'transfer' ? { folder: c.target } : { resourceGroup: c.target }),
      gained: [...c.gained],
      lost: [...c.lost],
      via: c.via.map((v) => ({ type: v.type, name: v.name })),
      removed: c.removed,
      flagged: [...c.flagged],
      ...withDefined({ memberships: c.memberships === undefined ? undefined : [...c.memberships] }),
      text: describeAccessChange(c, (t) => t),
    })),
    membersUnknown: [...report.membersUnknown],
    ...withDefined({
      userGroupsUnknown: report.userGroupsUnknown === undefined ? undefined : [...report.userGroupsUnknown],
      membershipScope:
        report.membershipScope === undefined
          ? undefined
          : { ...report.membershipScope, groups: [...report.membershipScope.groups], text: membershipScopeSentence(report.membershipScope, (t) => t) },
    }),
  };
}

function transferChecksView(checks: TransferStepChecks): TransferStepChecksJsonView {
  return {
    checked: checks.checked,
    problems: checks.problems.map((p) => ({
      problem: p.problem,
      address: p.address,
      step: p.step,
      stepKind: p.stepKind,
      host: p.host,
      path: p.path,
      ...(p.account !== undefined ? { account: p.account } : {}),
      ...(p.missing !== undefined ? { missing: [...p.missing] } : {}),
      ...(p.source !== undefined ? { source: { file: p.source.file, line: p.source.line, col: p.source.col } } : {}),
      text: `${transferStepLabel(p)}: ${transferProblemText(p)}`,
    })),
    ...(checks.rightsUnchecked !== undefined ? { rightsUnchecked: checks.rightsUnchecked } : {}),
    ...(checks.groupsUncounted !== undefined ? { groupsUncounted: checks.groupsUncounted } : {}),
  };
}

function serversView(servers: Plan['servers']): Plan['servers'] {
  const out: Partial<Record<ServiceName, { url: string; version?: string; username: string }>> = {};
  for (const service of ['automation', 'transfer'] as const) {
    const s = servers[service];
    if (s !== undefined) out[service] = { url: s.url, ...(s.version !== undefined ? { version: s.version } : {}), username: s.username };
  }
  return out;
}

/** The code first, its parameters as the planner made them, the sentence last. */
function reasonView<R extends ChangeReason | EntryReason>(reason: R): ReasonJsonView<R> {
  const { code, ...parameters } = reason;
  return { code, ...parameters, text: describeReason(reason) } as ReasonJsonView<R>;
}

function permissionsView(p: EntryPermissions): EntryPermissions {
  return { permissions: [...p.permissions], sharePermissions: [...p.sharePermissions] };
}

function innerWordsView(w: InnerWords): InnerWords {
  return { path: w.path, form: w.form, text: w.text };
}
