import { describe, expect, it } from 'vitest';
import { getValueVocabulary } from '../../src/manifest/schemas.js';
import { describeFieldChange, describeInnerValues } from '../../src/manifest/value-words.js';
import { orderPlanKeys } from '../../src/app/plan-file.js';
import { renderPlanJson } from '../../src/render/plan-json.js';
import { renderPlanMarkdown } from '../../src/render/plan-markdown.js';
import { renderPlanText } from '../../src/render/plan-text.js';
import { expectGolden, loadFixturePlan } from '../fixtures/plans/load.js';

describe('golden renderings of test/fixtures/plans/every-action.json', () => {
  const plan = loadFixturePlan('every-action.json');

  it('text without colour', () => {
    expectGolden(renderPlanText(plan, { color: false }), 'every-action.txt');
  });

  it('text with colour', () => {
    expectGolden(renderPlanText(plan, { color: true }), 'every-action.color.txt');
  });

  it('markdown', () => {
    expectGolden(renderPlanMarkdown(plan, { artifactHint: 'the plan artifact' }), 'every-action.md');
  });

  it('json view', () => {
    expectGolden(renderPlanJson(plan), 'every-action.view.json');
  });

  it("the fixture's words are the ones the planner gives its task fields (the task schema's)", () => {
    const vocabulary = getValueVocabulary('Task');
    const tasks = plan.changes.filter((c) => c.kind === 'Task');
    for (const f of tasks.flatMap((c) => c.fields).filter((f) => f.sensitive !== true)) {
      expect(f.words, f.path).toEqual(describeFieldChange(vocabulary, f.path, f.before, f.after));
      expect(f.innerWords?.before ?? [], f.path).toEqual(describeInnerValues(vocabulary, f.path, f.before));
      expect(f.innerWords?.after ?? [], f.path).toEqual(describeInnerValues(vocabulary, f.path, f.after));
    }
    expect(tasks.flatMap((c) => c.fields).filter((f) => f.words !== undefined || f.innerWords !== undefined).length).toBeGreaterThanOrEqual(5);
  });

  it('plan file key order: the fixture is its own golden file, byte for byte', () => {
    // Never rewritten by UPDATE_GOLDEN: it is also the input, and a bug must not rewrite the fixture.
    expectGolden(`${JSON.stringify(orderPlanKeys(plan), null, 2)}\n`, 'every-action.json', { updatable: false });
  });
});
