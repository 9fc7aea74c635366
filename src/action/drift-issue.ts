import { escapeMd } from '../render/plan-markdown.js';
import type { GithubApi, Issue } from './github-api.js';
import { GITHUB_COMMENT_LIMIT, markerName, type CommentOrigin } from './pr-comment.js';

/** The label every drift issue carries; with the marker it finds the issue again. */
export const DRIFT_LABEL = 'mftops-drift';

const LABEL = { name: DRIFT_LABEL, color: 'd93f0b', description: 'A server no longer matches git (opened and closed by the mftops drift job)' };

/** The hidden line in the issue body naming the environment: one issue per environment. */
export function driftMarker(environment: string): string {
  return `<!-- mftops:drift:${markerName(environment)} -->`;
}

/** What a drift run found, as the issue needs it. */
export interface DriftFinding {
  readonly environment: string;
  readonly inSync: boolean;
  /** One line of counts: `3 drifted, 1 unmanaged of 12 managed objects`. */
  readonly headline: string;
  /** The report as markdown in at most `maxLength` characters, its summary whole. */
  readonly renderReport: (maxLength: number) => string;
}

export function driftIssueTitle(finding: DriftFinding): string {
  return `Drift in ${finding.environment}: ${finding.headline}`.slice(0, 250);
}

/**
 * The issue body: marker, the report, a footer with the run. Fitted to GitHub's body limit
 * (the same as a comment's), so a large drift never fails to be reported.
 */
export function renderDriftIssueBody(finding: DriftFinding, origin: CommentOrigin, now: Date): string {
  const head = `${driftMarker(finding.environment)}\n`;
  const run = origin.runUrl === undefined ? 'the drift job' : `[the drift job](${origin.runUrl})`;
  const foot = `\n---\n<sub>Last checked by ${run} at ${now.toISOString()}. mftops updates this issue on every run while the drift lasts and closes it when the servers match git again. To bring a server back, apply the manifests; to accept a change, put it in git.</sub>\n`;
  return `${head}${finding.renderReport(GITHUB_COMMENT_LIMIT - head.length - foot.length)}${foot}`;
}

export function renderDriftClosingComment(environment: string, origin: CommentOrigin, now: Date): string {
  const run = origin.runUrl === undefined ? 'the drift job' : `[the drift job](${origin.runUrl})`;
  return `The servers of **${escapeMd(environment)}** match git again (checked by ${run} at ${now.toISOString()}). Closing.`;
}

/**
 * - `opened`: drift appeared, a new issue;
 * - `updated`: drift goes on, the issue's title and body now show this run;
 * - `closed`: back in sync, the issue got a comment and was closed;
 * - `none`: in sync and no issue open.
 */
export type DriftIssueAction = 'opened' | 'updated' | 'closed' | 'none';

export interface DriftIssueResult {
  readonly action: DriftIssueAction;
  readonly issue?: Issue;
}

/**
 * Keep one issue per environment in step with the drift: open it when drift appears, update it
 * while it lasts (an edit notifies nobody: only the opening does), comment and close it when the
 * server is back in sync. Found by label and marker among the open issues.
 */
export async function syncDriftIssue(api: GithubApi, finding: DriftFinding, origin: CommentOrigin, now: Date = new Date()): Promise<DriftIssueResult> {
  const marker = driftMarker(finding.environment);
  const open = (await api.listOpenIssues(DRIFT_LABEL)).find((i) => i.body.includes(marker));
  if (finding.inSync) {
    if (open === undefined) return { action: 'none' };
    await api.createIssueComment(open.number, renderDriftClosingComment(finding.environment, origin, now));
    return { action: 'closed', issue: await api.updateIssue(open.number, { state: 'closed', stateReason: 'completed' }) };
  }
  const title = driftIssueTitle(finding);
  const body = renderDriftIssueBody(finding, origin, now);
  if (open !== undefined) return { action: 'updated', issue: await api.updateIssue(open.number, { title, body }) };
  await api.ensureLabel(LABEL);
  return { action: 'opened', issue: await api.createIssue({ title, body, labels: [DRIFT_LABEL] }) };
}
