import { existsSync, readFileSync, statSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { summarize, type Change, type Plan } from '../../src/plan/model.js';
import {
  PlanFileError,
  holdsPlanFile,
  orderPlanKeys,
  parsePlan,
  parseSavedPlan,
  readPlanFile,
  readSavedPlan,
  serializePlan,
  writePlanFile,
} from '../../src/app/plan-file.js';
import { renderPlanJson } from '../../src/render/plan-json.js';
import { FOLDER_RENAME } from '../fixtures/plans/folder-rename.js';
import { loadFixturePlan } from '../fixtures/plans/load.js';
import { testdir } from '../helpers/testdir.js';

const FP = `sha256:${'a'.repeat(64)}`;

function samplePlan(): Plan {
  const changes: Change[] = [
    {
      address: 'Task/Payroll to bank',
      kind: 'Task',
      name: 'Payroll to bank',
      service: 'automation',
      action: 'update',
      liveId: '1001',
      fingerprint: FP,
      wave: 0,
      fields: [
        { path: 'Schedules.Schedule[0].Frequency.Interval[0].StartTime', before: '02:00', after: '03:00' },
        { path: 'Parameters.ApiKey', sensitive: true },
      ],
      source: { file: 'examples/manifests/tasks/payroll.yaml', line: 3, col: 1 },
      payload: { kind: 'Task', body: { Name: 'Payroll to bank', Parameters: { ApiKey: { value: '${env:PAYROLL_API_KEY}' } } } },
    },
    {
      address: 'FolderPermissions/Distribution/Acme/Outbound',
      kind: 'FolderPermissions',
      name: '/Distribution/Acme/Outbound',
      service: 'transfer',
      action: 'no-op',
      liveId: '42',
      fingerprint: FP,
      fields: [],
    },
  ];
  return {
    toolVersion: '0.1.0',
    createdAt: '2026-11-22T02:00:00.000Z',
    environment: 'prod',
    servers: { automation: { url: 'https://automation.example.com', version: '2025.1.0', username: 'admin' } },
    manifestDigest: FP,
    errored: false,
    applyable: true,
    changes,
    summary: summarize(changes),
  };
}

/** The file with its checksum made right again, as if mftops had written this content. */
function rechecksum(text: string): string {
  const { checksum: _c, ...rest } = JSON.parse(text) as Record<string, unknown>;
  const body = JSON.stringify(rest, null, 2);
  return `${JSON.stringify({ ...rest, checksum: `sha256:${createHash('sha256').update(body).digest('hex')}` }, null, 2)}\n`;
}

function errorOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(PlanFileError);
    return (err as Error).message;
  }
  throw new Error('expected a PlanFileError');
}

describe('plan file', () => {
  it('round-trips a plan exactly and writes it atomically', () => {
    const dir = testdir({});
    const path = join(dir, 'plan.json');
    writePlanFile(path, samplePlan());
    expect(readPlanFile(path)).toEqual(samplePlan());
    expect(statSync(path).mode & 0o777).toBe(0o644);
    expect(serializePlan(samplePlan())).toBe(readFileSync(path, 'utf8'));
  });

  it('refuses a plan edited by hand, naming the file', () => {
    const text = serializePlan(samplePlan()).replace('"03:00"', '"04:00"');
    expect(errorOf(() => parsePlan(text, 'plan.json'))).toBe(
      'plan.json was changed after mftops wrote it (checksum mismatch): make the plan again instead of editing it',
    );
  });

  it('refuses a truncated or foreign file', () => {
    const text = serializePlan(samplePlan());
    expect(errorOf(() => parsePlan(text.slice(0, 200), 'p.json'))).toMatch(/^p\.json is not a plan file: it is not JSON/);
    expect(errorOf(() => parsePlan('{"hello": "world"}', 'p.json'))).toBe('p.json is not a plan file: no formatVersion');
    expect(errorOf(() => parsePlan('[1,2]', 'p.json'))).toBe('p.json is not a plan file: no formatVersion');
  });

  it('writes format 3: the version, the plan, the checksum of the two', () => {
    const file = JSON.parse(serializePlan(samplePlan())) as Record<string, unknown>;
    expect(Object.keys(file)).toEqual(['formatVersion', 'plan', 'checksum']);
    expect(file.formatVersion).toBe(3);
    expect(file.plan).toEqual(samplePlan());
  });

  it('refuses a version 1 plan file (an older mftops) in one line that names both versions and says to plan again', () => {
    // As mftops wrote it before format 2: the plan's fields at the top, a prose reason.
    const { errored: _e, applyable: _a, ...old } = samplePlan();
    const v1 = {
      formatVersion: 1,
      ...old,
      changes: old.changes.map(({ wave: _w, ...c }) => ({ ...c, reason: 'advanced (TT=COS) tasks cannot be changed through the API' })),
    };
    const body = JSON.stringify(v1, null, 2);
    const text = `${JSON.stringify({ ...v1, checksum: `sha256:${createHash('sha256').update(body).digest('hex')}` }, null, 2)}\n`;
    expect(errorOf(() => parsePlan(text, 'old.json'))).toBe(
      'old.json is a plan file of format 1, made by an older mftops; this mftops reads format 3 only: make the plan again with mftops plan --out',
    );
  });

  it('refuses a version 2 plan file, which did not record the names its changes resolved, as made by an older mftops', () => {
    const text = rechecksum(serializePlan(samplePlan()).replace('"formatVersion": 3', '"formatVersion": 2'));
    expect(errorOf(() => parsePlan(text, 'v2.json'))).toBe(
      'v2.json is a plan file of format 2, made by an older mftops; this mftops reads format 3 only: make the plan again with mftops plan --out',
    );
  });

  it('refuses another format version before anything else', () => {
    const text = serializePlan(samplePlan()).replace('"formatVersion": 3', '"formatVersion": 4');
    expect(errorOf(() => parsePlan(text, 'p.json'))).toBe(
      'p.json is a plan file of format 4, made by another version of mftops; this mftops reads format 3 only: make the plan again with mftops plan --out',
    );
  });

  it('refuses a well-formed file whose content breaks the schema, even with a matching checksum', () => {
    const { summary: _s, ...noSummary } = samplePlan();
    const text = rechecksum(JSON.stringify({ formatVersion: 3, plan: noSummary, checksum: '' }));
    expect(errorOf(() => parsePlan(text, 'p.json'))).toMatch(/^p\.json is not a valid plan file: \/plan must have required property 'summary'/);
  });

  it('never saves an errored plan, and refuses to read one', () => {
    const errored: Plan = { ...samplePlan(), errored: true, applyable: false };
    expect(errorOf(() => serializePlan(errored))).toBe(
      'cannot save the plan: the plan was made with errors that left objects out of it: it can be shown, never saved or applied; fix the errors and plan again',
    );
    const dir = testdir({});
    expect(() => writePlanFile(join(dir, 'plan.json'), errored)).toThrow();
    expect(existsSync(join(dir, 'plan.json'))).toBe(false);
    // A file made some other way (its checksum right) is refused all the same.
    const text = serializePlan(samplePlan()).replace('"errored": false', '"errored": true').replace('"applyable": true', '"applyable": false');
    expect(errorOf(() => parsePlan(rechecksum(text), 'p.json'))).toBe(
      'p.json cannot be applied: the plan was made with errors that left objects out of it: it can be shown, never saved or applied; fix the errors and plan again',
    );
  });

  it('refuses a plan whose execution order is broken', () => {
    const text = serializePlan(samplePlan());
    expect(text).toContain('        "wave": 0,\n');
    expect(errorOf(() => parsePlan(rechecksum(text.replace('        "wave": 0,\n', '')), 'p.json'))).toBe(
      "p.json cannot be applied: the plan's execution order is broken (Task/Payroll to bank has no wave): make the plan again",
    );
  });

  it('records the configuration file it was made with, and the plan of a pruned-off run says why', () => {
    const dir = testdir({});
    const path = join(dir, 'tfplan');
    const plan: Plan = { ...samplePlan(), pruneOff: { reason: 'partial-manifests', kinds: ['Task', 'FolderPermissions'] } };
    writePlanFile(path, plan, { configFile: '/repo/infra/mftops.yaml' });
    const file = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
    expect(Object.keys(file)).toEqual(['formatVersion', 'configFile', 'plan', 'checksum']);
    expect(Object.keys(file['plan'] as object).slice(5, 7)).toEqual(['pruneOff', 'errored']);
    expect(readSavedPlan(path)).toEqual({ plan, configFile: '/repo/infra/mftops.yaml' });
    // A file of an mftops that did not record it still reads, without one.
    expect(parseSavedPlan(serializePlan(samplePlan()), 'p.json')).toEqual({ plan: samplePlan() });
  });

  it('refuses the --format json view of a plan, saying what it is instead of calling it edited', () => {
    expect(errorOf(() => parsePlan(renderPlanJson(samplePlan()), 'plan.out'))).toBe(
      'plan.out is not a plan file but the JSON view of a plan (mftops plan --format json), which cannot be applied: save the plan with mftops plan --out FILE',
    );
    expect(errorOf(() => parsePlan('{"formatVersion": 3, "environment": "prod", "plan": {}}', 'drift.json'))).toBe(
      'drift.json is not a plan file: it has no checksum (only mftops plan --out writes plan files)',
    );
  });

  it('says when the file is missing', () => {
    expect(errorOf(() => readPlanFile('/nonexistent/plan.json'))).toBe('plan file /nonexistent/plan.json not found');
  });
});

describe('plan file key order (orderPlanKeys)', () => {
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
  const fileOf = (p: Plan) => (JSON.parse(serializePlan(p)) as { plan: Plan }).plan;

  it('puts the model keys in the model order, however the object was built, so the same plan gives the same bytes', () => {
    const shuffled = reverseKeys(plan) as Plan;
    expect(Object.keys(shuffled)[0]).toBe('summary');
    const written = fileOf(shuffled);
    expect(Object.keys(written)).toEqual([
      'toolVersion',
      'createdAt',
      'environment',
      'servers',
      'manifestDigest',
      'errored',
      'applyable',
      'changes',
      'summary',
    ]);
    expect(Object.keys(written.changes[2]!)).toEqual([
      'address',
      'kind',
      'name',
      'service',
      'action',
      'liveId',
      'fingerprint',
      'wave',
      'fields',
      'source',
      'payload',
    ]);
    expect(Object.keys(written.summary)).toEqual(['create', 'update', 'replace', 'delete', 'no-op', 'blocked']);
  });

  it('orders a folder rename payload (kind, path, rename {from, name}, set, remove) and reads it back', () => {
    const renamed = { ...plan, changes: [FOLDER_RENAME], summary: { create: 0, update: 1, replace: 0, delete: 0, 'no-op': 0, blocked: 0 } };
    const change = fileOf(reverseKeys(renamed) as Plan).changes[0]!;
    expect(Object.keys(change)).toEqual([
      'address',
      'kind',
      'name',
      'service',
      'action',
      'previousName',
      'liveId',
      'fingerprint',
      'wave',
      'fields',
      'entries',
      'source',
      'payload',
    ]);
    expect(Object.keys(change.payload!)).toEqual(['kind', 'path', 'rename', 'set', 'remove']);
    expect(change.payload?.kind === 'FolderPermissions' ? Object.keys(change.payload.rename!) : []).toEqual(['from', 'name']);
    expect(parsePlan(serializePlan(renamed), 'renamed.json').changes[0]).toEqual(FOLDER_RENAME);
  });

  it('keeps the user order inside values it does not own (task bodies, field values)', () => {
    const payroll = fileOf(reverseKeys(plan) as Plan).changes[2]!;
    const body = payroll.payload?.kind === 'Task' ? payroll.payload.body : {};
    const written = plan.changes[2]!.payload?.kind === 'Task' ? Object.keys(plan.changes[2]!.payload.body) : [];
    expect(written.length).toBeGreaterThan(3);
    expect(Object.keys(body)).toEqual([...written].reverse());
  });

  it('keeps keys the model does not know, after the known ones', () => {
    expect(Object.keys(orderPlanKeys({ ...plan, note: 'made by a newer mftops' } as Plan)).at(-1)).toBe('note');
  });

  it('the fixture is a valid plan file', () => {
    expect(parsePlan(serializePlan(plan), 'every-action.json')).toEqual(plan);
  });
});

describe('holdsPlanFile: a plan file is found by its content, whatever its name', () => {
  it('is true for a plan file of any name, and for one cut short or of another format (apply then says what is wrong)', () => {
    const text = serializePlan(samplePlan());
    const dir = testdir({
      tfplan: text,
      'cut-short': text.slice(0, 40),
      'plan.v4': text.replace('"formatVersion": 3', '"formatVersion": 4'),
      'view.out': renderPlanJson(samplePlan()),
    });
    for (const name of ['tfplan', 'cut-short', 'plan.v4', 'view.out']) expect(holdsPlanFile(join(dir, name)), name).toBe(true);
  });

  it('is false for a YAML manifest (also one written as JSON), a folder, an empty or missing file', () => {
    const dir = testdir({
      'tasks.yaml': 'apiVersion: mftops/v1\nkind: Task\nmetadata: { name: x }\nspec: {}\n',
      manifest: '{"apiVersion": "mftops/v1", "kind": "Task", "formatVersion": 2}\n',
      'folder/a.yaml': 'x: 1\n',
      empty: '',
    });
    for (const name of ['tasks.yaml', 'manifest', 'folder', 'empty', 'missing']) expect(holdsPlanFile(join(dir, name)), name).toBe(false);
  });
});
