import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { emulatorConfigYaml } from '../../src/emulator/config-for.js';
import { SEED_LOGINS, startSeededEmulator } from '../integration/helpers.js';
import { hasStackTrace, runCli } from '../helpers/run-cli.js';
import { testdir } from '../helpers/testdir.js';

let emulator: RunningEmulator;
beforeAll(async () => {
  emulator = await startSeededEmulator();
});
afterAll(() => emulator.close());

function configFor(automationUrl: string, transferUrl: string): string {
  return emulatorConfigYaml({ automationUrl, transferUrl, automationPassword: '${env:AUTO_PW}', transferPassword: '${file:transfer-password.txt}' });
}

const ENV = { AUTO_PW: SEED_LOGINS.automationAdmin.password };

describe('mftops status against the emulator', () => {
  it('signs in to both services and prints versions and counts (text and JSON)', async () => {
    const dir = testdir({
      'mftops.yaml': configFor(emulator.automationUrl, emulator.transferUrl),
      'transfer-password.txt': `${SEED_LOGINS.transferAdmin.password}\n`,
    });
    const text = await runCli(['status'], { cwd: dir, env: ENV });
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('ok, version 2025.1.0, signed in as admin (administrator)');
    expect(text.stdout).toContain('8 tasks, 8 hosts, 3 resource groups, 3 resource-group ACLs');
    expect(text.stdout).toContain('8 users, 4 groups');
    expect(text.stdout).toContain('All 2 services reachable.');

    const json = await runCli(['status', '--format', 'json'], { cwd: dir, env: ENV });
    expect(json.code).toBe(0);
    const report = JSON.parse(json.stdout) as { services: Array<{ service: string; ok: boolean; counts: Record<string, number> }> };
    expect(report.services.map((s) => [s.service, s.ok])).toEqual([
      ['automation', true],
      ['transfer', true],
    ]);
    expect(report.services.map((s) => s.counts)).toEqual([
      { tasks: 8, hosts: 8, resourceGroups: 3, resourceGroupAcls: 3 },
      { users: 8, groups: 4 },
    ]);
  });

  it('sends no write and revokes its tokens when done', async () => {
    const dir = testdir({
      'mftops.yaml': configFor(emulator.automationUrl, emulator.transferUrl),
      'transfer-password.txt': SEED_LOGINS.transferAdmin.password,
    });
    emulator.resetRequestLog();
    expect((await runCli(['status'], { cwd: dir, env: ENV })).code).toBe(0);
    const log = emulator.requestLog();
    expect(log.filter((r) => !r.isTokenCall && r.method !== 'GET')).toEqual([]);
    expect(log.filter((r) => r.path.endsWith('/token/revoke'))).toHaveLength(4);
  });

  it('reports a bad password per service, exits 1, and never prints a password or token, even with -v', async () => {
    const dir = testdir({ 'mftops.yaml': configFor(emulator.automationUrl, emulator.transferUrl), 'transfer-password.txt': 'Wr0ng-SEEDED-transfer' });
    const r = await runCli(['status', '-v'], { cwd: dir, env: ENV });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/transfer .*\n\s+error: transfer: POST \/transfer\/api\/v1\/token: 400/);
    expect(r.stdout).toContain('1 of 2 services failed.');
    for (const secret of [SEED_LOGINS.automationAdmin.password, 'Wr0ng-SEEDED-transfer', 'Bearer ', 'access_token', 'refresh_token']) {
      expect(r.stdout).not.toContain(secret);
      expect(r.stderr).not.toContain(secret);
    }
    expect(hasStackTrace(r.stdout + r.stderr)).toBe(false);
  });

  it('reports an unreachable server as a one-line error, exit 1', async () => {
    const dir = testdir({
      'mftops.yaml': configFor('http://127.0.0.1:9/automation', emulator.transferUrl),
      'transfer-password.txt': SEED_LOGINS.transferAdmin.password,
    });
    const r = await runCli(['status'], { cwd: dir, env: ENV });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/error: automation: POST \/automation\/api\/v1\/token: connection refused/);
    expect(r.stdout).toContain('1 of 2 services failed.');
  });
});

describe('MFTOPS_CONFIG and MFTOPS_ENV', () => {
  function twoEnvironments(): string {
    const services = [
      `    automation: { url: "${emulator.automationUrl}", username: admin, password: "\${env:AUTO_PW}" }`,
      `    transfer: { url: "${emulator.transferUrl}", username: admin, password: "\${env:XFER_PW}" }`,
    ];
    return testdir({
      'conf/two.yaml': ['apiVersion: mftops/v1', 'kind: Config', 'environments:', '  lab:', ...services, '  prod:', ...services, ''].join('\n'),
    });
  }
  const env = { ...ENV, XFER_PW: SEED_LOGINS.transferAdmin.password };

  it('stand in for --config and --env, say so in status, and lose to the flags', async () => {
    const dir = twoEnvironments();
    const file = `${dir}/conf/two.yaml`;
    const both = await runCli(['status'], { cwd: dir, env: { ...env, MFTOPS_CONFIG: 'conf/two.yaml', MFTOPS_ENV: 'prod' } });
    expect(both.code).toBe(0);
    expect(both.stdout.split('\n')[0]).toBe(`Environment prod (from MFTOPS_ENV) (${file}, from MFTOPS_CONFIG)`);
    const flag = await runCli(['status', '--env', 'lab'], { cwd: dir, env: { ...env, MFTOPS_CONFIG: 'conf/two.yaml', MFTOPS_ENV: 'prod' } });
    expect(flag.code).toBe(0);
    expect(flag.stdout.split('\n')[0]).toBe(`Environment lab (${file}, from MFTOPS_CONFIG)`);
    const flags = await runCli(['--config', 'conf/two.yaml', 'status', '--env', 'prod'], {
      cwd: dir,
      env: { ...env, MFTOPS_CONFIG: 'nowhere.yaml', MFTOPS_ENV: 'nothing' },
    });
    expect(flags.code).toBe(0);
    expect(flags.stdout.split('\n')[0]).toBe(`Environment prod (${file})`);
  });

  it('errors name the variable a wrong value came from', async () => {
    const dir = twoEnvironments();
    const env1 = await runCli(['status'], { cwd: dir, env: { ...env, MFTOPS_CONFIG: 'conf/two.yaml', MFTOPS_ENV: 'prd' } });
    expect(env1.code).toBe(1);
    expect(env1.stderr).toBe(`mftops: error: environment "prd" (from MFTOPS_ENV) is not in ${dir}/conf/two.yaml (known: lab, prod)\n`);
    const config = await runCli(['status'], { cwd: dir, env: { ...env, MFTOPS_CONFIG: 'conf/too.yaml' } });
    expect(config.code).toBe(1);
    expect(config.stderr).toBe(
      'conf/too.yaml: error MF501: configuration file not found\n  hint: MFTOPS_CONFIG names this file; fix it, or pass --config FILE\n1 error in 1 file\n',
    );
    expect(hasStackTrace(env1.stderr + config.stderr)).toBe(false);
  });
});
