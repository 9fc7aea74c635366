import { existsSync, readFileSync, statSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { summarize, type Change, type Plan } from '../../src/plan/model.js';
import { PlanFileError, parsePlan, readPlanFile, serializePlan, writePlanFile } from '../../src/plan/plan-file.js';
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
    formatVersion: 1,
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

  it('refuses another format version before anything else', () => {
    const text = serializePlan(samplePlan()).replace('"formatVersion": 1', '"formatVersion": 2');
    expect(errorOf(() => parsePlan(text, 'p.json'))).toMatch(/has plan format version 2; this mftops reads version 1/);
  });

  it('refuses a well-formed file whose content breaks the schema, even with a matching checksum', () => {
    const { summary: _s, ...noSummary } = samplePlan();
    const body = JSON.stringify(noSummary, null, 2);
    const text = JSON.stringify({ ...noSummary, checksum: `sha256:${createHash('sha256').update(body).digest('hex')}` });
    expect(errorOf(() => parsePlan(text, 'p.json'))).toMatch(/^p\.json is not a valid plan file: \/ must have required property 'summary'/);
  });

  it('never saves an errored plan, and refuses to read one', () => {
    const errored: Plan = { ...samplePlan(), errored: true, applyable: false };
    expect(errorOf(() => serializePlan(errored))).toBe('cannot save the plan: the plan was made with errors that left objects out of it: it can be shown, never saved or applied; fix the errors and plan again');
    const dir = testdir({});
    expect(() => writePlanFile(join(dir, 'plan.json'), errored)).toThrow();
    expect(existsSync(join(dir, 'plan.json'))).toBe(false);
    // A file made some other way (its checksum right) is refused all the same.
    const text = serializePlan(samplePlan()).replace('"errored": false', '"errored": true').replace('"applyable": true', '"applyable": false');
    expect(errorOf(() => parsePlan(rechecksum(text), 'p.json'))).toBe('p.json cannot be applied: the plan was made with errors that left objects out of it: it can be shown, never saved or applied; fix the errors and plan again');
  });

  it('refuses a plan whose execution order is broken', () => {
    const text = serializePlan(samplePlan());
    expect(text).toContain('      "wave": 0,\n');
    expect(errorOf(() => parsePlan(rechecksum(text.replace('      "wave": 0,\n', '')), 'p.json'))).toBe(
      "p.json cannot be applied: the plan's execution order is broken (Task/Payroll to bank has no wave): make the plan again",
    );
  });

  it('says when the file is missing', () => {
    expect(errorOf(() => readPlanFile('/nonexistent/plan.json'))).toBe('plan file /nonexistent/plan.json not found');
  });
});
