import { describe, expect, it } from 'vitest';
import type { Plan } from '../../src/plan/model.js';
import { planJsonView, renderPlanJson } from '../../src/render/plan-json.js';
import type { PlanJsonView } from '../../src/render/plan-json.js';
import { loadFixturePlan } from '../fixtures/plans/load.js';

const plan = loadFixturePlan('every-action.json');
const view = JSON.parse(renderPlanJson(plan)) as PlanJsonView;
const change = (address: string) => view.changes.find((c) => c.address === address)!;

/** The same object with its own keys in reverse order. */
function reversed<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).reverse()) as T;
}

describe('renderPlanJson: the --format json view', () => {
  it('is a public shape of its own, version 2, keys in a fixed order: the verdict first, the changes last', () => {
    const out = renderPlanJson(plan);
    expect(out.startsWith('{\n  "formatVersion": 2,\n  "kind": "mftops.plan",\n  "toolVersion": "0.1.0",\n')).toBe(true);
    expect(out.endsWith('}\n')).toBe(true);
    expect(Object.keys(view)).toEqual([
      'formatVersion',
      'kind',
      'toolVersion',
      'createdAt',
      'environment',
      'servers',
      'manifestDigest',
      'errored',
      'applyable',
      'summary',
      'changes',
    ]);
    expect(view).toMatchObject({ errored: false, applyable: true, summary: plan.summary });
    expect(view.changes.map((c) => c.address)).toEqual(plan.changes.map((c) => c.address));
  });

  it('says when prune is off: why, the kinds the environment prunes, and the sentence, after the targets', () => {
    const off = planJsonView({ ...plan, targets: ['Task/Payroll to bank'], pruneOff: { reason: 'partial-manifests', kinds: ['Task', 'FolderPermissions'] } });
    const keys = Object.keys(off);
    expect(keys.slice(keys.indexOf('targets'), keys.indexOf('targets') + 3)).toEqual(['targets', 'pruneOff', 'errored']);
    expect(off.pruneOff).toEqual({
      reason: 'partial-manifests',
      kinds: ['Task', 'FolderPermissions'],
      text: 'Prune is off: only part of the manifests was given (pass --prune to prune anyway).',
    });
    expect(view.pruneOff).toBeUndefined();
  });

  it('leaves out what only apply needs: request bodies, fingerprints, waves', () => {
    expect(Object.keys(change('Task/Payroll to bank'))).toEqual(['address', 'kind', 'name', 'service', 'action', 'liveId', 'fields', 'source']);
    const out = renderPlanJson(plan);
    for (const internal of ['"payload"', '"fingerprint"', '"wave"', '"needs"', '"body"']) expect(out).not.toContain(internal);
  });

  it('gives each reason as its code and parameters with the sentence', () => {
    expect(change('Task/Legacy EDI router').reason).toEqual({
      code: 'advanced-task',
      operation: 'update',
      text: 'advanced (TT=COS) tasks cannot be changed through the API',
    });
    const carol = change('FolderPermissions/Distribution/Acme/Outbound').entries!.find((e) => e.principal.name === 'carol')!;
    expect(carol.reason).toEqual({
      code: 'entry-not-editable',
      principal: { type: 'User', name: 'carol' },
      text: 'the entry of user carol cannot be changed on the server (not editable)',
    });
  });

  it('keeps field values as the plan holds them: data, with markers', () => {
    const marked: Plan = {
      ...plan,
      changes: [
        {
          ...plan.changes[0]!,
          fields: [
            { path: 'steps[0].Source.Host', before: { $ref: 'host', id: '12' }, after: 'sftp' },
            { path: 'Parameters.ApiKey', sensitive: true },
          ],
        },
      ],
    };
    expect(planJsonView(marked).changes[0]!.fields).toEqual([
      { path: 'steps[0].Source.Host', before: { $ref: 'host', id: '12' }, after: 'sftp' },
      { path: 'Parameters.ApiKey', sensitive: true },
    ]);
  });

  it('is the same text however the plan object was built', () => {
    const shuffled = reversed({
      ...plan,
      changes: plan.changes.map((c) => reversed({ ...c, fields: c.fields.map(reversed), ...(c.reason ? { reason: reversed(c.reason) } : {}) })),
    });
    expect(Object.keys(shuffled)[0]).toBe('summary');
    expect(renderPlanJson(shuffled)).toBe(renderPlanJson(plan));
  });

  it('shows an errored plan as errored and not applyable', () => {
    expect(planJsonView({ ...plan, errored: true, applyable: false })).toMatchObject({ errored: true, applyable: false });
  });
});
