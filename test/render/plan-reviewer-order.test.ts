import { describe, expect, it } from 'vitest';
import { renderPlanComment } from '../../src/action/pr-comment.js';
import type { Diagnostic } from '../../src/diagnostics.js';
import { accessCountPhrase } from '../../src/render/access.js';
import { renderPlanMarkdown } from '../../src/render/plan-markdown.js';
import { renderPlanText } from '../../src/render/plan-text.js';
import { makeLargePlan } from '../fixtures/plans/large-plan.js';
import { loadFixturePlan } from '../fixtures/plans/load.js';

/**
 * Issue 24, reviewer-first rendering: what a reviewer of a large plan must see comes first, and
 * every changed object is named even when the details are cut. The 763-change plan is the one the
 * issue measured (its comment put the 2 deletions at 19,500 px of 23,468, after 50 policy lines
 * and 260 access lines, and named only the first 124 objects).
 */

const ORIGIN = { runUrl: 'https://github.com/acme-corp/mft-config/actions/runs/1', sha: '9f8e7d6c5b4a39281706f5e4d3c2b1a098765432' };
const large = makeLargePlan();
const body = renderPlanComment(large, ORIGIN);

/** Where `needle` first is in the comment; fails the test when it is missing. */
function at(needle: string, from = 0): number {
  const i = body.indexOf(needle, from);
  expect(i, `${needle} is missing`).toBeGreaterThanOrEqual(0);
  return i;
}

describe('the PR comment of a 763-change plan', () => {
  it('is in the order a reviewer decides: verdict, destructive changes, every object named, then details', () => {
    expect(body.length).toBeLessThanOrEqual(65_536);
    const verdict = at('> **Needs `--allow-delete`:** it deletes 2 objects');
    const destructive = at('> **2 destructive changes:**');
    const deleteA = at('> - <code>-</code> <b>Task/Retired feed A</b> delete');
    const removed = at('> - group Auditors (members unknown) **loses all access** on 60 folders');
    const list = at('### Changed objects');
    const details = at('### Details');
    expect(verdict).toBeLessThan(destructive);
    expect(destructive).toBeLessThan(deleteA);
    expect(deleteA).toBeLessThan(removed);
    expect(removed).toBeLessThan(list);
    expect(list).toBeLessThan(details);
    // Every changed object is named in the list, before any detail, though the details are cut.
    const names = body.slice(list, details);
    for (const c of large.changes) expect(names.includes(`\`${c.name}\``), c.address).toBe(true);
    expect(body).toContain('the details of the last');
    // The deletions are in the first screenful of text, not after the policy and access lines.
    expect(deleteA).toBeLessThan(2_000);
    // The details start with the deletes.
    expect(body.slice(details)).toMatch(/^### Details\n\n<details><summary><code>-<\/code> <b>Task\/Retired feed A<\/b> delete/);
  });

  it('counts access the way its lines read: a group with unknown members that loses access is counted as such, not as 0 lose access', () => {
    expect(accessCountPhrase(large.access!)).toBe('200 users gain access, 1 group with unknown members loses access');
    expect(body).toContain(
      '**Plan:** 0 to create, 761 to update, 0 to replace, 2 to delete, 0 blocked. 200 users gain access, 1 group with unknown members loses access.',
    );
    expect(body).not.toContain('0 lose access');
  });

  it('groups access changes by principal, with counts', () => {
    const section = body.slice(at('<b>Access changes:</b>'), at('### Changed objects'));
    expect(section).toContain('(201 principals)');
    expect(section.split('\n').filter((l) => l.startsWith('- ') && l.includes('Auditors'))).toEqual([
      '- :warning: group Auditors (members unknown) (60 changes) loses readFiles, listFiles on 60 folders: `/Partners/Partner 000/Inbound`, `/Partners/Partner 001/Inbound`, `/Partners/Partner 002/Inbound`, `/Partners/Partner 003/Inbound`, `/Partners/Partner 004/Inbound`, `/Partners/Partner 005/Inbound`, `/Partners/Partner 006/Inbound`, `/Partners/Partner 007/Inbound`, `/Partners/Partner 008/Inbound`, `/Partners/Partner 009/Inbound`, and 50 more — **no access left on 60**',
    ]);
  });

  it('groups policy violations by policy, with counts', () => {
    const policy = body.slice(at('**Policy checks: 50 violations of 3 policies (warnings only).**'), at('<b>Access changes:</b>'));
    expect(policy.match(/tasks-name-an-owner-team/g)).toHaveLength(1);
    expect(policy).toContain('> - **warn** <code>tasks-name-an-owner-team</code> (48 objects): Info.Notes must name the owning team');
    expect(policy).toContain(', and 38 more');
    expect(policy).toContain(
      '> - **warn** <code>no-silent-deletes</code> (2 objects): a task delete needs a ticket in the pull request — <code>Task/Retired feed A</code>, <code>Task/Retired feed B</code>',
    );
  });

  it('says how many objects are not named, and where the full plan is, when even the names cannot fit', () => {
    const out = renderPlanMarkdown(large, { maxLength: 12_000, artifactHint: 'the plan file' });
    expect(out.length).toBeLessThanOrEqual(12_000);
    expect(out).toMatch(/\n[\d,]+ of the 763 changed objects are not named here, to keep this comment within its size\. The full plan is in the plan file\.\n/);
    // The deletes are named first.
    expect(out).toContain('- <code>-</code> <b>Task</b>, 2 to delete: `Retired feed A`, `Retired feed B`');
  });
});

describe('the verdict first', () => {
  const small = loadFixturePlan('every-action.json');
  const mf414: Diagnostic = {
    severity: 'warning',
    code: 'MF414',
    summary: 'environment variable ACME_SFTP_PASSWORD is not set: apply will refuse this plan',
    hint: 'set ACME_SFTP_PASSWORD where mftops apply runs',
    address: 'Task/Acme outbound',
    file: 'manifests/tasks/partners.yaml',
    line: 23,
    col: 19,
  };

  it('puts the MF414 warnings (apply will refuse this plan) in the comment, first', () => {
    const out = renderPlanComment(small, ORIGIN, undefined, [mf414]);
    expect(out.split('\n').slice(1, 7)).toEqual([
      '## mftops plan: prod',
      '',
      '> [!CAUTION]',
      '> **Apply will refuse this plan** (MF414): 1 secret reference has no value where the plan ran.',
      '> - <code>Task/Acme outbound</code>: environment variable ACME&#95;SFTP&#95;PASSWORD is not set (set ACME&#95;SFTP&#95;PASSWORD where mftops apply runs)',
      '>',
    ]);
  });

  it('opens a denied plan with its refusal, before the counts', () => {
    const at0 = { file: 'manifests/tasks.yaml', line: 3, col: 1 };
    const denied = {
      ...small,
      policy: {
        policies: 1,
        violations: [
          {
            policy: 'no-admin',
            severity: 'deny' as const,
            outcome: 'violated' as const,
            message: 'no admin',
            address: 'Task/Globex inbound',
            source: at0,
            expressionSource: at0,
          },
        ],
      },
    };
    const out = renderPlanMarkdown(denied);
    expect(out.split('\n').slice(2, 4)).toEqual([
      '> [!CAUTION]',
      '> **Refused by policy:** 1 `deny` violation, listed below. The plan was not saved; it cannot be applied.',
    ]);
    expect(out.indexOf('Refused by policy')).toBeLessThan(out.indexOf('| Kind |'));
  });

  it('says a plan nothing stands in the way of is ready', () => {
    const ready = {
      ...small,
      changes: small.changes.filter((c) => c.kind !== 'FolderPermissions' && (c.action === 'update' || c.action === 'no-op' || c.action === 'create')),
    };
    expect(renderPlanMarkdown(ready).split('\n').slice(2, 4)).toEqual([
      '> [!NOTE]',
      '> **Ready to apply:** nothing in this plan needs a flag, a person or a secret it lacks.',
    ]);
  });

  it('text: the verdict and the destructive changes come before the per-object diff', () => {
    const text = renderPlanText(large, { color: false });
    const needs = text.indexOf('Needs --allow-delete: it deletes 2 objects:\n  - Task/Retired feed A\n  - Task/Retired feed B\n');
    expect(needs).toBeGreaterThan(0);
    expect(needs).toBeLessThan(text.indexOf('Policy checks:'));
    expect(needs).toBeLessThan(text.indexOf('~ FolderPermissions/'));
  });
});
