import { describe, expect, it } from 'vitest';
import type { Plan } from '../../src/plan/model.js';
import { parsePlan, serializePlan } from '../../src/plan/plan-file.js';
import { renderPlanJson } from '../../src/render/plan-json.js';
import { FOLDER_RENAME } from '../fixtures/plans/folder-rename.js';
import { loadFixturePlan } from '../fixtures/plans/load.js';

const plan = loadFixturePlan('every-action.json');

/** The same data with every object's keys in reverse order. */
function reverseKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reverseKeys);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .reverse()
      .map(([k, v]) => [k, reverseKeys(v)]),
  );
}

describe('renderPlanJson', () => {
  it('is the plan itself: parsing it gives back the same data', () => {
    expect(JSON.parse(renderPlanJson(plan))).toEqual(plan);
  });

  it('is pretty-printed with two spaces and ends with a newline', () => {
    const out = renderPlanJson(plan);
    expect(out.startsWith('{\n  "formatVersion": 1,\n  "toolVersion": "0.1.0",\n')).toBe(true);
    expect(out.endsWith('}\n')).toBe(true);
    expect(out.endsWith('\n\n')).toBe(false);
  });

  it('puts the model keys in the model order, however the object was built', () => {
    const shuffled = reverseKeys(plan) as Plan;
    expect(Object.keys(shuffled)[0]).toBe('summary');
    const out = renderPlanJson(shuffled);
    expect(Object.keys(JSON.parse(out) as object)).toEqual(['formatVersion', 'toolVersion', 'createdAt', 'environment', 'servers', 'manifestDigest', 'errored', 'applyable', 'changes', 'summary']);
    const change = (JSON.parse(out) as Plan).changes[0]!;
    expect(Object.keys(change)).toEqual(['address', 'kind', 'name', 'service', 'action', 'liveId', 'fingerprint', 'wave', 'fields', 'source', 'payload']);
    expect(Object.keys((JSON.parse(out) as Plan).summary)).toEqual(['create', 'update', 'replace', 'delete', 'no-op', 'blocked']);
  });

  it('orders a folder rename payload (kind, path, rename {from, name}, set, remove) and writes it as a valid plan file', () => {
    const renamed = { ...plan, changes: [FOLDER_RENAME], summary: { create: 0, update: 1, replace: 0, delete: 0, 'no-op': 0, blocked: 0 } };
    const out = JSON.parse(renderPlanJson(reverseKeys(renamed) as Plan)) as Plan;
    const change = out.changes[0]!;
    expect(Object.keys(change)).toEqual(['address', 'kind', 'name', 'service', 'action', 'previousName', 'liveId', 'fingerprint', 'wave', 'fields', 'entries', 'source', 'payload']);
    expect(Object.keys(change.payload!)).toEqual(['kind', 'path', 'rename', 'set', 'remove']);
    expect(change.payload?.kind === 'FolderPermissions' ? Object.keys(change.payload.rename!) : []).toEqual(['from', 'name']);
    expect(parsePlan(serializePlan(out), 'renamed.json').changes[0]).toEqual(FOLDER_RENAME);
  });

  it('keeps the user order inside values it does not own (task bodies, field values)', () => {
    const shuffled = reverseKeys(plan) as Plan;
    const payroll = (JSON.parse(renderPlanJson(shuffled)) as Plan).changes[2]!;
    expect(payroll.payload?.kind).toBe('Task');
    const body = payroll.payload?.kind === 'Task' ? payroll.payload.body : {};
    const written = plan.changes[2]!.payload?.kind === 'Task' ? Object.keys(plan.changes[2]!.payload.body) : [];
    expect(written.length).toBeGreaterThan(3);
    expect(Object.keys(body)).toEqual([...written].reverse());
  });

  it('keeps keys the model does not know, after the known ones', () => {
    const extended = { ...plan, note: 'made by a newer mftops' } as Plan;
    const keys = Object.keys(JSON.parse(renderPlanJson(extended)) as object);
    expect(keys.at(-1)).toBe('note');
  });

  it('renders the fixture, which is a valid plan file', () => {
    expect(() => parsePlan(serializePlan(JSON.parse(renderPlanJson(plan)) as Plan), 'every-action.json')).not.toThrow();
  });
});
