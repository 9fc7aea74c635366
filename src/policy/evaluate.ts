import { EvaluationError } from '@marcbachmann/cel-js';
import { matchesAddressGlob } from '../glob.js';
import { isRecord } from '../is-record.js';
import type { Manifest, PolicyManifest } from '../manifest/types.js';
import { sourceRef } from '../plan/plan-changes.js';
import type { Change, JsonValue, Plan, PolicyReport, PolicyViolation, SourceRef, ValueMarker } from '../plan/model.js';
import { isWriteAction, readMarker } from '../plan/model.js';
import { PASSWORD_FIELD } from '../resources/common.js';
import { compileExpression, oneLine } from '../manifest/policy-expression.js';

/** What a redacted value reads as in `object` and `oldObject`. */
export const SENSITIVE_TEXT = '(sensitive)';

/**
 * Largest `object` (plus `oldObject`), in characters of its JSON, that an expression is
 * evaluated on. CEL has no loops, so the work of one evaluation is bounded by the size of the
 * expression (see MAX_EXPRESSION_CHARS) times the size of its input; this caps the second.
 */
export const MAX_INPUT_CHARS = 1_000_000;

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
 * Evaluates every policy on every matching change of `plan`. Pure. `manifests` are the
 * desired objects the plan was made from (matched to changes by `source`), `cwd` the folder the
 * plan's paths are relative to. `oldObject` is what the plan says a change removes (`removes`:
 * the delete, or the delete half of a replace, of a task or ACL); an update's live object is
 * not in the plan in manifest form, so there it is null too, for now.
 */
export function evaluatePolicies(plan: Pick<Plan, 'changes'>, policies: readonly PolicyManifest[], manifests: readonly Manifest[], cwd: string | undefined): PolicyReport {
  const bySource = new Map<string, Manifest>();
  for (const m of manifests) bySource.set(sourceKey(sourceRef(m.source, cwd)), m);
  const compiled = policies.map((policy) => ({
    policy,
    validations: policy.spec.validations.map((v, i) => ({
      ...v,
      compiled: compileExpression(v.expression),
      at: sourceRef(policy.sourceMap.locate(['spec', 'validations', i, 'expression']), cwd),
    })),
  }));
  const violations: PolicyViolation[] = [];
  for (const change of plan.changes) {
    const checks = compiled.filter((c) => policyMatches(c.policy, change));
    if (checks.length === 0) continue;
    const desired = change.action === 'delete' || change.source === undefined ? undefined : bySource.get(sourceKey(change.source));
    const context = {
      object: desired === undefined ? null : objectOf(desired),
      oldObject: change.removes === undefined ? null : { apiVersion: 'mftops/v1', kind: change.kind, metadata: { name: change.previousName ?? change.name }, spec: unmarkValue(change.removes) },
      change: { address: change.address, kind: change.kind, action: change.action },
    };
    const tooLarge = JSON.stringify(context).length > MAX_INPUT_CHARS;
    for (const { policy, validations } of checks) {
      for (const v of validations) {
        const base = { policy: policy.name, severity: policy.spec.severity, address: change.address, ...(change.source ? { source: change.source } : {}), expressionSource: v.at };
        const outcome = tooLarge
          ? { ok: false as const, reason: `the object is larger than ${MAX_INPUT_CHARS} characters of JSON, too large to evaluate` }
          : v.compiled.ok
            ? runProgram(v.compiled.program, context)
            : { ok: false as const, reason: `the expression does not compile: ${v.compiled.reason}` };
        if (outcome.ok && outcome.value) continue;
        violations.push(outcome.ok ? { ...base, outcome: 'violated', message: v.message } : { ...base, outcome: 'error', message: `cannot evaluate: ${outcome.reason}` });
      }
    }
  }
  return { policies: policies.length, violations };
}

/** Whether any violation (or error) of a `deny` policy is in the report: plan stops. */
export function deniesPlan(report: PolicyReport | undefined): boolean {
  return report !== undefined && report.violations.some((v) => v.severity === 'deny');
}

/** One evaluation; anything but a boolean result is an error (never a pass). */
function runProgram(program: (context: Record<string, unknown>) => unknown, context: Record<string, unknown>): { ok: true; value: boolean } | { ok: false; reason: string } {
  let value: unknown;
  try {
    value = program(context);
  } catch (err) {
    if (err instanceof EvaluationError) return { ok: false, reason: oneLine(err.summary || err.message) };
    if (err instanceof RangeError) return { ok: false, reason: 'the evaluation nested too deeply' };
    throw err;
  }
  if (typeof value !== 'boolean') return { ok: false, reason: `the expression gave ${describe(value)}, not true or false` };
  return { ok: true, value };
}

function describe(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'bigint' || typeof value === 'number') return `a number (${String(value)})`;
  if (typeof value === 'string') return 'a string';
  if (Array.isArray(value)) return 'a list';
  return 'a map';
}

/** The desired manifest as a policy sees it: its document form, secrets as SENSITIVE_TEXT. */
function objectOf(m: Manifest): Record<string, unknown> {
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
