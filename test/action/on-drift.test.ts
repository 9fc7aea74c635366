import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { parseDocument } from 'yaml';
import { runAction } from '../../src/action/run-action.js';
import { createFileRunner } from '../../src/action/workflow-commands.js';
import { adoptDrift } from '../../src/app/adopt-drift.js';
import { readPlanFile } from '../../src/app/plan-file.js';
import { createLogger } from '../../src/log.js';
import { emulatorEnvironmentsYaml } from '../../src/emulator/config-for.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import type { JsonObject } from '../../src/emulator/json.js';
import type { AclPermission } from '../../src/emulator/state.js';
import { editAclByHand, editTaskByHand, listWrites, readTask, startSeededEmulator } from '../helpers/emulator-test-api.js';
import { testdir } from '../helpers/testdir.js';
import { SEED_LOGINS, automationClientFor } from '../integration/helpers.js';
import { startFakeGithub, type FakeGithub } from './fake-github.js';
import { ALL_SECRETS, CREDENTIALS, checkout, parseOutputFile } from './harness.js';

/**
 * The drift job's `on-drift` in this process (the process tests run the committed bundle, which is
 * rebuilt only after merging), against emulators and the fake GitHub: `adopt-pr` keeps one pull
 * request per environment in step with the drift, `revert-plan` posts the plan that would revert
 * it on the drift issue and saves it, writing nothing to the servers.
 */

/** The seed's Finance / Finance Operators ACL exactly: each emulator starts in sync with it. */
const ACL_MANIFEST = `apiVersion: mftops/v1
kind: ResourceGroupAcl
# Who may run and edit the finance tasks.
metadata: { name: finance-operators }
spec:
  resourceGroup: Finance
  userGroup: Finance Operators
  permissions: [TaskRun, TaskEditExisting]
`;

const REPO = '/repos/acme-corp/mft-config';

let github: FakeGithub;
beforeAll(async () => {
  github = await startFakeGithub();
});
afterAll(() => github.close());

interface StepRun {
  readonly code: number;
  readonly log: string;
  readonly outputs: Record<string, string>;
}

/** The base commit of a workspace: its files as the fake's `main` branch holds them (secret files are not in git). */
function commitWorkspace(ws: string): string {
  const files: Record<string, string> = {};
  const walk = (at: string): void => {
    for (const name of readdirSync(at)) {
      const path = join(at, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (!path.includes('/secrets/')) files[relative(ws, path).split('\\').join('/')] = readFileSync(path, 'utf8');
    }
  };
  walk(ws);
  return github.addCommit('main', files);
}

/** One drift step of the scheduled job, as a runner runs it on the default branch. */
async function driftStep(ws: string, sha: string, inputs: Record<string, string>, runnerEnv: Record<string, string> = {}): Promise<StepRun> {
  const files = testdir({ output: '', summary: '' });
  const stepEnv: NodeJS.ProcessEnv = {
    ...CREDENTIALS,
    GITHUB_WORKSPACE: ws,
    GITHUB_EVENT_NAME: 'schedule',
    GITHUB_REPOSITORY: 'acme-corp/mft-config',
    GITHUB_API_URL: github.apiUrl,
    GITHUB_SERVER_URL: 'https://github.com',
    GITHUB_RUN_ID: '8123456789',
    GITHUB_REF: 'refs/heads/main',
    GITHUB_SHA: sha,
    GITHUB_OUTPUT: join(files, 'output'),
    GITHUB_STEP_SUMMARY: join(files, 'summary'),
    RUNNER_TEMP: files,
    INPUT_COMMAND: 'drift',
    'INPUT_GITHUB-TOKEN': github.token,
    ...Object.fromEntries(Object.entries(inputs).map(([k, v]) => [`INPUT_${k.toUpperCase()}`, v])),
    ...runnerEnv,
  };
  let log = '';
  const code = await runAction({ env: stepEnv, cwd: ws, runner: createFileRunner(stepEnv, (t) => (log += t)), log: (t) => (log += t) });
  return { code, log, outputs: parseOutputFile(readFileSync(join(files, 'output'), 'utf8')) };
}

function setFinanceAcl(emulator: RunningEmulator, permissions: Readonly<Partial<Record<AclPermission, 0 | 1>>>): void {
  editAclByHand(emulator, 'Finance', 'Finance Operators', (acl) => Object.assign(acl.Permissions, permissions));
}

function resetGithub(): void {
  github.issues.clear();
  github.comments.clear();
  github.branches.clear();
  github.resetCalls();
}

describe('on-drift: adopt-pr', () => {
  it('opens one pull request per environment with only its files, updates it on more drift, closes it when back in sync', { timeout: 120_000 }, async () => {
    resetGithub();
    const servers = { prod: await startSeededEmulator(), staging: await startSeededEmulator() };
    onTestFinished(async () => {
      await Promise.all([servers.prod.close(), servers.staging.close()]);
    });
    const ws = testdir({
      'mftops.yaml': emulatorEnvironmentsYaml(
        (['prod', 'staging'] as const).map((environment) => ({
          environment,
          automationUrl: servers[environment].automationUrl,
          transferUrl: servers[environment].transferUrl,
          manifests: [`${environment}`],
        })),
      ),
      'prod/acl.yaml': ACL_MANIFEST,
      'staging/acl.yaml': ACL_MANIFEST,
    });
    const base = commitWorkspace(ws);
    const job = (environment: string) => driftStep(ws, base, { environment, 'on-drift': 'adopt-pr' });

    // In sync: no pull request, nothing written to GitHub.
    const quiet = await job('prod');
    expect(quiet.code, quiet.log).toBe(0);
    expect(github.writes()).toEqual([]);

    // Someone removes TaskEditExisting in prod and adds HostAddEditDelete in staging.
    setFinanceAcl(servers.prod, { TaskEditExisting: 0 });
    setFinanceAcl(servers.staging, { HostAddEditDelete: 1 });
    const prod = await job('prod');
    expect(prod.code, prod.log).toBe(2);
    expect(prod.outputs['exitcode']).toBe('2');
    const staging = await job('staging');
    expect(staging.code, staging.log).toBe(2);
    expect(github.unmatched()).toEqual([]);
    const pulls = github.pulls();
    expect(pulls.map((p) => [p.head, p.base, p.state])).toEqual([
      ['mftops/adopt-prod', 'main', 'open'],
      ['mftops/adopt-staging', 'main', 'open'],
    ]);
    const [prodPr, stagingPr] = pulls;
    expect(prod.outputs['adopt-pr']).toBe(String(prodPr!.number));
    expect(prod.outputs['adopt-pr-url']).toBe(`https://github.com/acme-corp/mft-config/pull/${prodPr!.number}`);
    // One commit on the base each, changing only its environment's manifest; comments kept.
    const prodHead = github.branches.get('mftops/adopt-prod')!;
    expect(github.commits.get(prodHead)!.parents).toEqual([base]);
    const changed = (sha: string) => [...github.filesAt(sha)].filter(([path, text]) => github.filesAt(base).get(path) !== text).map(([path]) => path);
    expect(changed(prodHead)).toEqual(['prod/acl.yaml']);
    expect(github.filesAt(prodHead).get('prod/acl.yaml')).toBe(ACL_MANIFEST.replace('[TaskRun, TaskEditExisting]', '[TaskRun]'));
    expect(changed(github.branches.get('mftops/adopt-staging')!)).toEqual(['staging/acl.yaml']);
    expect(github.filesAt(github.branches.get('mftops/adopt-staging')!).get('staging/acl.yaml')).toContain('HostAddEditDelete');
    // The body names the change, git → server, and the commit message names it without values.
    expect(prodPr!.body.split('\n')[0]).toBe('<!-- mftops:adopt:prod -->');
    expect(prodPr!.body).toContain('<code>ResourceGroupAcl/finance-operators</code>');
    expect(prodPr!.body).toContain('prod/acl.yaml');
    expect(stagingPr!.body).not.toContain('prod/acl.yaml');
    expect(github.commits.get(prodHead)!.message).toContain('- ResourceGroupAcl/finance-operators');
    // The checkout is as it was.
    expect(readFileSync(join(ws, 'prod/acl.yaml'), 'utf8')).toBe(ACL_MANIFEST);

    // More drift in prod: the same pull request, a fresh commit on the base, the body of this run.
    setFinanceAcl(servers.prod, { ScriptAddEditDelete: 1 });
    github.resetCalls();
    const again = await job('prod');
    expect(again.code, again.log).toBe(2);
    expect(github.pulls().filter((p) => p.head === 'mftops/adopt-prod')).toHaveLength(1);
    expect(again.outputs['adopt-pr']).toBe(String(prodPr!.number));
    const newHead = github.branches.get('mftops/adopt-prod')!;
    expect(newHead).not.toBe(prodHead);
    expect(github.commits.get(newHead)!.parents).toEqual([base]);
    expect(github.filesAt(newHead).get('prod/acl.yaml')).toContain('ScriptAddEditDelete');
    expect(github.issues.get(prodPr!.number)!.body).toContain('ScriptAddEditDelete');
    expect(github.writes()).toContain(`PATCH ${REPO}/git/refs/heads/mftops/adopt-prod`);
    expect(github.writes()).not.toContain(`POST ${REPO}/pulls`);

    // The same drift the next night: the branch stays (no push), only the body is refreshed.
    github.resetCalls();
    expect((await job('prod')).code).toBe(2);
    expect(github.branches.get('mftops/adopt-prod')).toBe(newHead);
    expect(github.writes().filter((w) => w.includes('/git/refs') || w.includes('/git/commits'))).toEqual([]);

    // Back in sync: the pull request gets a comment and is closed; staging's stays open.
    setFinanceAcl(servers.prod, { TaskEditExisting: 1, ScriptAddEditDelete: 0 });
    const synced = await job('prod');
    expect(synced.code, synced.log).toBe(0);
    expect(synced.outputs['exitcode']).toBe('0');
    expect(github.issues.get(prodPr!.number)!.state).toBe('closed');
    expect([...github.comments.values()].filter((c) => c.issue_number === prodPr!.number).map((c) => c.body)).toEqual([
      expect.stringMatching(/^Nothing of \*\*prod\*\* is left to adopt/),
    ]);
    expect(github.issues.get(stagingPr!.number)!.state).toBe('open');
    expect(github.unmatched()).toEqual([]);
  });

  it('never sends a secret the server changed: not in the branch, the pull request or any request to GitHub', { timeout: 120_000 }, async () => {
    resetGithub();
    const emulator = await startSeededEmulator();
    onTestFinished(() => emulator.close());
    // The example manifests, first adopted as the seed has them, in a subfolder of the repository.
    const ws = checkout(emulator, 'production');
    const mft = join(ws, 'mft');
    const baseline = await adoptDrift({ configFile: join(mft, 'mftops.yaml'), addresses: [], dryRun: false }, quietContext(mft));
    expect(baseline.status).toBe('adopted');
    const base = commitWorkspace(ws);
    // The operator fixes a task through the API (the audit report records who and when).
    const operator = automationClientFor(emulator, SEED_LOGINS.automationOperator);
    const payroll = (await operator.listTasks({ name: 'Payroll to bank' }))[0]!;
    await operator.updateTask(payroll.ID!, { ...payroll, Info: { ...payroll.Info, Description: 'Nightly payroll, fixed at 2 a.m.' } });
    await operator.close();
    const hostId = String(((readTask(emulator, { name: 'Payroll to bank' })!.steps as JsonObject[])[2]!.Destination as JsonObject).HostID);
    editTaskByHand(emulator, { name: 'Payroll to bank' }, (t) => {
      (t.steps as JsonObject[]).push({ Destination: { HostID: hostId, Path: '/copy', UseDefUser: 0, Username: 'copier', Password: 'hunter2-SECRET-value' } });
    });
    editTaskByHand(emulator, { name: 'Acme outbound' }, (t) => {
      (t.Info as JsonObject).Description = 'Acme adopted by hand';
    });

    const run = await driftStep(ws, base, { 'on-drift': 'adopt-pr', 'working-directory': 'mft' });
    expect(run.code, run.log).toBe(2);
    const [pr] = github.pulls();
    expect(pr?.head).toBe('mftops/adopt-production');
    // The drift issue's commands, copied at the repository root, read the configuration the job read.
    const driftIssue = [...github.issues.values()].find((i) => i.body.includes('<!-- mftops:drift:production -->'));
    expect(driftIssue!.body).toContain('mftops drift --config mft/mftops.yaml --env production --adopt');
    expect(driftIssue!.body).not.toMatch(/mftops (drift|apply) --env/);
    const head = github.branches.get('mftops/adopt-production')!;
    expect(github.filesAt(head).get('mft/manifests/tasks/partners.yaml')).toContain('Acme adopted by hand');
    expect(pr!.body).toContain('Acme adopted by hand');
    expect(pr!.body).toMatch(
      /#### <code>Task\/Payroll to bank<\/code>\n\nchanged on the server, in <code>mft\/manifests\/tasks\/finance\.yaml<\/code>\n\nLast change: operator, 20/,
    );
    expect(github.filesAt(head).get('mft/manifests/tasks/finance.yaml')).toContain('Nightly payroll, fixed at 2 a.m.');
    expect(pr!.body).toMatch(/<code>Task\/Payroll to bank<\/code> \| <code>steps&#91;3&#93;<\/code> \| holds a secret: changed on the server, not adoptable/);
    const sent = JSON.stringify(github.calls());
    for (const secret of ['hunter2-SECRET-value', ...ALL_SECRETS]) {
      expect(sent).not.toContain(secret);
      expect(run.log).not.toContain(secret);
      for (const text of github.filesAt(head).values()) expect(text).not.toContain(secret);
    }
  });

  it('refuses, writing nothing to GitHub, when the checkout is not at GITHUB_SHA: its files would go onto another tree', { timeout: 60_000 }, async () => {
    resetGithub();
    const emulator = await startSeededEmulator();
    onTestFinished(() => emulator.close());
    const ws = testdir({
      'mftops.yaml': emulatorEnvironmentsYaml([
        { environment: 'prod', automationUrl: emulator.automationUrl, transferUrl: emulator.transferUrl, manifests: ['manifests'] },
      ]),
      'manifests/acl.yaml': ACL_MANIFEST,
    });
    const git = (...args: string[]) =>
      execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', '-c', 'commit.gpgsign=false', ...args], { cwd: ws, stdio: 'pipe' });
    git('init', '-q');
    git('add', '-A');
    git('commit', '-qm', 'checkout');
    const base = commitWorkspace(ws);
    setFinanceAcl(emulator, { TaskEditExisting: 0 });
    github.resetCalls();
    const run = await driftStep(ws, base, { 'on-drift': 'adopt-pr' });
    expect(run.code).toBe(1);
    const head = git('rev-parse', 'HEAD').toString().trim();
    expect(run.log).toContain(
      `::error::on-drift adopt-pr: the checkout is at ${head.slice(0, 12)}, not at GITHUB_SHA ${base.slice(0, 12)}: the adoption would go onto another commit's files; check out GITHUB_SHA (actions/checkout's default)`,
    );
    expect(github.writes().filter((w) => !w.includes('/issues'))).toEqual([]);
  });

  it('a bad on-drift value: one error line naming the input and its values, exit 1, no call to GitHub', async () => {
    resetGithub();
    const ws = testdir({ 'mftops.yaml': 'apiVersion: mftops/v1\nkind: Config\nenvironments: {}\n' });
    const run = await driftStep(ws, 'c0ffee', { 'on-drift': 'nonsense' });
    expect(run.code).toBe(1);
    const errors = run.log.split('\n').filter((l) => l.startsWith('::error'));
    expect(errors).toEqual(['::error::input "on-drift" must be one of report, adopt-pr, revert-plan, not "nonsense"']);
    expect(run.log).not.toMatch(/\n\s+at /);
    expect(github.calls()).toEqual([]);
  });

  it('refuses, writing nothing to GitHub, when the job did not check out a branch (a tag): the pull request would have no base', {
    timeout: 60_000,
  }, async () => {
    resetGithub();
    const emulator = await startSeededEmulator();
    onTestFinished(() => emulator.close());
    const ws = testdir({
      'mftops.yaml': emulatorEnvironmentsYaml([
        { environment: 'prod', automationUrl: emulator.automationUrl, transferUrl: emulator.transferUrl, manifests: ['manifests'] },
      ]),
      'manifests/acl.yaml': ACL_MANIFEST,
    });
    const base = commitWorkspace(ws);
    setFinanceAcl(emulator, { TaskRun: 0 });
    const run = await driftStep(ws, base, { 'on-drift': 'adopt-pr', comment: 'false' }, { GITHUB_REF: 'refs/tags/v1.2' });
    expect(run.code).toBe(1);
    expect(run.log.split('\n').filter((l) => l.startsWith('::error'))).toEqual([
      "::error::on-drift adopt-pr: the job must run on a branch (GITHUB_REF is refs/tags/v1.2): the pull request's base is the branch it checked out",
    ]);
    expect(github.writes()).toEqual([]);
  });
});

describe('on-drift: revert-plan', () => {
  it('plans only the drifted objects: an acknowledged difference of another object is not reverted, and the comment says so', {
    timeout: 120_000,
  }, async () => {
    resetGithub();
    const emulator = await startSeededEmulator();
    onTestFinished(() => emulator.close());
    const ws = checkout(emulator, 'production');
    const mft = join(ws, 'mft');
    const configFile = join(mft, 'mftops.yaml');
    expect((await adoptDrift({ configFile, addresses: [], dryRun: false }, quietContext(mft))).status).toBe('adopted');
    const config = parseDocument(readFileSync(configFile, 'utf8'));
    config.setIn(['environments', 'production', 'drift'], { ignore: [{ address: 'Task/Acme outbound', reason: 'partner asked' }] });
    writeFileSync(configFile, config.toString());
    const base = commitWorkspace(ws);
    editTaskByHand(emulator, { name: 'Acme outbound' }, (t) => {
      (t.Info as JsonObject).Description = 'acknowledged change';
    });
    editTaskByHand(emulator, { name: 'Payroll to bank' }, (t) => {
      (t.Info as JsonObject).Description = 'drifted change';
    });
    const run = await driftStep(ws, base, { 'on-drift': 'revert-plan', 'working-directory': 'mft' });
    expect(run.code, run.log).toBe(2);
    const plan = readPlanFile(run.outputs['plan-file']!);
    expect(plan.changes.filter((c) => c.action !== 'no-op').map((c) => c.address)).toEqual(['Task/Payroll to bank']);
    const [issue] = [...github.issues.values()];
    const [comment] = [...github.comments.values()].filter((c) => c.issue_number === issue!.number);
    expect(comment!.body).toContain('Only the drifted objects are in it: acknowledged differences (drift.ignore) are left out.');
    expect(comment!.body).not.toContain('Acme outbound');
  });

  it('posts the plan that reverts the drift on the drift issue and saves it as plan-file, writing nothing to the server', { timeout: 120_000 }, async () => {
    resetGithub();
    const emulator = await startSeededEmulator();
    onTestFinished(() => emulator.close());
    const ws = testdir({
      'mftops.yaml': emulatorEnvironmentsYaml([
        { environment: 'prod', automationUrl: emulator.automationUrl, transferUrl: emulator.transferUrl, manifests: ['manifests'] },
      ]),
      'manifests/acl.yaml': ACL_MANIFEST,
    });
    const base = commitWorkspace(ws);
    setFinanceAcl(emulator, { TaskRun: 0 });
    // The audit report is queried by POST (drift's who-changed-what): a read, not a write.
    const serverWrites = () => listWrites(emulator).filter((w) => w !== 'POST /automation/api/v1/reports/audit');
    expect(serverWrites()).toEqual([]);
    const run = await driftStep(ws, base, { 'on-drift': 'revert-plan' });
    expect(run.code, run.log).toBe(2);
    expect(run.outputs['exitcode']).toBe('2');
    expect(serverWrites()).toEqual([]);
    const planFile = run.outputs['plan-file']!;
    expect(planFile).toBe(join(ws, 'mftops-plan-prod.json'));
    const plan = readPlanFile(planFile);
    expect(plan.changes.filter((c) => c.action !== 'no-op').map((c) => [c.address, c.action])).toEqual([['ResourceGroupAcl/finance-operators', 'update']]);
    const [issue] = [...github.issues.values()];
    expect(issue!.body).toContain('<!-- mftops:drift:prod -->');
    const comments = [...github.comments.values()].filter((c) => c.issue_number === issue!.number);
    expect(comments).toHaveLength(1);
    expect(comments[0]!.body.split('\n')[0]).toBe('<!-- mftops:plan:prod -->');
    expect(comments[0]!.body).toContain('The plan that would revert this drift');
    expect(comments[0]!.body).toContain('finance-operators');
    expect(github.pulls()).toEqual([]);

    // The next night: the same comment, updated in place.
    const next = await driftStep(ws, base, { 'on-drift': 'revert-plan' });
    expect(next.code, next.log).toBe(2);
    expect([...github.comments.values()].filter((c) => c.issue_number === issue!.number).map((c) => c.id)).toEqual([comments[0]!.id]);
    expect(serverWrites()).toEqual([]);
    expect(existsSync(planFile)).toBe(true);
    expect(github.unmatched()).toEqual([]);
  });
});

/** A use case's context for the test's own set-up: nothing printed. */
function quietContext(cwd: string) {
  return { cwd, env: { ...CREDENTIALS }, logger: createLogger('quiet', () => {}), emit: () => {} };
}
