import { existsSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emulatorConfigYaml } from '../../src/emulator/config-for.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import type { AclPermission } from '../../src/emulator/state.js';
import { startSeededEmulator } from '../integration/helpers.js';
import { testdir } from '../helpers/testdir.js';
import { editAclByHand } from '../helpers/emulator-test-api.js';
import { startFakeGithub, type FakeGithub } from './fake-github.js';
import { CREDENTIALS, NODE24_RUNTIME, runActionProcess, type ActionRun, type Runtime } from './harness.js';

/**
 * The nightly drift job, as a runner runs it: one issue per environment, labelled mftops-drift,
 * opened when drift appears, updated while it lasts, commented on and closed when the server is
 * back in sync. The manifest matches the seed's Finance ACL exactly, so the emulator starts in
 * sync and the test makes the drift by changing the server behind git's back.
 */

const ACL_MANIFEST = `apiVersion: mftops/v1
kind: ResourceGroupAcl
metadata: { name: finance-operators }
spec:
  resourceGroup: Finance
  userGroup: Finance Operators
  permissions: [TaskRun, TaskEditExisting]
`;
const MARKER = '<!-- mftops:drift:prod -->';

const RUNTIMES: Runtime[] = [['Node 20', () => Promise.resolve(process.execPath)], NODE24_RUNTIME];

let github: FakeGithub;
beforeAll(async () => {
  github = await startFakeGithub();
});
afterAll(() => github.close());

/** Sets permissions of the seed's Finance / Finance Operators ACL on the server, behind git's back. */
function setFinanceAcl(emulator: RunningEmulator, permissions: Readonly<Partial<Record<AclPermission, 0 | 1>>>): void {
  editAclByHand(emulator, 'Finance', 'Finance Operators', (acl) => Object.assign(acl.Permissions, permissions));
}

describe('command: drift on a schedule', () => {
  it.for<Runtime>(RUNTIMES)('opens, updates and closes one issue for the environment (%s)', { timeout: 150_000 }, async ([, findNode], ctx) => {
    const node = await findNode();
    const emulator = await startSeededEmulator();
    ctx.onTestFinished(() => emulator.close());
    github.issues.clear();
    github.comments.clear();
    github.labels.delete('mftops-drift');
    // Another environment's drift issue and a labelled pull request: neither may be touched.
    const other = {
      number: 7,
      title: 'Drift in staging: 1 object differs',
      body: '<!-- mftops:drift:staging -->\nold',
      state: 'open' as const,
      labels: ['mftops-drift'],
    };
    github.issues.set(7, { ...other });
    github.issues.set(8, { number: 8, title: 'PR', body: MARKER, state: 'open', labels: ['mftops-drift'], pull_request: { url: 'x' } });

    const ws = testdir({
      'mftops.yaml': emulatorConfigYaml({ ...emulator, environment: 'prod', manifests: ['manifests'] }),
      'manifests/acl.yaml': ACL_MANIFEST,
    });
    const drift = (): Promise<ActionRun> =>
      runActionProcess({
        inputs: { command: 'drift', 'github-token': github.token },
        workspace: ws,
        eventName: 'schedule',
        event: '{"schedule":"17 3 * * *"}',
        github,
        env: CREDENTIALS,
        node,
      });
    const driftIssues = () => [...github.issues.values()].filter((i) => i.pull_request === undefined && i.body.includes(MARKER));

    // 1. In sync, no issue: one read, nothing written.
    github.resetCalls();
    const inSync = await drift();
    expect(inSync.stderr).toBe('');
    expect(inSync.code).toBe(0);
    expect(inSync.outputs['exitcode']).toBe('0');
    expect(inSync.outputs['summary']).toMatch(/^In sync/);
    expect(existsSync(inSync.outputs['report-file']!)).toBe(true);
    expect(github.writes()).toEqual([]);
    expect(driftIssues()).toEqual([]);

    // 2. Someone removes TaskRun on the server: drift. The step succeeds (exit code 2 in the output) and opens the issue.
    setFinanceAcl(emulator, { TaskRun: 0 });
    github.resetCalls();
    const opened = await drift();
    expect(opened.code).toBe(0);
    expect(opened.outputs['exitcode']).toBe('2');
    const report = JSON.parse(readFileSync(opened.outputs['report-file']!, 'utf8')) as { status: string; drifted: { address: string }[] };
    expect(report.status).toBe('drift');
    expect(report.drifted.map((d) => d.address)).toEqual(['ResourceGroupAcl/finance-operators']);
    expect(opened.summary).toContain('ResourceGroupAcl/finance-operators');
    expect(github.unmatched()).toEqual([]);
    expect(github.writes()).toEqual(['POST /repos/acme-corp/mft-config/labels', 'POST /repos/acme-corp/mft-config/issues']);
    expect(driftIssues()).toHaveLength(1);
    const issue = { ...driftIssues()[0]! };
    expect(issue.state).toBe('open');
    expect(issue.labels).toEqual(['mftops-drift']);
    expect(issue.title).toMatch(/^Drift in prod: 1 object differs/);
    expect(issue.body).toContain('finance-operators');
    expect(issue.body).toContain('https://github.com/acme-corp/mft-config/actions/runs/8123456789');
    expect(issue.body.length).toBeLessThanOrEqual(65_536);

    // 3. The drift lasts and grows: the same issue is updated, no second one.
    setFinanceAcl(emulator, { TaskEditExisting: 0 });
    github.resetCalls();
    const updated = await drift();
    expect(updated.code).toBe(0);
    expect(updated.outputs['exitcode']).toBe('2');
    expect(github.unmatched()).toEqual([]);
    expect(github.writes()).toEqual([`PATCH /repos/acme-corp/mft-config/issues/${issue.number}`]);
    expect(driftIssues().map((i) => i.number)).toEqual([issue.number]);
    expect(driftIssues()[0]!.body).toContain('TaskEditExisting');
    expect(driftIssues()[0]!.body).not.toBe(issue.body);

    // 4. The server is put back: a comment says so and the issue is closed.
    setFinanceAcl(emulator, { TaskRun: 1, TaskEditExisting: 1 });
    github.resetCalls();
    const closed = await drift();
    expect(closed.code).toBe(0);
    expect(closed.outputs['exitcode']).toBe('0');
    expect(github.unmatched()).toEqual([]);
    expect(github.writes()).toEqual([
      `POST /repos/acme-corp/mft-config/issues/${issue.number}/comments`,
      `PATCH /repos/acme-corp/mft-config/issues/${issue.number}`,
    ]);
    const final = github.issues.get(issue.number)!;
    expect(final.state).toBe('closed');
    expect(final.state_reason).toBe('completed');
    expect([...github.comments.values()].filter((c) => c.issue_number === issue.number).map((c) => c.body)[0]).toMatch(/match git again/);

    // The other environment's issue and the pull request were left alone.
    expect(github.issues.get(7)).toEqual(other);
    expect(github.issues.get(8)?.state).toBe('open');
    // Drift never writes to the MFT servers.
    expect(emulator.requestLog().filter((r) => !r.isTokenCall && r.method !== 'GET' && !r.path.endsWith('/reports/audit'))).toEqual([]);
  });

  it('fails the step when GitHub refuses the drift issue: nobody would hear of the drift', async (ctx) => {
    const emulator = await startSeededEmulator();
    ctx.onTestFinished(() => emulator.close());
    github.issues.clear();
    github.labels.delete('mftops-drift');
    setFinanceAcl(emulator, { TaskRun: 0 });
    const ws = testdir({
      'mftops.yaml': emulatorConfigYaml({ ...emulator, environment: 'prod', manifests: ['manifests'] }),
      'manifests/acl.yaml': ACL_MANIFEST,
    });
    github.refuseWrites = 403;
    try {
      const run = await runActionProcess({
        inputs: { command: 'drift', 'github-token': github.token },
        workspace: ws,
        eventName: 'schedule',
        github,
        env: CREDENTIALS,
      });
      expect(run.code).toBe(1);
      expect(run.outputs['exitcode']).toBe('1');
      expect(run.stdout).toMatch(/^::error::the drift issue was not updated: GitHub API POST \/repos\/acme-corp\/mft-config\/labels returned 403/m);
      // The report is still there for the artifact.
      expect(JSON.parse(readFileSync(run.outputs['report-file']!, 'utf8'))).toMatchObject({ status: 'drift' });
    } finally {
      github.refuseWrites = undefined;
    }
  });
});
