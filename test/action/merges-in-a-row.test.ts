import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { startSeededEmulator } from '../integration/helpers.js';
import { testdir } from '../helpers/testdir.js';
import { readTask } from '../helpers/emulator-test-api.js';
import { createConcurrencyGroup, exampleJobConcurrency, type ConcurrencyGroup, type JobConcurrency } from './concurrency-group.js';
import { startFakeGithub, type FakeGithub } from './fake-github.js';
import { checkout, CREDENTIALS, freshBundle, pullRequestEvent, runActionProcess, type ActionRun } from './harness.js';

/**
 * Apply on merge never loses a merge (issue 24). Three pull requests are planned and reviewed
 * side by side, then merged one after the other while the first merge's apply runs. GitHub's
 * concurrency group is modelled as documented (one job runs; `queue: single` keeps one waiting
 * and a newer one cancels it; `queue: max` keeps them all), and every job that is not cancelled
 * runs the Action's bundle, built from the sources, against the emulator and a fake GitHub, with
 * what examples/workflows/apply.yml passes it: the reviewed plans of the pull requests merged
 * since the last successful apply, and their numbers.
 */

const ENV = 'lab';

/** Three reviewed changes: two tasks, the second changed by two pull requests in two fields. */
const EDITS = [
  { file: 'mft/manifests/tasks/operations.yaml', from: 'from the local archive }', to: 'from the local archive (PR 1) }' },
  { file: 'mft/manifests/tasks/operations.yaml', from: 'to the finance share for the auditors }', to: 'to the finance share for the auditors (PR 2) }' },
  { file: 'mft/manifests/tasks/operations.yaml', from: 'ExportFormat: csv', to: 'ExportFormat: xlsx' },
] as const;

/** The bundle built from the sources as they are now (the committed one is rebuilt after merging). */
let bundle: string;

function edit(ws: string, e: (typeof EDITS)[number]): void {
  const path = join(ws, e.file);
  const text = readFileSync(path, 'utf8');
  if (!text.includes(e.from)) throw new Error(`${e.file} does not hold ${e.from}`);
  writeFileSync(path, text.replace(e.from, e.to));
}

/** A copy of a checkout with some edits made. */
function commit(base: string, edits: ReadonlyArray<(typeof EDITS)[number]>): string {
  const ws = testdir({});
  cpSync(base, ws, { recursive: true });
  for (const e of edits) edit(ws, e);
  return ws;
}

const sha = (n: number): string => `${String(n).padStart(2, '0')}`.padEnd(40, 'a');

interface Repository {
  readonly emulator: RunningEmulator;
  readonly github: FakeGithub;
  /** The reviewed plan of each pull request (1-based), as apply.yml downloads it. */
  readonly reviewed: Map<number, string>;
  /** main after merge n (1-based). */
  readonly merges: Map<number, string>;
  /** When each pull request's plan was made, on the clock below. */
  readonly plannedAt: Map<number, number>;
  /** The apply runs that succeeded: their merge (0: the base, applied before the pull requests) and when they ended. */
  readonly applied: Array<{ readonly merge: number; readonly at: number }>;
  /** A logical clock: one tick per plan made and per apply run ended. */
  clock: number;
  readonly runs: Array<{
    readonly name: string;
    readonly merge: number;
    readonly pullRequests: readonly number[];
    readonly window: readonly number[];
    readonly run: ActionRun;
  }>;
}

/** The base applied, three pull requests branched from it, planned and reviewed, and main after each merge. */
async function repository(): Promise<Repository> {
  const [emulator, github, built] = await Promise.all([startSeededEmulator(), startFakeGithub(), freshBundle()]);
  bundle = built;
  onTestFinished(() => Promise.all([emulator.close(), github.close()]).then(() => undefined));
  const base = checkout(emulator, ENV);
  const setup = await runActionProcess({
    inputs: { command: 'apply', 'working-directory': 'mft' },
    workspace: base,
    eventName: 'workflow_dispatch',
    env: CREDENTIALS,
    bundle,
  });
  expect(setup.code, setup.stdout).toBe(0);
  const reviewed = new Map<number, string>();
  const merges = new Map<number, string>();
  const plannedAt = new Map<number, number>();
  let clock = 0;
  for (const [i, e] of EDITS.entries()) {
    const pr = i + 1;
    github.addPullRequest(pr, `change ${pr}`);
    const branch = commit(base, [e]);
    const plan = await runActionProcess({
      inputs: { command: 'plan', 'working-directory': 'mft', comment: 'false' },
      workspace: branch,
      eventName: 'pull_request',
      event: pullRequestEvent(pr, sha(pr)),
      env: CREDENTIALS,
      bundle,
    });
    expect(plan.outputs['exitcode'], plan.stdout).toBe('2');
    reviewed.set(pr, plan.outputs['plan-file']!);
    plannedAt.set(pr, ++clock);
    merges.set(pr, commit(base, EDITS.slice(0, pr)));
  }
  return { emulator, github, reviewed, merges, plannedAt, applied: [{ merge: 0, at: 0 }], clock, runs: [] };
}

/**
 * One job of apply.yml for the push of merge `n`, its first step as the workflow's: the pull
 * requests merged since the last successful apply get the result; the reviewed plans given are
 * those of every pull request merged since the last apply that ended before the oldest of their
 * reviews (so that a change an earlier merge's apply made since is explained).
 */
function applyJob(
  repo: Repository,
  name: string,
  n: number,
  how: { readonly eventName?: string; readonly env?: Readonly<Record<string, string>> } = {},
): () => Promise<void> {
  return async () => {
    const lastMerge = (before: number) => Math.max(...repo.applied.filter((a) => a.at < before).map((a) => a.merge));
    const mergedSince = (merge: number) => [...repo.merges.keys()].filter((pr) => pr > merge && pr <= n);
    const pullRequests = mergedSince(lastMerge(Infinity));
    if (pullRequests.length === 0) return;
    const window = mergedSince(lastMerge(Math.min(...pullRequests.map((pr) => repo.plannedAt.get(pr)!))));
    const run = await runActionProcess({
      inputs: {
        command: 'apply',
        'working-directory': 'mft',
        'plan-file': window.map((pr) => repo.reviewed.get(pr)!).join('\n'),
        'pull-requests': pullRequests.join(' '),
        'github-token': repo.github.token,
      },
      workspace: repo.merges.get(n)!,
      eventName: how.eventName ?? 'push',
      github: { apiUrl: repo.github.apiUrl },
      env: { ...CREDENTIALS, GITHUB_SHA: sha(100 + n), ...how.env },
      bundle,
    });
    repo.runs.push({ name, merge: n, pullRequests, window, run });
    repo.clock++;
    if (run.code === 0) repo.applied.push({ merge: n, at: repo.clock });
  };
}

/** Three pushes to main, the second and third while the first one's apply runs. */
function mergeThree(repo: Repository, group: ConcurrencyGroup, concurrency: JobConcurrency): void {
  for (const n of [1, 2, 3]) group.enqueue(`apply merge ${n}`, concurrency, applyJob(repo, `apply merge ${n}`, n));
}

function task(emulator: RunningEmulator, name: string): { Info: { Description?: string }; Parameters?: unknown } {
  const t = readTask(emulator, { name });
  if (t === undefined) throw new Error(`no task ${name}`);
  return t as unknown as { Info: { Description?: string }; Parameters?: unknown };
}

function expectAllThreeOnTheServer(emulator: RunningEmulator): void {
  expect(task(emulator, 'Nightly cleanup').Info.Description).toMatch(/\(PR 1\)$/);
  expect(task(emulator, 'Audit export').Info.Description).toMatch(/\(PR 2\)$/);
  expect(JSON.stringify(task(emulator, 'Audit export').Parameters)).toContain('xlsx');
}

function applyComment(github: FakeGithub, pr: number): string | undefined {
  return [...github.comments.values()].filter((c) => c.issue_number === pr && c.body.includes(`<!-- mftops:apply:${ENV} -->`)).at(-1)?.body;
}

describe('apply.yml: three merges in a row', () => {
  it("with the example's concurrency (queue: max) every merge's apply runs in order, and all three are applied and posted", async () => {
    const concurrency = exampleJobConcurrency('apply.yml', 'apply', ENV);
    expect(concurrency.queue).toBe('max');
    const repo = await repository();
    const group = createConcurrencyGroup();
    mergeThree(repo, group, concurrency);
    await group.idle();

    expect(group.events).toEqual([
      'start apply merge 1',
      'end apply merge 1',
      'start apply merge 2',
      'end apply merge 2',
      'start apply merge 3',
      'end apply merge 3',
    ]);
    for (const r of repo.runs) expect(r.run.code, `${r.name}:\n${r.run.stdout}`).toBe(0);
    expectAllThreeOnTheServer(repo.emulator);
    for (const pr of [1, 2, 3]) expect(applyComment(repo.github, pr), `pull request #${pr}`).toMatch(/## mftops apply: lab — ✅ Applied and verified/);
    expect(repo.github.unmatched()).toEqual([]);
  });

  it("with GitHub's default queue (one waiting, a newer one cancels it) the second apply is cancelled, and the third applies the second merge too", async () => {
    const concurrency: JobConcurrency = { ...exampleJobConcurrency('apply.yml', 'apply', ENV), queue: 'single' };
    const repo = await repository();
    const group = createConcurrencyGroup();
    mergeThree(repo, group, concurrency);
    await group.idle();

    expect(group.events).toEqual(['start apply merge 1', 'cancel apply merge 2', 'end apply merge 1', 'start apply merge 3', 'end apply merge 3']);
    const third = repo.runs.find((r) => r.merge === 3)!;
    expect(third.pullRequests).toEqual([2, 3]);
    expect(third.window).toEqual([1, 2, 3]);
    expect(third.run.code, third.run.stdout).toBe(0);
    expect(third.run.stdout).toContain('Every change of the plan made now is in one of the 3 reviewed plans');
    expectAllThreeOnTheServer(repo.emulator);
    // #2's apply was cancelled; the run that applied it says so on #2.
    for (const pr of [1, 2, 3]) expect(applyComment(repo.github, pr), `pull request #${pr}`).toMatch(/## mftops apply: lab — ✅ Applied and verified/);
    expect(applyComment(repo.github, 2)).toContain('Applied together, each change reviewed on one of: #2, #3.');
  });

  it('a failed apply is posted to its pull request with the way to re-run, and running the workflow by hand applies it', async () => {
    const repo = await repository();
    const before = task(repo.emulator, 'Nightly cleanup').Info.Description;
    // The write account's password was rotated and the secret not yet: the apply cannot sign in.
    await applyJob(repo, 'apply merge 1', 1, { env: { MFT_AUTOMATION_PASSWORD: 'rotated-and-not-updated' } })();
    expect(repo.runs[0]!.run.code).toBe(1);
    expect(task(repo.emulator, 'Nightly cleanup').Info.Description).toBe(before);
    const failed = applyComment(repo.github, 1)!;
    expect(failed).toMatch(/^## mftops apply: lab — ⛔ Not applied$/m);
    expect(failed).toContain('Nothing was applied: the plan at apply time failed.');
    expect(failed).toContain('Actions → mftops apply → Run workflow');
    expect(failed).not.toContain('rotated-and-not-updated');

    // Fixed; run by hand from main's head: the merge of #1 is still the one to apply.
    await applyJob(repo, 'apply by hand', 1, { eventName: 'workflow_dispatch' })();
    expect(repo.runs[1]!.pullRequests).toEqual([1]);
    expect(repo.runs[1]!.run.code, repo.runs[1]!.run.stdout).toBe(0);
    expect(task(repo.emulator, 'Nightly cleanup').Info.Description).toMatch(/\(PR 1\)$/);
    const applied = applyComment(repo.github, 1)!;
    expect(applied).toMatch(/^## mftops apply: lab — ✅ Applied and verified$/m);
    expect(applied).toMatch(/^Snapshot before the first write: `[^`]+`/m);
    // Updated in place: one apply comment for the environment on the pull request.
    expect([...repo.github.comments.values()].filter((c) => c.issue_number === 1)).toHaveLength(1);
  });
});
