import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { ACTION_COMMANDS } from '../../src/action/inputs.js';
import { DEFAULTS, PARALLELISM_RANGE } from '../../src/app/defaults.js';
import { createConcurrencyGroup, exampleJobConcurrency } from './concurrency-group.js';
import { REPO_ROOT } from './harness.js';

/**
 * The example workflows are what users copy: each must be valid YAML, use the action by a path
 * that holds it, pass only inputs action.yml declares (and the required ones), and read only
 * outputs it declares.
 */

interface ActionYml {
  name: string;
  inputs: Record<string, { description: string; required?: boolean; default?: string }>;
  outputs: Record<string, { description: string }>;
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
    for (const input of [
      'command',
      'environment',
      'config',
      'paths',
      'plan-file',
      'comment',
      'github-token',
      'working-directory',
      'max-deletes',
      'parallelism',
    ]) {
      expect(action.inputs).toHaveProperty(input);
    }
    expect(action.inputs['github-token']?.default).toBe('${{ github.token }}');
    expect(Object.keys(action.outputs).sort()).toEqual(['adopt-pr', 'adopt-pr-url', 'exitcode', 'has-changes', 'plan-file', 'report-file', 'summary']);
  });

  it('states the defaults every view shares (src/app/defaults.ts)', () => {
    expect(action.inputs['max-deletes']?.default).toBe(String(DEFAULTS.maxDeletes));
    // parallelism has no single default: plan and drift read, apply writes, each at its own.
    expect(action.inputs['parallelism']?.default).toBe('');
    expect(action.inputs['parallelism']?.description).toContain(`read ${DEFAULTS.readParallelism} objects at a time`);
    expect(action.inputs['parallelism']?.description).toContain(`writes ${DEFAULTS.applyParallelism} changes at a time`);
    expect(action.inputs['parallelism']?.description).toContain(`from ${PARALLELISM_RANGE.min} to ${PARALLELISM_RANGE.max}`);
  });

  it('is documented in the README by a table of every input and output, as action.yml states them', () => {
    const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
    const begin = readme.indexOf(`${TABLE_BEGIN}\n`);
    const end = readme.indexOf(TABLE_END, begin);
    expect(begin >= 0 && end > begin, `README.md has no ${TABLE_BEGIN} … ${TABLE_END} block`).toBe(true);
    expect(
      readme.slice(begin + TABLE_BEGIN.length + 1, end),
      'README.md: the Action table differs from action.yml; replace the block with the expected text',
    ).toBe(actionTables(action));
  });
});

const TABLE_BEGIN = '<!-- action.yml table: generated from action.yml, checked by test/action/examples.test.ts -->';
const TABLE_END = '<!-- end of the action.yml table -->';

/** The README's tables of the Action's inputs (name, default, meaning) and outputs, from action.yml. */
function actionTables(a: ActionYml): string {
  const cell = (text: string) => text.replace(/\s+/g, ' ').trim().replace(/\|/g, '\\|');
  const defaultOf = (spec: ActionYml['inputs'][string]) =>
    spec.required === true ? 'required' : spec.default === undefined || spec.default === '' ? '—' : `\`${spec.default}\``;
  return [
    '| Input | Default | Meaning |',
    '| --- | --- | --- |',
    ...Object.entries(a.inputs).map(([name, spec]) => `| \`${name}\` | ${defaultOf(spec)} | ${cell(spec.description)} |`),
    '',
    '| Output | Meaning |',
    '| --- | --- |',
    ...Object.entries(a.outputs).map(([name, spec]) => `| \`${name}\` | ${cell(spec.description)} |`),
    '',
  ].join('\n');
}

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

/**
 * A fork's pull request runs with no secrets and a read-only token, so plan.yml must run only
 * what needs neither (validate) and skip the plan, as the README says. The jobs' `if:`
 * conditions are evaluated here for the two kinds of pull request, not just looked at.
 */
describe('examples/workflows: pull requests from forks', () => {
  interface Job {
    if?: string;
    needs?: string | string[];
    steps: Step[];
  }
  const REPOSITORY = 'acme-corp/mft-config';
  const pullRequest = (headRepo: string | null) => ({
    github: {
      repository: REPOSITORY,
      event_name: 'pull_request',
      event: { pull_request: { number: 42, head: { repo: headRepo === null ? null : { full_name: headRepo } } } },
    },
  });
  const prWorkflows = files
    .map((file) => ({ file, workflow: parseYaml(join(WORKFLOWS, file)) as { on: Record<string, unknown> | string | string[]; jobs: Record<string, Job> } }))
    .filter(({ workflow }) => triggers(workflow.on).some((t) => t === 'pull_request' || t === 'pull_request_target'));

  /** The jobs that run for an event (every job they need succeeding), and the mftops commands their steps run. */
  function run(jobs: Record<string, Job>, context: Record<string, unknown>): { jobs: string[]; commands: string[]; secrets: boolean } {
    const runs = new Map<string, boolean>();
    const decide = (name: string): boolean => {
      const known = runs.get(name);
      if (known !== undefined) return known;
      const job = jobs[name]!;
      const needs = job.needs === undefined ? [] : [job.needs].flat();
      const yes = needs.every(decide) && (job.if === undefined || truthy(evaluate(job.if, context)));
      runs.set(name, yes);
      return yes;
    };
    const running = Object.keys(jobs).filter(decide);
    const steps = running.flatMap((name) => jobs[name]!.steps);
    return {
      jobs: running,
      commands: steps.filter((s) => s.uses?.startsWith('./') === true).map((s) => String(s.with?.['command'])),
      secrets: running.some((name) => /\bsecrets\./.test(JSON.stringify(jobs[name]))),
    };
  }

  it('plan.yml is the workflow of pull requests, and none runs on pull_request_target (a fork with the credentials)', () => {
    expect(prWorkflows.map((w) => w.file)).toEqual(['plan.yml']);
    for (const { workflow } of prWorkflows) expect(triggers(workflow.on)).not.toContain('pull_request_target');
  });

  it.each(prWorkflows.map((w) => [w.file, w.workflow] as const))(
    '%s: a fork runs only validate, with no secret; a branch of the repository also plans',
    (_file, workflow) => {
      const fork = run(workflow.jobs, pullRequest('someone-else/mft-config'));
      expect(fork.commands).toEqual(['validate']);
      expect(fork.secrets).toBe(false);
      // A fork whose repository was deleted has no head repository at all.
      expect(run(workflow.jobs, pullRequest(null)).commands).toEqual(['validate']);
      const own = run(workflow.jobs, pullRequest(REPOSITORY));
      expect(own.commands).toEqual(['validate', 'plan']);
      expect(own.secrets).toBe(true);
    },
  );

  it("matches the README's statement of what a fork's pull request runs", () => {
    const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8').replace(/\s+/g, ' ');
    const stated = /requests from forks get no secrets and a read-only token: for those, `plan\.yml` runs only `(\w+)`/.exec(readme);
    expect(stated, 'README.md no longer says what runs for forks').not.toBeNull();
    const plan = prWorkflows.find((w) => w.file === 'plan.yml')!.workflow;
    expect(run(plan.jobs, pullRequest('someone-else/mft-config')).commands).toEqual([stated![1]]);
  });
});

function triggers(on: Record<string, unknown> | string | string[]): string[] {
  return typeof on === 'string' ? [on] : Array.isArray(on) ? on : Object.keys(on);
}

/**
 * The part of GitHub's expression language job conditions use here: context paths, string,
 * boolean and null literals, `==`/`!=` (strings compared ignoring case, as GitHub does), `!`,
 * `&&`, `||` and parentheses, optionally inside `${{ }}`. Anything else (a function call) throws,
 * so that a condition this cannot judge fails the test instead of passing unseen.
 */
function evaluate(expression: string, context: Record<string, unknown>): unknown {
  const text = expression.trim().replace(/^\$\{\{([\s\S]*)\}\}$/, '$1');
  const tokens = text.match(/'(?:[^']|'')*'|==|!=|&&|\|\||[!()]|[A-Za-z_][\w.-]*|\S/g) ?? [];
  let at = 0;
  const peek = () => tokens[at];
  const take = () => tokens[at++];
  // `a || b` is a when a is truthy, else b; `a && b` is a when a is falsy, else b.
  const binary = (op: '||' | '&&', operand: () => unknown) => (): unknown => {
    let left = operand();
    while (peek() === op) {
      take();
      const right = operand();
      left = truthy(left) === (op === '||') ? left : right;
    }
    return left;
  };
  const comparison = (): unknown => {
    const left = unary();
    const op = peek();
    if (op !== '==' && op !== '!=') return left;
    take();
    const right = unary();
    const same = typeof left === 'string' && typeof right === 'string' ? left.toLowerCase() === right.toLowerCase() : left === right;
    return op === '==' ? same : !same;
  };
  const unary = (): unknown => {
    const token = take();
    if (token === undefined) throw new Error(`unexpected end of ${expression}`);
    if (token === '!') return !truthy(unary());
    if (token === '(') {
      const value = or();
      if (take() !== ')') throw new Error(`no ) in ${expression}`);
      return value;
    }
    if (token.startsWith("'")) return token.slice(1, -1).replace(/''/g, "'");
    if (token === 'true' || token === 'false') return token === 'true';
    if (token === 'null') return null;
    if (!/^[A-Za-z_]/.test(token) || peek() === '(') throw new Error(`this test cannot evaluate ${token} in ${expression}`);
    return token
      .split('.')
      .reduce<unknown>((value, key) => (value !== null && typeof value === 'object' ? ((value as Record<string, unknown>)[key] ?? null) : null), context);
  };
  const or = binary('||', binary('&&', comparison));
  const value = or();
  if (at !== tokens.length) throw new Error(`cannot evaluate ${expression}`);
  return value;
}

function truthy(value: unknown): boolean {
  return value !== null && value !== undefined && value !== false && value !== '' && value !== 0;
}

/**
 * Workflows that never lose an apply (issue 24): a job that hangs is stopped; drift never reads
 * a server mid-apply and never cancels an apply waiting its turn (GitHub's default queue keeps
 * one waiting run per group and cancels it for a newer one); a lost apply can be run again by hand.
 */
describe('examples/workflows: no apply lost', () => {
  interface Job {
    'timeout-minutes'?: unknown;
    concurrency?: unknown;
  }
  const workflows = files.map((file) => ({
    file,
    workflow: parseYaml(join(WORKFLOWS, file)) as { on: Record<string, unknown>; permissions?: Record<string, string>; jobs: Record<string, Job> },
  }));

  it('every job has timeout-minutes, a whole number of minutes', () => {
    const jobs = workflows.flatMap(({ file, workflow }) =>
      Object.entries(workflow.jobs).map(([name, job]) => ({ where: `${file}: ${name}`, timeout: job['timeout-minutes'] })),
    );
    expect(jobs.length).toBeGreaterThanOrEqual(4);
    for (const { where, timeout } of jobs) expect(Number.isInteger(timeout) && (timeout as number) > 0, `${where} has no timeout-minutes`).toBe(true);
  });

  it('drift and apply share one concurrency group per environment, never cancel the run in progress, and keep every waiting run', () => {
    for (const environment of ['staging', 'prod']) {
      const apply = exampleJobConcurrency('apply.yml', 'apply', environment);
      const drift = exampleJobConcurrency('drift.yml', 'drift', environment);
      expect(drift.group.toLowerCase()).toBe(apply.group.toLowerCase());
      for (const c of [apply, drift]) expect(c).toMatchObject({ cancelInProgress: false, queue: 'max' });
    }
    expect(exampleJobConcurrency('apply.yml', 'apply', 'staging').group).not.toBe(exampleJobConcurrency('apply.yml', 'apply', 'prod').group);
  });

  it('a nightly drift queued behind a waiting apply neither cancels it nor runs before it', async () => {
    const group = createConcurrencyGroup();
    const done: string[] = [];
    const job = (name: string) => async () => void done.push(name);
    let release!: () => void;
    const running = new Promise<void>((r) => (release = r));
    group.enqueue('apply merge 1', exampleJobConcurrency('apply.yml', 'apply', 'prod'), () => running.then(() => void done.push('apply merge 1')));
    group.enqueue('apply merge 2', exampleJobConcurrency('apply.yml', 'apply', 'prod'), job('apply merge 2'));
    group.enqueue('drift', exampleJobConcurrency('drift.yml', 'drift', 'prod'), job('drift'));
    group.enqueue('apply merge 3', exampleJobConcurrency('apply.yml', 'apply', 'prod'), job('apply merge 3'));
    release();
    await group.idle();
    expect(group.events.filter((e) => e.startsWith('cancel'))).toEqual([]);
    expect(done).toEqual(['apply merge 1', 'apply merge 2', 'drift', 'apply merge 3']);
  });

  it('apply can be run by hand (workflow_dispatch), only on main, and may post its result to pull requests', () => {
    const apply = workflows.find((w) => w.file === 'apply.yml')!.workflow;
    expect(Object.keys(apply.on)).toEqual(expect.arrayContaining(['push', 'workflow_dispatch']));
    expect((apply.jobs['apply'] as { if?: string }).if).toBe("github.ref == 'refs/heads/main'");
    expect(apply.permissions).toMatchObject({ 'pull-requests': 'write', actions: 'read' });
  });
});
