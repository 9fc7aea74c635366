import type { PolicyReport, PolicyViolation, SourceRef } from '../plan/model.js';
import { workflowCommand } from './diagnostics.js';
import { escapeControl, escapeMd, formatCount } from './text.js';

/**
 * The policy section of a plan (issue 17), in text and markdown: one headline, one line per
 * violation. Shown near the top: a `deny` decides the plan's fate before any change is read.
 */

/** Violations listed in full; the rest are counted (they are all in `--format json`). */
export const MAX_POLICY_LINES = 50;

/**
 * Which report the policy section is in: `plan` (the changes; a deny refuses the plan) or
 * `drift` (the live objects; a deny is drift).
 */
export type PolicySection = 'plan' | 'drift';

/** `Policy checks: 2 violations of 3 policies (1 deny: the plan is refused).` */
export function policyHeadline(report: PolicyReport, section: PolicySection = 'plan'): string {
  const n = report.violations.length;
  const policies = `${formatCount(report.policies)} ${report.policies === 1 ? 'policy' : 'policies'}`;
  const title = section === 'plan' ? 'Policy checks' : 'Policy checks of the live objects';
  if (n === 0) return `${title}: ${policies}, no violations.`;
  const denies = report.violations.filter((v) => v.severity === 'deny').length;
  const verdict = denies > 0 ? `${formatCount(denies)} deny: ${section === 'plan' ? 'the plan is refused and not saved' : 'counted as drift'}` : 'warnings only';
  return `${title}: ${formatCount(n)} ${n === 1 ? 'violation' : 'violations'} of ${policies} (${verdict}).`;
}

/** `deny no-partner-admin: FolderPermissions//Acme — partner groups must never administer a folder (folders/acme.yaml:1:1)` */
export function policyViolationText(v: PolicyViolation): string {
  return `${v.severity} ${v.policy}: ${v.address} — ${v.message} (${place(v.source ?? v.expressionSource)})`;
}

/** Text lines: a blank line, the headline, each violation; nothing when no policy was loaded. */
export function policyText(report: PolicyReport | undefined, section: PolicySection = 'plan'): string[] {
  if (report === undefined) return [];
  const shown = report.violations.slice(0, MAX_POLICY_LINES);
  const rest = report.violations.length - shown.length;
  return ['', policyHeadline(report, section), ...shown.map((v) => `  ${v.severity === 'deny' ? '✗' : '!'} ${escapeControl(policyViolationText(v))}`), ...(rest > 0 ? [`  … and ${formatCount(rest)} more (all in --format json)`] : [])];
}

/** A markdown block (a `[!CAUTION]` call-out for a deny, `[!WARNING]` for warnings); none without violations. */
export function policyMarkdown(report: PolicyReport | undefined, section: PolicySection = 'plan'): string[] {
  if (report === undefined || report.violations.length === 0) return [];
  const kind = report.violations.some((v) => v.severity === 'deny') ? 'CAUTION' : 'WARNING';
  const shown = report.violations.slice(0, MAX_POLICY_LINES);
  const rest = report.violations.length - shown.length;
  const items = shown.map(
    (v) => `> - **${v.severity}** <code>${escapeMd(v.policy)}</code>: <code>${escapeMd(v.address)}</code> — ${escapeMd(v.message)} (${escapeMd(place(v.source ?? v.expressionSource))})`,
  );
  return [[`> [!${kind}]`, `> **${escapeMd(policyHeadline(report, section))}**`, '>', ...items, ...(rest > 0 ? [`> - … and ${formatCount(rest)} more`] : [])].join('\n')];
}

/**
 * One workflow-command annotation per violation (`--format github`, the Action): an error for a
 * `deny`, a warning for a `warn`, at the object's manifest line, else at the policy's expression
 * (a delete of an object no manifest declares). Every violation, none cut: each is on a file.
 */
export function policyAnnotations(report: PolicyReport | undefined): string[] {
  return (report?.violations ?? []).map((v) => {
    const at = v.source ?? v.expressionSource;
    return workflowCommand(v.severity === 'deny' ? 'error' : 'warning', { file: at.file, line: at.line, col: at.col, title: `policy ${v.policy}` }, `${v.message} (${v.address})`);
  });
}

/** Why apply refuses, one line per `deny` violation: `policy no-partner-admin denies FolderPermissions/Acme: … (folders/acme.yaml:1:1)`. */
export function policyDenyLines(report: PolicyReport | undefined): string[] {
  return (report?.violations ?? []).filter((v) => v.severity === 'deny').map((v) => `policy ${v.policy} denies ${v.address}: ${v.message} (${place(v.source ?? v.expressionSource)})`);
}

/**
 * A job summary's policy section (the Action), above the plan: the verdict, then a table of
 * every violation (policy, severity, message, object, manifest place). None without violations.
 */
export function policySummaryMarkdown(report: PolicyReport | undefined): string[] {
  if (report === undefined || report.violations.length === 0) return [];
  const denied = report.violations.some((v) => v.severity === 'deny');
  const shown = report.violations.slice(0, MAX_POLICY_LINES);
  const rest = report.violations.length - shown.length;
  const rows = shown.map((v) => `| <code>${escapeMd(v.policy)}</code> | ${v.severity} | ${escapeMd(v.message)} | <code>${escapeMd(v.address)}</code> | ${escapeMd(place(v.source ?? v.expressionSource))} |`);
  return [
    [
      '### Policy',
      '',
      `${denied ? '❌' : '⚠️'} **${escapeMd(policyHeadline(report))}**`,
      '',
      '| Policy | Severity | Message | Object | Where |',
      '| --- | --- | --- | --- | --- |',
      ...rows,
      ...(rest > 0 ? ['', `… and ${formatCount(rest)} more (all in the JSON output)`] : []),
    ].join('\n'),
  ];
}

function place(s: SourceRef): string {
  return `${s.file}:${s.line}:${s.col}`;
}
