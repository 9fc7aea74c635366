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

/** The parts of a plan that depend on the run (emulator port, tool version, the checkout's path in the digest), pinned. */
function pinned(plan: Plan): Plan {
  return {
    ...plan,
    toolVersion: '0.1.0',
    manifestDigest: `sha256:${'ab'.repeat(32)}`,
    servers: { transfer: { url: 'https://transfer.example.com/api/v1', username: 'admin' } },
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

describe('a plan whose only change is a group entry names each member who gains or loses what', () => {
  it('text: the access section comes before the per-object diff, and the summary line counts it', () => {
    const text = renderPlanText(plan, { color: false });
    expectGolden(text, 'group-entry.txt');
    expect(text.indexOf('Access changes:')).toBeLessThan(text.indexOf('~ FolderPermissions/'));
    expect(text).toContain('  ! bob loses readFiles, listFiles on /Distribution/Acme/Outbound (via group Acme Partners) [no access left]');
    expect(text).toContain('  ! globex-svc gains writeFiles, share and loses readFiles on /Distribution/Globex/Outbound (via group Globex Partners) [grants share]');
    expect(text).toContain('0 blocked. 1 user gains access, 3 lose access.');
  });

  it('markdown: the access section comes right after the summary', () => {
    const md = renderPlanMarkdown(plan, { artifactHint: 'the plan artifact' });
    expectGolden(md, 'group-entry.md');
    expect(md.indexOf('### Access changes')).toBeLessThan(md.indexOf('<details>'));
    expect(md).toContain('- :warning: acme-svc loses readFiles, listFiles on /Distribution/Acme/Outbound (via group Acme Partners) — **no access left**');
  });

  it('json: user, folder, gained, lost, via per change', () => {
    const json = renderPlanJson(plan);
    expectGolden(json, 'group-entry.view.json');
    const access = JSON.parse(json).access;
    expect(access.summary).toBe('1 user gains access, 3 lose access');
    expect(access.changes.map((c: { user: string; folder: string; gained: string[]; lost: string[]; via: { name: string }[] }) => [c.user, c.folder, c.gained, c.lost, c.via.map((v) => v.name)])).toEqual([
      ['acme-svc', '/Distribution/Acme/Outbound', [], ['readFiles', 'listFiles'], ['Acme Partners']],
      ['bob', '/Distribution/Acme/Outbound', [], ['readFiles', 'listFiles'], ['Acme Partners']],
      ['globex-svc', '/Distribution/Globex/Outbound', ['writeFiles', 'share'], ['readFiles'], ['Globex Partners']],
    ]);
  });
});
