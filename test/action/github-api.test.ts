import nock from 'nock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DRIFT_LABEL, driftMarker, syncDriftIssue, type DriftFinding } from '../../src/action/drift-issue.js';
import { createGithubApi, GithubApiError, nextLink } from '../../src/action/github-api.js';
import { planMarker, upsertStickyComment } from '../../src/action/pr-comment.js';

/**
 * The REST module in-process, on `globalThis.fetch`, with nock: every request must be one the
 * test expects (no network, no unmatched call), and every expected one must happen.
 */

const API = 'https://api.github.test';
const REPO = '/repos/acme-corp/mft-config';
const TOKEN = 'ghs_unit_test_token';
const ORIGIN = { runUrl: 'https://github.com/acme-corp/mft-config/actions/runs/77', sha: 'abcdef0123456789' };

let unmatched: string[];
const onNoMatch = (req: { method?: string; path?: string; href?: string }) => unmatched.push(`${req.method ?? '?'} ${req.href ?? req.path ?? '?'}`);

beforeEach(() => {
  unmatched = [];
  nock.disableNetConnect();
  nock.emitter.on('no match', onNoMatch);
});
afterEach(() => {
  nock.emitter.removeListener('no match', onNoMatch);
  const pending = nock.pendingMocks();
  nock.cleanAll();
  nock.enableNetConnect();
  expect(unmatched).toEqual([]);
  expect(pending).toEqual([]);
});

function api() {
  return createGithubApi({ apiUrl: API, token: TOKEN, owner: 'acme-corp', repo: 'mft-config' });
}

function github(): nock.Scope {
  return nock(API, { reqheaders: { authorization: `Bearer ${TOKEN}`, accept: 'application/vnd.github+json', 'x-github-api-version': '2022-11-28' } });
}

const comment = (id: number, body: string) => ({
  id,
  body,
  user: { login: 'someone' },
  html_url: `https://github.com/acme-corp/mft-config/pull/5#issuecomment-${id}`,
});

describe('listing with pagination', () => {
  it('reads every page the Link header names, with the token and API version headers', async () => {
    github()
      .get(`${REPO}/issues/5/comments`)
      .query({ per_page: '100' })
      .reply(200, [comment(1, 'a'), comment(2, 'b')], {
        link: `<${API}${REPO}/issues/5/comments?per_page=100&page=2>; rel="next", <${API}${REPO}/issues/5/comments?per_page=100&page=3>; rel="last"`,
      })
      .get(`${REPO}/issues/5/comments`)
      .query({ per_page: '100', page: '2' })
      .reply(200, [comment(3, 'c')], { link: `<${API}${REPO}/issues/5/comments?per_page=100&page=3>; rel="next"` })
      .get(`${REPO}/issues/5/comments`)
      .query({ per_page: '100', page: '3' })
      .reply(200, [comment(4, 'd')]);
    expect((await api().listIssueComments(5)).map((c) => c.id)).toEqual([1, 2, 3, 4]);
  });

  it('never follows a next link to another host: the token stays with the API', async () => {
    github()
      .get(`${REPO}/issues/5/comments`)
      .query(true)
      .reply(200, [comment(1, 'a')], { link: '<https://evil.example/steal?page=2>; rel="next"' });
    expect((await api().listIssueComments(5)).map((c) => c.id)).toEqual([1]);
  });

  it('reads the next link wherever it sits in the header', () => {
    expect(nextLink('<https://x/a?page=1>; rel="prev", <https://x/a?page=3>; rel="next"')).toBe('https://x/a?page=3');
    expect(nextLink('<https://x/a?page=9>; rel="last"')).toBeUndefined();
    expect(nextLink(null)).toBeUndefined();
  });
});

describe('the sticky pull-request comment', () => {
  it('creates the comment when no comment carries the marker', async () => {
    const marker = planMarker('prod');
    const body = `${marker}\n## mftops plan: prod\n`;
    github()
      .get(`${REPO}/issues/5/comments`)
      .query(true)
      .reply(200, [comment(1, 'LGTM'), comment(2, `${planMarker('staging')}\nother env`)]);
    github().post(`${REPO}/issues/5/comments`, { body }).reply(201, comment(3, body));
    const result = await upsertStickyComment(api(), 5, marker, body);
    expect(result.action).toBe('created');
    expect(result.comment.id).toBe(3);
  });

  it('updates the comment that carries the marker, found on a later page', async () => {
    const marker = planMarker('prod');
    const body = `${marker}\n## mftops plan: prod (new)\n`;
    github()
      .get(`${REPO}/issues/5/comments`)
      .query({ per_page: '100' })
      .reply(200, [comment(1, 'LGTM')], { link: `<${API}${REPO}/issues/5/comments?per_page=100&page=2>; rel="next"` })
      .get(`${REPO}/issues/5/comments`)
      .query({ per_page: '100', page: '2' })
      .reply(200, [comment(9, `${marker}\nold plan`)]);
    github().patch(`${REPO}/issues/comments/9`, { body }).reply(200, comment(9, body));
    const result = await upsertStickyComment(api(), 5, marker, body);
    expect(result).toMatchObject({ action: 'updated', comment: { id: 9 } });
  });

  it('tells the user which permission is missing when GitHub refuses the write', async () => {
    github().get(`${REPO}/issues/5/comments`).query(true).reply(200, []);
    github().post(`${REPO}/issues/5/comments`).reply(403, { message: 'Resource not accessible by integration' });
    const err = await upsertStickyComment(api(), 5, planMarker('prod'), `${planMarker('prod')}\nx`).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GithubApiError);
    expect((err as Error).message).toBe(
      `GitHub API POST ${REPO}/issues/5/comments returned 403: Resource not accessible by integration (the token may lack permission: give the job \`permissions: { pull-requests: write, issues: write }\`; pull requests from forks get a read-only token)`,
    );
  });

  it('retries a read once on a 5xx, never a write', async () => {
    github().get(`${REPO}/issues/5/comments`).query(true).reply(502, 'Bad Gateway').get(`${REPO}/issues/5/comments`).query(true).reply(200, []);
    github().post(`${REPO}/issues/5/comments`).reply(502, 'Bad Gateway');
    const err = await upsertStickyComment(api(), 5, planMarker('prod'), `${planMarker('prod')}\nx`).catch((e: unknown) => e);
    expect((err as GithubApiError).status).toBe(502);
  });
});

describe('the drift issue', () => {
  const marker = driftMarker('prod');
  const finding = (inSync: boolean): DriftFinding => ({
    environment: 'prod',
    inSync,
    headline: '2 objects differ, 1 unmanaged',
    renderReport: (max) => `## mftops drift: prod\n\nreport fitted to ${max}\n`,
  });
  const issue = (number: number, body: string, extra: object = {}) => ({
    number,
    title: 't',
    body,
    state: 'open',
    html_url: `https://github.com/i/${number}`,
    ...extra,
  });
  const listOpen = () => github().get(`${REPO}/issues`).query({ state: 'open', labels: DRIFT_LABEL, per_page: '100' });

  it('opens an issue with the label (created if missing) when drift appears', async () => {
    listOpen().reply(200, [issue(3, marker, { pull_request: { url: 'x' } }), issue(4, driftMarker('staging'))]);
    github().get(`${REPO}/labels/${DRIFT_LABEL}`).reply(404, { message: 'Not Found' });
    github()
      .post(`${REPO}/labels`, (b: { name: string }) => b.name === DRIFT_LABEL)
      .reply(201, { name: DRIFT_LABEL });
    github()
      .post(
        `${REPO}/issues`,
        (b: { title: string; body: string; labels: string[] }) =>
          b.title === 'Drift in prod: 2 objects differ, 1 unmanaged' && b.body.startsWith(`${marker}\n`) && b.labels.join() === DRIFT_LABEL,
      )
      .reply(201, issue(10, marker));
    const result = await syncDriftIssue(api(), finding(false), ORIGIN, new Date('2026-03-03T03:17:00Z'));
    expect(result).toMatchObject({ action: 'opened', issue: { number: 10 } });
  });

  it('updates the open issue while the drift lasts', async () => {
    listOpen().reply(200, [issue(10, `${marker}\nold`)]);
    github()
      .patch(
        `${REPO}/issues/10`,
        (b: { title?: string; body?: string; state?: string }) =>
          b.title !== undefined &&
          b.body?.includes('Last checked by [the drift job](https://github.com/acme-corp/mft-config/actions/runs/77) at 2026-03-04T03:17:00.000Z') === true &&
          b.state === undefined,
      )
      .reply(200, issue(10, marker));
    expect((await syncDriftIssue(api(), finding(false), ORIGIN, new Date('2026-03-04T03:17:00Z'))).action).toBe('updated');
  });

  it('comments and closes the issue when the server is back in sync', async () => {
    listOpen().reply(200, [issue(10, `${marker}\nold`)]);
    github()
      .post(`${REPO}/issues/10/comments`, (b: { body: string }) => b.body.startsWith('The servers of **prod** match git again'))
      .reply(201, comment(50, 'closing'));
    github()
      .patch(`${REPO}/issues/10`, { state: 'closed', state_reason: 'completed' })
      .reply(200, issue(10, marker, { state: 'closed' }));
    expect((await syncDriftIssue(api(), finding(true), ORIGIN)).action).toBe('closed');
  });

  it('does nothing when in sync and no issue is open', async () => {
    listOpen().reply(200, [issue(4, driftMarker('staging'))]);
    expect((await syncDriftIssue(api(), finding(true), ORIGIN)).action).toBe('none');
  });
});
