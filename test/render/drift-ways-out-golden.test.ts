import { describe, expect, it } from 'vitest';
import { assembleDrift } from '../../src/drift/assemble-drift.js';
import type { DriftReport } from '../../src/drift/model.js';
import { assemblePlan } from '../../src/plan/assemble-plan.js';
import type { Change } from '../../src/plan/model.js';
import { renderDriftMarkdown } from '../../src/render/drift-markdown.js';
import { renderDriftText } from '../../src/render/drift-text.js';
import { expectGolden } from '../fixtures/plans/load.js';

const NOW = new Date('2026-11-27T12:00:00Z');

/** A drift run with one object of each way out: changed, replaced, blocked, missing, and an unmanaged task of a pruned kind. */
function report(): DriftReport {
  const task = (name: string, action: Change['action'], extra: Partial<Change> = {}): Change => ({
    address: `Task/${name}`,
    kind: 'Task',
    name,
    service: 'automation',
    action,
    ...(action === 'create' ? {} : { liveId: '40100' }),
    fields: [],
    source: { file: 'manifests/tasks.yaml', line: 3, col: 1 },
    ...extra,
  });
  const changes: Change[] = [
    task('Payroll to bank', 'update', { fields: [{ path: 'Info.Description', before: 'Fixed at 2 a.m.', after: 'Nightly payroll' }] }),
    task("Bob's export", 'replace', {
      reason: { code: 'task-group-immutable', lostSecrets: [] },
      fields: [{ path: 'Group', before: ['Operations'], after: ['Finance'], forcesReplace: true }],
    }),
    task('Legacy EDI router', 'blocked', {
      reason: { code: 'advanced-task', operation: 'update' },
      fields: [{ path: 'Info.Notes', before: 'Edit in the admin UI only', after: 'Owner: edi-team' }],
    }),
    task('Month-end report', 'create', { fields: [{ path: 'Active', after: 1 }] }),
    {
      address: 'Task/Made by hand',
      kind: 'Task',
      name: 'Made by hand',
      service: 'automation',
      action: 'delete',
      liveId: '40199',
      reason: { code: 'pruned', kind: 'Task', scope: ['Finance'] },
      fields: [],
    },
  ];
  const plan = assemblePlan(
    { toolVersion: '0.1.0', createdAt: NOW.toISOString(), environment: 'prod', servers: {}, manifestDigest: `sha256:${'ab'.repeat(32)}` },
    changes,
    false,
  );
  return assembleDrift({ plan, live: {}, prune: ['Task'], ignore: [], now: NOW });
}

describe('the drift report names the two ways out of each drifted object', () => {
  it('text', () => {
    const text = renderDriftText(report(), { color: false });
    expect(text).toContain(
      "    keep the server's: mftops drift --env prod --adopt 'Task/Payroll to bank'\n    restore git's:     mftops apply --env prod --target 'Task/Payroll to bank'\n",
    );
    expect(text).toContain(`restore git's:     mftops apply --env prod --target 'Task/Bob'\\''s export' --allow-replace`);
    expect(text).not.toContain("--target 'Task/Legacy EDI router'");
    expectGolden(text, 'drift-ways-out.txt');
  });

  it('markdown', () => {
    const md = renderDriftMarkdown(report());
    expect(md).toContain("- Keep the server's: <code>mftops drift --env prod --adopt &#39;Task/Legacy EDI router&#39;</code> (apply cannot put it back)");
    expectGolden(md, 'drift-ways-out.md');
  });

  it('name the configuration file the run was given, so that a copied line reads the same file (a path with a space is quoted)', () => {
    const text = renderDriftText(report(), { color: false, config: 'ops/mft config.yaml' });
    expect(text).toContain("    keep the server's: mftops drift --config 'ops/mft config.yaml' --env prod --adopt 'Task/Payroll to bank'\n");
    expect(text).toContain("    restore git's:     mftops apply --config 'ops/mft config.yaml' --env prod --target 'Task/Payroll to bank'\n");
    expect(text).toContain("mftops apply --config 'ops/mft config.yaml' --env prod --target 'Task/Made by hand' --allow-delete");
    const md = renderDriftMarkdown(report(), { config: 'examples/mftops.yaml' });
    expect(md).toContain('<code>mftops drift --config examples/mftops.yaml --env prod --adopt &#39;Task/Legacy EDI router&#39;</code>');
    expect(md).toContain('keep it: <code>mftops drift --config examples/mftops.yaml --env prod --adopt &#39;Task/Made by hand&#39;</code>');
  });
});
