import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { ACTION_COMMANDS } from '../../src/action/inputs.js';
import { REPO_ROOT } from './harness.js';

/**
 * The example workflows are what users copy: each must be valid YAML, use the action by a path
 * that holds it, pass only inputs action.yml declares (and the required ones), and read only
 * outputs it declares.
 */

interface ActionYml {
  name: string;
  inputs: Record<string, { required?: boolean; default?: string }>;
  outputs: Record<string, unknown>;
  runs: { using: string; main: string };
}

interface Step {
  id?: string;
  uses?: string;
  with?: Record<string, unknown>;
  run?: string;
}

const WORKFLOWS = join(REPO_ROOT, 'examples', 'workflows');
const files = readdirSync(WORKFLOWS).filter((f) => f.endsWith('.yml') || f.endsWith('.yaml'));

function parseYaml(path: string): unknown {
  const doc = parseDocument(readFileSync(path, 'utf8'), { prettyErrors: true, uniqueKeys: true });
  expect(doc.errors.map(String), path).toEqual([]);
  return doc.toJS() as unknown;
}

const action = parseYaml(join(REPO_ROOT, 'action.yml')) as ActionYml;

describe('action.yml', () => {
  it('runs the committed bundle on node24 and declares the documented inputs and outputs', () => {
    expect(action.runs.using).toBe('node24');
    expect(existsSync(join(REPO_ROOT, action.runs.main))).toBe(true);
    for (const input of ['command', 'environment', 'config', 'paths', 'plan-file', 'comment', 'github-token', 'working-directory']) expect(action.inputs).toHaveProperty(input);
    expect(action.inputs['github-token']?.default).toBe('${{ github.token }}');
    expect(Object.keys(action.outputs).sort()).toEqual(['exitcode', 'has-changes', 'plan-file', 'report-file', 'summary']);
  });
});

describe('examples/workflows', () => {
  it('has the plan, apply and drift workflows', () => {
    expect(files.sort()).toEqual(['apply.yml', 'drift.yml', 'plan.yml']);
  });

  it.each(files)('%s is valid YAML, uses the action by a path that holds it, with declared inputs and outputs only', (file) => {
    const text = readFileSync(join(WORKFLOWS, file), 'utf8');
    const workflow = parseYaml(join(WORKFLOWS, file)) as { on: unknown; jobs: Record<string, { steps: Step[]; 'runs-on': unknown }> };
    expect(workflow.on).toBeDefined();
    const jobs = Object.values(workflow.jobs);
    expect(jobs.length).toBeGreaterThan(0);
    let mftopsSteps = 0;
    for (const job of jobs) {
      expect(job['runs-on']).toBeDefined();
      const ids = new Set<string>();
      for (const step of job.steps) {
        expect(step.uses !== undefined || step.run !== undefined, `a step of ${file} neither uses nor runs`).toBe(true);
        if (step.uses === undefined) continue;
        if (!step.uses.startsWith('./')) {
          // Other actions by owner/repo@ref.
          expect(step.uses).toMatch(/^[\w.-]+\/[\w.-]+(\/[\w./-]+)?@[\w.-]+$/);
          continue;
        }
        mftopsSteps++;
        const dir = join(REPO_ROOT, step.uses);
        expect(existsSync(join(dir, 'action.yml')), `${step.uses} holds no action.yml`).toBe(true);
        expect((parseYaml(join(dir, 'action.yml')) as ActionYml).name).toBe(action.name);
        const given = Object.keys(step.with ?? {});
        for (const name of given) expect(Object.keys(action.inputs), `${file}: input ${name}`).toContain(name);
        for (const [name, spec] of Object.entries(action.inputs)) if (spec.required === true) expect(given, `${file}: required input ${name}`).toContain(name);
        expect(ACTION_COMMANDS).toContain(step.with?.['command']);
        if (step.id !== undefined) ids.add(step.id);
      }
      // Every steps.<id>.outputs.<name> of an mftops step names a declared output.
      for (const m of JSON.stringify(job).matchAll(/steps\.([\w-]+)\.outputs\.([\w-]+)/g)) {
        if (ids.has(m[1]!)) expect(Object.keys(action.outputs), `${file}: output ${m[2]}`).toContain(m[2]);
      }
    }
    expect(mftopsSteps).toBeGreaterThan(0);
    // Credentials only through env:, never as inputs.
    expect(text).not.toMatch(/^\s+(password|token|username):/im);
  });
});
