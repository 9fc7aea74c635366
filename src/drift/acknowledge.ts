import type { DriftIgnoreRule } from '../config/model.js';
import { matchesAddressGlob } from '../glob.js';
import type { AcknowledgementRule, ExpiredAcknowledgement } from './model.js';

/**
 * Which `drift.ignore` rule covers a difference. Addresses and paths are address globs
 * (`src/glob.ts`: `*` stands for any run of characters, case ignored). A rule with a `path`
 * covers field and entry differences at or below a matching path; a rule without one (or with
 * `*`) covers the whole object, including "missing" and "unmanaged".
 */

/** What covers one difference: an active rule wins; an expired one only annotates the drift. */
export interface RuleVerdict {
  readonly active?: DriftIgnoreRule;
  readonly expired?: DriftIgnoreRule;
}

/** A difference to judge: `path` undefined for a whole-object state (missing, unmanaged). */
export interface DifferenceRef {
  /** The object's addresses (an ACL answers to its label and to `resourceGroup/userGroup`). */
  readonly addresses: readonly string[];
  readonly path?: string;
}

export function judgeDifference(rules: readonly DriftIgnoreRule[], diff: DifferenceRef, now: Date): RuleVerdict {
  let expired: DriftIgnoreRule | undefined;
  for (const rule of rules) {
    if (!diff.addresses.some((a) => matchesAddressGlob(normalizeAddress(rule.address), normalizeAddress(a)))) continue;
    if (!pathCovered(rule.path, diff.path)) continue;
    if (!isExpired(rule, now)) return { active: rule };
    // Of several expired rules, the one that held longest explains the drift best.
    if (expired === undefined || (rule.until ?? '') > (expired.until ?? '')) expired = rule;
  }
  return expired ? { expired } : {};
}

/**
 * The rules whose address matches none of `addresses` (every object a drift run knows: managed,
 * unmanaged in scope, missing), by their index in `rules`: most likely a misspelt address, or an
 * object long gone, and either way a rule that acknowledges nothing.
 */
export function unmatchedRules(rules: readonly DriftIgnoreRule[], addresses: readonly string[]): number[] {
  const known = addresses.map(normalizeAddress);
  const out: number[] = [];
  rules.forEach((rule, i) => {
    const pattern = normalizeAddress(rule.address);
    if (!known.some((a) => matchesAddressGlob(pattern, a))) out.push(i);
  });
  return out;
}

/**
 * Whether `rule`, expired or not, names one of `addresses` and covers the difference at `path`;
 * `path` undefined: any difference of the object (it was adopted whole: removed or written new).
 */
export function ruleCovers(rule: DriftIgnoreRule, addresses: readonly string[], path: string | undefined): boolean {
  const pattern = normalizeAddress(rule.address);
  if (!addresses.some((a) => matchesAddressGlob(pattern, normalizeAddress(a)))) return false;
  return path === undefined || pathCovered(rule.path, path);
}

/** Expired once the whole `until` day (UTC) has passed. */
export function isExpired(rule: DriftIgnoreRule, now: Date): boolean {
  if (rule.until === undefined) return false;
  const end = Date.parse(`${rule.until}T00:00:00Z`) + 86_400_000;
  return Number.isFinite(end) && now.getTime() >= end;
}

export function ruleOf(rule: DriftIgnoreRule): AcknowledgementRule {
  return {
    address: rule.address,
    ...(rule.path !== undefined ? { path: rule.path } : {}),
    ...(rule.until !== undefined ? { until: rule.until } : {}),
    ...(rule.reason !== undefined ? { reason: rule.reason } : {}),
    where: rule.where,
  };
}

export function expiredOf(rule: DriftIgnoreRule): ExpiredAcknowledgement {
  return { until: rule.until ?? '', ...(rule.reason !== undefined ? { reason: rule.reason } : {}), where: rule.where };
}

function pathCovered(rulePath: string | undefined, path: string | undefined): boolean {
  if (rulePath === undefined || rulePath.trim() === '*') return true;
  if (path === undefined) return false;
  const pattern = rulePath.trim();
  if (matchesAddressGlob(pattern, path)) return true;
  // `Schedules` covers `Schedules.Schedule[0].Days`: try every ancestor of the path.
  for (let i = 1; i < path.length; i++) {
    const c = path[i];
    if ((c === '.' || c === '[') && matchesAddressGlob(pattern, path.slice(0, i))) return true;
  }
  return false;
}

/** `FolderPermissions//A` and `FolderPermissions/A` are the same address. */
export function normalizeAddress(address: string): string {
  return address.trim().replace(/^FolderPermissions\/+/i, 'FolderPermissions/');
}
