import { describe, it } from 'vitest';
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

  it('plan file key order: the fixture is its own golden file, byte for byte', () => {
    // Never rewritten by UPDATE_GOLDEN: it is also the input, and a bug must not rewrite the fixture.
    expectGolden(`${JSON.stringify(orderPlanKeys(plan), null, 2)}\n`, 'every-action.json', { updatable: false });
  });
});
