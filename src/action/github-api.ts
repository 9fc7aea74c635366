import { MftopsError } from '../errors.js';
import { VERSION } from '../version.js';
import { isRecord } from '../is-record.js';
import { withDefined } from '../with-defined.js';

/**
 * The few GitHub REST calls the Action makes (issue comments on pull requests, drift issues),
 * on `globalThis.fetch`: no Octokit, and nock can intercept it in tests. Writes are never
 * retried (a retried POST could post a second comment); reads are retried once on 5xx.
 */

/** A comment on an issue or pull request, as far as the Action reads it. */
export interface IssueComment {
  readonly id: number;
  readonly body: string;
  readonly htmlUrl?: string;
}

/** An issue (never a pull request: the list call drops those). */
export interface Issue {
  readonly number: number;
  readonly title: string;
  readonly body: string;
  readonly state: 'open' | 'closed';
  readonly htmlUrl?: string;
}

export interface GithubApi {
  /** Every comment of the issue or pull request, all pages, oldest first. */
  listIssueComments(issueNumber: number): Promise<IssueComment[]>;
  createIssueComment(issueNumber: number, body: string): Promise<IssueComment>;
  updateIssueComment(commentId: number, body: string): Promise<IssueComment>;
  /** Open issues carrying the label, all pages. */
  listOpenIssues(label: string): Promise<Issue[]>;
  createIssue(issue: { title: string; body: string; labels: readonly string[] }): Promise<Issue>;
  updateIssue(
    issueNumber: number,
    change: { title?: string; body?: string; state?: 'open' | 'closed'; stateReason?: 'completed' | 'not_planned' },
  ): Promise<Issue>;
  /** Create the label unless the repository has it. */
  ensureLabel(label: { name: string; color: string; description: string }): Promise<void>;
  /** The commit a branch points at, or undefined when there is no such branch (Git Data API). */
  getBranchSha(branch: string): Promise<string | undefined>;
  /** The tree of a commit. */
  getCommitTree(commitSha: string): Promise<string>;
  /** A commit's tree, parents and message. */
  getCommit(commitSha: string): Promise<GitCommit>;
  /** A tree on `baseTree` with these files written (`text`) or removed (`text: null`). */
  createTree(baseTree: string, files: readonly TreeFile[]): Promise<string>;
  createCommit(commit: { message: string; tree: string; parents: readonly string[] }): Promise<string>;
  /**
   * Point the branch at `sha`: `move` false creates it (GitHub refuses with 422 when it exists by
   * then); `move` true moves the existing one even when not a fast-forward (`force`).
   */
  setBranch(branch: string, sha: string, move: boolean): Promise<void>;
  /** The open pull request from `branch` of this repository, if any. */
  findOpenPullRequest(branch: string): Promise<PullRequest | undefined>;
  /** The latest pull request from `branch` of this repository that was closed without being merged, if any. */
  findClosedUnmergedPullRequest(branch: string): Promise<PullRequest | undefined>;
  createPullRequest(pr: { title: string; body: string; head: string; base: string }): Promise<PullRequest>;
  updatePullRequest(number: number, change: { title?: string; body?: string; state?: 'open' | 'closed' }): Promise<PullRequest>;
}

/** One file of a new tree, by its path from the repository root; `text: null` removes it. */
export interface TreeFile {
  readonly path: string;
  readonly text: string | null;
  /** `100644`, or `100755` for an executable file. */
  readonly mode: '100644' | '100755';
}

/** A commit of the Git Data API, as far as the Action reads it. */
export interface GitCommit {
  readonly tree: string;
  readonly parents: readonly string[];
  readonly message: string;
}

/** A pull request, as far as the Action reads it. */
export interface PullRequest {
  readonly number: number;
  readonly state: 'open' | 'closed';
  readonly body: string;
  readonly htmlUrl?: string;
  /** The commit its head branch points at. */
  readonly headSha?: string;
}

export interface GithubApiOptions {
  /** `GITHUB_API_URL`, e.g. `https://api.github.com`. */
  readonly apiUrl: string;
  readonly token: string;
  readonly owner: string;
  readonly repo: string;
  /** Default: `globalThis.fetch`, looked up at each call. */
  readonly fetch?: typeof globalThis.fetch;
  /** Most pages read by one list call (100 items each). Default 100. */
  readonly maxPages?: number;
}

/** A REST call failed; the message says which call, the status, GitHub's words, and what to check. */
export class GithubApiError extends MftopsError {
  readonly status: number | undefined;
  constructor(message: string, status: number | undefined) {
    super(message);
    this.status = status;
  }
}

export function createGithubApi(options: GithubApiOptions): GithubApi {
  const base = options.apiUrl.replace(/\/+$/, '');
  const origin = new URL(base).origin;
  const repoPath = `/repos/${encodeURIComponent(options.owner)}/${encodeURIComponent(options.repo)}`;
  const maxPages = options.maxPages ?? 100;
  const fetchFn = (): typeof globalThis.fetch => options.fetch ?? globalThis.fetch;

  async function call(method: string, url: string, body?: unknown): Promise<{ status: number; data: unknown; next?: string }> {
    const what = `${method} ${url.startsWith(base) ? url.slice(base.length) : url}`;
    for (let attempt = 1; ; attempt++) {
      let res: Response;
      try {
        res = await fetchFn()(url, {
          method,
          headers: {
            accept: 'application/vnd.github+json',
            authorization: `Bearer ${options.token}`,
            'user-agent': `mftops-action/${VERSION}`,
            'x-github-api-version': '2022-11-28',
            ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
          },
          ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        });
      } catch (err) {
        if (method === 'GET' && attempt === 1) continue;
        throw new GithubApiError(`GitHub API ${what} failed: ${err instanceof Error ? err.message : String(err)}`, undefined);
      }
      const text = await res.text();
      if (res.status >= 500 && method === 'GET' && attempt === 1) continue;
      if (!res.ok) throw new GithubApiError(`GitHub API ${what} returned ${res.status}: ${messageOf(text)}${hintFor(res.status, method)}`, res.status);
      let data: unknown = undefined;
      if (text !== '') {
        try {
          data = JSON.parse(text) as unknown;
        } catch {
          throw new GithubApiError(`GitHub API ${what} returned ${res.status} with a body that is not JSON`, res.status);
        }
      }
      const next = nextLink(res.headers.get('link'));
      return { status: res.status, data, ...withDefined({ next }) };
    }
  }

  async function paginate(path: string): Promise<unknown[]> {
    const items: unknown[] = [];
    let url: string | undefined = `${base}${path}${path.includes('?') ? '&' : '?'}per_page=100`;
    for (let page = 0; url !== undefined; page++) {
      if (page >= maxPages) throw new GithubApiError(`GitHub API GET ${path}: more than ${maxPages} pages`, undefined);
      const { data, next }: { data: unknown; next?: string } = await call('GET', url);
      if (!Array.isArray(data)) throw new GithubApiError(`GitHub API GET ${path} did not return a list`, undefined);
      items.push(...(data as unknown[]));
      // Follow only links to the same API: the token must never leave for another host.
      url = next !== undefined && new URL(next).origin === origin ? next : undefined;
    }
    return items;
  }

  return {
    listIssueComments: async (n) => (await paginate(`${repoPath}/issues/${n}/comments`)).map(toComment),
    createIssueComment: async (n, body) => toComment((await call('POST', `${base}${repoPath}/issues/${n}/comments`, { body })).data),
    updateIssueComment: async (id, body) => toComment((await call('PATCH', `${base}${repoPath}/issues/comments/${id}`, { body })).data),
    listOpenIssues: async (label) =>
      (await paginate(`${repoPath}/issues?state=open&labels=${encodeURIComponent(label)}`)).filter((i) => !(isRecord(i) && 'pull_request' in i)).map(toIssue),
    createIssue: async (issue) =>
      toIssue((await call('POST', `${base}${repoPath}/issues`, { title: issue.title, body: issue.body, labels: issue.labels })).data),
    updateIssue: async (n, change) =>
      toIssue(
        (
          await call('PATCH', `${base}${repoPath}/issues/${n}`, {
            ...withDefined({
              title: change.title,
              body: change.body,
              state: change.state,
              state_reason: change.stateReason,
            }),
          })
        ).data,
      ),
    ensureLabel: async (label) => {
      try {
        await call('GET', `${base}${repoPath}/labels/${encodeURIComponent(label.name)}`);
        return;
      } catch (err) {
        if (!(err instanceof GithubApiError) || err.status !== 404) throw err;
      }
      try {
        await call('POST', `${base}${repoPath}/labels`, label);
      } catch (err) {
        // 422 "already_exists": another job created it meanwhile.
        if (!(err instanceof GithubApiError) || err.status !== 422) throw err;
      }
    },
    getBranchSha: async (branch) => {
      try {
        const { data } = await call('GET', `${base}${repoPath}/git/ref/heads/${encodeRef(branch)}`);
        return isRecord(data) && isRecord(data['object']) && typeof data['object']['sha'] === 'string' ? data['object']['sha'] : undefined;
      } catch (err) {
        if (err instanceof GithubApiError && err.status === 404) return undefined;
        throw err;
      }
    },
    getCommitTree: async (sha) => {
      const { data } = await call('GET', `${base}${repoPath}/git/commits/${encodeURIComponent(sha)}`);
      if (!isRecord(data) || !isRecord(data['tree']) || typeof data['tree']['sha'] !== 'string')
        throw new GithubApiError(`GitHub API returned commit ${sha} without a tree`, undefined);
      return data['tree']['sha'];
    },
    getCommit: async (sha) => {
      const { data } = await call('GET', `${base}${repoPath}/git/commits/${encodeURIComponent(sha)}`);
      if (!isRecord(data) || !isRecord(data['tree']) || typeof data['tree']['sha'] !== 'string' || !Array.isArray(data['parents']))
        throw new GithubApiError(`GitHub API returned commit ${sha} without a tree or parents`, undefined);
      return {
        tree: data['tree']['sha'],
        parents: (data['parents'] as unknown[]).map((p) => (isRecord(p) && typeof p['sha'] === 'string' ? p['sha'] : '')),
        message: typeof data['message'] === 'string' ? data['message'] : '',
      };
    },
    createTree: async (baseTree, files) =>
      shaOf(
        (
          await call('POST', `${base}${repoPath}/git/trees`, {
            base_tree: baseTree,
            // `sha: null` removes a path; `content` writes the text as a blob.
            tree: files.map((f) =>
              f.text === null ? { path: f.path, mode: f.mode, type: 'blob', sha: null } : { path: f.path, mode: f.mode, type: 'blob', content: f.text },
            ),
          })
        ).data,
        'tree',
      ),
    createCommit: async (commit) =>
      shaOf((await call('POST', `${base}${repoPath}/git/commits`, { message: commit.message, tree: commit.tree, parents: commit.parents })).data, 'commit'),
    setBranch: async (branch, sha, move) => {
      if (move) await call('PATCH', `${base}${repoPath}/git/refs/heads/${encodeRef(branch)}`, { sha, force: true });
      else await call('POST', `${base}${repoPath}/git/refs`, { ref: `refs/heads/${branch}`, sha });
    },
    findOpenPullRequest: async (branch) => {
      const list = await paginate(`${repoPath}/pulls?state=open&head=${encodeURIComponent(`${options.owner}:${branch}`)}`);
      // The head filter is the server's; a pull request from another branch is never taken for ours.
      const mine = list.find((p) => isRecord(p) && isRecord(p['head']) && p['head']['ref'] === branch);
      return mine === undefined ? undefined : toPullRequest(mine);
    },
    findClosedUnmergedPullRequest: async (branch) => {
      const list = await paginate(`${repoPath}/pulls?state=closed&sort=created&direction=desc&head=${encodeURIComponent(`${options.owner}:${branch}`)}`);
      const declined = list.find((p) => isRecord(p) && isRecord(p['head']) && p['head']['ref'] === branch && (p['merged_at'] ?? null) === null);
      return declined === undefined ? undefined : toPullRequest(declined);
    },
    createPullRequest: async (pr) =>
      toPullRequest((await call('POST', `${base}${repoPath}/pulls`, { title: pr.title, body: pr.body, head: pr.head, base: pr.base })).data),
    updatePullRequest: async (n, change) =>
      toPullRequest(
        (await call('PATCH', `${base}${repoPath}/pulls/${n}`, { ...withDefined({ title: change.title, body: change.body, state: change.state }) })).data,
      ),
  };
}

/** A branch name in a URL path: each segment encoded, the slashes kept (`mftops/adopt-prod`). */
function encodeRef(branch: string): string {
  return branch.split('/').map(encodeURIComponent).join('/');
}

function shaOf(data: unknown, what: string): string {
  if (!isRecord(data) || typeof data['sha'] !== 'string') throw new GithubApiError(`GitHub API returned a ${what} without a sha`, undefined);
  return data['sha'];
}

function toPullRequest(data: unknown): PullRequest {
  if (!isRecord(data) || typeof data['number'] !== 'number') throw new GithubApiError('GitHub API returned a pull request without a number', undefined);
  const head = data['head'];
  return {
    number: data['number'],
    state: data['state'] === 'closed' ? 'closed' : 'open',
    body: typeof data['body'] === 'string' ? data['body'] : '',
    ...withDefined({
      htmlUrl: typeof data['html_url'] === 'string' ? data['html_url'] : undefined,
      headSha: isRecord(head) && typeof head['sha'] === 'string' ? head['sha'] : undefined,
    }),
  };
}

/** The `rel="next"` URL of a `Link` header. */
export function nextLink(header: string | null): string | undefined {
  if (header === null) return undefined;
  for (const part of header.split(',')) {
    const m = /<([^>]+)>\s*;\s*rel="?next"?/.exec(part);
    if (m?.[1] !== undefined) return m[1];
  }
  return undefined;
}

function messageOf(text: string): string {
  try {
    const data = JSON.parse(text) as unknown;
    if (isRecord(data) && typeof data['message'] === 'string') return data['message'];
  } catch {
    // not JSON: fall through to the text itself
  }
  const line = text.trim().split('\n')[0] ?? '';
  return line === '' ? '(no message)' : line.slice(0, 200);
}

function hintFor(status: number, method: string): string {
  if (status === 401) return ' (check the github-token input)';
  if ((status === 403 || status === 404) && method !== 'GET') {
    return ' (the token may lack permission: give the job `permissions: { pull-requests: write, issues: write }`; pull requests from forks get a read-only token)';
  }
  return '';
}

function toComment(data: unknown): IssueComment {
  if (!isRecord(data) || typeof data['id'] !== 'number') throw new GithubApiError('GitHub API returned a comment without an id', undefined);
  return {
    id: data['id'],
    body: typeof data['body'] === 'string' ? data['body'] : '',
    ...(typeof data['html_url'] === 'string' ? { htmlUrl: data['html_url'] } : {}),
  };
}

function toIssue(data: unknown): Issue {
  if (!isRecord(data) || typeof data['number'] !== 'number') throw new GithubApiError('GitHub API returned an issue without a number', undefined);
  return {
    number: data['number'],
    title: typeof data['title'] === 'string' ? data['title'] : '',
    body: typeof data['body'] === 'string' ? data['body'] : '',
    state: data['state'] === 'closed' ? 'closed' : 'open',
    ...(typeof data['html_url'] === 'string' ? { htmlUrl: data['html_url'] } : {}),
  };
}
