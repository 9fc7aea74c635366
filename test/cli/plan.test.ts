import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { emulatorConfigYaml } from '../../src/emulator/config-for.js';
import { countRequests, loadSeedFile, startEmulator } from '../../src/emulator/index.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { extendSeed, writeEstateManifests } from '../../bench/estate.js';
import { readPlanFile } from '../../src/app/plan-file.js';
import { SEED_LOGINS, startSeededEmulator } from '../integration/helpers.js';
import { startHoldProxy } from '../helpers/hold-proxy.js';
import { hasStackTrace, runCli } from '../helpers/run-cli.js';
import { testdir } from '../helpers/testdir.js';
import { copyExampleManifests, emulatorWorkdir } from '../helpers/example-workdir.js';
import { EXAMPLE_SEED_FILES, listWrites } from '../helpers/emulator-test-api.js';

/** The example manifests' secrets: `${env:ACME_SFTP_PASSWORD}`, and the `${file:}` the work folder holds. */
const MANIFEST_SECRETS = { acmeSftp: 'acme-sftp-plan-test-secret', auditShare: 'audit-share-plan-test-secret' };
const ENV = {
  MFT_AUTOMATION_PASSWORD: SEED_LOGINS.automationAdmin.password,
  MFT_TRANSFER_PASSWORD: SEED_LOGINS.transferAdmin.password,
  ACME_SFTP_PASSWORD: MANIFEST_SECRETS.acmeSftp,
};
/** Every secret of the seed and of this test's environment: none may appear in any output. */
const SECRETS = ['SEEDSECRET', SEED_LOGINS.automationAdmin.password, SEED_LOGINS.transferAdmin.password, 'Pa55!seed', ...Object.values(MANIFEST_SECRETS)];

let emulator: RunningEmulator;
beforeAll(async () => {
  emulator = await startSeededEmulator();
});
afterAll(() => emulator.close());
beforeEach(() => emulator.resetRequestLog());

/** A working folder with mftops.yaml pointing at the emulator and a copy of the example manifests, with their secret file. */
function workdir(): string {
  const dir = emulatorWorkdir(emulator);
  copyExampleManifests(dir, MANIFEST_SECRETS.auditShare);
  return dir;
}

function writes(): string[] {
  return listWrites(emulator);
}

describe('mftops plan against the emulator', () => {
  it('prints the plan of the examples and exits 0, or 2 with --detailed-exitcode', async () => {
    const dir = workdir();
    const plain = await runCli(['plan'], { cwd: dir, env: ENV });
    expect(plain.stderr).toBe('');
    expect(plain.code).toBe(0);
    expect(plain.stdout).toMatch(
      /^Plan: \d+ to create, \d+ to update, \d+ to replace, \d+ to delete, \d+ blocked\. (\d+ users? gains? access)?(, )?(\d+ (users? )?loses? access)?(, \d+ groups? with unknown members [^.]*)?\.$/m,
    );
    expect(plain.stdout).toContain('+ Task/Month-end report will be created');
    const detailed = await runCli(['plan', '--detailed-exitcode'], { cwd: dir, env: ENV });
    expect(detailed.code).toBe(2);
  });

  it('sends no write at all: only GETs and token calls reach the servers', async () => {
    const dir = workdir();
    expect((await runCli(['plan'], { cwd: dir, env: ENV })).code).toBe(0);
    const log = emulator.requestLog();
    expect(log.length).toBeGreaterThan(10);
    expect(writes()).toEqual([]);
  });

  it('saves a plan file that reads back, and leaks no secret into any output', async () => {
    const dir = workdir();
    const r = await runCli(['plan', '--out', 'plan.json', '-v'], { cwd: dir, env: ENV });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('Saved the plan to plan.json');
    const plan = readPlanFile(join(dir, 'plan.json'));
    expect(plan.environment).toBe('lab');
    expect(plan.servers.automation?.url).toBe(emulator.automationUrl);
    expect(plan.changes.length).toBeGreaterThan(10);
    const md = await runCli(['plan', '--format', 'markdown'], { cwd: dir, env: ENV });
    const json = await runCli(['plan', '--format', 'json'], { cwd: dir, env: ENV });
    const everything = [r.stdout, r.stderr, readFileSync(join(dir, 'plan.json'), 'utf8'), md.stdout, md.stderr, json.stdout, json.stderr].join('\n');
    for (const secret of SECRETS) expect(everything).not.toContain(secret);
    expect(JSON.parse(json.stdout).formatVersion).toBe(2);
  });

  it('stops on invalid manifests before sending a single request', async () => {
    const dir = workdir();
    writeFileSync(join(dir, 'manifests', 'broken.yaml'), 'apiVersion: mftops/v1\nkind: Task\nmetadata: { name: Broken }\nspec:\n  Active: maybe\n');
    const r = await runCli(['plan'], { cwd: dir, env: ENV });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/manifests\/broken\.yaml:5:11: error MF20\d/);
    expect(r.stdout).toBe('');
    expect(emulator.requestLog()).toEqual([]);
    expect(hasStackTrace(r.stderr)).toBe(false);
  });

  it('reports names the servers do not know with file and line, and saves no plan', async () => {
    const dir = workdir();
    writeFileSync(
      join(dir, 'manifests', 'unknown.yaml'),
      [
        'apiVersion: mftops/v1',
        'kind: Task',
        'metadata: { name: Unknown host task }',
        'spec:',
        '  Group: [Partners]',
        '  steps:',
        '    - Source: { Host: acme-sftpp, Path: /x, FileMask: "*" }',
        '    - Destination: { Host: local-fs, Path: /y }',
        '',
      ].join('\n'),
    );
    const r = await runCli(['plan', '--out', 'plan.json'], { cwd: dir, env: ENV });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/manifests\/unknown\.yaml:7:\d+: error MF401: .*acme-sftpp.*/);
    expect(r.stderr).toContain('acme-sftp');
    // The errored plan is neither printed nor saved.
    expect(r.stdout).toBe('');
    expect(() => readFileSync(join(dir, 'plan.json'))).toThrow();
    expect(writes()).toEqual([]);
  });

  it('limits the plan to --target addresses and says when one names nothing', async () => {
    const dir = workdir();
    const r = await runCli(['plan', '--target', 'Task/Month-end report', '--target', 'FolderPermissions/Finance/Reports', '--format', 'json'], {
      cwd: dir,
      env: ENV,
    });
    expect(r.code).toBe(0);
    const plan = JSON.parse(r.stdout) as { changes: Array<{ address: string }> };
    expect(plan.changes.map((c) => c.address).sort()).toEqual(['FolderPermissions/Finance/Reports', 'Task/Month-end report']);
    // An address that names nothing is a warning (as in Terraform), and the plan is limited to nothing.
    const bad = await runCli(['plan', '--target', 'Task/No such task', '--detailed-exitcode'], { cwd: dir, env: ENV });
    expect(bad.code).toBe(0);
    expect(bad.stderr).toMatch(/^Task\/No such task: warning MF409: --target names nothing in this plan/m);
    expect(bad.stdout).toContain('No changes.');
  });

  it('keeps --parallelism reads in flight, beyond the 8 connections a pool opens by default', async () => {
    const size = { tasks: 0, folders: 40, acls: 0 };
    const big = await startEmulator({ seed: extendSeed(loadSeedFile(EXAMPLE_SEED_FILES.production), size) });
    // The first 20 folder ACL reads are held until all 20 are in flight at once (with the pool's
    // default 8 connections, the 9th would never come and the test would time out).
    let held = 0;
    const proxy = await startHoldProxy(big, (method, path) => {
      if (method !== 'GET' || !/\/folders\/[^/]+\/acls$/.test(path.split('?')[0]!) || held === 20) return false;
      held++;
      return true;
    });
    try {
      const dir = testdir({
        'mftops.yaml': emulatorConfigYaml({ ...big, automationUrl: `${proxy.url}/automation`, transferUrl: `${proxy.url}/transfer`, manifests: ['manifests'] }),
      });
      writeEstateManifests(join(dir, 'manifests'), size, false);
      big.resetRequestLog();
      const run = runCli(['plan', '--parallelism', '20', '--detailed-exitcode', '-q'], { cwd: dir, env: ENV });
      const inFlight = await Promise.all(Array.from({ length: 20 }, () => proxy.nextHeld()));
      expect(new Set(inFlight.map((r) => r.path)).size).toBe(20);
      await Promise.all(inFlight.map((r) => r.release()));
      const r = await run;
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(countRequests(big.requestLog()).writes).toBe(0);
      expect(big.requestLog().filter((x) => /\/acls$/.test(x.path))).toHaveLength(40);
    } finally {
      await proxy.close();
      await big.close();
    }
  });

  it('refuses a bad --parallelism before anything else', async () => {
    const r = await runCli(['plan', '--parallelism', '0'], { cwd: workdir(), env: ENV });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('mftops: error: --parallelism must be a whole number from 1 to 64, not "0"\n');
    expect(emulator.requestLog()).toEqual([]);
  });
});
