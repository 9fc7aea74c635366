import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import type { JsonObject } from '../../src/emulator/json.js';
import { readPlanFile } from '../../src/app/plan-file.js';
import { startSeededEmulator } from '../integration/helpers.js';
import { editAclByHand, editTaskByHand, listWrites } from '../helpers/emulator-test-api.js';
import { ALL_SECRETS, checkout, CREDENTIALS, freshBundle, runActionProcess, type ActionRun } from './harness.js';

/**
 * Apply on merge, as a runner runs it: the reviewed plan (the pull request's plan file) is applied
 * only when a plan made now does the same; otherwise nothing is written and the step fails naming
 * what differs.
 */

async function freshEmulator(): Promise<RunningEmulator> {
  const emulator = await startSeededEmulator();
  onTestFinished(() => emulator.close());
  return emulator;
}

/** The pull request's plan, saved as the plan workflow does, then copied where the apply job downloads it. */
async function reviewedPlan(ws: string): Promise<string> {
  const run = await runActionProcess({
    inputs: { command: 'plan', 'working-directory': 'mft', comment: 'false' },
    workspace: ws,
    eventName: 'pull_request',
    env: CREDENTIALS,
  });
  expect(run.code).toBe(0);
  const reviewed = join(ws, 'reviewed-plan.json');
  copyFileSync(run.outputs['plan-file']!, reviewed);
  return reviewed;
}

function apply(ws: string, planFile: string, bundle?: string): Promise<ActionRun> {
  return runActionProcess({
    inputs: { command: 'apply', 'working-directory': 'mft', 'plan-file': planFile },
    workspace: ws,
    eventName: 'push',
    env: CREDENTIALS,
    ...(bundle !== undefined ? { bundle } : {}),
  });
}

describe('command: apply with the reviewed plan', () => {
  it('applies the reviewed plan when the plan made now is the same, and reports it', async () => {
    const emulator = await freshEmulator();
    const ws = checkout(emulator);
    const reviewed = await reviewedPlan(ws);
    emulator.resetRequestLog();

    const run = await apply(ws, reviewed);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.outputs['exitcode']).toBe('0');
    expect(run.outputs['has-changes']).toBe('true');
    expect(run.outputs['plan-file']).toBe(reviewed);
    expect(run.stdout).toContain('matches the reviewed plan');
    expect(run.stdout).not.toContain('::error');
    const report = JSON.parse(readFileSync(run.outputs['report-file']!, 'utf8')) as { outcome: string; counts: { ok: number; failed: number } };
    expect(report.outcome).toBe('applied');
    expect(report.counts.failed).toBe(0);
    const writable = readPlanFile(reviewed).changes.filter((c) => c.action !== 'no-op' && c.action !== 'blocked').length;
    expect(report.counts.ok).toBe(writable);
    expect(run.outputs['summary']).toMatch(/^Apply complete/);
    expect(run.summary).toContain('### mftops apply: lab');
    expect(listWrites(emulator).length).toBeGreaterThan(0);
    const everything = [run.stdout, run.summary, JSON.stringify(run.outputs), readFileSync(run.outputs['report-file']!, 'utf8')].join('\n');
    for (const secret of ALL_SECRETS) expect(everything).not.toContain(secret);
  });

  it('a second run of an applied merge (a re-run) writes nothing and succeeds: what was reviewed is on the servers', async () => {
    const emulator = await freshEmulator();
    const ws = checkout(emulator);
    const reviewed = await reviewedPlan(ws);
    const bundle = await freshBundle();
    expect((await apply(ws, reviewed, bundle)).code).toBe(0);
    emulator.resetRequestLog();
    const again = await apply(ws, reviewed, bundle);
    expect(again.code, again.stdout).toBe(0);
    expect(again.stdout).toContain('The plan made now has nothing to do: what was reviewed is on the servers already.');
    expect(again.stdout).not.toContain('::error');
    expect(listWrites(emulator)).toEqual([]);
  });

  it('refuses, writing nothing, when the merged manifests plan differently from the reviewed plan, and names the object', async () => {
    const emulator = await freshEmulator();
    const ws = checkout(emulator);
    const reviewed = await reviewedPlan(ws);
    // What was merged is not what was reviewed: one more change to a task's description.
    const tasks = join(ws, 'mft/manifests/tasks/operations.yaml');
    const reviewedText = 'Delete processed files older than the retention period from the local archive';
    expect(readFileSync(tasks, 'utf8')).toContain(reviewedText);
    writeFileSync(tasks, readFileSync(tasks, 'utf8').replace(reviewedText, 'Changed after review'));
    emulator.resetRequestLog();

    const run = await apply(ws, reviewed);
    expect(run.code).toBe(1);
    expect(run.outputs['exitcode']).toBe('1');
    const error = run.stdout.split('\n').find((l) => l.startsWith('::error::'));
    expect(error).toMatch(/differs from the reviewed plan in 1 object; nothing was applied/);
    expect(error).toContain('%0A  Task/Nightly cleanup: update of Info.Description differs from the reviewed one');
    expect(run.summary).toContain('Nothing was applied');
    expect(listWrites(emulator)).toEqual([]);
  });

  it('refuses when the server changed since the review, naming the object', async () => {
    const emulator = await freshEmulator();
    const ws = checkout(emulator);
    const reviewed = await reviewedPlan(ws);
    editAclByHand(emulator, 'Partners', 'Partner Managers', (acl) => {
      acl.Permissions.TaskRun = 0;
    });
    emulator.resetRequestLog();

    const run = await apply(ws, reviewed);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/^::error::.*ResourceGroupAcl\/partner-managers: not in the reviewed plan, now update/m);
    expect(listWrites(emulator)).toEqual([]);
  });

  it("surfaces apply's own stale-plan guard: an object moved in a field the plan does not show", async () => {
    const emulator = await freshEmulator();
    const ws = checkout(emulator);
    const reviewed = await reviewedPlan(ws);
    // A note no manifest sets: the plans stay the same, but the live task is not the one reviewed.
    editTaskByHand(emulator, { name: 'Globex outbound' }, (task) => {
      task['Info'] = { ...(task['Info'] as JsonObject), Notes: 'edited in the admin UI after the review' };
    });
    emulator.resetRequestLog();

    const run = await apply(ws, reviewed);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('matches the reviewed plan');
    expect(run.stdout).toMatch(/^::error::mftops apply: The plan is stale; nothing was written.*Task\/Globex outbound/m);
    expect(JSON.parse(readFileSync(run.outputs['report-file']!, 'utf8'))).toMatchObject({ outcome: 'stale' });
    expect(listWrites(emulator)).toEqual([]);
  });

  it('without a reviewed plan, applies the plan it makes and keeps it as the plan-file output', async () => {
    const emulator = await freshEmulator();
    const ws = checkout(emulator);
    const run = await runActionProcess({
      inputs: { command: 'apply', 'working-directory': 'mft' },
      workspace: ws,
      eventName: 'workflow_dispatch',
      env: CREDENTIALS,
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('No reviewed plan-file given: applying the plan made now.');
    expect(run.outputs['plan-file']).toBe(join(ws, 'mft', 'mftops-plan-lab.json'));
    const applied = readPlanFile(run.outputs['plan-file']!).changes.filter((c) => c.action !== 'no-op' && c.action !== 'blocked').length;
    expect(JSON.parse(readFileSync(run.outputs['report-file']!, 'utf8'))).toMatchObject({ outcome: 'applied', counts: { ok: applied, failed: 0 } });
    expect(listWrites(emulator).length).toBeGreaterThan(0);
  });

  it('fails with a one-line error when the plan file is not a plan', async () => {
    const emulator = await freshEmulator();
    const ws = checkout(emulator);
    writeFileSync(join(ws, 'not-a-plan.json'), '{"hello": 1}');
    const run = await apply(ws, join(ws, 'not-a-plan.json'));
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/^::error::.*not-a-plan\.json is not a plan file: no formatVersion$/m);
    expect(listWrites(emulator)).toEqual([]);
  });
});
