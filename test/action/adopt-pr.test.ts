import { join } from 'node:path';
import { createTwoFilesPatch } from 'diff';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { adoptBranch, renderAdoptPrBody, syncAdoptionPullRequest } from '../../src/action/adopt-pr.js';
import { adoptedTreeFiles } from '../../src/action/adopted-files.js';
import { createGithubApi } from '../../src/action/github-api.js';
import { GITHUB_COMMENT_LIMIT } from '../../src/action/pr-comment.js';
import type { AdoptionReport } from '../../src/adopt/model.js';
import type { DriftReport } from '../../src/drift/model.js';
import { testdir } from '../helpers/testdir.js';
import { startFakeGithub, type FakeGithub } from './fake-github.js';

/**
 * The adoption pull request's parts: the files a dry-run adoption would write, as tree entries
 * (a file whose every document went is removed from the tree), and the body, which always fits
 * GitHub's limit.
 */

const KEEP = 'kind: Task\nmetadata: { name: keep }\n';
const GONE = 'kind: Task\nmetadata: { name: gone }\n';

function report(files: AdoptionReport['files']): AdoptionReport {
  return { environment: 'prod', dryRun: true, files, refused: [], inSync: [], secrets: [], audit: { state: 'not-needed' } };
}

let github: FakeGithub;
beforeAll(async () => {
  github = await startFakeGithub();
});
afterAll(() => github.close());

describe('adopted files as a tree', () => {
  it('applies each diff to the checkout, writes new files and removes emptied ones, by path from the repository root', () => {
    const repo = testdir({ 'mft/manifests/a.yaml': `# kept comment\n${KEEP}`, 'mft/manifests/b.yaml': GONE });
    const edited = `# kept comment\n${KEEP}spec: { Active: 0 }\n`;
    const files = adoptedTreeFiles(
      report([
        { path: 'manifests/a.yaml', action: 'edited', objects: [], diff: createTwoFilesPatch('a/x', 'b/x', `# kept comment\n${KEEP}`, edited) },
        { path: 'manifests/b.yaml', action: 'deleted', objects: [], diff: createTwoFilesPatch('a/x', '/dev/null', GONE, '') },
        { path: 'manifests/new.yaml', action: 'created', objects: [], diff: createTwoFilesPatch('/dev/null', 'b/x', '', KEEP) },
      ]),
      join(repo, 'mft'),
      repo,
    );
    expect(files).toEqual([
      { path: 'mft/manifests/a.yaml', text: edited, mode: '100644' },
      { path: 'mft/manifests/b.yaml', text: null, mode: '100644' },
      { path: 'mft/manifests/new.yaml', text: KEEP, mode: '100644' },
    ]);
  });

  it('refuses a file outside the checkout: no commit can hold it', () => {
    const repo = testdir({});
    expect(() => adoptedTreeFiles(report([{ path: '/elsewhere/a.yaml', action: 'deleted', objects: [], diff: '' }]), repo, repo)).toThrow(
      /\/elsewhere\/a\.yaml is outside the checked-out repository/,
    );
  });

  it('commits the removal on the base: the branch no longer has the file, the rest is the base', async () => {
    const base = github.addCommit('main', { 'm/a.yaml': KEEP, 'm/b.yaml': GONE, 'README.md': 'hi' });
    const api = createGithubApi({ apiUrl: github.apiUrl, token: github.token, owner: 'acme-corp', repo: 'mft-config' });
    const result = await syncAdoptionPullRequest(
      api,
      { environment: 'prod', files: [{ path: 'm/b.yaml', text: null, mode: '100644' }], title: 't', body: 'b', commitMessage: 'm' },
      { branch: 'main', sha: base },
      {},
    );
    expect(result.action).toBe('opened');
    expect([...github.filesAt(github.branches.get(adoptBranch('prod'))!)]).toEqual([
      ['m/a.yaml', KEEP],
      ['README.md', 'hi'],
    ]);
    expect(github.unmatched()).toEqual([]);
  });
});

describe('the adoption pull request body', () => {
  it('fits GitHub limit with thousands of objects, counting those left out', () => {
    const many = Array.from({ length: 3000 }, (_, i) => ({
      path: `manifests/t${i}.yaml`,
      action: 'edited' as const,
      objects: [{ address: `Task/task number ${i}`, outcome: 'changed' as const, paths: ['Info.Description'] }],
      diff: '',
    }));
    const drift = { drifted: [] } as unknown as DriftReport;
    const body = renderAdoptPrBody(report(many), drift, {}, new Date('2026-11-27T00:00:00Z'));
    expect(body.length).toBeLessThanOrEqual(GITHUB_COMMENT_LIMIT);
    expect(body).toMatch(/> \d+ more objects left out to keep this under GitHub's size limit/);
    expect(body.split('\n')[0]).toBe('<!-- mftops:adopt:prod -->');
  });

  it('names environments as branches git accepts', () => {
    expect(adoptBranch('prod')).toBe('mftops/adopt-prod');
    expect(adoptBranch('eu west/1..2')).toBe('mftops/adopt-eu%20west%2F1%2E.2');
    expect(adoptBranch('a.lock')).toBe('mftops/adopt-a%2Elock');
    expect(adoptBranch('end.')).toBe('mftops/adopt-end%2E');
    expect(adoptBranch('x@{1}~^:?*[\\')).toBe('mftops/adopt-x%40%7B1%7D%7E%5E%3A%3F%2A%5B%5C');
  });

  it('gives two environments two branches, whatever their names', () => {
    const names = [
      'prod.eu',
      'prod-eu',
      'prod_eu',
      'prod eu',
      'prod%20eu',
      'prod/eu',
      'prod..eu',
      'prod.%2Eeu',
      'prod.',
      'prod%2E',
      'prod.lock',
      'prod%2Elock',
      'prød',
      '',
      'environment',
    ];
    expect(new Set(names.map(adoptBranch)).size).toBe(names.length);
    for (const b of names.map(adoptBranch)) expect(b).not.toMatch(/\.\.|\.$|\.lock$|[\s~^:?*[\\\x00-\x1f\x7f]|@\{|\/\./);
  });
});

describe('a branch with commits that are not mftops', () => {
  const proposal = (environment: string, text: string) => ({
    environment,
    files: [{ path: 'm/a.yaml', text, mode: '100644' as const }],
    title: 't',
    body: `<!-- mftops:adopt:${environment} -->\nb`,
    commitMessage: `mftops: adopt drift of ${environment}\n\nThe manifests now say what the servers have (mftops drift --adopt):\n`,
  });

  it("never moves over a reviewer's commit on the open pull request: refuses, says so on the pull request, keeps the commit", async () => {
    const base = github.addCommit('main', { 'm/a.yaml': KEEP });
    const api = createGithubApi({ apiUrl: github.apiUrl, token: github.token, owner: 'acme-corp', repo: 'mft-config' });
    const first = await syncAdoptionPullRequest(api, proposal('fixup', `${KEEP}# one\n`), { branch: 'main', sha: base }, {});
    expect(first.action).toBe('opened');
    const human = github.addCommit(adoptBranch('fixup'), { 'm/a.yaml': `${KEEP}# reviewed\n` });
    const again = await syncAdoptionPullRequest(api, proposal('fixup', `${KEEP}# two\n`), { branch: 'main', sha: base }, {});
    expect(again.action).toBe('kept');
    expect(again.reason).toMatch(/^branch mftops\/adopt-fixup has a commit that is not mftops's \([0-9a-f]{12}\): /);
    expect(github.branches.get(adoptBranch('fixup'))).toBe(human);
    const pr = first.pullRequest!.number;
    const notes = [...github.comments.values()].filter((c) => c.issue_number === pr);
    expect(notes).toHaveLength(1);
    expect(notes[0]!.body).toMatch(/not mftops's/);
    // The next night says it once, not twice.
    await syncAdoptionPullRequest(api, proposal('fixup', `${KEEP}# three\n`), { branch: 'main', sha: base }, {});
    expect([...github.comments.values()].filter((c) => c.issue_number === pr)).toHaveLength(1);
  });

  it("never moves someone's own branch of that name", async () => {
    const base = github.addCommit('main', { 'm/a.yaml': KEEP });
    const theirs = github.addCommit(adoptBranch('theirs'), { 'm/a.yaml': 'mine' });
    const api = createGithubApi({ apiUrl: github.apiUrl, token: github.token, owner: 'acme-corp', repo: 'mft-config' });
    const result = await syncAdoptionPullRequest(api, proposal('theirs', `${KEEP}# one\n`), { branch: 'main', sha: base }, {});
    expect(result.action).toBe('kept');
    expect(github.branches.get(adoptBranch('theirs'))).toBe(theirs);
    expect(github.pulls().filter((p) => p.head === adoptBranch('theirs'))).toEqual([]);
  });

  it("leaves someone's pull request from that branch alone, even with nothing to adopt", async () => {
    const base = github.addCommit('main', { 'm/a.yaml': KEEP });
    github.addCommit(adoptBranch('foreign'), { 'm/a.yaml': 'theirs' });
    const api = createGithubApi({ apiUrl: github.apiUrl, token: github.token, owner: 'acme-corp', repo: 'mft-config' });
    const theirs = await api.createPullRequest({ title: 'mine', body: 'my own work', head: adoptBranch('foreign'), base: 'main' });
    const result = await syncAdoptionPullRequest(api, proposal('foreign', `${KEEP}# x\n`), { branch: 'main', sha: base }, {});
    expect(result.action).toBe('kept');
    expect(result.reason).toMatch(/pull request #\d+ from branch mftops\/adopt-foreign is not mftops's adoption pull request of foreign/);
    const none = await syncAdoptionPullRequest(api, { ...proposal('foreign', ''), files: [] }, { branch: 'main', sha: base }, {});
    expect(none.action).toBe('kept');
    expect(github.issues.get(theirs.number)).toMatchObject({ state: 'open', title: 'mine', body: 'my own work' });
    expect([...github.comments.values()].filter((c) => c.issue_number === theirs.number)).toEqual([]);
  });

  it('says what to do when GitHub refuses the branch for a change of .github/workflows on the base', async () => {
    const base = github.addCommit('main', { 'm/a.yaml': KEEP, '.github/workflows/drift.yml': 'on: push' });
    const api = createGithubApi({ apiUrl: github.apiUrl, token: github.token, owner: 'acme-corp', repo: 'mft-config' });
    github.refuseRefWrites = 'refusing to allow a GitHub App to create or update workflow `.github/workflows/drift.yml` without `workflows` permission';
    onTestFinished(() => {
      github.refuseRefWrites = undefined;
    });
    await expect(syncAdoptionPullRequest(api, proposal('wf', `${KEEP}# x\n`), { branch: 'main', sha: base }, {})).rejects.toThrow(
      /^GitHub refuses to write branch mftops\/adopt-wf: it would change \.github\/workflows and the token lacks the `workflows` permission; delete the branch mftops\/adopt-wf, or pass a token with that permission as github-token$/,
    );
  });

  it('leaves closed a pull request someone closed without merging while the drift is the same; a new drift opens a new one', async () => {
    const base = github.addCommit('main', { 'm/a.yaml': KEEP });
    const api = createGithubApi({ apiUrl: github.apiUrl, token: github.token, owner: 'acme-corp', repo: 'mft-config' });
    const first = await syncAdoptionPullRequest(api, proposal('declined', `${KEEP}# one\n`), { branch: 'main', sha: base }, {});
    await api.updatePullRequest(first.pullRequest!.number, { state: 'closed' });
    const again = await syncAdoptionPullRequest(api, proposal('declined', `${KEEP}# one\n`), { branch: 'main', sha: base }, {});
    expect(again.action).toBe('declined');
    expect(again.pullRequest?.number).toBe(first.pullRequest!.number);
    expect(github.pulls().filter((p) => p.head === adoptBranch('declined') && p.state === 'open')).toEqual([]);
    const news = await syncAdoptionPullRequest(api, proposal('declined', `${KEEP}# two\n`), { branch: 'main', sha: base }, {});
    expect(news.action).toBe('opened');
  });

  it('moves its own commit of an earlier night', async () => {
    const base = github.addCommit('main', { 'm/a.yaml': KEEP });
    const api = createGithubApi({ apiUrl: github.apiUrl, token: github.token, owner: 'acme-corp', repo: 'mft-config' });
    await syncAdoptionPullRequest(api, proposal('nightly', `${KEEP}# one\n`), { branch: 'main', sha: base }, {});
    const result = await syncAdoptionPullRequest(api, proposal('nightly', `${KEEP}# two\n`), { branch: 'main', sha: base }, {});
    expect(result.action).toBe('updated');
    expect(github.filesAt(github.branches.get(adoptBranch('nightly'))!).get('m/a.yaml')).toBe(`${KEEP}# two\n`);
  });
});
