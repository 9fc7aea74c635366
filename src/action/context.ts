import { readFileSync } from 'node:fs';
import { MftopsError } from '../errors.js';
import { isRecord } from '../is-record.js';
import { withDefined } from '../with-defined.js';

/**
 * What the runner tells a step about the run, from its `GITHUB_*` variables and the event
 * payload file. Only the fields the Action uses; everything optional is absent outside a
 * workflow (a local run), and the parts that need it (comments, issues, links) say so.
 */
export interface GithubContext {
  /** `GITHUB_EVENT_NAME`: `pull_request`, `push`, `schedule`, `workflow_dispatch`, … */
  readonly eventName?: string;
  /** `GITHUB_REPOSITORY` split: `owner/name`. */
  readonly repo?: { readonly owner: string; readonly name: string };
  /** REST base, `GITHUB_API_URL` (GHES has its own), no trailing slash. */
  readonly apiUrl: string;
  /** `GITHUB_SERVER_URL`, no trailing slash. */
  readonly serverUrl: string;
  /** The workflow run page, when repository and run id are known. */
  readonly runUrl?: string;
  readonly runId?: string;
  /** The pull request this event is about: `pull_request`, `pull_request_target`, or a comment on one. */
  readonly pullRequest?: { readonly number: number; readonly headSha?: string };
  /** `GITHUB_SHA`. */
  readonly sha?: string;
  /** `GITHUB_REF`: `refs/heads/main` on a schedule (the default branch) or a push. */
  readonly ref?: string;
  /** `GITHUB_WORKSPACE`, else the process's folder. */
  readonly workspace: string;
}

const DEFAULT_API_URL = 'https://api.github.com';
const DEFAULT_SERVER_URL = 'https://github.com';

export function readGithubContext(env: NodeJS.ProcessEnv, cwd: string): GithubContext {
  const eventName = nonEmpty(env['GITHUB_EVENT_NAME']);
  const repository = nonEmpty(env['GITHUB_REPOSITORY']);
  const slash = repository?.indexOf('/') ?? -1;
  const repo = repository !== undefined && slash > 0 ? { owner: repository.slice(0, slash), name: repository.slice(slash + 1) } : undefined;
  const serverUrl = trimSlash(nonEmpty(env['GITHUB_SERVER_URL']) ?? DEFAULT_SERVER_URL);
  const runId = nonEmpty(env['GITHUB_RUN_ID']);
  const attempt = nonEmpty(env['GITHUB_RUN_ATTEMPT']);
  const runUrl =
    repo !== undefined && runId !== undefined
      ? `${serverUrl}/${repo.owner}/${repo.name}/actions/runs/${runId}${attempt !== undefined && attempt !== '1' ? `/attempts/${attempt}` : ''}`
      : undefined;
  const eventPath = nonEmpty(env['GITHUB_EVENT_PATH']);
  const pullRequest = eventPath === undefined ? undefined : pullRequestOf(readEvent(eventPath));
  const sha = nonEmpty(env['GITHUB_SHA']);
  return {
    ...withDefined({
      eventName,
      repo,
    }),
    apiUrl: trimSlash(nonEmpty(env['GITHUB_API_URL']) ?? DEFAULT_API_URL),
    serverUrl,
    ...withDefined({
      runUrl,
      runId,
      pullRequest,
      sha,
      ref: nonEmpty(env['GITHUB_REF']),
    }),
    workspace: nonEmpty(env['GITHUB_WORKSPACE']) ?? cwd,
  };
}

function readEvent(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new MftopsError(`cannot read the event payload GITHUB_EVENT_PATH=${path} (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new MftopsError(`the event payload GITHUB_EVENT_PATH=${path} is not JSON`);
  }
}

/** `pull_request.number` (pull_request events) or `issue.number` of an issue that is a pull request (issue_comment). */
export function pullRequestOf(event: unknown): { number: number; headSha?: string } | undefined {
  if (!isRecord(event)) return undefined;
  const pr = event['pull_request'];
  if (isRecord(pr) && typeof pr['number'] === 'number') {
    const head = pr['head'];
    const headSha = isRecord(head) && typeof head['sha'] === 'string' ? head['sha'] : undefined;
    return { number: pr['number'], ...withDefined({ headSha }) };
  }
  const issue = event['issue'];
  if (isRecord(issue) && typeof issue['number'] === 'number' && isRecord(issue['pull_request'])) return { number: issue['number'] };
  return undefined;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}

function trimSlash(url: string): string {
  return url.replace(/\/+$/, '');
}
