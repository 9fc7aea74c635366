import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Plan } from '../../src/plan/model.js';
import { renderPlanJson } from '../../src/render/plan-json.js';
import { renderPlanMarkdown } from '../../src/render/plan-markdown.js';
import { renderPlanText } from '../../src/render/plan-text.js';
import { expectGolden } from '../fixtures/plans/load.js';
import type { Harness } from '../plan/helpers.js';
import { ROOT, planPaths, startHarness } from '../plan/helpers.js';

/**
 * A plan whose only changes are resource-group ACL permissions, planned against the emulator with
 * the example seed (user-group members from GET /usergroups), rendered in the three formats.
 */
const MANIFEST = join(ROOT, 'test/fixtures/access/acl-user-group.yaml');

/** The parts of a plan that depend on the run (emulator port, tool version, the checkout's path in the digest), pinned. */
function pinned(plan: Plan): Plan {
  return {
    ...plan,
    toolVersion: '0.1.0',
    manifestDigest: `sha256:${'ab'.repeat(32)}`,
    servers: { automation: { url: 'https://automation.example.com/automation', username: 'admin', version: '2025.1.0' } },
  };
}

let h: Harness;
let plan: Plan;
beforeAll(async () => {
  h = await startHarness();
  const result = await planPaths(h, [MANIFEST]);
  expect(result.diagnostics).toEqual([]);
  plan = pinned(result.plan!);
});
afterAll(() => h.close());

describe('a plan whose only change is a resource-group ACL names each member of the user group', () => {
  it('text', () => {
    const text = renderPlanText(plan, { color: false });
    expectGolden(text, 'acl-user-group.txt');
    expect(text.indexOf('Access changes:')).toBeLessThan(text.indexOf('ResourceGroupAcl/'));
    expect(text).toContain('  - dana gains TaskRun on resource group Finance (via user group Auditors)');
    expect(text).toContain('  ! operator gains TaskAddEditDelete and loses TaskRun on resource group Finance (via user group Finance Operators) [grants TaskAddEditDelete]');
    expect(text).toContain('0 blocked. 2 users gain access, 1 loses access.');
  });

  it('markdown', () => {
    const md = renderPlanMarkdown(plan, { artifactHint: 'the plan artifact' });
    expectGolden(md, 'acl-user-group.md');
    expect(md).toContain('- :warning: operator gains TaskAddEditDelete and loses TaskRun on resource group Finance (via user group Finance Operators) — **grants `TaskAddEditDelete`**');
  });

  it('json', () => {
    const json = renderPlanJson(plan);
    expectGolden(json, 'acl-user-group.view.json');
    const access = JSON.parse(json).access;
    expect(access.changes.map((c: { user: string; resourceGroup: string; gained: string[]; lost: string[]; flagged: string[] }) => [c.user, c.resourceGroup, c.gained, c.lost, c.flagged])).toEqual([
      ['dana', 'Finance', ['TaskRun'], [], []],
      ['operator', 'Finance', ['TaskAddEditDelete'], ['TaskRun'], ['TaskAddEditDelete']],
    ]);
  });
});
