import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { formatManifests } from '../../src/app/fmt.js';
import { initProject } from '../../src/app/init.js';
import { planEnvironment } from '../../src/app/plan.js';
import { validateManifests } from '../../src/app/validate.js';
import { loadConfig } from '../../src/config/load-config.js';
import { ConfigError } from '../../src/errors.js';
import { installedMftops } from '../helpers/installed-mftops.js';
import { testdir } from '../helpers/testdir.js';
import { SEED_LOGINS, startSeededEmulator } from '../integration/helpers.js';
import { recordingContext } from './helpers.js';

const STARTERS = [
  'mftops.yaml',
  'manifests/tasks/example-task.yaml',
  'manifests/access/example-acl.yaml',
  'manifests/folders/example-folder.yaml',
  '.mftops/.gitignore',
];
const WORKFLOWS = ['.github/workflows/mftops-plan.yml', '.github/workflows/mftops-apply.yml', '.github/workflows/mftops-drift.yml'];

interface Step {
  uses?: string;
  run?: string;
  'working-directory'?: string;
  with?: Record<string, string>;
}
interface Workflow {
  on: Record<string, { paths?: string[] } | null>;
  jobs: Record<string, { strategy?: { matrix?: { environment?: string[] } }; steps: Step[] }>;
}

const workflow = (path: string) => parse(readFileSync(path, 'utf8')) as Workflow;
/** The steps that run mftops's action: every step but the actions/… ones. */
const actionSteps = (w: Workflow) => Object.values(w.jobs).flatMap((j) => j.steps.filter((s) => s.uses !== undefined && !s.uses.startsWith('actions/')));
/** Lines of the written workflows that only make sense in mftops's own repository. */
const EXAMPLE_ONLY = [
  /^# Copy to /m,
  /here under/,
  /These examples/,
  /\bmft\//,
  /^\s*(- )?uses: \.\/$/m,
  /<org>\/mftops/,
  /^\s*ACME_SFTP_PASSWORD:/m,
  /(?<!node_modules\/mftops\/)examples\/workflows\/README\.md(?! of )/,
  /staging first/,
];

/** Each job that runs the action installs mftops (npm ci in `installDir`) after its checkout and before the action. */
function expectInstallBeforeAction(w: Workflow, uses: string, installDir: string | undefined, file: string): void {
  for (const [name, job] of Object.entries(w.jobs)) {
    const at = job.steps.findIndex((s) => s.uses === uses);
    if (at < 0) continue;
    const install = job.steps.findIndex((s) => s.run === 'npm ci --no-audit --no-fund');
    const checkout = job.steps.findIndex((s) => s.uses?.startsWith('actions/checkout@') === true);
    expect(checkout, `${file} ${name}`).toBeGreaterThanOrEqual(0);
    expect(install, `${file} ${name}`).toBe(checkout + 1);
    expect(install, `${file} ${name}`).toBeLessThan(at);
    expect(job.steps[install]!['working-directory'], `${file} ${name}`).toBe(installDir);
  }
}

describe('initProject', () => {
  it('writes a configuration, an example of each kind and the three workflows, and they validate and are formatted', async () => {
    const dir = testdir(installedMftops());
    const result = initProject({ force: false }, { cwd: dir });
    expect(result).toEqual({ status: 'written', dir, files: [...STARTERS, ...WORKFLOWS].map((f) => join(dir, f)), action: './node_modules/mftops' });

    const config = loadConfig('mftops.yaml', dir);
    expect([...config.environments.keys()]).toEqual(['prod']);
    const text = readFileSync(join(dir, 'mftops.yaml'), 'utf8');
    expect(text).toMatch(/^# yaml-language-server: \$schema=https:\/\/mftops\.dev\/schemas\/config\.schema\.json\n# /);
    for (const v of ['MFT_AUTOMATION_USER', 'MFT_AUTOMATION_PASSWORD', 'MFT_TRANSFER_USER', 'MFT_TRANSFER_PASSWORD']) expect(text).toContain(`\${env:${v}}`);

    const validated = await validateManifests({}, recordingContext(dir));
    expect(validated.diagnostics).toEqual([]);
    expect(validated.manifestCount).toBe(3);
    const formatted = await formatManifests({ check: true }, recordingContext(dir));
    expect(formatted.files.map((f) => f.state)).toEqual(['formatted', 'formatted', 'formatted']);
  });

  it('points the workflows at the mftops the repository installs, installed by npm ci first, the project folder and its environment', () => {
    const dir = testdir(installedMftops());
    const result = initProject({ environment: 'staging', force: false }, { cwd: dir });
    expect(result).toMatchObject({ status: 'written', action: './node_modules/mftops' });
    for (const file of WORKFLOWS) {
      const text = readFileSync(join(dir, file), 'utf8');
      for (const pattern of EXAMPLE_ONLY) expect(text, `${file}: ${pattern}`).not.toMatch(pattern);
      const w = workflow(join(dir, file));
      const steps = actionSteps(w);
      expect(steps.length, file).toBeGreaterThan(0);
      for (const step of steps) expect(step).toMatchObject({ uses: './node_modules/mftops', with: { 'working-directory': '.' } });
      // The local action resolves on the runner: the repository holds it once npm ci has run.
      expect(existsSync(join(dir, 'node_modules/mftops/action.yml'))).toBe(true);
      expectInstallBeforeAction(w, './node_modules/mftops', undefined, file);
      for (const job of Object.values(w.jobs)) if (job.strategy?.matrix) expect(job.strategy.matrix.environment, file).toEqual(['staging']);
      for (const trigger of Object.values(w.on)) if (trigger?.paths) expect(trigger.paths, file).toEqual(['mftops.yaml', 'manifests/**']);
    }
  });

  it('with --action-ref, names that action and installs nothing before it', () => {
    const dir = testdir({});
    const result = initProject({ force: false, actionRef: 'acme-corp/mftops@3f2a1b0c9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a' }, { cwd: dir });
    expect(result).toMatchObject({ status: 'written', action: 'acme-corp/mftops@3f2a1b0c9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a' });
    for (const file of WORKFLOWS) {
      const text = readFileSync(join(dir, file), 'utf8');
      for (const pattern of EXAMPLE_ONLY) expect(text, `${file}: ${pattern}`).not.toMatch(pattern);
      expect(text).not.toContain('npm ci');
      for (const step of actionSteps(workflow(join(dir, file)))) expect(step.uses).toBe('acme-corp/mftops@3f2a1b0c9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a');
    }
  });

  it.for([
    'mftops',
    'acme/mftops',
    'acme/mftops@',
    '@v1',
    'acme/mftops@v1 extra',
    'https://github.com/acme/mftops@v1',
    './node_modules/mftops',
    'acme/../x@v1',
  ])('refuses --action-ref %s, which is not OWNER/REPO@REF, and writes nothing', (ref) => {
    const dir = testdir(installedMftops());
    expect(() => initProject({ force: false, actionRef: ref }, { cwd: dir })).toThrow(/^--action-ref: ".*" is not OWNER\/REPO@REF/);
    expect(existsSync(join(dir, 'mftops.yaml'))).toBe(false);
  });

  it('refuses, writing nothing, when no action would resolve: mftops not installed, not declared, or without a lock file', () => {
    const { ['package.json']: _declared, ...undeclared } = installedMftops();
    const { ['package-lock.json']: _lock, ...unlocked } = installedMftops();
    for (const [files, message] of [
      [{}, /this repository does not install mftops .*run npm i -D mftops and then npx mftops init, or give --action-ref OWNER\/REPO@REF/],
      [undeclared, /this repository does not install mftops/],
      [unlocked, /has no package-lock\.json beside it/],
    ] as const) {
      const dir = testdir(files);
      expect(() => initProject({ force: false }, { cwd: dir })).toThrow(ConfigError);
      expect(() => initProject({ force: false }, { cwd: dir })).toThrow(message);
      expect(existsSync(join(dir, 'mftops.yaml'))).toBe(false);
      expect(existsSync(join(dir, '.github'))).toBe(false);
    }
  });

  it('in a folder of a git repository, writes the workflows at the root and points them at the folder', () => {
    const repo = testdir({ '.git/HEAD': 'ref: refs/heads/main\n', ...installedMftops() });
    const result = initProject({ dir: 'mft', force: false }, { cwd: repo });
    expect(result.status).toBe('written');
    expect(existsSync(join(repo, 'mft', 'mftops.yaml'))).toBe(true);
    const plan = workflow(join(repo, '.github/workflows/mftops-plan.yml'));
    expect(plan.on['pull_request']?.paths).toEqual(['mft/**']);
    for (const step of actionSteps(plan)) expect(step).toMatchObject({ uses: './node_modules/mftops', with: { 'working-directory': 'mft' } });
    expect(existsSync(join(repo, 'mft', '.github'))).toBe(false);
  });

  it('in a folder of a git repository that installs mftops there, runs npm ci and the action from that folder', () => {
    const repo = testdir({ '.git/HEAD': 'ref: refs/heads/main\n', ...installedMftops('mft') });
    expect(initProject({ dir: 'mft', force: false }, { cwd: repo })).toMatchObject({ status: 'written', action: './mft/node_modules/mftops' });
    for (const file of WORKFLOWS) {
      const w = workflow(join(repo, file));
      for (const step of actionSteps(w)) expect(step).toMatchObject({ uses: './mft/node_modules/mftops', with: { 'working-directory': 'mft' } });
      expectInstallBeforeAction(w, './mft/node_modules/mftops', 'mft', file);
    }
  });

  it('never uses an install above the repository, which the runner does not check out', () => {
    const outer = testdir(installedMftops());
    const repo = join(outer, 'repo');
    mkdirSync(join(repo, '.git'), { recursive: true });
    expect(() => initProject({ force: false }, { cwd: repo })).toThrow(/this repository does not install mftops/);
  });

  it('never overwrites: names every file that exists and writes nothing, unless forced', () => {
    const dir = testdir({ 'mftops.yaml': 'mine\n', '.github/workflows/mftops-drift.yml': 'mine too\n', ...installedMftops() });
    const refused = initProject({ force: false }, { cwd: dir });
    expect(refused).toEqual({ status: 'exists', files: [join(dir, 'mftops.yaml'), join(dir, '.github/workflows/mftops-drift.yml')] });
    expect(readFileSync(join(dir, 'mftops.yaml'), 'utf8')).toBe('mine\n');
    expect(existsSync(join(dir, 'manifests'))).toBe(false);
    expect(initProject({ force: true }, { cwd: dir }).status).toBe('written');
    expect(readFileSync(join(dir, 'mftops.yaml'), 'utf8')).toContain('kind: Config');
  });

  it('refuses an environment name the configuration cannot hold', () => {
    const dir = testdir(installedMftops());
    expect(() => initProject({ environment: 'my prod', force: false }, { cwd: dir })).toThrow(ConfigError);
    expect(existsSync(join(dir, 'mftops.yaml'))).toBe(false);
  });

  it('plans without an error against the example estate, once the URLs are the servers', async () => {
    const emulator = await startSeededEmulator();
    try {
      const dir = testdir(installedMftops());
      initProject({ force: false }, { cwd: dir });
      const config = join(dir, 'mftops.yaml');
      writeFileSync(
        config,
        readFileSync(config, 'utf8')
          .replace('https://automation.example.com', emulator.automationUrl)
          .replace('https://transfer.example.com', emulator.transferUrl),
      );
      const env = {
        MFT_AUTOMATION_USER: 'admin',
        MFT_AUTOMATION_PASSWORD: SEED_LOGINS.automationAdmin.password,
        MFT_TRANSFER_USER: 'admin',
        MFT_TRANSFER_PASSWORD: SEED_LOGINS.transferAdmin.password,
      };
      const result = await planEnvironment({}, recordingContext(dir, env));
      expect(result.diagnostics.diagnostics).toEqual([]);
      expect(result.status).toBe('planned');
      expect(result.plan?.changes.map((c) => `${c.action} ${c.address}`)).toContain('create Task/Example daily reports');
    } finally {
      await emulator.close();
    }
  });
});
