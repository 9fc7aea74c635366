import { describe, expect, it } from 'vitest';
import { assembleDrift, withAuditFailure } from '../../src/drift/assemble-drift.js';
import type { DriftReport } from '../../src/drift/model.js';
import { summarize } from '../../src/plan/model.js';
import type { Change } from '../../src/plan/model.js';
import { renderDriftJson } from '../../src/render/drift-json.js';
import { renderDriftMarkdown } from '../../src/render/drift-markdown.js';
import { renderDriftText } from '../../src/render/drift-text.js';

const NOW = new Date('2026-11-22T12:00:00Z');

function report(changes: Change[]): DriftReport {
  return assembleDrift({
    plan: { formatVersion: 1, toolVersion: 't', createdAt: NOW.toISOString(), environment: 'prod', servers: {}, manifestDigest: 'sha256:0', changes, summary: summarize(changes) },
    live: {},
    prune: [],
    ignore: [],
    now: NOW,
  });
}

function changed(name: string, fields: Change['fields']): Change {
  return { address: `Task/${name}`, kind: 'Task', name, service: 'automation', action: 'update', liveId: '1', fields };
}

describe('drift renderers', () => {
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
    expect(md).toMatch(/> \d+ more sections are left out to keep this under GitHub's size limit; the full report is in the JSON report of `mftops drift --report FILE`\./);
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

  it('json: the report itself, verdict first and the plan last', () => {
    const r = report([changed('x', [{ path: 'Active', before: 0, after: 1 }])]);
    const json = renderDriftJson(r);
    expect(JSON.parse(json)).toEqual(JSON.parse(JSON.stringify(r)));
    const keys = Object.keys(JSON.parse(json));
    expect(keys.slice(0, 4)).toEqual(['formatVersion', 'environment', 'createdAt', 'status']);
    expect(keys.at(-1)).toBe('plan');
  });
});
