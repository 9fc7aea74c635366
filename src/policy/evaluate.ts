import { matchesAddressGlob } from '../glob.js';
import { isRecord } from '../is-record.js';
import type { Manifest, PolicyManifest } from '../manifest/types.js';
import { sourceRef } from '../plan/compute-plan.js';
import type {
  AccessReport,
  Change,
  JsonObject,
  JsonValue,
  Plan,
  PolicyReport,
  PolicyViolation,
  Principal,
  ResourceKind,
  SourceRef,
  ValueMarker,
} from '../plan/model.js';
import { isWriteAction, readMarker } from '../plan/model.js';
import { PASSWORD_FIELD } from '../resources/common.js';
import { compileExpression, needsOnlyObject } from '../manifest/policy-expression.js';
import { evaluateCheck, type Outcome, type PolicyCheck } from './run-check.js';
import type { PolicyKey, PolicyKeyInput } from './key-variables.js';
import { policyKeys, policyUsedKeys } from './key-variables.js';

export type { Outcome, PolicyCheck } from './run-check.js';

/** What a redacted value reads as in `object` and `oldObject`. */
export const SENSITIVE_TEXT = '(sensitive)';

/**
 * Largest `object` (plus `oldObject`), in characters of its JSON, that an expression is
 * evaluated on. CEL has no loops, so the work of one evaluation is bounded by the size of the
 * expression (see MAX_EXPRESSION_CHARS) times the size of its input; this caps the second.
 */
export const MAX_INPUT_CHARS = 1_000_000;

/**
 * Longest one evaluation may run, in milliseconds, before it is stopped: the input's size bounds
 * a linear expression, but comprehensions nested over the input (or a regular expression that
 * backtracks) multiply it, which no estimate of the text bounds. Enforced by the runner the
 * caller passes (src/app/run-policy-checks.ts evaluates in a worker thread it stops).
 */
export const EVALUATION_BUDGET_MS = 1000;

/**
 * Runs checks in order, one outcome each; a runner with a budget gives an over-budget check an
 * error outcome. I/O (threads, timers) lives in the runner, so this module stays pure.
 */
export type RunPolicyChecks = (checks: readonly PolicyCheck[]) => Promise<readonly Outcome[]>;

/** Evaluates in this thread, with no time budget: for callers that cannot start a worker. */
export const runChecksInThread: RunPolicyChecks = async (checks) => checks.map((c) => evaluateCheck(c));

/** Whether a change is one the policy checks: only write changes, filtered by `match`. */
export function policyMatches(policy: PolicyManifest, change: Pick<Change, 'kind' | 'name' | 'action'>): boolean {
  if (!isWriteAction(change.action)) return false;
  const match = policy.spec.match;
  if (match === undefined) return true;
  if (match.kinds !== undefined && !match.kinds.includes(change.kind)) return false;
  if (match.actions !== undefined && !(match.actions as readonly string[]).includes(change.action)) return false;
  if (match.names !== undefined && !match.names.some((glob) => matchesAddressGlob(glob, change.name))) return false;
  return true;
}

/**
 * A policy variable `access` entry: one principal's effective-access change through the change
 * (the plan's access report, `Plan.access`, of the change's address). `kind` is `user`, or
 * `group` for a group whose members are not known; `gains`/`loses` are permission names;
 * `via` the entries it comes through; `flagged` the gains a reviewer must see.
 */
export interface PolicyAccess {
  readonly principal: string;
  readonly kind: 'user' | 'group';
  readonly service: string;
  /** The folder path or the resource group. */
  readonly target: string;
  readonly gains: readonly string[];
  readonly loses: readonly string[];
  readonly via: readonly { readonly kind: 'user' | 'group'; readonly name: string }[];
  readonly removed: boolean;
  readonly flagged: readonly string[];
}

/**
 * Evaluates every policy on every matching change of `plan`. Pure. `manifests` are the
 * desired objects the plan was made from (matched to changes by `source`), `cwd` the folder the
 * plan's paths are relative to. `live`: the live object of each change by address, its `spec` in
 * manifest form (`liveSpecs`), for `oldObject`; without it (or for an address it lacks),
 * `oldObject` is what the plan says the change removes (`removes`), else null. `access` is the
 * plan's access report: evaluate after it is final. `run` evaluates (the caller's budget).
 */
export async function evaluatePolicies(
  plan: Pick<Plan, 'changes' | 'access'>,
  policies: readonly PolicyManifest[],
  manifests: readonly Manifest[],
  cwd: string | undefined,
  live?: ReadonlyMap<string, JsonObject>,
  run: RunPolicyChecks = runChecksInThread,
  keys?: PolicyKeyInput,
): Promise<PolicyReport> {
  const bySource = new Map<string, Manifest>();
  for (const m of manifests) bySource.set(sourceKey(sourceRef(m.source, cwd)), m);
  const compiled = compilePolicies(policies, cwd);
  const pending: Pending[] = [];
  for (const change of plan.changes) {
    const checks = compiled.filter((c) => policyMatches(c.policy, change));
    if (checks.length === 0) continue;
    const desired = change.action === 'delete' || change.source === undefined ? undefined : bySource.get(sourceKey(change.source));
    const oldSpec = change.action === 'create' ? undefined : (live?.get(change.address) ?? change.removes);
    const context = {
      object: desired === undefined ? null : objectOf(desired),
      oldObject: oldSpec === undefined ? null : liveObjectOf(change.kind, change.previousName ?? change.name, oldSpec),
      change: { address: change.address, kind: change.kind, action: change.action },
      access: accessOf(plan.access, change.address),
      ...keyVariables(keys, desired),
    };
    pending.push(...pendingChecks(checks, context, { address: change.address, ...(change.source ? { source: change.source } : {}) }));
  }
  return { policies: policies.length, violations: await settle(pending, run) };
}

/**
 * An object a policy is checked on without a plan: a desired manifest (validate) or a live
 * object in manifest form (drift).
 */
export interface PolicySubject {
  readonly address: string;
  readonly kind: ResourceKind;
  readonly name: string;
  /** The object as `object` reads it (`desiredObjectOf`, `liveObjectOf`). */
  readonly object: Record<string, unknown>;
  /** Where the object is declared. */
  readonly source?: SourceRef;
}

/**
 * Evaluates the policies that need only `object` (`isObjectPolicy`) on each subject they match
 * by kind and name; `object` is the only variable bound. Pure but for `run`. Violations in
 * subject order.
 */
export async function evaluateObjectPolicies(
  subjects: readonly PolicySubject[],
  policies: readonly PolicyManifest[],
  cwd: string | undefined,
  run: RunPolicyChecks = runChecksInThread,
): Promise<PolicyReport> {
  const compiled = compilePolicies(policies.filter(isObjectPolicy), cwd);
  const pending: Pending[] = [];
  for (const subject of subjects) {
    const checks = compiled.filter((c) => matchesObject(c.policy, subject));
    if (checks.length > 0)
      pending.push(...pendingChecks(checks, { object: subject.object }, { address: subject.address, ...(subject.source ? { source: subject.source } : {}) }));
  }
  return { policies: compiled.length, violations: await settle(pending, run) };
}

/**
 * Whether a policy can be checked on an object alone, with no plan: every expression compiles
 * and reads none of `oldObject`, `change`, `access`, and its `match.actions` (if any) name a
 * state the object is left in (create, update or replace; a delete-only policy is about
 * removing, not about an object).
 */
export function isObjectPolicy(policy: PolicyManifest): boolean {
  const actions = policy.spec.match?.actions;
  if (actions !== undefined && !actions.some((a) => a !== 'delete')) return false;
  return policy.spec.validations.every((v) => needsOnlyObject(v.expression));
}

function matchesObject(policy: PolicyManifest, subject: Pick<PolicySubject, 'kind' | 'name'>): boolean {
  const match = policy.spec.match;
  if (match?.kinds !== undefined && !match.kinds.includes(subject.kind)) return false;
  if (match?.names !== undefined && !match.names.some((glob) => matchesAddressGlob(glob, subject.name))) return false;
  return true;
}

type CompiledPolicy = ReturnType<typeof compilePolicies>[number];

function compilePolicies(policies: readonly PolicyManifest[], cwd: string | undefined) {
  return policies.map((policy) => ({
    policy,
    validations: policy.spec.validations.map((v, i) => ({
      ...v,
      compiled: compileExpression(v.expression),
      at: sourceRef(policy.sourceMap.locate(['spec', 'validations', i, 'expression']), cwd),
    })),
  }));
}

/** One expression to evaluate on one context, or its outcome when known without evaluating. */
interface Pending {
  readonly base: Omit<PolicyViolation, 'outcome' | 'message'>;
  readonly message: string;
  readonly expression: string;
  readonly context: Record<string, unknown>;
  readonly known?: Outcome;
}

/** The evaluations of `checks` on one context; an input too large is an error of each. */
function pendingChecks(
  checks: readonly CompiledPolicy[],
  context: Record<string, unknown>,
  subject: { readonly address: string; readonly source?: SourceRef },
): Pending[] {
  const tooLarge = JSON.stringify(context).length > MAX_INPUT_CHARS;
  const out: Pending[] = [];
  for (const { policy, validations } of checks) {
    for (const v of validations) {
      const base = {
        policy: policy.name,
        severity: policy.spec.severity,
        address: subject.address,
        ...(subject.source ? { source: subject.source } : {}),
        expressionSource: v.at,
      };
      const known: Outcome | undefined = tooLarge
        ? { ok: false, reason: `the object is larger than ${MAX_INPUT_CHARS} characters of JSON, too large to evaluate` }
        : v.compiled.ok
          ? undefined
          : { ok: false, reason: `the expression does not compile: ${v.compiled.reason}` };
      out.push({ base, message: v.message, expression: v.expression, context, ...(known ? { known } : {}) });
    }
  }
  return out;
}

/** Evaluates the pending checks whose outcome is not already known, in one batch through `run`. */
async function settle(pending: readonly Pending[], run: RunPolicyChecks): Promise<PolicyViolation[]> {
  const toRun = pending.filter((p) => p.known === undefined);
  const outcomes = await run(toRun.map((p) => ({ expression: p.expression, context: p.context })));
  const byCheck = new Map(toRun.map((p, i) => [p, outcomes[i]!]));
  const out: PolicyViolation[] = [];
  for (const p of pending) {
    const outcome = p.known ?? byCheck.get(p)!;
    if (outcome.ok && outcome.value) continue;
    out.push(
      outcome.ok ? { ...p.base, outcome: 'violated', message: p.message } : { ...p.base, outcome: 'error', message: `cannot evaluate: ${outcome.reason}` },
    );
  }
  return out;
}

/** The `access` variable of one change: its entries of the plan's access report, in report order. */
function accessOf(report: AccessReport | undefined, address: string): PolicyAccess[] {
  const kindOf = (p: Principal) => (p.type === 'User' ? ('user' as const) : ('group' as const));
  return (report?.changes ?? [])
    .filter((c) => c.address === address)
    .map((c) => ({
      principal: c.who.name,
      kind: kindOf(c.who),
      service: c.service,
      target: c.target,
      gains: [...c.gained],
      loses: [...c.lost],
      via: c.via.map((p) => ({ kind: kindOf(p), name: p.name })),
      removed: c.removed,
      flagged: [...c.flagged],
    }));
}

/**
 * The variables `keys` (every key and certificate of the server) and `usedKeys` (those the
 * change's desired object uses). Without `keys` (a saved plan re-checked at apply, which asks no
 * server) both are empty lists: key rules are enforced by the plan that was saved.
 */
function keyVariables(keys: PolicyKeyInput | undefined, desired: Manifest | undefined): { keys: PolicyKey[]; usedKeys: PolicyKey[] } {
  if (keys === undefined) return { keys: [], usedKeys: [] };
  return { keys: policyKeys(keys), usedKeys: desired === undefined ? [] : policyUsedKeys(keys, desired.spec) };
}

/** Whether any violation (or error) of a `deny` policy is in the report: plan stops. */
export function deniesPlan(report: PolicyReport | undefined): boolean {
  return report !== undefined && report.violations.some((v) => v.severity === 'deny');
}

/** The desired manifest as a policy sees it: its document form, secrets as SENSITIVE_TEXT. */
export function objectOf(m: Manifest): Record<string, unknown> {
  const metadata = m.previousNames.length > 0 ? { name: m.name, previousNames: m.previousNames } : { name: m.name };
  return { apiVersion: 'mftops/v1', kind: m.kind, metadata, spec: redact(m.spec) };
}

/** Password fields and secret parameter values (`{value, secret: true}`) as SENSITIVE_TEXT. */
function redact(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redact);
  if (!isRecord(value)) return value;
  const out: Record<string, unknown> = {};
  const secretParameter = value.secret === true && 'value' in value;
  for (const [k, v] of Object.entries(value)) {
    if (v === undefined) continue;
    out[k] = (PASSWORD_FIELD.test(k) && typeof v === 'string') || (secretParameter && k === 'value') ? SENSITIVE_TEXT : redact(v);
  }
  return out;
}

/** A live object's `spec` in manifest form (`liveSpecs`, `removes`) as a policy sees it: a manifest document, secrets as SENSITIVE_TEXT, references as names. */
export function liveObjectOf(kind: ResourceKind, name: string, spec: JsonObject): Record<string, unknown> {
  return { apiVersion: 'mftops/v1', kind, metadata: { name }, spec: unmarkValue(spec) };
}

/** A plan value (`removes`) with its markers read: `$sensitive` as SENSITIVE_TEXT, `$data` unwrapped, `$ref` as its id. */
function unmarkValue(v: JsonValue): unknown {
  if (Array.isArray(v)) return v.map(unmarkValue);
  if (v === null || typeof v !== 'object') return v;
  const marker = readMarker(v);
  if (marker !== undefined) return markerText(marker);
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) out[k] = unmarkValue(x);
  return out;
}

function markerText(marker: ValueMarker): unknown {
  switch (marker.kind) {
    case 'sensitive':
      return SENSITIVE_TEXT;
    case 'ref':
      return marker.id;
    case 'data':
      return Object.fromEntries(Object.entries(marker.data).map(([k, x]) => [k, unmarkValue(x)]));
    default: {
      const never: never = marker;
      throw new Error(`unknown marker ${JSON.stringify(never)}`);
    }
  }
}

function sourceKey(s: SourceRef): string {
  return `${s.file}\u0000${s.line}\u0000${s.col}`;
}
