import { describe, expect, it } from 'vitest';
import { loadManifests } from '../../src/manifest/load.js';
import type { AccessReport, Change, JsonObject } from '../../src/plan/model.js';
import { sourceRef } from '../../src/plan/compute-plan.js';
import { deniesPlan, evaluateObjectPolicies, evaluatePolicies, isObjectPolicy, objectOf, policyMatches } from '../../src/policy/evaluate.js';
import { positionOf } from '../helpers/position-of.js';
import { testdir } from '../helpers/testdir.js';

const TASK = [
  'apiVersion: mftops/v1',
  'kind: Task',
  'metadata: { name: Payroll to bank }',
  'spec:',
  '  Active: 1',
  '  Parameters: { Token: { value: "${env:TOKEN}", secret: true }, Mode: fast }',
  '  steps:',
  '    - Source: { Host: payroll-sftp, Path: /out, Username: svc, Password: "${env:SFTP_PASSWORD}" }',
  '',
].join('\n');

function policy(severity: string, expression: string, extra = ''): string {
  return [
    'apiVersion: mftops/v1',
    'kind: Policy',
    'metadata: { name: p }',
    'spec:',
    `  severity: ${severity}`,
    extra,
    '  validations:',
    `    - expression: ${JSON.stringify(expression)}`,
    '      message: the rule',
    '',
  ]
    .filter((l) => l !== '')
    .join('\n');
}

/** Loads the task and one policy, and a plan with one change of the task. */
async function setup(policyText: string, change: Partial<Change> = {}, extra: { live?: ReadonlyMap<string, JsonObject>; access?: AccessReport } = {}) {
  const dir = testdir({ 'task.yaml': TASK, 'policy.yaml': policyText });
  const set = await loadManifests(['.'], { cwd: dir });
  expect(set.diagnostics).toEqual([]);
  const task = set.manifests[0]!;
  const base: Change = {
    address: 'Task/Payroll to bank',
    kind: 'Task',
    name: 'Payroll to bank',
    service: 'automation',
    action: 'create',
    fields: [],
    source: sourceRef(task.source, dir),
  };
  const plan = { changes: [{ ...base, ...change }], ...(extra.access ? { access: extra.access } : {}) };
  return { dir, set, report: await evaluatePolicies(plan, set.policies, set.manifests, dir, extra.live) };
}

describe('evaluatePolicies', () => {
  it('a true expression passes; a false one is a violation with the policy, message, address and both places', async () => {
    expect((await setup(policy('deny', 'object.spec.Active == 1'))).report.violations).toEqual([]);
    const text = policy('deny', 'object.spec.Active == 0');
    const { report } = await setup(text);
    expect(report.policies).toBe(1);
    expect(report.violations).toEqual([
      {
        policy: 'p',
        severity: 'deny',
        outcome: 'violated',
        message: 'the rule',
        address: 'Task/Payroll to bank',
        source: { file: 'task.yaml', line: 1, col: 1 },
        expressionSource: { file: 'policy.yaml', ...positionOf(text, '"object.spec.Active == 0"') },
      },
    ]);
    expect(deniesPlan(report)).toBe(true);
  });

  it('a warn policy reports, but does not deny', async () => {
    const { report } = await setup(policy('warn', 'false'));
    expect(report.violations.map((v) => v.severity)).toEqual(['warn']);
    expect(deniesPlan(report)).toBe(false);
  });

  it('object: the desired manifest, secrets (passwords, secret parameters) as "(sensitive)"', async () => {
    const expr =
      "object.kind == 'Task' && object.metadata.name == 'Payroll to bank' && object.spec.steps[0].Source.Password == '(sensitive)' && object.spec.Parameters.Token.value == '(sensitive)' && object.spec.Parameters.Mode.value == 'fast'";
    expect((await setup(policy('deny', expr))).report.violations).toEqual([]);
    // The reference text never reaches an expression.
    expect((await setup(policy('deny', "!object.spec.steps[0].Source.Password.contains('SFTP')"))).report.violations).toEqual([]);
  });

  it('change: address, kind and action; oldObject null on create', async () => {
    const expr = "change.address == 'Task/Payroll to bank' && change.kind == 'Task' && change.action == 'create' && oldObject == null";
    expect((await setup(policy('deny', expr))).report.violations).toEqual([]);
  });

  it('on delete: object is null and oldObject is the live object in manifest form (what the plan removes), secrets redacted', async () => {
    const removes = { Active: 1, steps: [{ Source: { Host: 'payroll-sftp', Password: { $sensitive: true } } }] };
    const expr =
      "object == null && oldObject.kind == 'Task' && oldObject.metadata.name == 'Payroll to bank' && oldObject.spec.steps[0].Source.Password == '(sensitive)' && change.action == 'delete'";
    const { report } = await setup(policy('deny', expr), { action: 'delete', removes, source: undefined });
    expect(report.violations).toEqual([]);
  });

  it('on replace: both object (desired) and oldObject (removed) are there', async () => {
    const removes = { Active: 0 };
    const expr = "change.action == 'replace' && object.spec.Active == 1 && oldObject.spec.Active == 0";
    expect((await setup(policy('deny', expr), { action: 'replace', removes })).report.violations).toEqual([]);
  });

  it('an evaluation error or a result that is not a boolean is an error for that object, never a pass', async () => {
    const missing = (await setup(policy('deny', 'object.spec.NoSuchField == 1'))).report;
    expect(missing.violations.map((v) => [v.outcome, v.message])).toEqual([['error', 'cannot evaluate: No such key: NoSuchField']]);
    expect(deniesPlan(missing)).toBe(true);
    const number = (await setup(policy('warn', 'object.spec.Active'))).report;
    expect(number.violations.map((v) => [v.outcome, v.severity, v.message])).toEqual([
      ['error', 'warn', 'cannot evaluate: the expression gave a number (1), not true or false'],
    ]);
  });

  it('match: kinds, names (globs, case ignored) and actions; no-op changes are never checked', async () => {
    const check = async (extra: string, change: Partial<Change> = {}) => (await setup(policy('deny', 'false', extra), change)).report.violations.length;
    expect(await check('  match: { kinds: [Task] }')).toBe(1);
    expect(await check('  match: { kinds: [FolderPermissions] }')).toBe(0);
    expect(await check('  match: { names: ["payroll*"] }')).toBe(1);
    expect(await check('  match: { names: ["Invoices*"] }')).toBe(0);
    expect(await check('  match: { actions: [update, delete] }')).toBe(0);
    expect(await check('  match: { actions: [update] }', { action: 'update' })).toBe(1);
    expect(await check('', { action: 'no-op' })).toBe(0);
    expect(
      policyMatches(
        {
          kind: 'Policy',
          name: 'p',
          spec: { severity: 'deny', validations: [] },
          source: { file: 'x', line: 1, col: 1 },
          sourceMap: { locate: () => ({ file: 'x', line: 1, col: 1 }) },
        },
        { kind: 'Task', name: 'x', action: 'blocked' },
      ),
    ).toBe(false);
  });

  it('an object too large to evaluate is an error, not a pass', async () => {
    const removes = { Notes: 'x'.repeat(1_100_000) };
    const { report } = await setup(policy('deny', 'true'), { action: 'delete', removes, source: undefined });
    expect(report.violations.map((v) => [v.outcome, v.message])).toEqual([
      ['error', 'cannot evaluate: the object is larger than 1000000 characters of JSON, too large to evaluate'],
    ]);
  });

  it('oldObject on update: the live object in manifest form (names, secrets redacted), from the live specs', async () => {
    const live = new Map<string, JsonObject>([
      ['Task/Payroll to bank', { Active: 0, steps: [{ Source: { Host: 'payroll-sftp', Password: { $sensitive: true } } }] }],
    ]);
    const expr =
      "change.action == 'update' && oldObject.kind == 'Task' && oldObject.metadata.name == 'Payroll to bank' && oldObject.spec.Active == 0 && object.spec.Active == 1 && oldObject.spec.steps[0].Source.Host == 'payroll-sftp' && oldObject.spec.steps[0].Source.Password == '(sensitive)'";
    expect((await setup(policy('deny', expr), { action: 'update' }, { live })).report.violations).toEqual([]);
    // Without the live object, oldObject is null: the same expression fails.
    expect((await setup(policy('deny', expr), { action: 'update' })).report.violations.map((v) => v.outcome)).toEqual(['error']);
  });

  it('access: the effective-access changes of that object, an empty list when none', async () => {
    const access: AccessReport = {
      changes: [
        {
          address: 'Task/Payroll to bank',
          who: { type: 'User', name: 'alice' },
          service: 'transfer',
          target: '/Acme',
          gained: ['admin', 'listFiles'],
          lost: [],
          via: [{ type: 'Group', name: 'Acme Partners' }],
          removed: false,
          flagged: ['admin'],
        },
        {
          address: 'Task/Other',
          who: { type: 'User', name: 'bob' },
          service: 'transfer',
          target: '/Other',
          gained: ['admin'],
          lost: [],
          via: [],
          removed: false,
          flagged: ['admin'],
        },
      ],
      membersUnknown: [],
    };
    const expr =
      "access.size() == 1 && access[0].principal == 'alice' && access[0].kind == 'user' && 'admin' in access[0].gains && access[0].loses == [] && access[0].via[0].kind == 'group' && access[0].via[0].name == 'Acme Partners' && access[0].flagged == ['admin'] && access[0].target == '/Acme' && !access[0].removed";
    expect((await setup(policy('deny', expr), {}, { access })).report.violations).toEqual([]);
    expect((await setup(policy('deny', '!access.exists(a, "admin" in a.gains)'), {}, { access })).report.violations.map((v) => v.outcome)).toEqual([
      'violated',
    ]);
    expect((await setup(policy('deny', 'access == []'))).report.violations).toEqual([]);
  });

  it('object-only policies: found from the expression, evaluated on objects with object alone', async () => {
    const { set, dir } = await setup(
      policy('deny', "object.spec.Active == 0 && !object.spec.steps.exists(s, has(s.Source) && s.Source.Host == 'payroll-sftp')"),
    );
    const subject = {
      address: 'Task/Payroll to bank',
      kind: 'Task' as const,
      name: 'Payroll to bank',
      object: objectOf(set.manifests[0]!),
      source: { file: 'task.yaml', line: 1, col: 1 },
    };
    const report = await evaluateObjectPolicies([subject], set.policies, dir);
    expect(report.policies).toBe(1);
    expect(report.violations.map((v) => [v.outcome, v.address, v.source])).toEqual([
      ['violated', 'Task/Payroll to bank', { file: 'task.yaml', line: 1, col: 1 }],
    ]);
    const object = (await setup(policy('deny', 'object.kind == "Task"'))).set.policies[0]!;
    expect(isObjectPolicy(object)).toBe(true);
    for (const expr of ['oldObject == null', 'change.action == "create"', 'access.size() == 0', 'object.spec.steps.all(change, true)']) {
      expect(isObjectPolicy((await setup(policy('deny', expr))).set.policies[0]!), expr).toBe(false);
    }
    expect(isObjectPolicy((await setup(policy('deny', 'true', '  match: { actions: [delete] }'))).set.policies[0]!)).toBe(false);
    expect(isObjectPolicy((await setup(policy('deny', 'true', '  match: { actions: [delete, update] }'))).set.policies[0]!)).toBe(true);
    // Kinds and names still match; a policy that does not match checks nothing.
    expect(
      (await evaluateObjectPolicies([subject], (await setup(policy('deny', 'false', '  match: { kinds: [FolderPermissions] }'))).set.policies, dir)).violations,
    ).toEqual([]);
  });
});
