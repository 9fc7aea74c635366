import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { parsePlan, serializePlan } from '../../src/app/plan-file.js';
import { findSchemasDir, SCHEMA_BASE_URL } from '../../src/manifest/schemas.js';
import { planAccessChanges } from '../../src/plan/access-changes.js';
import { renderAccessText } from '../../src/render/access.js';
import { planJsonView, renderPlanJson } from '../../src/render/plan-json.js';
import { renderPlanMarkdown } from '../../src/render/plan-markdown.js';
import { renderPlanText } from '../../src/render/plan-text.js';
import { expectGolden } from '../fixtures/plans/load.js';
import { changeOf, largeMembershipCase, liveFolder, membership, membershipPlan, smallMembershipCase, transferOf } from '../helpers/membership-access.js';

/**
 * The access review of membership changes (issue 26), from hand-built bases (test/helpers/
 * membership-access.ts): the small case adds bob to Partners and removes carol while the same plan
 * removes Partners' entry from one folder; the large one adds 30 users to a group on 200 folders.
 */
const small = membershipPlan(smallMembershipCase());
const large = membershipPlan(largeMembershipCase());

describe('access across membership changes, rendered', () => {
  it('text: one line per user and permission set, the folders counted, the admin grant flagged, the folders not read said', () => {
    const text = renderPlanText(small, { color: false });
    expectGolden(text, 'membership-small.txt');
    expect(text).toContain('  - bob gains readFiles, listFiles on /Partners/Acme (via group Partners)\n');
    expect(text).toContain('  ! bob gains listFiles, admin on /Partners/Admin (via group Partners) [grants admin]\n');
    expect(text).toContain('  ! carol loses readFiles, listFiles on 2 folders (via group Partners): /Partners/Globex, /Partners/Acme [no access left]\n');
    expect(text).toContain('Only the 4 folders this plan read');
    // The entry removed in the same plan: bob gains nothing on /Partners/Globex.
    expect(text).not.toMatch(/bob gains[^\n]*Globex/);
  });

  it('text: a long list is named once and pointed at after', () => {
    const lines = renderAccessText(large.access!);
    expect(lines).toContain(
      `  - user02 gains readFiles, listFiles on 200 folders (via group Partners): ${Array.from({ length: 10 }, (_, i) => `/Partners/Partner ${String(i + 1).padStart(3, '0')}/Outbound`).join(', ')}, and 190 more`,
    );
    expect(lines).toContain('  - user30 gains readFiles, listFiles on the same 200 folders as user02 (via group Partners)');
  });

  it('markdown: the admin grant called out like a direct one; a few folders inline', () => {
    const md = renderPlanMarkdown(small, { artifactHint: 'the plan artifact' });
    expectGolden(md, 'membership-small.md');
    expect(md).toContain('> - bob **gains `admin`** on 1 folder: `/Partners/Admin`');
    expect(md).toContain(
      '- :warning: carol loses readFiles, listFiles on 2 folders (via group Partners): `/Partners/Globex`, `/Partners/Acme` — **no access left**',
    );
    expect(md).toContain('(3 principals)');
  });

  it('markdown, 200 folders and 30 new members: the folders collapsed once, the 30 admin grants one alert, within the comment limit', () => {
    const md = renderPlanMarkdown(large, { artifactHint: 'the plan artifact' });
    expectGolden(md, 'membership-large.md');
    expect(md.length).toBeLessThan(65_000);
    expect(md).toContain('- user02 gains readFiles, listFiles on 200 folders (via group Partners)\n  <details><summary>The 200 folders</summary><code>');
    expect(md.match(/<summary>The 200 folders<\/summary>/g)).toHaveLength(1);
    expect(md).toContain('- user30 gains readFiles, listFiles on the same 200 folders as user02 (via group Partners)');
    expect(md).toContain(
      '> **30 access changes to look at (all access removed, or a permission to review granted).**\n>\n> - 30 users (user01, user02, user03, user04, user05, user06, user07, user08, user09, user10, and 20 more) **gain `admin`** on 1 folder: `/Partners`\n\n',
    );
    expect(md).toContain('<details><summary><b>Access changes:</b> 30 users gain access (30 principals)</summary>');
  });

  it('json: each folder with the memberships it comes through, the scope with its sentence, valid against the output schema', () => {
    const json = renderPlanJson(small);
    expectGolden(json, 'membership-small.view.json');
    const access = JSON.parse(json).access;
    expect(access.changes.map((c: { user: string; folder: string; memberships?: string[] }) => [c.user, c.folder, c.memberships])).toEqual([
      ['alice', '/Partners/Globex', undefined],
      ['bob', '/Partners/Acme', ['Partners']],
      ['bob', '/Partners/Admin', ['Partners']],
      ['carol', '/Partners/Globex', ['Partners']],
      ['carol', '/Partners/Acme', ['Partners']],
      ['carol', '/Partners/Admin', ['Partners']],
    ]);
    expect(access.membershipScope).toMatchObject({ groups: ['Partners'], foldersRead: 4 });
    const ajv = new Ajv2020({ strict: true, strictRequired: false, allowUnionTypes: true });
    addFormats.default(ajv);
    for (const file of ['kinds.schema.json', 'plan.schema.json', 'output-plan.schema.json'])
      ajv.addSchema(JSON.parse(readFileSync(join(findSchemasDir(), file), 'utf8')) as object);
    const validate = ajv.getSchema(`${SCHEMA_BASE_URL}output-plan.schema.json`)!;
    expect(validate(planJsonView(small)), JSON.stringify(validate.errors)).toBe(true);
  });

  it('plan file: the memberships and the scope are saved and read back as they were', () => {
    const back = parsePlan(serializePlan(small), 'plan.json');
    expect(back.access).toEqual(small.access);
  });

  it('a membership change that reaches no folder read says so instead of saying nothing', () => {
    const report = planAccessChanges(
      [changeOf('Group/Readers')],
      new Map([['Group/Readers', membership('Readers', [], ['bob'])]]),
      transferOf([liveFolder(1, '/Other', [['Group', 'Others', ['readFiles']]])], {}),
    )!;
    expect(renderAccessText(report)).toEqual([
      'Access changes: No one gains or loses access on the folders checked.',
      '  Only the 1 folder this plan read (for its manifests, for the scope when pruning, for task steps) was checked for what group Readers grants: on other folders, its new and removed members may gain or lose access that is not shown here.',
    ]);
  });
});
