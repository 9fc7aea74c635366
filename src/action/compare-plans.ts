import { isDeepStrictEqual } from 'node:util';
import type { Change, EntryChange, FieldChange, Plan } from '../plan/model.js';

/**
 * How a plan made at merge time differs from the plan reviewed on the pull request, per object.
 * - `added`: the new plan changes an object the reviewed plan left alone (or did not have);
 * - `dropped`: the reviewed plan changed it, the new plan no longer does;
 * - `action`: both change it, differently (`update` became `replace`);
 * - `fields`: same action, but field or ACL-entry values differ (the reviewer saw other values);
 * - `moved` (`findUnreviewedChanges` only): the object changed on the server since its review, and
 *   no other reviewed plan changes it (so no earlier merge's apply explains it).
 */
export type PlanDifferenceKind = 'added' | 'dropped' | 'action' | 'fields' | 'moved';

export interface PlanDifference {
  readonly address: string;
  readonly kind: PlanDifferenceKind;
  /** One line for the log and the `::error::` message. */
  readonly detail: string;
}

/**
 * Compare what two plans would do: address, action, field paths and values (before and after),
 * ACL entries. Not compared: creation time, tool version, fingerprints, manifest digest and
 * payloads — they differ between two runs that would do the same thing, and the stale-plan
 * guard of apply checks the fingerprints itself. No-op changes count as "not changed".
 */
export function comparePlans(reviewed: Plan, current: Plan): PlanDifference[] {
  const differences: PlanDifference[] = [];
  if (reviewed.environment !== current.environment) {
    differences.push({
      address: '(plan)',
      kind: 'action',
      detail: `the reviewed plan is for environment "${reviewed.environment}", the new one for "${current.environment}"`,
    });
    return differences;
  }
  const before = changedByAddress(reviewed);
  const after = changedByAddress(current);
  for (const [address, r] of before) {
    const c = after.get(address);
    if (c === undefined) {
      differences.push({ address, kind: 'dropped', detail: `${address}: reviewed as ${r.action}, now nothing to do` });
    } else if (r.action !== c.action) {
      differences.push({ address, kind: 'action', detail: `${address}: reviewed as ${r.action}, now ${c.action}` });
    } else {
      const fields = differingFields(r, c);
      if (fields.length > 0)
        differences.push({ address, kind: 'fields', detail: `${address}: ${c.action} of ${fields.join(', ')} differs from the reviewed one` });
    }
  }
  for (const [address, c] of after) {
    if (!before.has(address)) differences.push({ address, kind: 'added', detail: `${address}: not in the reviewed plan, now ${c.action}` });
  }
  return differences;
}

function changedByAddress(plan: Plan): Map<string, Change> {
  return new Map(plan.changes.filter((c) => c.action !== 'no-op').map((c) => [c.address, c]));
}

/** Names of what differs: field paths, `entry User alice`, `reason`. */
function differingFields(a: Change, b: Change): string[] {
  const names: string[] = [];
  const fa = byKey(a.fields, (f) => f.path);
  const fb = byKey(b.fields, (f) => f.path);
  for (const path of union(fa, fb)) if (!sameField(fa.get(path), fb.get(path))) names.push(path);
  const ea = byKey(a.entries ?? [], entryKey);
  const eb = byKey(b.entries ?? [], entryKey);
  for (const key of union(ea, eb)) if (!sameEntry(ea.get(key), eb.get(key))) names.push(`entry ${key}`);
  if (a.previousName !== b.previousName) names.push('previous name');
  return names;
}

function sameField(a: FieldChange | undefined, b: FieldChange | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return (
    a.sensitive === b.sensitive &&
    a.forcesReplace === b.forcesReplace &&
    // Secrets carry no values; a sensitive field only says "will be sent", which both do.
    (a.sensitive === true || (isDeepStrictEqual(a.before, b.before) && isDeepStrictEqual(a.after, b.after)))
  );
}

function sameEntry(a: EntryChange | undefined, b: EntryChange | undefined): boolean {
  // An entry left as it is does the same as an entry not listed.
  if (a === undefined || b === undefined) return (a ?? b)?.action === 'no-op' || a === b;
  return a.action === b.action && samePermissions(a.before, b.before) && samePermissions(a.after, b.after);
}

function samePermissions(a: EntryChange['before'], b: EntryChange['before']): boolean {
  if (a === undefined || b === undefined) return a === b;
  const sorted = (xs: readonly string[]) => [...xs].sort();
  return isDeepStrictEqual(sorted(a.permissions), sorted(b.permissions)) && isDeepStrictEqual(sorted(a.sharePermissions), sorted(b.sharePermissions));
}

function entryKey(e: EntryChange): string {
  return `${e.principal.type} ${e.principal.name}`;
}

function byKey<T>(items: readonly T[], key: (t: T) => string): Map<string, T> {
  return new Map(items.map((i) => [key(i), i]));
}

function union<K>(a: Map<K, unknown>, b: Map<K, unknown>): K[] {
  return [...new Set([...a.keys(), ...b.keys()])];
}

/**
 * The review rule of an apply that catches up (issue 24): the plan made now from main's head may
 * be applied when every write in it was reviewed, though spread over several pull requests'
 * plans — those merged since the last successful apply, whose own applies were cancelled or
 * failed. A change is covered when some reviewed plan changes the same object:
 * - with the same action (an `update` is also covered by a reviewed `create` of the object, whose
 *   apply was lost or is now done in part), and the same rename (`previousName`);
 * - each field it writes with a value a reviewed plan writes to that field (a secret: a reviewed
 *   change that also sends it), and each value it replaces one a reviewer saw there, before or
 *   after a reviewed change: a value changed on the server behind git's back is never overwritten
 *   unseen;
 * - each folder entry likewise (principal, permissions after and before).
 * An object the server changed since it was reviewed (its fingerprint moved) is covered only when
 * another reviewed plan changes it too: the apply of an earlier merge moved it. That is why the
 * reviewed plans given include those of pull requests already applied since the oldest of the
 * reviews (see examples/workflows/apply.yml).
 * What the reviewed plans would change and the plan made now no longer does (applied meanwhile,
 * or undone by a later merge) writes nothing and is not a difference. `blocked` changes write
 * nothing either. The result lists what is not covered; empty means the plan may be applied.
 */
export function findUnreviewedChanges(reviewed: readonly Plan[], current: Plan): PlanDifference[] {
  const other = reviewed.find((p) => p.environment !== current.environment);
  if (other !== undefined) {
    return [
      { address: '(plan)', kind: 'action', detail: `a reviewed plan is for environment "${other.environment}", the new one for "${current.environment}"` },
    ];
  }
  const seen = new Map<string, Change[]>();
  for (const plan of reviewed)
    for (const c of plan.changes) if (c.action !== 'no-op' && c.action !== 'blocked') seen.set(c.address, [...(seen.get(c.address) ?? []), c]);
  // Worded as comparePlans words it when there is one reviewed plan (the usual merge).
  const one = reviewed.length === 1;
  const differences: PlanDifference[] = [];
  for (const c of current.changes) {
    if (c.action === 'no-op' || c.action === 'blocked') continue;
    const candidates = seen.get(c.address) ?? [];
    if (candidates.length === 0) {
      differences.push({
        address: c.address,
        kind: 'added',
        detail: `${c.address}: not in ${one ? 'the reviewed plan' : 'any reviewed plan'}, now ${c.action}`,
      });
      continue;
    }
    const sameAction = candidates.filter((r) => r.action === c.action || (c.action === 'update' && r.action === 'create'));
    if (sameAction.length === 0) {
      differences.push({
        address: c.address,
        kind: 'action',
        detail: `${c.address}: reviewed as ${[...new Set(candidates.map((r) => r.action))].join(' or ')}, now ${c.action}`,
      });
      continue;
    }
    const unseen = [
      ...(c.previousName !== undefined && !sameAction.some((r) => r.previousName === c.previousName) ? ['previous name'] : []),
      ...c.fields.filter((f) => !fieldCovered(f, sameAction)).map((f) => f.path),
      ...(c.entries ?? []).filter((e) => e.action !== 'no-op' && !entryCovered(e, sameAction)).map((e) => `entry ${entryKey(e)}`),
    ];
    if (unseen.length > 0) {
      differences.push({
        address: c.address,
        kind: 'fields',
        detail: `${c.address}: ${c.action} of ${unseen.join(', ')} ${one ? 'differs from the reviewed one' : 'is not in a reviewed plan'}`,
      });
      continue;
    }
    // Moved since every review of it: only an earlier merge's apply may have moved it, so another
    // reviewed plan must change it too; else it was changed behind git's back.
    const reviewedAt = candidates.filter((r) => r.fingerprint !== undefined);
    if (c.fingerprint !== undefined && reviewedAt.length > 0 && !reviewedAt.some((r) => r.fingerprint === c.fingerprint)) {
      const plans = reviewed.filter((p) => p.changes.some((r) => r.address === c.address && r.action !== 'no-op' && r.action !== 'blocked')).length;
      if (plans < 2)
        differences.push({
          address: c.address,
          kind: 'moved',
          detail: `${c.address}: changed on the server since the review, and no other reviewed plan changes it`,
        });
    }
  }
  return differences;
}

function fieldCovered(f: FieldChange, reviewed: readonly Change[]): boolean {
  const same = reviewed.flatMap((r) => r.fields.filter((g) => g.path === f.path));
  if (f.sensitive === true) return same.some((g) => g.sensitive === true);
  const written = same.some((g) => g.sensitive !== true && g.forcesReplace === f.forcesReplace && isDeepStrictEqual(g.after, f.after));
  const replacedSeen = same.some((g) => g.sensitive !== true && (isDeepStrictEqual(g.before, f.before) || isDeepStrictEqual(g.after, f.before)));
  return written && replacedSeen;
}

function entryCovered(e: EntryChange, reviewed: readonly Change[]): boolean {
  const key = entryKey(e);
  const same = reviewed.flatMap((r) => (r.entries ?? []).filter((g) => g.action !== 'no-op' && entryKey(g) === key));
  return same.some((g) => samePermissions(g.after, e.after)) && same.some((g) => samePermissions(g.before, e.before) || samePermissions(g.after, e.before));
}
