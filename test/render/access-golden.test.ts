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
 * A plan whose only changes are group entries, planned against the emulator with the example
 * seed (group members from the transfer server), rendered in the three formats.
 */
const MANIFEST = join(ROOT, 'test/fixtures/access/group-entry.yaml');
/** Resource-group ACLs only (user-group members from the automation server, A-28). */
const ACL_MANIFEST = join(ROOT, 'test/fixtures/access/acl-user-group.yaml');

/** The parts of a plan that depend on the run (emulator port, tool version, the checkout's path in the digest), pinned. */
function pinned(plan: Plan, servers: Plan['servers'] = { transfer: { url: 'https://transfer.example.com/api/v1', username: 'admin' } }): Plan {
  return {
    ...plan,
    toolVersion: '0.1.0',
    manifestDigest: `sha256:${'ab'.repeat(32)}`,
    servers,
  };
}

let h: Harness;
let plan: Plan;
let aclPlan: Plan;
beforeAll(async () => {
  h = await startHarness();
  const result = await planPaths(h, [MANIFEST]);
  expect(result.diagnostics).toEqual([]);
  plan = pinned(result.plan!);
  const acl = await planPaths(h, [ACL_MANIFEST]);
  expect(acl.diagnostics).toEqual([]);
  aclPlan = pinned(acl.plan!, { automation: { url: 'https://automation.example.com/automation', username: 'admin', version: '2025.1.0' } });
});
afterAll(() => h.close());

describe('a plan whose only change is a group entry names each member who gains or loses what', () => {
  it('text: the access section comes before the per-object diff, and the summary line counts it', () => {
    const text = renderPlanText(plan, { color: false });
    expectGolden(text, 'group-entry.txt');
    expect(text.indexOf('Access changes:')).toBeLessThan(text.indexOf('~ FolderPermissions/'));
    expect(text).toContain('  ! bob loses readFiles, listFiles on /Distribution/Acme/Outbound (via group Acme Partners) [no access left]');
    expect(text).toContain(
      '  ! globex-svc gains writeFiles, share and loses readFiles on /Distribution/Globex/Outbound (via group Globex Partners) [grants share]',
    );
    expect(text).toContain('0 blocked. 1 user gains access, 3 lose access.');
  });

  it('markdown: who loses all access is called out after the verdict; the access section, by principal, comes before the objects', () => {
    const md = renderPlanMarkdown(plan, { artifactHint: 'the plan artifact' });
    expectGolden(md, 'group-entry.md');
    expect(md.indexOf('> - bob **loses all access** on 1 folder: `/Distribution/Acme/Outbound`')).toBeLessThan(md.indexOf('<b>Access changes:</b>'));
    expect(md.indexOf('<b>Access changes:</b>')).toBeLessThan(md.indexOf('### Changed objects'));
    expect(md).toContain('- :warning: acme-svc loses readFiles, listFiles on /Distribution/Acme/Outbound (via group Acme Partners) — **no access left**');
  });

  it('json: user, folder, gained, lost, via per change', () => {
    const json = renderPlanJson(plan);
    expectGolden(json, 'group-entry.view.json');
    const access = JSON.parse(json).access;
    expect(access.summary).toBe('1 user gains access, 3 lose access');
    expect(
      access.changes.map((c: { user: string; folder: string; gained: string[]; lost: string[]; via: { name: string }[] }) => [
        c.user,
        c.folder,
        c.gained,
        c.lost,
        c.via.map((v) => v.name),
      ]),
    ).toEqual([
      ['acme-svc', '/Distribution/Acme/Outbound', [], ['readFiles', 'listFiles'], ['Acme Partners']],
      ['bob', '/Distribution/Acme/Outbound', [], ['readFiles', 'listFiles'], ['Acme Partners']],
      ['globex-svc', '/Distribution/Globex/Outbound', ['writeFiles', 'share'], ['readFiles'], ['Globex Partners']],
    ]);
  });
});

describe('a plan whose only change is a resource-group ACL names each member of the user group', () => {
  it('text', () => {
    const text = renderPlanText(aclPlan, { color: false });
    expectGolden(text, 'acl-user-group.txt');
    expect(text.indexOf('Access changes:')).toBeLessThan(text.indexOf('ResourceGroupAcl/'));
    expect(text).toContain('  - dana gains TaskRun on resource group Finance (via user group Auditors)');
    expect(text).toContain(
      '  ! operator gains TaskAddEditDelete and loses TaskRun on resource group Finance (via user group Finance Operators) [grants TaskAddEditDelete]',
    );
    expect(text).toContain('0 blocked. 2 users gain access, 1 loses access.');
  });

  it('markdown', () => {
    const md = renderPlanMarkdown(aclPlan, { artifactHint: 'the plan artifact' });
    expectGolden(md, 'acl-user-group.md');
    expect(md).toContain(
      '- :warning: operator gains TaskAddEditDelete and loses TaskRun on resource group Finance (via user group Finance Operators) — **grants `TaskAddEditDelete`**',
    );
  });

  it('json', () => {
    const json = renderPlanJson(aclPlan);
    expectGolden(json, 'acl-user-group.view.json');
    const access = JSON.parse(json).access;
    expect(
      access.changes.map((c: { user: string; resourceGroup: string; gained: string[]; lost: string[]; flagged: string[] }) => [
        c.user,
        c.resourceGroup,
        c.gained,
        c.lost,
        c.flagged,
      ]),
    ).toEqual([
      ['dana', 'Finance', ['TaskRun'], [], []],
      ['operator', 'Finance', ['TaskAddEditDelete'], ['TaskRun'], ['TaskAddEditDelete']],
    ]);
  });
});
