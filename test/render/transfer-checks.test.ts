import { describe, expect, it } from 'vitest';
import type { Plan, TransferStepProblem } from '../../src/plan/model.js';
import { renderPlanMarkdown } from '../../src/render/plan-markdown.js';
import { renderPlanText } from '../../src/render/plan-text.js';

const problem = (i: number): TransferStepProblem => ({
  problem: 'missing-rights',
  address: `Task/Drop ${i}`,
  step: 1,
  stepKind: 'Destination',
  host: 'xfer',
  path: `/Distribution/Partner ${i}/Inbound`,
  account: 'automation-svc',
  missing: ['writeFiles'],
  source: { file: 'manifests/tasks.yaml', line: 10 + i, col: 40 },
});

function planWith(problems: TransferStepProblem[], changed = false): Plan {
  return {
    toolVersion: '0.0.0-test',
    createdAt: '2026-11-24T00:00:00.000Z',
    environment: 'prod',
    servers: {},
    manifestDigest: `sha256:${'0'.repeat(64)}`,
    errored: false,
    applyable: changed,
    changes: changed ? [{ address: 'Task/Drop 0', kind: 'Task', name: 'Drop 0', service: 'automation', action: 'create', fields: [], wave: 0 }] : [],
    summary: { create: changed ? 1 : 0, update: 0, replace: 0, delete: 0, 'no-op': 0, blocked: 0 },
    transferChecks: { checked: problems.length + 3, problems },
  };
}

describe('the cross-server checks in the text plan', () => {
  it('are shown when nothing else changes, each problem at its place', () => {
    const text = renderPlanText(planWith([problem(1)]), { color: false });
    expect(text).toContain('No changes. The servers match the manifests.\n\nCross-server checks: 4 task steps on transfer hosts checked, 1 problem.\n');
    expect(text).toContain(
      '  ! Task/Drop 1 step 2 (Destination) on host xfer: account automation-svc lacks writeFiles on /Distribution/Partner 1/Inbound (manifests/tasks.yaml:11:40)\n',
    );
  });
});

describe('the cross-server checks in the pull-request comment', () => {
  it('list every problem in a warning call-out after the summary, and say so in one line when there is none', () => {
    const md = renderPlanMarkdown(planWith([problem(1), problem(2)], true));
    expect(md).toContain(
      '> [!WARNING]\n> **Cross-server checks: 5 task steps on transfer hosts checked, 2 problems.**\n>\n> - <code>Task/Drop 1 step 2 (Destination) on host xfer</code>',
    );
    expect(md.indexOf('Cross-server checks')).toBeLessThan(md.indexOf('<details>'));
    expect(renderPlanMarkdown(planWith([], true))).toContain('**Cross-server checks: 3 task steps on transfer hosts checked, no problems.**');
  });

  it('stay within the size limit: past it the problems are counted with a pointer, the summary kept', () => {
    const many = Array.from({ length: 3000 }, (_, i) => problem(i));
    const md = renderPlanMarkdown(planWith(many, true), { maxLength: 20_000 });
    expect(md.length).toBeLessThanOrEqual(20_000);
    expect(md).toContain('**Cross-server checks: 3,003 task steps on transfer hosts checked, 3,000 problems.**');
    expect(md).toMatch(/> - …and [\d,]+ more, listed in the output of `mftops plan`\./);
    expect(md).toContain('<code>Task/Drop 0 step 2 (Destination) on host xfer</code>');
  });
});
