import type { Diagnostic } from '../diagnostics.js';
import { hasChanges, summarize, type Plan, type PolicyReport } from '../plan/model.js';
import { NO_CHANGES, planSentence } from '../render/plan-common.js';
import { escapeMd, renderPlanMarkdown } from '../render/plan-markdown.js';
import { policySummaryMarkdown } from '../render/policy.js';
import type { PlanDifference } from './compare-plans.js';

/**
 * The markdown each command adds to the job summary (pure). Everything is fitted to the bytes
 * the step has left of GitHub's 1 MiB: the plan renderer counts UTF-16 units, so the plan is
 * rendered, measured in UTF-8, and rendered smaller when needed.
 */

/**
 * The plan in at most `maxBytes` UTF-8 bytes, summary whole: its title first, then the verdict, its
 * one policy section, and the rest as in the comment. Throws a RangeError only when even the
 * summary cannot fit (a few hundred bytes), which the caller reports.
 */
export function renderPlanForSummary(plan: Plan, maxBytes: number, artifactHint: string, diagnostics: readonly Diagnostic[] = []): string {
  let maxLength = maxBytes;
  for (let attempt = 0; attempt < 6 && maxLength > 0; attempt++) {
    const md = fitOrUndefined(plan, maxLength, artifactHint, diagnostics);
    if (md === undefined) break;
    const bytes = Buffer.byteLength(md, 'utf8');
    if (bytes <= maxBytes) return md;
    // Shrink in proportion to the overshoot, plus a little: the byte/character ratio varies.
    maxLength = Math.floor((maxLength * maxBytes) / bytes) - 1024;
  }
  // Three UTF-8 bytes per UTF-16 unit at most: this always fits, when the summary itself does.
  return fitOrUndefined(plan, Math.floor(maxBytes / 3), artifactHint, diagnostics) ?? planTooLargeForSummary(plan, maxBytes, artifactHint);
}

/** The plan's markdown in `maxLength` characters, or undefined when not even its summary fits. */
function fitOrUndefined(plan: Plan, maxLength: number, artifactHint: string, diagnostics: readonly Diagnostic[]): string | undefined {
  try {
    return renderPlanMarkdown(plan, { maxLength, artifactHint, diagnostics });
  } catch (error) {
    if (error instanceof RangeError) return undefined;
    throw error;
  }
}

/** What a step with too little summary room left says instead of the plan: where the plan is. */
function planTooLargeForSummary(plan: Plan, maxBytes: number, artifactHint: string): string {
  const counts = hasChanges(plan) ? planSentence(summarize(plan.changes)) : NO_CHANGES;
  const text = `## mftops plan: ${escapeMd(plan.environment.slice(0, 80))}\n\n${counts}\n\nThe job summary has no room left for this plan: it is in ${artifactHint} and the log.\n`;
  return Buffer.byteLength(text, 'utf8') <= maxBytes
    ? text
    : Buffer.from(text, 'utf8')
        .subarray(0, Math.max(0, maxBytes))
        .toString('utf8')
        .replace(/\uFFFD$/, '');
}

export function renderValidateSummary(ok: boolean, line: string): string {
  return `### mftops validate\n\n${ok ? '✅' : '❌'} ${escapeMd(line)}${ok ? '' : ' (see the annotations on the files)'}\n`;
}

/** A command failed before it had a result: say what, with the first problems. */
export function renderFailureSummary(title: string, problems: readonly string[]): string {
  const shown = problems.slice(0, 50).map((p) => `- ${escapeMd(p)}`);
  const more = problems.length > shown.length ? [`- …and ${problems.length - shown.length} more in the log`] : [];
  return [`### ${escapeMd(title)}`, '', '> [!CAUTION]', `> ${escapeMd(title)} failed.`, '', ...shown, ...more, ''].join('\n');
}

/** The re-plan at merge does not match the reviewed plan: nothing was applied. */
export function renderMismatchSummary(environment: string, differences: readonly PlanDifference[]): string {
  const shown = differences.slice(0, 200).map((d) => `- ${escapeMd(d.detail)}`);
  const more = differences.length > shown.length ? [`- …and ${differences.length - shown.length} more in the log`] : [];
  return [
    `### mftops apply: ${escapeMd(environment)}`,
    '',
    '> [!CAUTION]',
    `> **Nothing was applied**: the plan made now differs from the reviewed plan in ${differences.length} ${differences.length === 1 ? 'object' : 'objects'}.`,
    '> Plan the change again on a pull request, review it, and merge that.',
    '',
    ...shown,
    ...more,
    '',
  ].join('\n');
}

/** The apply report (text) under a headline, the policy section (when a policy was violated) above it. */
export function renderApplySummary(environment: string, ok: boolean, reportText: string, policy?: PolicyReport): string {
  return [
    `### mftops apply: ${escapeMd(environment)}`,
    '',
    `${ok ? '✅' : '❌'} ${escapeMd(reportText.split('\n')[0] ?? '')}`,
    '',
    ...policySummaryMarkdown(policy).flatMap((section) => [section, '']),
    fence(reportText.trimEnd()),
    '',
  ].join('\n');
}

/** The plan made at apply time is refused by a deny policy: nothing was applied. */
export function renderPolicyRefusalSummary(environment: string, policy: PolicyReport | undefined): string {
  return [
    `### mftops apply: ${escapeMd(environment)}`,
    '',
    '> [!CAUTION]',
    '> **Nothing was applied**: a `deny` policy refuses the plan made now.',
    '',
    ...policySummaryMarkdown(policy).flatMap((section) => [section, '']),
  ].join('\n');
}

/** A code block no line of `text` can close. */
export function fence(text: string): string {
  let longest = 0;
  for (const run of text.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  const marks = '`'.repeat(Math.max(3, longest + 1));
  return `${marks}text\n${text}\n${marks}`;
}
