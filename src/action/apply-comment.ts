import { escapeMd } from '../render/plan-markdown.js';
import type { GithubApi } from './github-api.js';
import { fence } from './job-summary.js';
import { GITHUB_COMMENT_LIMIT, markerName, upsertStickyComment, type CommentOrigin, type StickyResult } from './pr-comment.js';

/**
 * What an apply on merge tells the merged pull requests (issue 24): one comment per environment
 * on each pull request whose reviewed plan the run applied, updated in place by later runs of
 * the environment — so a failure stays visible until a run that recovers it says `applied`.
 * - `applied`: every write was made and the servers were checked afterwards (`verified`);
 * - `nothing`: the servers already match what was merged (an earlier run applied it);
 * - `failed`: apply ran and did not finish cleanly (a write failed, the plan was stale, the
 *   snapshot could not be saved, verification found a difference): nothing or part was written;
 * - `refused`: nothing was written because the plan made now is not covered by the reviewed
 *   plans, a deny policy refuses it, or it could not be made.
 */
export type ApplyResultStatus = 'applied' | 'nothing' | 'failed' | 'refused';

export interface ApplyResult {
  readonly environment: string;
  readonly status: ApplyResultStatus;
  /** One line: the apply report's first line, or why nothing was applied. */
  readonly headline: string;
  /** More lines (objects not covered, failures, the report), shown in a collapsed block. */
  readonly details: readonly string[];
  /** The snapshot saved before the first write: the id `mftops snapshot restore` takes. */
  readonly snapshotId?: string;
  /** `applied`: how the result was checked (`replan`/`payloads`), absent when it was not. */
  readonly verifiedBy?: 'replan' | 'payloads';
  /** The pull requests whose reviewed plans covered the plan applied. */
  readonly pullRequests: readonly number[];
}

/** The hidden line that finds the environment's apply comment on a pull request again. */
export function applyMarker(environment: string): string {
  return `<!-- mftops:apply:${markerName(environment)} -->`;
}

const TITLES: Readonly<Record<ApplyResultStatus, string>> = {
  applied: '✅ Applied',
  nothing: '✅ Already applied',
  failed: '❌ Apply failed',
  refused: '⛔ Not applied',
};

/** The comment (pure): marker, verdict, snapshot and verification, what to do on failure, the run. */
export function renderApplyComment(result: ApplyResult, origin: CommentOrigin, limit: number = GITHUB_COMMENT_LIMIT): string {
  const env = escapeMd(result.environment);
  const verdict = `## mftops apply: ${env} — ${TITLES[result.status]}${result.status === 'applied' && result.verifiedBy !== undefined ? ' and verified' : ''}`;
  const run = origin.runUrl === undefined ? 'this workflow run' : `[this workflow run](${origin.runUrl})`;
  const lines = [applyMarker(result.environment), verdict, '', escapeMd(result.headline)];
  if (result.snapshotId !== undefined)
    lines.push('', `Snapshot before the first write: \`${result.snapshotId}\` (\`mftops snapshot restore ${result.snapshotId}\` puts ${env} back as it was).`);
  if (result.status === 'applied') {
    lines.push(
      '',
      result.verifiedBy === 'replan'
        ? 'Verified: a plan made after the writes finds nothing left to change.'
        : result.verifiedBy === 'payloads'
          ? 'Verified: every object written was read back and holds what was sent.'
          : 'Not verified: see the log of the run.',
    );
  }
  if (result.pullRequests.length > 1)
    lines.push('', `Applied together, each change reviewed on one of: ${result.pullRequests.map((n) => `#${n}`).join(', ')}.`);
  if (result.status === 'failed' || result.status === 'refused') {
    lines.push(
      '',
      '> [!CAUTION]',
      `> What was merged is **not** (all) on the servers of ${env}. Fix the cause, then run the *mftops apply* workflow again (Actions → mftops apply → Run workflow): it plans main and applies what the pull requests merged since the last successful apply reviewed. A change nobody reviewed needs a pull request.`,
    );
  }
  const foot = [
    '',
    '---',
    `<sub>mftops apply in ${run}${origin.sha !== undefined ? ` for commit ${origin.sha.slice(0, 12)}` : ''}. This comment is updated by every apply of ${env}.</sub>`,
    '',
  ];
  const head = lines.join('\n');
  const tail = foot.join('\n');
  if (result.details.length === 0) return `${head}\n${tail}`;
  // Details last and cut to the room left, so that the verdict and the way out always fit.
  const room = limit - head.length - tail.length - 200;
  let body = result.details.join('\n');
  if (body.length > room) body = `${body.slice(0, Math.max(0, room))}\n…(cut: the rest is in the log of the run)`;
  return `${head}\n\n<details><summary>Details</summary>\n\n${fence(body)}\n\n</details>\n${tail}`;
}

/** Post (or update) the environment's apply comment on every pull request of the result. */
export async function postApplyResult(
  api: GithubApi,
  result: ApplyResult,
  origin: CommentOrigin,
): Promise<Array<{ readonly pullRequest: number } & StickyResult>> {
  const body = renderApplyComment(result, origin);
  const posted: Array<{ readonly pullRequest: number } & StickyResult> = [];
  for (const n of result.pullRequests) posted.push({ pullRequest: n, ...(await upsertStickyComment(api, n, applyMarker(result.environment), body)) });
  return posted;
}
