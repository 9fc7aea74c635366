import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { readPlanFile } from '../../src/app/plan-file.js';
import { startSeededEmulator } from '../integration/helpers.js';
import { listWrites } from '../helpers/emulator-test-api.js';
import { startFakeGithub, type FakeGithub } from './fake-github.js';
import { ALL_SECRETS, checkout, CREDENTIALS, NODE24_RUNTIME, pullRequestEvent, runActionProcess, type ActionRun, type Runtime } from './harness.js';

/**
 * The Action as a runner runs it: the committed bundle in a child process, inputs as INPUT_*,
 * the runner's files, a real pull_request payload, the emulator as the MFT servers and a fake
 * api.github.com. Every GitHub call must be one the fake knows.
 */

const RUN_URL = 'https://github.com/acme-corp/mft-config/actions/runs/8123456789';
const PR = 42;
const MARKER = '<!-- mftops:plan:lab -->';

let emulator: RunningEmulator;
let github: FakeGithub;
beforeAll(async () => {
  [emulator, github] = await Promise.all([startSeededEmulator(), startFakeGithub()]);
});
afterAll(async () => {
  await Promise.all([emulator.close(), github.close()]);
});
beforeEach(() => {
  emulator.resetRequestLog();
  github.resetCalls();
  github.comments.clear();
  github.issues.clear();
});

function mftWrites(): string[] {
  return listWrites(emulator);
}

function planOnPullRequest(workspace: string, sha: string, extra: { node?: string } = {}): Promise<ActionRun> {
  return runActionProcess({
    inputs: { command: 'plan', 'working-directory': 'mft', 'github-token': github.token },
    workspace,
    eventName: 'pull_request',
    event: pullRequestEvent(PR, sha),
    github,
    env: CREDENTIALS,
    ...extra,
  });
}

/** Counts per action, computed here from the plan file (not by the code under test). */
function countActions(planPath: string): Record<string, number> {
  const counts: Record<string, number> = { create: 0, update: 0, replace: 0, delete: 0, blocked: 0, 'no-op': 0 };
  for (const c of readPlanFile(planPath).changes) counts[c.action] = (counts[c.action] ?? 0) + 1;
  return counts;
}

function expectNoSecrets(...texts: string[]): void {
  const all = texts.join('\n');
  for (const s of ALL_SECRETS) expect(all).not.toContain(s);
}

describe('command: validate', () => {
  it('puts an annotation on the manifest line of each problem, relative to the repository root, and fails the step', async () => {
    const ws = checkout(emulator);
    writeFileSync(join(ws, 'mft/manifests/broken.yaml'), 'apiVersion: mftops/v1\nkind: Task\nmetadata: { name: Broken }\nspec:\n  Active: maybe\n');
    const run = await runActionProcess({
      inputs: { command: 'validate', 'working-directory': 'mft' },
      workspace: ws,
      eventName: 'pull_request',
      event: pullRequestEvent(PR, 'a1'),
    });
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/^::error file=mft\/manifests\/broken\.yaml,line=5,col=11,(endLine=5,endColumn=\d+,)?title=MF2\d\d::`Active`/m);
    expect(run.outputs['exitcode']).toBe('1');
    expect(run.outputs['summary']).toMatch(/^1 error in 1 file$/);
    expect(run.summary).toContain('mftops validate');
    expect(run.summary).toContain('1 error in 1 file');
    // validate needs no server and no GitHub call.
    expect(emulator.requestLog()).toEqual([]);
    expect(github.calls()).toEqual([]);
  });

  it('puts an annotation on the line of each problem of mftops.yaml and fails the step', async () => {
    const ws = checkout(emulator);
    const config = join(ws, 'mft/mftops.yaml');
    writeFileSync(config, readFileSync(config, 'utf8').replace('environments:', 'environments:\n  lab2: {}'));
    const run = await runActionProcess({ inputs: { command: 'validate', 'working-directory': 'mft' }, workspace: ws, eventName: 'push' });
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(
      /^::error file=mft\/mftops\.yaml,line=4,col=3,endLine=4,endColumn=7,title=MF504::environments\.lab2: needs at least one of `automation`, `transfer`$/m,
    );
    expect(run.outputs['exitcode']).toBe('1');
    expect(run.summary).toContain('- mft/mftops.yaml:4: environments.lab2: needs at least one of ');
  });

  it('passes with the number of valid manifests as its summary', async () => {
    const ws = checkout(emulator);
    const run = await runActionProcess({ inputs: { command: 'validate', 'working-directory': 'mft' }, workspace: ws, eventName: 'push' });
    expect(run.code).toBe(0);
    expect(run.outputs['exitcode']).toBe('0');
    expect(run.outputs['summary']).toMatch(/^\d+ manifests valid$/);
    expect(run.stdout).not.toContain('::error');
  });
});

/** The runtimes the bundle must run on: this Node 20, and Node 24 (`runs.using: node24`). */
const RUNTIMES: Runtime[] = [['Node 20', () => Promise.resolve(process.execPath)], NODE24_RUNTIME];

describe('command: plan on a pull request', () => {
  it.for<Runtime>(RUNTIMES)('creates one sticky comment, then updates the same comment on the next push (%s)', { timeout: 150_000 }, async ([, findNode]) => {
    const node = await findNode();
    github.addPullRequest(PR, 'Finance: month-end report task');
    // A long discussion: the marker comment will be on the second page of the list.
    for (let i = 0; i < 110; i++) github.addComment(PR, `Looks good ${i}`, 'reviewer');
    const ws = checkout(emulator);

    const first = await planOnPullRequest(ws, '9f8e7d6c5b4a39281706f5e4d3c2b1a098765432', { node });
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(github.unmatched()).toEqual([]);
    expect(github.writes()).toEqual([`POST /repos/acme-corp/mft-config/issues/${PR}/comments`]);
    const sticky = [...github.comments.values()].filter((c) => c.body.includes(MARKER));
    expect(sticky).toHaveLength(1);
    const created = { ...sticky[0]! };
    expect(created.body.length).toBeLessThanOrEqual(65_536);
    expect(created.body).toContain('## mftops plan: lab');
    expect(created.body).toContain('| **Total** |');
    expect(created.body).toContain(`](${RUN_URL})`);
    expect(created.body).toContain('9f8e7d6c5b4a');
    expect(created.body).toContain('<details>');

    // Outputs, computed independently from the plan file the step saved.
    const planFile = first.outputs['plan-file']!;
    expect(existsSync(planFile)).toBe(true);
    const counts = countActions(planFile);
    expect(first.outputs['exitcode']).toBe('2');
    expect(first.outputs['has-changes']).toBe('true');
    expect(first.outputs['summary']).toBe(
      `Plan: ${counts['create']} to create, ${counts['update']} to update, ${counts['replace']} to replace, ${counts['delete']} to delete, ${counts['blocked']} blocked.`,
    );
    expect(first.summary).toContain('## mftops plan: lab');
    expect(first.summary).toContain(`**Plan:** ${counts['create']} to create`);
    // The plan's sources are relative to the repository root.
    expect(readPlanFile(planFile).changes.find((c) => c.source !== undefined)?.source?.file).toMatch(/^mft\/manifests\//);
    // The log shows the plan as text inside a collapsed group.
    expect(first.stdout).toMatch(/^::group::Plan for lab: Plan: /m);
    expect(first.stdout).toMatch(/^::endgroup::$/m);
    // A plan never writes to the MFT servers.
    expect(mftWrites()).toEqual([]);

    // Next push: one task no longer changes its description.
    const tasks = join(ws, 'mft/manifests/tasks/finance.yaml');
    writeFileSync(
      tasks,
      readFileSync(tasks, 'utf8').replace(
        "Collect the bank's daily statements and decrypt them onto the finance share",
        'Collect daily account statements from the bank',
      ),
    );
    github.resetCalls();
    const second = await planOnPullRequest(ws, '1234567890abcdef1234567890abcdef12345678', { node });
    expect(second.code).toBe(0);
    expect(github.unmatched()).toEqual([]);
    expect(github.writes()).toEqual([`PATCH /repos/acme-corp/mft-config/issues/comments/${created.id}`]);
    // The list was read through its pages.
    expect(github.calls().filter((c) => c.method === 'GET' && c.url.includes(`/issues/${PR}/comments`)).length).toBeGreaterThanOrEqual(2);
    const after = [...github.comments.values()].filter((c) => c.body.includes(MARKER));
    expect(after.map((c) => c.id)).toEqual([created.id]);
    expect(after[0]!.body).toContain('1234567890ab');
    expect(after[0]!.body).not.toBe(created.body);
    expectNoSecrets(first.stdout, first.summary, second.stdout, ...[...github.comments.values()].map((c) => c.body), readFileSync(planFile, 'utf8'));
  });

  it('puts the failure in the comment and fails the step when the plan cannot be made', async () => {
    github.addPullRequest(PR, 'Broken');
    const ws = checkout(emulator);
    writeFileSync(join(ws, 'mft/manifests/broken.yaml'), 'apiVersion: mftops/v1\nkind: Task\nmetadata: { name: Broken }\nspec:\n  Active: maybe\n');
    const run = await planOnPullRequest(ws, 'abc');
    expect(run.code).toBe(1);
    expect(run.outputs['exitcode']).toBe('1');
    expect(run.stdout).toMatch(/^::error file=mft\/manifests\/broken\.yaml,line=5,col=11,/m);
    const sticky = [...github.comments.values()].filter((c) => c.body.includes(MARKER));
    expect(sticky).toHaveLength(1);
    expect(sticky[0]!.body).toContain('The plan failed');
    expect(sticky[0]!.body).toContain('mft/manifests/broken.yaml:5');
    expect(github.unmatched()).toEqual([]);
    // Manifests are checked before any request to the servers.
    expect(emulator.requestLog()).toEqual([]);
  });

  it("warns, and still passes, when GitHub refuses the comment (a fork's read-only token)", async () => {
    github.addPullRequest(PR, 'From a fork');
    const ws = checkout(emulator);
    github.refuseWrites = 403;
    try {
      const run = await planOnPullRequest(ws, 'f0f0f0');
      expect(run.code).toBe(0);
      expect(run.outputs['exitcode']).toBe('2');
      expect(run.stdout).toMatch(
        /^::warning::the plan comment was not posted: GitHub API POST \/repos\/acme-corp\/mft-config\/issues\/42\/comments returned 403: Resource not accessible by integration \(the token may lack permission/m,
      );
      expect(run.summary).toContain('## mftops plan: lab');
    } finally {
      github.refuseWrites = undefined;
    }
  });

  it('posts nothing on a push (comment defaults to false off pull requests) and fails on a missing credential', async () => {
    const ws = checkout(emulator);
    const ok = await runActionProcess({
      inputs: { command: 'plan', 'working-directory': 'mft', 'github-token': github.token },
      workspace: ws,
      eventName: 'push',
      github,
      env: CREDENTIALS,
    });
    expect(ok.code).toBe(0);
    expect(ok.outputs['exitcode']).toBe('2');
    expect(github.calls()).toEqual([]);

    const noSecret = await runActionProcess({
      inputs: { command: 'plan', 'working-directory': 'mft' },
      workspace: ws,
      eventName: 'push',
      github,
      env: { MFT_TRANSFER_PASSWORD: CREDENTIALS.MFT_TRANSFER_PASSWORD },
    });
    expect(noSecret.code).toBe(1);
    // At the reference in mftops.yaml, relative to the repository root, like any problem of the file.
    expect(noSecret.stdout).toMatch(
      /^::error file=mft\/mftops\.yaml,line=5,col=\d+,endLine=5,endColumn=\d+,title=MF508::environments\.lab\.automation\.password: environment variable MFT_AUTOMATION_PASSWORD is not set$/m,
    );
    expect(noSecret.outputs['exitcode']).toBe('1');
  });
});
