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
  const verdict =
    denies > 0 ? `${formatCount(denies)} deny: ${section === 'plan' ? 'the plan is refused and not saved' : 'counted as drift'}` : 'warnings only';
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
  return [
    '',
    policyHeadline(report, section),
    ...shown.map((v) => `  ${v.severity === 'deny' ? '✗' : '!'} ${escapeControl(policyViolationText(v))}`),
    ...(rest > 0 ? [`  … and ${formatCount(rest)} more (all in --format json)`] : []),
  ];
}

/**
 * Violations of one policy with one message (most of a large plan's violations are one rule
 * broken by many objects): the objects in plan order, the first one's place.
 */
export interface PolicyGroup {
  readonly policy: string;
  readonly severity: PolicyViolation['severity'];
  readonly message: string;
  readonly addresses: readonly string[];
  /** Where the first violation is (its object's manifest line, else the policy's expression). */
  readonly place: string;
}

/** Objects named per group in markdown; the rest are counted. */
export const MAX_GROUP_OBJECTS = 10;

/** The violations grouped by policy and message: `deny` groups first, then in plan order. */
export function groupViolations(report: PolicyReport): PolicyGroup[] {
  const groups = new Map<string, { policy: string; severity: PolicyViolation['severity']; message: string; addresses: string[]; place: string }>();
  for (const v of report.violations) {
    const key = JSON.stringify([v.policy, v.severity, v.message]);
    const g = groups.get(key);
    if (g === undefined)
      groups.set(key, { policy: v.policy, severity: v.severity, message: v.message, addresses: [v.address], place: place(v.source ?? v.expressionSource) });
    else g.addresses.push(v.address);
  }
  const all = [...groups.values()];
  return [...all.filter((g) => g.severity === 'deny'), ...all.filter((g) => g.severity !== 'deny')];
}

/** `**warn** <code>p</code>: <code>Task/x</code> — message (place)`, or for many objects `… (48 objects): message — <code>Task/a</code>, …, and 38 more`. */
function policyGroupMarkdown(g: PolicyGroup): string {
  const head = `**${g.severity}** <code>${escapeMd(g.policy)}</code>`;
  if (g.addresses.length === 1) return `${head}: <code>${escapeMd(g.addresses[0]!)}</code> — ${escapeMd(g.message)} (${escapeMd(g.place)})`;
  const shown = g.addresses.slice(0, MAX_GROUP_OBJECTS).map((a) => `<code>${escapeMd(a)}</code>`);
  const rest = g.addresses.length - shown.length;
  return `${head} (${formatCount(g.addresses.length)} objects): ${escapeMd(g.message)} — ${shown.join(', ')}${rest > 0 ? `, and ${formatCount(rest)} more` : ''}`;
}

/**
 * A markdown block (a `[!CAUTION]` call-out for a deny, `[!WARNING]` for warnings), one item per
 * policy and message with its objects counted; none without violations.
 */
export function policyMarkdown(report: PolicyReport | undefined, section: PolicySection = 'plan'): string[] {
  if (report === undefined || report.violations.length === 0) return [];
  const kind = report.violations.some((v) => v.severity === 'deny') ? 'CAUTION' : 'WARNING';
  const groups = groupViolations(report);
  const shown = groups.slice(0, MAX_POLICY_LINES);
  const rest = groups.length - shown.length;
  const items = shown.map((g) => `> - ${policyGroupMarkdown(g)}`);
  return [
    [
      `> [!${kind}]`,
      `> **${escapeMd(policyHeadline(report, section))}**`,
      '>',
      ...items,
      ...(rest > 0 ? [`> - … and ${formatCount(rest)} more (all in the JSON output)`] : []),
    ].join('\n'),
  ];
}

/**
 * One workflow-command annotation per violation (`--format github`, the Action): an error for a
 * `deny`, a warning for a `warn`, at the object's manifest line, else at the policy's expression
 * (a delete of an object no manifest declares). Every violation, none cut: each is on a file.
 */
export function policyAnnotations(report: PolicyReport | undefined): string[] {
  return (report?.violations ?? []).map((v) => {
    const at = v.source ?? v.expressionSource;
    return workflowCommand(
      v.severity === 'deny' ? 'error' : 'warning',
      { file: at.file, line: at.line, col: at.col, title: `policy ${v.policy}` },
      `${v.message} (${v.address})`,
    );
  });
}

/** Why apply refuses, one line per `deny` violation: `policy no-partner-admin denies FolderPermissions/Acme: … (folders/acme.yaml:1:1)`. */
export function policyDenyLines(report: PolicyReport | undefined): string[] {
  return (report?.violations ?? [])
    .filter((v) => v.severity === 'deny')
    .map((v) => `policy ${v.policy} denies ${v.address}: ${v.message} (${place(v.source ?? v.expressionSource)})`);
}

/**
 * The policy section of an apply's job summary (the Action): the verdict, then one item per
 * policy and message with its objects (a list, not a table: the messages are the long part and
 * get the page's width). None without violations. A plan's summary has it in the plan markdown.
 */
export function policySummaryMarkdown(report: PolicyReport | undefined): string[] {
  if (report === undefined || report.violations.length === 0) return [];
  const denied = report.violations.some((v) => v.severity === 'deny');
  const groups = groupViolations(report);
  const shown = groups.slice(0, MAX_POLICY_LINES);
  const rest = groups.length - shown.length;
  return [
    [
      `${denied ? '❌' : '⚠️'} **${escapeMd(policyHeadline(report))}**`,
      '',
      ...shown.map((g) => `- ${policyGroupMarkdown(g)}`),
      ...(rest > 0 ? [`- … and ${formatCount(rest)} more (all in the JSON output)`] : []),
    ].join('\n'),
  ];
}

function place(s: SourceRef): string {
  return `${s.file}:${s.line}:${s.col}`;
}
