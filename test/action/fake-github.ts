import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A stand-in for api.github.com on 127.0.0.1 (port 0), for tests that run the Action in a child
 * process, where nock cannot reach. It keeps issues, pull requests (issues with a
 * `pull_request` key, as the REST API lists them), comments and labels of one repository in
 * memory, pages lists with `Link` headers like GitHub (default 30, at most 100 per page),
 * checks the token, and records every call. A call it does not know is answered 404 and kept in
 * `unmatched()`, which tests assert is empty.
 *
 * Git data too, as the Git Data API answers it: commits and trees (each tree a whole map of path
 * to text, its sha a hash of that), branches (`POST /git/refs` refuses an existing one with 422,
 * `PATCH` moves one only when a fast-forward or `force: true`), and pull requests between branches
 * (`GET /pulls?head=owner:branch`, one open pull request per head, 422 for a second).
 */
export interface FakeIssue {
  number: number;
  title: string;
  body: string;
  state: 'open' | 'closed';
  state_reason?: string | null;
  labels: string[];
  pull_request?: { url: string };
  /** Pull requests opened through `POST /pulls`: their branches (the head's commit is read from the branch). */
  head?: string;
  base?: string;
}

/** A commit of the fake's git data: its tree's sha, parents and message. */
export interface FakeCommit {
  readonly tree: string;
  readonly parents: readonly string[];
  readonly message: string;
}

export interface FakeComment {
  id: number;
  issue_number: number;
  body: string;
  user: { login: string; type: string };
}

export interface RecordedCall {
  readonly method: string;
  /** No route of the fake answers it (a call GitHub's API would not understand either). */
  readonly unmatched: boolean;
  /** Path and query. */
  readonly url: string;
  readonly body?: unknown;
  readonly status: number;
}

export interface FakeGithub {
  readonly apiUrl: string;
  readonly token: string;
  readonly issues: Map<number, FakeIssue>;
  readonly comments: Map<number, FakeComment>;
  readonly labels: Set<string>;
  calls(): readonly RecordedCall[];
  /** Calls that wrote (POST/PATCH/PUT/DELETE), as `METHOD path`. */
  writes(): string[];
  unmatched(): readonly RecordedCall[];
  resetCalls(): void;
  /** Answer every write with this status (403: a fork's read-only token), or undefined to accept them. */
  refuseWrites: number | undefined;
  /** Answer branch writes (`POST /git/refs`, `PATCH /git/refs/heads/…`) 422 with this message, or undefined to accept them. */
  refuseRefWrites: string | undefined;
  addPullRequest(number: number, title: string): void;
  addComment(issueNumber: number, body: string, login?: string): FakeComment;
  /** A commit of these files (path → text) on the branch, which is created or moved to it; its sha. */
  addCommit(branch: string, files: Readonly<Record<string, string>>): string;
  /** Branch → commit sha. */
  readonly branches: Map<string, string>;
  readonly commits: Map<string, FakeCommit>;
  /** The files of a commit's tree (path → text). */
  filesAt(commitSha: string): Map<string, string>;
  /** Pull requests opened through the API, by number. */
  pulls(): FakeIssue[];
  close(): Promise<void>;
}

export async function startFakeGithub(options: { owner?: string; repo?: string; token?: string } = {}): Promise<FakeGithub> {
  const owner = options.owner ?? 'acme-corp';
  const repo = options.repo ?? 'mft-config';
  const token = options.token ?? 'ghs_faketoken0123456789';
  const issues = new Map<number, FakeIssue>();
  const comments = new Map<number, FakeComment>();
  const labels = new Set<string>(['bug']);
  const calls: RecordedCall[] = [];
  let nextNumber = 1;
  let nextCommentId = 1_000_001;
  let base = '';
  const trees = new Map<string, Map<string, string>>();
  const commits = new Map<string, FakeCommit>();
  const branches = new Map<string, string>();
  const hash = (text: string): string => createHash('sha1').update(text).digest('hex');
  const addTree = (files: Map<string, string>): string => {
    const sha = hash(JSON.stringify([...files].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))));
    trees.set(sha, files);
    return sha;
  };
  const addCommitObject = (commit: FakeCommit): string => {
    const sha = hash(`${JSON.stringify(commit)}${commits.size}`);
    commits.set(sha, commit);
    return sha;
  };
  /** Whether `ancestor` is `sha` or one of its ancestors. */
  const isAncestor = (ancestor: string, sha: string): boolean => {
    if (ancestor === sha) return true;
    return (commits.get(sha)?.parents ?? []).some((p) => isAncestor(ancestor, p));
  };

  const addComment = (issueNumber: number, body: string, login = 'github-actions[bot]'): FakeComment => {
    const c = { id: nextCommentId++, issue_number: issueNumber, body, user: { login, type: login.endsWith('[bot]') ? 'Bot' : 'User' } };
    comments.set(c.id, c);
    return c;
  };

  const server = createServer((req, res) => {
    void readBody(req).then((raw) => {
      const url = new URL(req.url ?? '/', 'http://x');
      const body = raw === '' ? undefined : (JSON.parse(raw) as Record<string, unknown>);
      const status = route(req.method ?? 'GET', url, body, req, res);
      calls.push({
        method: req.method ?? 'GET',
        unmatched: status === UNMATCHED,
        url: `${url.pathname}${url.search}`,
        ...(body !== undefined ? { body } : {}),
        status: status === UNMATCHED ? 404 : status,
      });
    });
  });

  function route(method: string, url: URL, body: Record<string, unknown> | undefined, req: IncomingMessage, res: ServerResponse): number {
    if (req.headers.authorization !== `Bearer ${token}`) return send(res, 401, { message: 'Bad credentials' });
    if (req.headers['x-github-api-version'] === undefined || !String(req.headers.accept).includes('application/vnd.github')) {
      return send(res, 400, { message: 'missing GitHub API headers' });
    }
    if (method !== 'GET' && fake.refuseWrites !== undefined) return send(res, fake.refuseWrites, { message: 'Resource not accessible by integration' });
    const prefix = `/repos/${owner}/${repo}`;
    if (!url.pathname.startsWith(`${prefix}/`)) return unmatched(res);
    const path = url.pathname.slice(prefix.length);
    let m: RegExpExecArray | null;
    if ((m = /^\/issues\/(\d+)\/comments$/.exec(path))) {
      const issue = issues.get(Number(m[1]));
      if (issue === undefined) return send(res, 404, { message: 'Not Found' });
      if (method === 'GET') return page(res, url, [...comments.values()].filter((c) => c.issue_number === issue.number).map(commentJson));
      if (method === 'POST' && typeof body?.['body'] === 'string') return send(res, 201, commentJson(addComment(issue.number, body['body'])));
      return unmatched(res);
    }
    if ((m = /^\/issues\/comments\/(\d+)$/.exec(path)) && method === 'PATCH') {
      const c = comments.get(Number(m[1]));
      if (c === undefined) return send(res, 404, { message: 'Not Found' });
      if (typeof body?.['body'] !== 'string') return send(res, 422, { message: 'body is required' });
      c.body = body['body'];
      return send(res, 200, commentJson(c));
    }
    if (path === '/issues' && method === 'GET') {
      const state = url.searchParams.get('state') ?? 'open';
      const wanted = (url.searchParams.get('labels') ?? '').split(',').filter((l) => l !== '');
      const list = [...issues.values()]
        .filter((i) => state === 'all' || i.state === state)
        .filter((i) => wanted.every((l) => i.labels.includes(l)))
        .sort((a, b) => b.number - a.number)
        .map(issueJson);
      return page(res, url, list);
    }
    if (path === '/issues' && method === 'POST') {
      if (typeof body?.['title'] !== 'string') return send(res, 422, { message: 'title is required' });
      const wantedLabels = Array.isArray(body['labels']) ? (body['labels'] as string[]) : [];
      for (const l of wantedLabels) labels.add(l);
      const issue: FakeIssue = {
        number: nextNumber++,
        title: body['title'],
        body: typeof body['body'] === 'string' ? body['body'] : '',
        state: 'open',
        labels: wantedLabels,
      };
      issues.set(issue.number, issue);
      return send(res, 201, issueJson(issue));
    }
    if ((m = /^\/issues\/(\d+)$/.exec(path)) && method === 'PATCH') {
      const issue = issues.get(Number(m[1]));
      if (issue === undefined) return send(res, 404, { message: 'Not Found' });
      if (typeof body?.['title'] === 'string') issue.title = body['title'];
      if (typeof body?.['body'] === 'string') issue.body = body['body'];
      if (body?.['state'] === 'open' || body?.['state'] === 'closed') issue.state = body['state'];
      if (typeof body?.['state_reason'] === 'string') issue.state_reason = body['state_reason'];
      return send(res, 200, issueJson(issue));
    }
    if ((m = /^\/git\/ref\/heads\/(.+)$/.exec(path)) && method === 'GET') {
      const branch = decodeURIComponent(m[1] ?? '');
      const sha = branches.get(branch);
      return sha === undefined ? send(res, 404, { message: 'Not Found' }) : send(res, 200, { ref: `refs/heads/${branch}`, object: { sha, type: 'commit' } });
    }
    if ((m = /^\/git\/commits\/([0-9a-f]+)$/.exec(path)) && method === 'GET') {
      const c = commits.get(m[1] ?? '');
      return c === undefined
        ? send(res, 404, { message: 'Not Found' })
        : send(res, 200, { sha: m[1], tree: { sha: c.tree }, parents: c.parents.map((sha) => ({ sha })), message: c.message });
    }
    if (path === '/git/trees' && method === 'POST') {
      const baseTree = typeof body?.['base_tree'] === 'string' ? trees.get(body['base_tree']) : new Map<string, string>();
      if (baseTree === undefined || !Array.isArray(body?.['tree'])) return send(res, 422, { message: 'Invalid tree info' });
      const files = new Map(baseTree);
      for (const entry of body['tree'] as Record<string, unknown>[]) {
        const p = String(entry['path']);
        if (entry['sha'] === null) {
          if (!files.has(p)) return send(res, 422, { message: 'GitRPC::BadObjectState' });
          files.delete(p);
        } else if (typeof entry['content'] === 'string' && (entry['mode'] === '100644' || entry['mode'] === '100755')) files.set(p, entry['content']);
        else return send(res, 422, { message: 'Invalid tree info' });
      }
      return send(res, 201, { sha: addTree(files) });
    }
    if (path === '/git/commits' && method === 'POST') {
      const parents = Array.isArray(body?.['parents']) ? (body['parents'] as string[]) : [];
      if (typeof body?.['tree'] !== 'string' || !trees.has(body['tree']) || parents.some((p) => !commits.has(p)) || typeof body['message'] !== 'string')
        return send(res, 422, { message: 'Invalid commit' });
      const sha = addCommitObject({ tree: body['tree'], parents, message: body['message'] });
      return send(res, 201, { sha, tree: { sha: body['tree'] } });
    }
    if (fake.refuseRefWrites !== undefined && method !== 'GET' && /^\/git\/refs(\/heads\/.+)?$/.test(path))
      return send(res, 422, { message: fake.refuseRefWrites });
    if (path === '/git/refs' && method === 'POST') {
      const ref = String(body?.['ref'] ?? '');
      const sha = String(body?.['sha'] ?? '');
      if (!ref.startsWith('refs/heads/') || !commits.has(sha)) return send(res, 422, { message: 'Invalid request' });
      if (branches.has(ref.slice('refs/heads/'.length))) return send(res, 422, { message: 'Reference already exists' });
      branches.set(ref.slice('refs/heads/'.length), sha);
      return send(res, 201, { ref, object: { sha, type: 'commit' } });
    }
    if ((m = /^\/git\/refs\/heads\/(.+)$/.exec(path)) && method === 'PATCH') {
      const branch = decodeURIComponent(m[1] ?? '');
      const sha = String(body?.['sha'] ?? '');
      const now = branches.get(branch);
      if (now === undefined) return send(res, 422, { message: 'Reference does not exist' });
      if (!commits.has(sha)) return send(res, 422, { message: 'Object does not exist' });
      if (body?.['force'] !== true && !isAncestor(now, sha)) return send(res, 422, { message: 'Update is not a fast forward' });
      branches.set(branch, sha);
      return send(res, 200, { ref: `refs/heads/${branch}`, object: { sha, type: 'commit' } });
    }
    if (path === '/pulls' && method === 'GET') {
      const state = url.searchParams.get('state') ?? 'open';
      const head = url.searchParams.get('head');
      const list = [...issues.values()]
        .filter((i) => i.head !== undefined && (state === 'all' || i.state === state))
        .filter((i) => head === null || `${owner}:${i.head}` === head)
        .sort((a, b) => b.number - a.number)
        .map(pullJson);
      return page(res, url, list);
    }
    if (path === '/pulls' && method === 'POST') {
      const head = String(body?.['head'] ?? '');
      const baseBranch = String(body?.['base'] ?? '');
      if (typeof body?.['title'] !== 'string' || !branches.has(head) || !branches.has(baseBranch)) return send(res, 422, { message: 'Validation Failed' });
      if ([...issues.values()].some((i) => i.head === head && i.state === 'open'))
        return send(res, 422, { message: 'Validation Failed', errors: [{ message: `A pull request already exists for ${owner}:${head}.` }] });
      const pr: FakeIssue = {
        number: nextNumber++,
        title: body['title'],
        body: typeof body['body'] === 'string' ? body['body'] : '',
        state: 'open',
        labels: [],
        pull_request: { url: `${base}/repos/${owner}/${repo}/pulls/${nextNumber - 1}` },
        head,
        base: baseBranch,
      };
      issues.set(pr.number, pr);
      return send(res, 201, pullJson(pr));
    }
    if ((m = /^\/pulls\/(\d+)$/.exec(path)) && method === 'PATCH') {
      const pr = issues.get(Number(m[1]));
      if (pr?.head === undefined) return send(res, 404, { message: 'Not Found' });
      if (typeof body?.['title'] === 'string') pr.title = body['title'];
      if (typeof body?.['body'] === 'string') pr.body = body['body'];
      if (body?.['state'] === 'open' || body?.['state'] === 'closed') pr.state = body['state'];
      return send(res, 200, pullJson(pr));
    }
    if ((m = /^\/labels\/([^/]+)$/.exec(path)) && method === 'GET') {
      const name = decodeURIComponent(m[1] ?? '');
      return labels.has(name) ? send(res, 200, { name, color: 'ededed' }) : send(res, 404, { message: 'Not Found' });
    }
    if (path === '/labels' && method === 'POST') {
      const name = String(body?.['name'] ?? '');
      if (labels.has(name)) return send(res, 422, { message: 'Validation Failed', errors: [{ code: 'already_exists' }] });
      labels.add(name);
      return send(res, 201, { name, color: body?.['color'] });
    }
    return unmatched(res);
  }

  function page(res: ServerResponse, url: URL, all: unknown[]): number {
    const perPage = Math.min(100, Number(url.searchParams.get('per_page') ?? 30));
    const pageNo = Number(url.searchParams.get('page') ?? 1);
    const items = all.slice((pageNo - 1) * perPage, pageNo * perPage);
    if (pageNo * perPage < all.length) {
      const next = new URL(url.toString().replace('http://x', base));
      next.searchParams.set('page', String(pageNo + 1));
      res.setHeader('link', `<${next.toString()}>; rel="next", <${next.toString()}>; rel="last"`);
    }
    return send(res, 200, items);
  }

  function commentJson(c: FakeComment): unknown {
    return { id: c.id, body: c.body, user: c.user, html_url: `https://github.com/${owner}/${repo}/issues/${c.issue_number}#issuecomment-${c.id}` };
  }

  function pullJson(p: FakeIssue): unknown {
    return {
      number: p.number,
      title: p.title,
      body: p.body,
      state: p.state,
      html_url: `https://github.com/${owner}/${repo}/pull/${p.number}`,
      head: { ref: p.head, sha: branches.get(p.head ?? '') ?? null },
      base: { ref: p.base },
    };
  }

  function issueJson(i: FakeIssue): unknown {
    return {
      number: i.number,
      title: i.title,
      body: i.body,
      state: i.state,
      state_reason: i.state_reason ?? null,
      labels: i.labels.map((name) => ({ name })),
      html_url: `https://github.com/${owner}/${repo}/issues/${i.number}`,
      ...(i.pull_request ? { pull_request: i.pull_request } : {}),
    };
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const fake: FakeGithub = {
    refuseWrites: undefined,
    refuseRefWrites: undefined,
    apiUrl: base,
    token,
    issues,
    comments,
    labels,
    calls: () => calls,
    writes: () => calls.filter((c) => c.method !== 'GET').map((c) => `${c.method} ${c.url}`),
    unmatched: () => calls.filter((c) => c.unmatched),
    resetCalls: () => void calls.splice(0),
    addPullRequest: (number, title) => {
      issues.set(number, { number, title, body: '', state: 'open', labels: [], pull_request: { url: `${base}/repos/${owner}/${repo}/pulls/${number}` } });
      nextNumber = Math.max(nextNumber, number + 1);
    },
    addComment,
    addCommit: (branch, files) => {
      const parent = branches.get(branch);
      const sha = addCommitObject({ tree: addTree(new Map(Object.entries(files))), parents: parent === undefined ? [] : [parent], message: 'test commit' });
      branches.set(branch, sha);
      return sha;
    },
    branches,
    commits,
    filesAt: (sha) => new Map(trees.get(commits.get(sha)?.tree ?? '') ?? []),
    pulls: () => [...issues.values()].filter((i) => i.head !== undefined),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return fake;
}

/** Returned by the router for a call no route answers (sent as a 404). */
const UNMATCHED = -404;

function unmatched(res: ServerResponse): number {
  send(res, 404, { message: 'Not Found (no such route in the fake GitHub API)' });
  return UNMATCHED;
}

function send(res: ServerResponse, status: number, data: unknown): number {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
  res.end(JSON.stringify(data));
  return status;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (d: string) => (raw += d));
    req.on('end', () => resolve(raw));
    req.on('error', reject);
  });
}
