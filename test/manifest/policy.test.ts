import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadManifests } from '../../src/manifest/load.js';
import { positionOf } from '../helpers/position-of.js';
import { testdir } from '../helpers/testdir.js';

const POLICY = [
  'apiVersion: mftops/v1',
  'kind: Policy',
  'metadata: { name: tasks-described }',
  'spec:',
  '  severity: deny',
  '  match: { kinds: [Task], names: ["Payroll*"], actions: [create, update] }',
  '  validations:',
  '    - expression: "has(object.spec.Info)"',
  '      message: every task has a description',
  '    - expression: "object.spec.Active == 1"',
  '      message: tasks are active',
  '',
].join('\n');

const TASK = 'apiVersion: mftops/v1\nkind: Task\nmetadata: { name: Payroll to bank }\nspec:\n  Active: 1\n';

describe('kind: Policy', () => {
  it('loads beside the resources, kept apart from them (never a manifest to plan)', async () => {
    const dir = testdir({ 'policy.yaml': POLICY, 'task.yaml': TASK });
    const set = await loadManifests(['.'], { cwd: dir });
    expect(set.diagnostics).toEqual([]);
    expect(set.manifests.map((m) => m.kind)).toEqual(['Task']);
    expect(set.policies).toHaveLength(1);
    expect(set.policies[0]!.name).toBe('tasks-described');
    expect(set.policies[0]!.spec).toEqual({
      severity: 'deny',
      match: { kinds: ['Task'], names: ['Payroll*'], actions: ['create', 'update'] },
      validations: [
        { expression: 'has(object.spec.Info)', message: 'every task has a description' },
        { expression: 'object.spec.Active == 1', message: 'tasks are active' },
      ],
    });
  });

  it('is checked by its schema: an unknown severity and a missing message are errors', async () => {
    const text = POLICY.replace('severity: deny', 'severity: block').replace('      message: tasks are active\n', '');
    const dir = testdir({ 'policy.yaml': text });
    const set = await loadManifests(['policy.yaml'], { cwd: dir });
    expect(set.policies).toEqual([]);
    expect(set.diagnostics.map((d) => [d.code, d.line])).toEqual([
      ['MF204', positionOf(text, 'block').line],
      ['MF202', positionOf(text, '- expression: "object').line],
    ]);
  });

  it('an expression that does not compile is MF311 at its file, line and column', async () => {
    const text = POLICY.replace('"object.spec.Active == 1"', '"object.spec.Active =="');
    const dir = testdir({ 'policies/policy.yaml': text });
    const set = await loadManifests(['policies'], { cwd: dir });
    expect(set.policies).toEqual([]);
    expect(set.diagnostics).toHaveLength(1);
    const d = set.diagnostics[0]!;
    expect(d.code).toBe('MF311');
    expect(d.severity).toBe('error');
    expect(d.file).toBe(join(dir, 'policies', 'policy.yaml'));
    expect({ line: d.line, col: d.col }).toEqual(positionOf(text, '"object.spec.Active =="'));
    expect(d.summary).toContain('Unexpected token: EOF');
  });

  it('the kind list of an unknown kind names Policy', async () => {
    const dir = testdir({ 'x.yaml': POLICY.replace('kind: Policy', 'kind: Polcy') });
    const set = await loadManifests(['x.yaml'], { cwd: dir });
    expect(set.diagnostics.map((d) => d.summary)).toEqual(['unknown kind `Polcy` — did you mean `Policy`?']);
  });
});

describe('two policies of one name', () => {
  it('are MF301 at the second name, pointing at the first', async () => {
    const dir = testdir({ 'a.yaml': POLICY, 'b.yaml': POLICY.replace('tasks-described', 'Tasks-Described') });
    const set = await loadManifests(['.'], { cwd: dir });
    expect(set.diagnostics.map((d) => [d.code, d.file, d.line, d.summary, d.related?.file])).toEqual([
      ['MF301', join(dir, 'b.yaml'), 3, 'Policy `Tasks-Described` is defined twice', join(dir, 'a.yaml')],
    ]);
  });
});
