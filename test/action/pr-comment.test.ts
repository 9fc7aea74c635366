import { describe, expect, it } from 'vitest';
import { renderPlanForSummary } from '../../src/action/job-summary.js';
import { GITHUB_COMMENT_LIMIT, planMarker, renderPlanComment, renderPlanFailureComment } from '../../src/action/pr-comment.js';
import { generatePlan } from '../fixtures/plans/generate.js';
import { loadFixturePlan } from '../fixtures/plans/load.js';

/** The comment and the job summary stay within GitHub's limits with the summary whole. */

const ORIGIN = { runUrl: 'https://github.com/acme-corp/mft-config/actions/runs/8123456789', sha: '9f8e7d6c5b4a39281706f5e4d3c2b1a098765432' };

/** The summary table rows, built here from the generator's own counts. */
function expectedRows(counts: ReturnType<typeof generatePlan>['counts']): string[] {
  const n = (x: number) => String(x).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return (['Task', 'ResourceGroupAcl', 'FolderPermissions'] as const)
    .filter((k) => Object.values(counts[k]).some((v) => v > 0))
    .map((k) => {
      const c = counts[k];
      return `| ${k} | ${[c.create, c.update, c.replace, c.delete, c.blocked, c['no-op']].map(n).join(' | ')} |`;
    });
}

describe('the pull-request comment', () => {
  it('keeps a 5,000-change plan under 65,536 characters with the marker, the whole summary, the destructive call-out first and the run link', () => {
    const { plan, counts } = generatePlan(5000);
    const body = renderPlanComment(plan, ORIGIN);
    expect(body.length).toBeLessThanOrEqual(GITHUB_COMMENT_LIMIT);
    expect(body.split('\n')[0]).toBe('<!-- mftops:plan:prod -->');
    for (const row of expectedRows(counts)) expect(body).toContain(row);
    const total = (a: 'create' | 'update' | 'replace' | 'delete' | 'blocked' | 'no-op') =>
      counts.Task[a] + counts.ResourceGroupAcl[a] + counts.FolderPermissions[a];
    const bold = (a: Parameters<typeof total>[0]) => `**${String(total(a)).replace(/\B(?=(\d{3})+(?!\d))/g, ',')}**`;
    expect(body).toContain(`| **Total** | ${(['create', 'update', 'replace', 'delete', 'blocked', 'no-op'] as const).map(bold).join(' | ')} |`);
    // The verdict first; destructive changes are called out right after the counts, before anything else.
    expect(body.split('\n').slice(3, 5)).toEqual(['> [!CAUTION]', '> **Blocked:** 500 changes the API cannot make, listed below; a person has to.']);
    const warning = body.indexOf('> [!WARNING]\n> **1,000 destructive changes:**');
    expect(warning).toBeGreaterThan(body.indexOf('**Plan:**'));
    expect(warning).toBeLessThan(body.indexOf('> [!CAUTION]\n> **500 changes blocked:**'));
    expect(body).toContain(` ${bold('delete').slice(2, -2)} to delete (needs \`--allow-delete\`)`);
    // Where the rest is, and which run made it.
    expect(body).toContain(`the plan file of [this workflow run](${ORIGIN.runUrl})`);
    expect(body.trimEnd().split('\n').at(-1)).toBe(
      `<sub>Updated by mftops in [workflow run](${ORIGIN.runUrl}) for commit 9f8e7d6c5b4a. This comment is replaced on every run.</sub>`,
    );
  });

  it('points a shortened plan that a deny policy stopped at the run log, not at a plan file it never saved', () => {
    const { plan } = generatePlan(5000);
    const at = { file: 'manifests/tasks.yaml', line: 3, col: 1 };
    const denied = {
      ...plan,
      policy: {
        policies: 1,
        violations: [
          {
            policy: 'no-admin',
            severity: 'deny' as const,
            outcome: 'violated' as const,
            message: 'no admin',
            address: 'Task/x',
            source: at,
            expressionSource: at,
          },
        ],
      },
    };
    const body = renderPlanComment(denied, ORIGIN);
    expect(body).toContain(`the log of [this workflow run](${ORIGIN.runUrl})`);
    expect(body).not.toContain('the plan file of');
    expect(renderPlanComment(plan, ORIGIN)).toContain(`the plan file of [this workflow run](${ORIGIN.runUrl})`);
  });

  it('keeps a small plan whole, every changed object in a collapsed section', () => {
    const plan = loadFixturePlan('every-action.json');
    const body = renderPlanComment(plan, ORIGIN);
    const changed = plan.changes.filter((c) => c.action !== 'no-op');
    expect(body.match(/<details><summary>/g)).toHaveLength(changed.length);
    expect(body).not.toContain('[!NOTE]');
  });

  it('keeps one marker per environment, and an environment name cannot close the HTML comment', () => {
    expect(planMarker('prod')).not.toBe(planMarker('prod2'));
    expect(planMarker('prod')).not.toContain('prod2');
    expect(planMarker('a --> b')).toBe('<!-- mftops:plan:a%20--%3E%20b -->');
  });

  it('says the plan failed, with the problems made inert, instead of leaving an old plan up', () => {
    const body = renderPlanFailureComment('prod', ['mft/x.yaml:5: `Active` must be one of 0, 1 <script>', '@team look'], ORIGIN);
    expect(body.startsWith(`${planMarker('prod')}\n`)).toBe(true);
    expect(body).toContain('**The plan failed**');
    expect(body).toContain('mft/x.yaml:5: &#96;Active&#96; must be one of 0, 1 &#60;script&#62;');
    expect(body).toContain('&#64;team look');
    expect(body).not.toContain('<script>');
  });
});

describe('the job summary', () => {
  it('fits a 5,000-change plan into the bytes left of the 1 MiB step summary, summary whole', () => {
    const { plan, counts } = generatePlan(5000);
    for (const maxBytes of [1024 * 1024 - 100, 200_000, 20_000]) {
      const md = renderPlanForSummary(plan, maxBytes, 'the plan file');
      expect(Buffer.byteLength(md, 'utf8')).toBeLessThanOrEqual(maxBytes);
      for (const row of expectedRows(counts)) expect(md).toContain(row);
    }
  });

  it('never throws when the room left is too small for the plan summary: it says so in a few lines', () => {
    const { plan } = generatePlan(5000);
    // The Action only writes a plan summary with at least 4 KiB left; 1/3 of that is below what the
    // verdict and counts need, which made the last fallback throw a RangeError.
    for (const maxBytes of [4032, 4500, 5000, 5500, 600]) {
      const md = renderPlanForSummary(plan, maxBytes, 'the plan file');
      expect(Buffer.byteLength(md, 'utf8')).toBeLessThanOrEqual(maxBytes);
      expect(md).toContain('mftops plan');
    }
    const tiny = renderPlanForSummary(plan, 600, 'the plan file');
    expect(tiny).toContain('the plan file');
  });

  it('counts bytes, not characters: a plan of multi-byte names still fits', () => {
    const { plan } = generatePlan(3000);
    const wide = { ...plan, changes: plan.changes.map((c) => ({ ...c, address: `${c.address} 日本語のタスク名前` })) };
    const md = renderPlanForSummary(wide, 150_000, 'the plan file');
    expect(md.length).toBeLessThan(150_000);
    expect(Buffer.byteLength(md, 'utf8')).toBeLessThanOrEqual(150_000);
    expect(Buffer.byteLength(md, 'utf8')).toBeGreaterThan(100_000);
  });
});
