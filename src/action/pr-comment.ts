import { deniesPlan } from '../policy/evaluate.js';
import type { Diagnostic } from '../diagnostics.js';
import type { Plan } from '../plan/model.js';
import { escapeMd, renderPlanMarkdown } from '../render/plan-markdown.js';
import type { GithubApi, IssueComment } from './github-api.js';

/** GitHub refuses issue and pull-request comment bodies longer than this many characters. */
export const GITHUB_COMMENT_LIMIT = 65_536;

/** Where the comment came from, for its footer. */
export interface CommentOrigin {
  /** The workflow run page. */
  readonly runUrl?: string;
  /** The commit the plan was made for (the pull request's head). */
  readonly sha?: string;
}

/**
 * The hidden line that finds this environment's comment again: one sticky comment per
 * environment, so a workflow with a matrix of environments keeps one comment each.
 */
export function planMarker(environment: string): string {
  return `<!-- mftops:plan:${markerName(environment)} -->`;
}

/** An environment name that cannot end the HTML comment it sits in. */
export function markerName(environment: string): string {
  return environment.replace(/[^A-Za-z0-9._-]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
}

/**
 * The pull-request comment for a plan: marker, the markdown plan (the verdict first, with the
 * MF414 warnings of `diagnostics` that make apply refuse it; destructive changes; every changed
 * object named; details collapsed), a footer linking the run that holds the plan file. The plan
 * is fitted to what the marker and footer leave of GitHub's limit, so the whole body always fits
 * and the verdict is never cut.
 */
export function renderPlanComment(plan: Plan, origin: CommentOrigin, limit: number = GITHUB_COMMENT_LIMIT, diagnostics: readonly Diagnostic[] = []): string {
  const head = `${planMarker(plan.environment)}\n`;
  const foot = `\n---\n${footer(origin)}\n`;
  // A plan a deny policy stopped saved no plan file: the rest of it is in the run's log.
  const what = deniesPlan(plan.policy) ? 'the log' : 'the plan file';
  const hint = origin.runUrl === undefined ? `${what} of this workflow run` : `${what} of [this workflow run](${origin.runUrl})`;
  const body = renderPlanMarkdown(plan, { maxLength: limit - head.length - foot.length, artifactHint: hint, diagnostics });
  return `${head}${body}${foot}`;
}

/** The comment when the plan could not be made: the previous plan must not stay up looking current. */
export function renderPlanFailureComment(environment: string, problems: readonly string[], origin: CommentOrigin): string {
  const shown = problems.slice(0, 20).map((p) => `> - ${escapeMd(clip(p.replace(/\s+/g, ' '), 500))}`);
  const more = problems.length > shown.length ? [`> - …and ${problems.length - shown.length} more in the run's log.`] : [];
  const where = origin.runUrl === undefined ? 'the log of this workflow run' : `the log of [this workflow run](${origin.runUrl})`;
  return [
    planMarker(environment),
    `## mftops plan: ${escapeMd(environment)}`,
    '',
    '> [!CAUTION]',
    `> **The plan failed**; there is no plan to review for this commit. Details are in ${where}.`,
    ...(shown.length > 0 ? ['>', ...shown, ...more] : []),
    '',
    '---',
    footer(origin),
    '',
  ].join('\n');
}

function footer(origin: CommentOrigin): string {
  const parts = ['<sub>Updated by mftops'];
  if (origin.runUrl !== undefined) parts.push(` in [workflow run](${origin.runUrl})`);
  if (origin.sha !== undefined) parts.push(` for commit ${origin.sha.slice(0, 12)}`);
  parts.push('. This comment is replaced on every run.</sub>');
  return parts.join('');
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

export interface StickyResult {
  readonly action: 'created' | 'updated';
  readonly comment: IssueComment;
}

/**
 * Update in place the comment that carries `marker`, or create it: one comment per
 * environment for the life of the pull request, whatever the number of pushes.
 */
export async function upsertStickyComment(api: GithubApi, issueNumber: number, marker: string, body: string): Promise<StickyResult> {
  if (!body.includes(marker)) throw new Error('bug: a sticky comment body must carry its marker');
  const existing = (await api.listIssueComments(issueNumber)).find((c) => c.body.includes(marker));
  if (existing === undefined) return { action: 'created', comment: await api.createIssueComment(issueNumber, body) };
  return { action: 'updated', comment: await api.updateIssueComment(existing.id, body) };
}
