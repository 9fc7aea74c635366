import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { formatManifests } from '../../src/app/fmt.js';
import { initProject, PUBLISHED_ACTION } from '../../src/app/init.js';
import { planEnvironment } from '../../src/app/plan.js';
import { validateManifests } from '../../src/app/validate.js';
import { loadConfig } from '../../src/config/load-config.js';
import { ConfigError } from '../../src/errors.js';
import { testdir } from '../helpers/testdir.js';
import { SEED_LOGINS, startSeededEmulator } from '../integration/helpers.js';
import { recordingContext } from './helpers.js';

const STARTERS = ['mftops.yaml', 'manifests/tasks/example-task.yaml', 'manifests/access/example-acl.yaml', 'manifests/folders/example-folder.yaml', '.mftops/.gitignore'];
const WORKFLOWS = ['.github/workflows/mftops-plan.yml', '.github/workflows/mftops-apply.yml', '.github/workflows/mftops-drift.yml'];

interface Workflow {
  on: Record<string, { paths?: string[] } | null>;
  jobs: Record<string, { strategy?: { matrix?: { environment?: string[] } }; steps: { uses?: string; with?: Record<string, string> }[] }>;
}

const workflow = (path: string) => parse(readFileSync(path, 'utf8')) as Workflow;
/** The steps that run mftops's action: every step but the actions/… ones. */
const actionSteps = (w: Workflow) => Object.values(w.jobs).flatMap((j) => j.steps.filter((s) => s.uses !== undefined && !s.uses.startsWith('actions/')));

describe('initProject', () => {
  it('writes a configuration, an example of each kind and the three workflows, and they validate and are formatted', async () => {
    const dir = testdir({});
    const result = initProject({ force: false }, { cwd: dir });
    expect(result).toEqual({ status: 'written', dir, files: [...STARTERS, ...WORKFLOWS].map((f) => join(dir, f)) });

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

  it('points the workflows at the published action, the project folder and its environment', () => {
    const dir = testdir({});
    initProject({ environment: 'staging', force: false }, { cwd: dir });
    for (const file of WORKFLOWS) {
      const text = readFileSync(join(dir, file), 'utf8');
      expect(text, file).not.toMatch(/^\s*(- )?uses: \.\/$/m);
      const w = workflow(join(dir, file));
      const steps = actionSteps(w);
      expect(steps.length, file).toBeGreaterThan(0);
      for (const step of steps) expect(step).toMatchObject({ uses: PUBLISHED_ACTION, with: { 'working-directory': '.' } });
      for (const job of Object.values(w.jobs)) if (job.strategy?.matrix) expect(job.strategy.matrix.environment, file).toEqual(['staging']);
      for (const trigger of Object.values(w.on)) if (trigger?.paths) expect(trigger.paths, file).toEqual(['mftops.yaml', 'manifests/**']);
    }
  });

  it('in a folder of a git repository, writes the workflows at the root and points them at the folder', () => {
    const repo = testdir({ '.git/HEAD': 'ref: refs/heads/main\n' });
    const result = initProject({ dir: 'mft', force: false }, { cwd: repo });
    expect(result.status).toBe('written');
    expect(existsSync(join(repo, 'mft', 'mftops.yaml'))).toBe(true);
    const plan = workflow(join(repo, '.github/workflows/mftops-plan.yml'));
    expect(plan.on['pull_request']?.paths).toEqual(['mft/**']);
    for (const step of actionSteps(plan)) expect(step.with?.['working-directory']).toBe('mft');
    expect(existsSync(join(repo, 'mft', '.github'))).toBe(false);
  });

  it('never overwrites: names every file that exists and writes nothing, unless forced', () => {
    const dir = testdir({ 'mftops.yaml': 'mine\n', '.github/workflows/mftops-drift.yml': 'mine too\n' });
    const refused = initProject({ force: false }, { cwd: dir });
    expect(refused).toEqual({ status: 'exists', files: [join(dir, 'mftops.yaml'), join(dir, '.github/workflows/mftops-drift.yml')] });
    expect(readFileSync(join(dir, 'mftops.yaml'), 'utf8')).toBe('mine\n');
    expect(existsSync(join(dir, 'manifests'))).toBe(false);
    expect(initProject({ force: true }, { cwd: dir }).status).toBe('written');
    expect(readFileSync(join(dir, 'mftops.yaml'), 'utf8')).toContain('kind: Config');
  });

  it('refuses an environment name the configuration cannot hold', () => {
    const dir = testdir({});
    expect(() => initProject({ environment: 'my prod', force: false }, { cwd: dir })).toThrow(ConfigError);
    expect(existsSync(join(dir, 'mftops.yaml'))).toBe(false);
  });

  it('plans without an error against the example estate, once the URLs are the servers', async () => {
    const emulator = await startSeededEmulator();
    try {
      const dir = testdir({});
      initProject({ force: false }, { cwd: dir });
      const config = join(dir, 'mftops.yaml');
      writeFileSync(
        config,
        readFileSync(config, 'utf8')
          .replace('https://automation.example.com', emulator.automationUrl)
          .replace('https://transfer.example.com', emulator.transferUrl),
      );
      const env = { MFT_AUTOMATION_USER: 'admin', MFT_AUTOMATION_PASSWORD: SEED_LOGINS.automationAdmin.password, MFT_TRANSFER_USER: 'admin', MFT_TRANSFER_PASSWORD: SEED_LOGINS.transferAdmin.password };
      const result = await planEnvironment({}, recordingContext(dir, env));
      expect(result.diagnostics.diagnostics).toEqual([]);
      expect(result.status).toBe('planned');
      expect(result.plan?.changes.map((c) => `${c.action} ${c.address}`)).toContain('create Task/Example daily reports');
    } finally {
      await emulator.close();
    }
  });
});
