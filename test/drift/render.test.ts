import { describe, expect, it } from 'vitest';
import { assembleDrift, attributeAuditRecords, auditQueriesFor, withAuditFailure } from '../../src/drift/assemble-drift.js';
import type { DriftReport } from '../../src/drift/model.js';
import { assemblePlan } from '../../src/plan/assemble-plan.js';
import type { Change } from '../../src/plan/model.js';
import { renderDriftJson } from '../../src/render/drift-json.js';
import { renderDriftMarkdown } from '../../src/render/drift-markdown.js';
import { renderDriftText } from '../../src/render/drift-text.js';
import { renderPlanJson } from '../../src/render/plan-json.js';

const NOW = new Date('2026-11-22T12:00:00Z');

function report(changes: Change[]): DriftReport {
  return assembleDrift({
    plan: assemblePlan({ toolVersion: 't', createdAt: NOW.toISOString(), environment: 'prod', servers: {}, manifestDigest: 'sha256:0' }, changes, false),
    live: {},
    prune: [],
    ignore: [],
    now: NOW,
  });
}

function changed(name: string, fields: Change['fields']): Change {
  return { address: `Task/${name}`, kind: 'Task', name, service: 'automation', action: 'update', liveId: '1', fields };
}

function aclChanged(name: string, liveId: string): Change {
  return {
    address: `ResourceGroupAcl/${name}`,
    kind: 'ResourceGroupAcl',
    name,
    service: 'automation',
    action: 'update',
    liveId,
    fields: [{ path: 'permissions', before: [], after: ['TaskRun'] }],
  };
}

function folderChanged(path: string): Change {
  return {
    address: `FolderPermissions${path}`,
    kind: 'FolderPermissions',
    name: path,
    service: 'transfer',
    action: 'update',
    liveId: path,
    fields: [],
    entries: [{ principal: { type: 'User', name: 'alice' }, action: 'create', after: { permissions: ['readFiles'], sharePermissions: [] } }],
  };
}

/** A report whose audit answers say `secops` edited every ACL and `operator` every task. */
function attributed(changes: Change[]): DriftReport {
  const r = report(changes);
  return attributeAuditRecords(
    r,
    auditQueriesFor(r).map((query) => ({
      query,
      records: [...r.drifted, ...r.unmanaged]
        .filter((o) => o.kind === query.for)
        .map((o) => ({
          LogTime: '2026-11-22T10:04:00Z',
          Username: o.kind === 'Task' ? 'operator' : 'secops',
          Action: 'Edit',
          TargetType: o.kind === 'Task' ? 'Task' : 'ACL',
          TargetID: o.liveId,
          TaskName: '',
        })),
    })),
  );
}

describe('drift renderers', () => {
  it('say values in words: git has DeleteOrig 2 (rename or move), the server 1 (delete); a flag as true/false, also inside a whole step', () => {
    const r = report([
      changed('Payroll', [
        { path: 'steps[0].Source.DeleteOrig', before: 1, after: 2, words: { form: 'meaning', before: 'delete', after: 'rename or move' } },
        { path: 'Active', before: 0, after: 1, words: { form: 'flag', before: 'false', after: 'true' } },
        {
          path: 'steps[1]',
          before: { Destination: { Host: 'xfer', OverwriteOrig: 0 } },
          innerWords: { before: [{ path: 'Destination.OverwriteOrig', form: 'flag', text: 'false' }] },
        },
      ]),
    ]);
    const text = renderDriftText(r, { color: false });
    expect(text).toContain('steps[0].Source.DeleteOrig: 2 (rename or move) → 1 (delete)');
    expect(text).toContain('Active: true → false');
    expect(text).toContain('steps[1]: (not set) → {"Destination": {"Host": "xfer", "OverwriteOrig": false}}');
    const md = renderDriftMarkdown(r);
    expect(md).toContain('2 (rename or move)');
    expect(md).toContain('1 (delete)');
    const json = JSON.parse(renderDriftJson(r));
    expect(json.drifted[0].fields[0]).toEqual({
      path: 'steps[0].Source.DeleteOrig',
      expected: 2,
      actual: 1,
      words: { form: 'meaning', expected: 'rename or move', actual: 'delete' },
    });
  });

  it('markdown: summary first, then objects; user text cannot inject markup, mentions or table cells', () => {
    const hostile = '<img src=x onerror=alert(1)> @everyone | [x](http://evil)';
    const md = renderDriftMarkdown(report([changed(hostile, [{ path: 'Info.Description', before: `**${hostile}**`, after: 'ok' }])]));
    expect(md.indexOf('| Differ from their manifest | 1 |')).toBeLessThan(md.indexOf('### Drifted objects'));
    expect(md).not.toContain('<img');
    expect(md).not.toContain('@everyone');
    expect(md).not.toContain('](http');
    const row = md.split('\n').find((l) => l.startsWith('| <code>Info.Description</code>'))!;
    // Exactly the table's own four pipes: none comes from the value.
    expect(row.match(/\|/g)).toHaveLength(4);
  });

  it('markdown stays under the size limit and says where the rest is', () => {
    const many = Array.from({ length: 400 }, (_, i) => changed(`task ${i}`, [{ path: 'Info.Notes', before: 'x'.repeat(400), after: 'y'.repeat(400) }]));
    const md = renderDriftMarkdown(report(many), { maxLength: 20_000 });
    expect(md.length).toBeLessThanOrEqual(20_000);
    expect(md).toContain('| Differ from their manifest | 400 |');
    expect(md).toMatch(
      /> \d+ more sections are left out to keep this under GitHub's size limit; the full report is in the JSON report of `mftops drift --report FILE`\./,
    );
  });

  it('text: control characters in server values are shown escaped, never sent to the terminal', () => {
    const text = renderDriftText(report([changed('x', [{ path: 'Info.Notes', before: 'a\u001b[2Jb\nc', after: 'ok' }])]), { color: false });
    expect(text).not.toContain('\u001b');
    expect(text).toContain('Info.Notes: "ok" → "a\\u001b[2Jb\\nc"');
  });

  it('text: in sync says so; the audit note appears once when the report could not be read', () => {
    expect(renderDriftText(report([]), { color: false })).toContain('In sync: the servers match the manifests.');
    const r = withAuditFailure(report([changed('x', [{ path: 'Active', before: 0, after: 1 }])]), { httpStatus: 403 });
    const text = renderDriftText(r, { color: false });
    expect(text.match(/audit report not readable with this account: 403/g)).toHaveLength(1);
    expect(renderDriftMarkdown(r).match(/audit report not readable with this account: 403/g)).toHaveLength(1);
  });

  it('json: the report itself, verdict first and the plan last, as its public --format json view', () => {
    const r = report([changed('x', [{ path: 'Active', before: 0, after: 1 }])]);
    const json = renderDriftJson(r);
    const { plan, ...rest } = JSON.parse(json) as Record<string, unknown>;
    const { plan: _p, ...expected } = r;
    expect(rest).toEqual({ ...JSON.parse(JSON.stringify(expected)), kind: 'mftops.drift' });
    expect(plan).toEqual(JSON.parse(renderPlanJson(r.plan)));
    expect(plan).toMatchObject({ formatVersion: 2 });
    const keys = Object.keys(JSON.parse(json));
    expect(keys.slice(0, 5)).toEqual(['formatVersion', 'kind', 'environment', 'createdAt', 'status']);
    expect(keys.at(-1)).toBe('plan');
  });

  it('show who changed a drifted ACL as they do for a task, in text, markdown and JSON', () => {
    const r = attributed([changed('Payroll', [{ path: 'Active', before: 0, after: 1 }]), aclChanged('finance-operators', '501001')]);
    const text = renderDriftText(r, { color: false });
    expect(text).toContain('~ ResourceGroupAcl/finance-operators differs from its manifest\n    last change: secops, 2026-11-22T10:04:00Z (Edit)\n');
    expect(text).toContain('~ Task/Payroll differs from its manifest\n    last change: operator, 2026-11-22T10:04:00Z (Edit)\n');
    const md = renderDriftMarkdown(r);
    expect(md).toContain('#### <code>ResourceGroupAcl/finance-operators</code> differs from its manifest\n\nLast change: secops, 2026-11-22T10:04:00Z (Edit)');
    const json = JSON.parse(renderDriftJson(r));
    expect(json.drifted.map((d: { address: string; lastChange: unknown }) => [d.address, d.lastChange])).toEqual([
      ['Task/Payroll', { user: 'operator', time: '2026-11-22T10:04:00Z', action: 'Edit' }],
      ['ResourceGroupAcl/finance-operators', { user: 'secops', time: '2026-11-22T10:04:00Z', action: 'Edit' }],
    ]);
  });

  it('say once, and only when folders drifted, that folder changes cannot be attributed', () => {
    const note = 'the transfer service has no audit report; who changed folder permissions is not shown.';
    const withFolders = attributed([aclChanged('finance-operators', '501001'), folderChanged('/Distribution/Acme'), folderChanged('/Distribution/Globex')]);
    expect(renderDriftText(withFolders, { color: false }).split(note)).toHaveLength(2);
    expect(renderDriftText(withFolders, { color: false })).toContain(`\nNote: ${note}\n`);
    expect(renderDriftMarkdown(withFolders).split(note)).toHaveLength(2);
    const without = attributed([aclChanged('finance-operators', '501001')]);
    expect(renderDriftText(without, { color: false })).not.toContain('transfer service has no audit report');
    expect(renderDriftMarkdown(without)).not.toContain('transfer service has no audit report');
  });

  it('say when unmanaged objects were not looked for because only part of the manifests was given', () => {
    const plan = assemblePlan(
      { toolVersion: 't', createdAt: NOW.toISOString(), environment: 'prod', servers: {}, manifestDigest: 'sha256:0' },
      [changed('Payroll', [{ path: 'Info.Description', before: 'a', after: 'b' }])],
      false,
    );
    const r = assembleDrift({ plan, live: {}, prune: [], ignore: [], now: NOW, unmanagedOmitted: 'partial-manifests' });
    const sentence =
      'Unmanaged objects are not listed: only part of the manifests was given, and the others may manage what these do not name (pass --prune to list them anyway).';
    expect(renderDriftText(r, { color: false }).split('\n')[1]).toBe(sentence);
    expect(renderDriftMarkdown(r)).toContain(`> [!NOTE]\n> ${sentence}`);
    const json = JSON.parse(renderDriftJson(r)) as Record<string, unknown>;
    const keys = Object.keys(json);
    expect(keys.slice(keys.indexOf('drifted'), keys.indexOf('drifted') + 4)).toEqual(['drifted', 'unmanaged', 'unmanagedOmitted', 'acknowledged']);
    expect(json['unmanagedOmitted']).toBe('partial-manifests');
    expect(renderDriftText(report([changed('Payroll', [])]), { color: false })).not.toContain('Unmanaged objects are not listed');
  });
});
