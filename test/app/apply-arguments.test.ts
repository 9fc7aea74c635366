import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sortApplyArguments } from '../../src/app/apply.js';
import { serializePlan } from '../../src/app/plan-file.js';
import { ConfigError } from '../../src/errors.js';
import { planOf, taskCreate } from '../apply/helpers.js';
import { testdir } from '../helpers/testdir.js';

function workdir(): string {
  return testdir({
    tfplan: serializePlan(planOf([taskCreate('Upload')])),
    'manifests/tasks.yaml': 'apiVersion: mftops/v1\nkind: Task\nmetadata: { name: x }\nspec: {}\n',
    'manifests/access': 'apiVersion: mftops/v1\nkind: ResourceGroupAcl\nmetadata: { name: y }\nspec: {}\n',
  });
}

function refusal(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error('expected a ConfigError');
}

describe("sortApplyArguments: apply's arguments are one plan file or manifest paths", () => {
  it('takes a plan file of any name, found by its content', () => {
    const cwd = workdir();
    expect(sortApplyArguments(['tfplan'], { cwd })).toEqual({ planFile: 'tfplan' });
    expect(sortApplyArguments([join(cwd, 'tfplan')], { cwd: '/' })).toEqual({ planFile: join(cwd, 'tfplan') });
  });

  it("keeps YAML files (whatever their name) and folders as manifest paths, and none as the environment's", () => {
    const cwd = workdir();
    expect(sortApplyArguments(['manifests/tasks.yaml', 'manifests/access'], { cwd })).toEqual({ paths: ['manifests/tasks.yaml', 'manifests/access'] });
    expect(sortApplyArguments(['manifests'], { cwd })).toEqual({ paths: ['manifests'] });
    expect(sortApplyArguments([], { cwd })).toEqual({ paths: [] });
  });

  it('takes a name ending in .json for a plan file even when it is missing, so that apply says the plan file is not there', () => {
    expect(sortApplyArguments(['staging.json'], { cwd: workdir() })).toEqual({ planFile: 'staging.json' });
  });

  it('refuses a plan file with other paths, and a single argument that does not exist', () => {
    const cwd = workdir();
    expect(refusal(() => sortApplyArguments(['manifests', 'tfplan'], { cwd }))).toBe('give one plan file (tfplan), or manifest paths, not both');
    expect(refusal(() => sortApplyArguments(['tfplna'], { cwd }))).toBe(
      'tfplna does not exist: give a plan file saved by mftops plan --out, or manifest files or folders',
    );
  });
});
