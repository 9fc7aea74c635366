import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { orderPlanKeys } from '../../src/app/plan-file.js';
import { findSchemasDir, getValidatorByFile, SCHEMA_BASE_URL } from '../../src/manifest/schemas.js';
import { planJsonView, renderPlanJson } from '../../src/render/plan-json.js';
import { renderPlanMarkdown } from '../../src/render/plan-markdown.js';
import { renderPlanText } from '../../src/render/plan-text.js';
import { expectGolden, loadFixturePlan } from '../fixtures/plans/load.js';

/**
 * What a delete removes (test/fixtures/plans/deletes.json): a replace (its field differences,
 * then the task its delete removes); a task in manifest form with a secret parameter, a step
 * password, a host no list names, a parameter whose name starts with `$` and multi-line notes;
 * an ACL; a delete from a plan made before mftops showed the content.
 */
describe('golden renderings of test/fixtures/plans/deletes.json', () => {
  const plan = loadFixturePlan('deletes.json');

  it('text: the removed content under the header, each line marked -', () => {
    const text = renderPlanText(plan, { color: false });
    expectGolden(text, 'deletes.txt');
    expect(text).toContain('    -     value: (sensitive)\n');
    expect(text).toContain('    -       Host: (host ID 201099)\n');
    expect(text).toContain('    ~ Group: ["Partners"] → ["Finance"] # forces replacement\n    # deleted first, as it is now:\n    - Active: 1\n');
    // A plan file without the content shows the delete as before.
    expect(text).toContain('- Task/Old plan delete will be deleted\n    # no manifest manages this task in scope (Operations), and Tasks are pruned\n\n');
  });

  it('text with colour: the removed lines red', () => {
    const text = renderPlanText(plan, { color: true });
    expectGolden(text, 'deletes.color.txt');
    expect(text).toContain('    \u001b[31m- Active: 0\u001b[0m\n');
  });

  it('markdown: a Removes diff block in the details', () => {
    const md = renderPlanMarkdown(plan, { artifactHint: 'the plan artifact' });
    expectGolden(md, 'deletes.md');
    expect(md).toContain('**Removes:**\n\n```diff\n- Active: 0\n');
    // A replace: the field differences first, then what its delete removes.
    expect(md).toContain(
      '```diff\n- Group: ["Partners"]\n+ Group: ["Finance"] # forces replacement\n```\n\n**Deleted first, as it is now:**\n\n```diff\n- Active: 1\n',
    );
  });

  it('json view: the content as data with markers, valid against the output schema', () => {
    const json = renderPlanJson(plan);
    expectGolden(json, 'deletes.view.json');
    const ajv = new Ajv2020({ strict: true, strictRequired: false, allowUnionTypes: true });
    addFormats.default(ajv);
    for (const file of ['kinds.schema.json', 'plan.schema.json', 'output-plan.schema.json'])
      ajv.addSchema(JSON.parse(readFileSync(join(findSchemasDir(), file), 'utf8')) as object);
    const validate = ajv.getSchema(`${SCHEMA_BASE_URL}output-plan.schema.json`)!;
    expect(validate(planJsonView(plan)), JSON.stringify(validate.errors)).toBe(true);
    const view = planJsonView(plan);
    expect(view.changes.map((c) => c.removes !== undefined)).toEqual([true, true, false, true]);
  });

  it('plan file: valid against plan.schema.json, key order its own golden file', () => {
    const validate = getValidatorByFile('plan.schema.json');
    expect(validate({ formatVersion: 3, checksum: `sha256:${'0'.repeat(64)}`, plan }), JSON.stringify(validate.errors)).toBe(true);
    expectGolden(`${JSON.stringify(orderPlanKeys(plan), null, 2)}\n`, 'deletes.json', { updatable: false });
  });
});
