import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, runActionProcess } from '../action/harness.js';
import { hasStackTrace } from '../helpers/run-cli.js';
import { SEED_LOGINS } from '../integration/helpers.js';

/**
 * The package as a user gets it: a fresh checkout (the files git holds, no dist/) packed with
 * `npm pack`, whose prepack builds; the tarball installed into an empty folder with `npm i -D`;
 * then the README's first steps through `npx mftops`. Nothing here runs from this checkout.
 */

/** One npm install from the registry (or its cache) on a loaded machine: generous, bounded. */
const NPM_TIMEOUT_MS = 420_000;

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** npm and the installed CLI see PATH, HOME and npm's cache, nothing else of this process. */
function cleanEnv(): Record<string, string> {
  const env: Record<string, string> = {
    PATH: process.env['PATH'] ?? '',
    HOME: process.env['HOME'] ?? tmpdir(),
    NO_COLOR: '1',
    npm_config_update_notifier: 'false',
  };
  const cache = process.env['npm_config_cache'];
  if (cache !== undefined && cache !== '') env['npm_config_cache'] = cache;
  return env;
}

function run(command: string, args: readonly string[], cwd: string, extraEnv: Record<string, string> = {}, timeout = 170_000): Promise<Run> {
  return new Promise((resolveRun) => {
    execFile(command, args, { cwd, env: { ...cleanEnv(), ...extraEnv }, timeout, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      const code = err === null ? 0 : typeof err.code === 'number' ? err.code : null;
      resolveRun({ code, stdout, stderr });
    });
  });
}

const npx = (args: readonly string[], cwd: string, env: Record<string, string> = {}) => run('npx', ['--no', '--', 'mftops', ...args], cwd, env);

/** The files a fresh clone has: what git holds, and what is new and not ignored (work in progress). */
async function copyCheckout(to: string): Promise<void> {
  const listed = await run('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], REPO_ROOT);
  if (listed.code !== 0) throw new Error(`git ls-files failed in ${REPO_ROOT}: ${listed.stderr}`);
  for (const file of listed.stdout.split('\0')) {
    if (file === '' || !existsSync(join(REPO_ROOT, file))) continue;
    mkdirSync(dirname(join(to, file)), { recursive: true });
    cpSync(join(REPO_ROOT, file), join(to, file));
  }
  // The build tools (prepack runs tsc), as `npm ci` would have installed them.
  symlinkSync(realpathSync(join(REPO_ROOT, 'node_modules')), join(to, 'node_modules'), 'dir');
}

let work: string;
/** `npm pack --json` of the fresh checkout: the tarball and every path in it. */
let packed: { filename: string; files: { path: string }[] };
/** The empty project the tarball was installed into. */
let project: string;
let installed: string;

beforeAll(
  async () => {
    work = await mkdtemp(join(tmpdir(), 'mftops-package-'));
    const checkout = join(work, 'checkout');
    await copyCheckout(checkout);
    expect(existsSync(join(checkout, 'dist')), 'the copy is a fresh checkout, without dist/').toBe(false);
    const pack = await run('npm', ['pack', '--json', '--pack-destination', work], checkout, {}, NPM_TIMEOUT_MS);
    expect(pack.code, `npm pack: ${pack.stderr}`).toBe(0);
    packed = (JSON.parse(pack.stdout) as (typeof packed)[])[0]!;
    project = join(work, 'project');
    mkdirSync(project);
    const install = await run('npm', ['i', '-D', join(work, packed.filename), '--prefer-offline', '--no-audit', '--no-fund'], project, {}, NPM_TIMEOUT_MS);
    expect(install.code, `npm i -D: ${install.stderr}`).toBe(0);
    installed = join(project, 'node_modules', 'mftops');
  },
  2 * NPM_TIMEOUT_MS + 120_000,
);

afterAll(async () => {
  if (work !== undefined) await rm(work, { recursive: true, force: true });
});

describe('the package', () => {
  it('packs, from a fresh checkout, the built CLI and what init, validate, the emulator and the Action read at run time, and no tests or benchmarks', () => {
    const paths = packed.files.map((f) => f.path).sort();
    const expected = [
      'bin/mftops.js',
      'dist/cli/main.js',
      'dist/app/policy-worker.js',
      'dist/emulator/index.js',
      // The validators compiled at build time (scripts/compile-schemas.mjs).
      'dist/manifest/compiled-validators.cjs',
      'package.json',
      'README.md',
      'LICENSE',
      'action.yml',
      'dist-action/index.mjs',
      'examples/workflows/plan.yml',
      'examples/workflows/apply.yml',
      'examples/workflows/drift.yml',
      'examples/seed/emulator-seed.json',
      ...readdirSync(join(REPO_ROOT, 'schemas')).map((f) => `schemas/${f}`),
    ];
    for (const path of expected) expect(paths, path).toContain(path);
    const unwanted = paths.filter((p) => /^(test|bench|scripts|src|\.ci|dist-bench|docs|node_modules)\//.test(p) || p.endsWith('.map') || p.endsWith('.ts'));
    expect(unwanted).toEqual([]);
  });

  it('installs with npm i -D into an empty folder, and npx mftops runs init, validate and plan against npx mftops emulator', { timeout: 400_000 }, async () => {
    const version = await npx(['--version'], project);
    expect(version.code, version.stderr).toBe(0);
    expect(version.stdout).toContain((JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version);

    const init = await npx(['init'], project);
    expect(init.stderr).not.toContain('error');
    expect(init.code).toBe(0);
    const written = init.stdout.trim().split('\n');
    expect(written).toEqual(
      expect.arrayContaining(['mftops.yaml', '.github/workflows/mftops-plan.yml', '.github/workflows/mftops-apply.yml', '.github/workflows/mftops-drift.yml']),
    );

    // Every schema a written file names is a file of the installed package, named by a relative path.
    let schemaLines = 0;
    for (const file of written) {
      for (const [, ref] of readFileSync(join(project, file), 'utf8').matchAll(/^# yaml-language-server: \$schema=(\S+)$/gm)) {
        schemaLines++;
        expect(ref, file).not.toMatch(/^[a-z]+:/);
        const target = resolve(project, dirname(file), ref!);
        expect(target.startsWith(join(installed, 'schemas')), `${file}: ${ref}`).toBe(true);
        expect(existsSync(target), `${file}: ${ref}`).toBe(true);
      }
    }
    expect(schemaLines).toBe(4);
    // And every schema the package carries finds the files it refers to in the package.
    for (const file of readdirSync(join(installed, 'schemas'))) {
      for (const [, ref] of readFileSync(join(installed, 'schemas', file), 'utf8').matchAll(/"\$ref":\s*"([^"#]+)/g)) {
        expect(existsSync(join(installed, 'schemas', ref!.replace(/^https:\/\/mftops\.dev\/schemas\//, ''))), `${file}: ${ref}`).toBe(true);
      }
    }

    // Every action the workflows use resolves: a local path holding action.yml, whose main is there too.
    for (const file of written.filter((f) => f.startsWith('.github/workflows/'))) {
      const workflow = parse(readFileSync(join(project, file), 'utf8')) as { jobs: Record<string, { steps: { uses?: string }[] }> };
      const uses = Object.values(workflow.jobs).flatMap((j) =>
        j.steps.flatMap((s) => (s.uses !== undefined && !s.uses.startsWith('actions/') ? [s.uses] : [])),
      );
      expect(uses.length, file).toBeGreaterThan(0);
      for (const u of uses) {
        expect(u, file).toBe('./node_modules/mftops');
        const action = parse(readFileSync(join(project, u, 'action.yml'), 'utf8')) as { runs: { using: string; main: string } };
        expect(existsSync(join(project, u, action.runs.main)), `${file}: ${u}`).toBe(true);
      }
    }

    const validate = await npx(['validate'], project);
    expect(validate).toMatchObject({ code: 0, stdout: '3 manifests valid\n' });

    const emulator = await startEmulator(project);
    try {
      const config = join(project, 'mftops.yaml');
      writeFileSync(
        config,
        readFileSync(config, 'utf8')
          .replace('https://automation.example.com', `${emulator.origin}/automation`)
          .replace('https://transfer.example.com', `${emulator.origin}/transfer`),
      );
      const credentials = {
        MFT_AUTOMATION_USER: SEED_LOGINS.automationAdmin.username,
        MFT_AUTOMATION_PASSWORD: SEED_LOGINS.automationAdmin.password,
        MFT_TRANSFER_USER: SEED_LOGINS.transferAdmin.username,
        MFT_TRANSFER_PASSWORD: SEED_LOGINS.transferAdmin.password,
      };
      const plan = await npx(['plan', '--detailed-exitcode'], project, credentials);
      expect(plan.stderr).not.toMatch(/error/);
      expect(hasStackTrace(plan.stdout + plan.stderr)).toBe(false);
      expect(plan.code).toBe(2);
      expect(plan.stdout).toContain('Task/Example daily reports');
      expect(plan.stdout).toMatch(/^Plan: [1-9]\d* to create, /m);

      // The JSON output's kind names its schema (README: output-<kind>.schema.json): a file the package carries.
      const json = await npx(['plan', '--format', 'json'], project, credentials);
      const kind = (JSON.parse(json.stdout) as { kind: string }).kind;
      expect(kind).toBe('mftops.plan');
      expect(existsSync(join(installed, 'schemas', `output-${kind.replace(/^mftops\./, '').replace(/\./g, '-')}.schema.json`))).toBe(true);
    } finally {
      await emulator.stop();
    }

    // The Action as the workflows run it (uses: ./node_modules/mftops): its bundle finds its schemas in the package.
    const action = await runActionProcess({
      bundle: join(installed, 'dist-action', 'index.mjs'),
      inputs: { command: 'validate', 'working-directory': '.' },
      workspace: project,
      eventName: 'push',
    });
    expect(action.stderr).toBe('');
    expect(action).toMatchObject({ code: 0, outputs: { exitcode: '0', summary: '3 manifests valid' } });
  });
});

/**
 * `npx mftops emulator` with the example seed the package carries, in its own process group (npx
 * starts the CLI as a child), until `stop`. Its origin is read from the first URL it prints.
 */
function startEmulator(cwd: string): Promise<{ origin: string; stop: () => Promise<void> }> {
  const child: ChildProcess = spawn('npx', ['--no', '--', 'mftops', 'emulator', '--seed', 'node_modules/mftops/examples/seed/emulator-seed.json'], {
    cwd,
    env: cleanEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const exited = new Promise<void>((resolveExit) => child.on('close', () => resolveExit()));
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) {
      try {
        process.kill(-child.pid, 'SIGTERM');
      } catch {
        // already gone
      }
    }
    await exited;
  };
  return new Promise((resolveStart, rejectStart) => {
    let out = '';
    let err = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString('utf8');
      const url = /http:\/\/127\.0\.0\.1:\d+/.exec(out);
      if (url) resolveStart({ origin: url[0], stop });
    });
    child.stderr!.on('data', (d: Buffer) => (err += d.toString('utf8')));
    child.on('close', (code) => rejectStart(new Error(`npx mftops emulator exited ${code} before printing its URL: ${out}${err}`)));
  });
}
