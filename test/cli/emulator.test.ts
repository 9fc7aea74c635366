import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';
import { testdir } from '../helpers/testdir.js';
import { EXAMPLE_SEED_FILES } from '../helpers/emulator-test-api.js';

const BIN = fileURLToPath(new URL('../../bin/mftops.js', import.meta.url));
const SEED = EXAMPLE_SEED_FILES.production;

let child: ChildProcess | undefined;
afterEach(async () => {
  if (child && child.exitCode === null) {
    const closed = new Promise((resolveClose) => child!.once('close', resolveClose));
    child.kill('SIGTERM');
    await closed;
  }
  child = undefined;
});

/** Start `mftops emulator` with these arguments; resolves with its start line once it listens. */
function startCli(args: readonly string[]): Promise<{ url: string; stdout: string }> {
  return new Promise((resolveStart, reject) => {
    const proc = spawn(process.execPath, [BIN, 'emulator', '--port', '0', ...args], {
      env: { PATH: process.env['PATH'] ?? '', NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = proc;
    let stdout = '';
    let stderr = '';
    proc.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    proc.stdout.on('data', (d: Buffer) => {
      stdout += d.toString('utf8');
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)[\s\S]*requests: /.exec(stdout);
      if (m) resolveStart({ url: m[1]!, stdout });
    });
    proc.on('close', (code) => reject(new Error(`mftops emulator exited ${String(code)}: ${stderr}`)));
  });
}

describe('mftops emulator --profile and --variant', () => {
  it('rule 105: --variant automation.days=short serves that reading and the start line lists it', async () => {
    const { url, stdout } = await startCli(['--seed', SEED, '--variant', 'automation.days=short', '--variant', 'transfer.ids=string']);
    expect(stdout).toContain('mftops emulator (current profile) listening on');
    expect(stdout).toContain('  variants:   automation.days=short transfer.ids=string\n');
    const token = await fetch(`${url}/automation/api/v1/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=password&username=admin&password=admin-Pa55!seed',
    });
    const { access_token } = (await token.json()) as { access_token: string };
    const task = (await (await fetch(`${url}/automation/api/v1/tasks/401005`, { headers: { authorization: `Bearer ${access_token}` } })).json()) as {
      Schedules: { Schedule: { Days: { DayOfWeek: string[] } }[] };
    };
    expect(task.Schedules.Schedule[0]!.Days.DayOfWeek).toEqual(['Mon', 'Wed', 'Fri']);
    const health = (await (await fetch(`${url}/_emulator/health`)).json()) as { profile: string; variants: Record<string, string> };
    expect(health).toMatchObject({ profile: 'current', variants: { 'automation.days': 'short', 'transfer.ids': 'string', 'automation.times': 'padded' } });
  });

  it('rule 105: --profile divergent serves the other reading of every switch', async () => {
    const { url, stdout } = await startCli(['--profile', 'divergent']);
    expect(stdout).toContain('mftops emulator (divergent profile) listening on');
    expect(stdout).toContain('automation.basePath=webadmin');
    const health = (await (await fetch(`${url}/_emulator/health`)).json()) as { variants: Record<string, string> };
    expect(health.variants).toMatchObject({ 'automation.basePath': 'webadmin', 'automation.dateListRef': 'string', 'transfer.aclAnswer': 'empty' });
  });

  it('rule 105: an unknown switch or reading exits 1 with one line naming the known ones', async () => {
    const name = await runCli(['emulator', '--variant', 'automation.dayz=short']);
    expect(name.code).toBe(1);
    expect(name.stderr).toMatch(
      /^mftops: error: unknown variant automation\.dayz; did you mean automation\.days\? \(known: automation\.basePath, automation\.ids, .*, transfer\.groupMembers\)\n$/,
    );
    const value = await runCli(['emulator', '--variant', 'automation.days=shrot']);
    expect(value.code).toBe(1);
    expect(value.stderr).toBe('mftops: error: variant automation.days must be long, short, not "shrot"; did you mean short?\n');
    const profile = await runCli(['emulator', '--profile', 'legasy']);
    expect(profile.code).toBe(1);
    expect(profile.stderr).toContain('current, legacy, divergent');
  });
});

describe('mftops emulator: credentials and an mftops.yaml', () => {
  /** The passwords of the printed `export` line, as a shell would set them. */
  function exported(stdout: string): Record<string, string> {
    const line = stdout.split('\n').find((l) => l.startsWith('  export '));
    expect(line).toBeDefined();
    return Object.fromEntries([...line!.matchAll(/([A-Z_]+)='([^']*)'/g)].map((m) => [m[1]!, m[2]!]));
  }

  it("prints the seed's administrators, the export line for their passwords and an mftops.yaml that status accepts", async () => {
    const { stdout } = await startCli(['--seed', SEED]);
    // The URL lines stay as they were (scripts read them); what is new comes after them.
    const lines = stdout.split('\n');
    expect(lines.slice(1, 4).map((l) => l.replace(/\d+/g, 'N'))).toEqual([
      '  automation: http://N.N.N.N:N/automation',
      '  transfer:   http://N.N.N.N:N/transfer',
      '  requests:   http://N.N.N.N:N/_emulator/requests',
    ]);
    const rest = await untilQuiet(stdout, /manifests: /);
    expect(rest).toContain('  automation sign-in: admin / admin-Pa55!seed\n  transfer sign-in:   admin / xfer-admin-Pa55!seed\n');
    expect(exported(rest)).toEqual({ MFT_AUTOMATION_PASSWORD: 'admin-Pa55!seed', MFT_TRANSFER_PASSWORD: 'xfer-admin-Pa55!seed' });
    // The snippet: references, never the password itself, and no account but the admins'.
    const yaml = rest
      .slice(rest.indexOf('  apiVersion: mftops/v1'))
      .split('\n')
      .map((l) => l.slice(2))
      .join('\n');
    expect(yaml).toContain('password: "${env:MFT_AUTOMATION_PASSWORD}"');
    expect(yaml).not.toContain('Pa55!seed');
    expect(rest).not.toContain('SEEDSECRET');
    const dir = testdir({ 'mftops.yaml': yaml });
    const status = await runCli(['status'], { cwd: dir, env: exported(rest) });
    expect(status.stderr).toBe('');
    expect(status.code).toBe(0);
    expect(status.stdout).toContain('Environment emulator (');
    expect(status.stdout).toContain('All 2 services reachable.');
  });

  it('--write-config FILE writes that mftops.yaml, never over an existing file without --force', async () => {
    const dir = testdir({ 'taken.yaml': 'mine\n' });
    const refused = await runCli(['emulator', '--port', '0', '--write-config', join(dir, 'taken.yaml')]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(`mftops: error: ${join(dir, 'taken.yaml')} exists: pass --force to overwrite it, or choose another file\n`);
    expect(refused.stdout).toBe('');
    expect(readFileSync(join(dir, 'taken.yaml'), 'utf8')).toBe('mine\n');

    const { stdout } = await startCli(['--write-config', join(dir, 'mftops.yaml')]);
    const rest = await untilQuiet(stdout, /Wrote /);
    expect(rest).toContain(`Wrote ${join(dir, 'mftops.yaml')}: environment "emulator" on this emulator`);
    const written = readFileSync(join(dir, 'mftops.yaml'), 'utf8');
    expect(written).toMatch(/^# mftops\.yaml for the mftops emulator at http:\/\/127\.0\.0\.1:\d+, written by mftops emulator --write-config\.\n/);
    expect(written).not.toContain('Pa55!seed');
    const status = await runCli(['status'], { cwd: dir, env: exported(rest) });
    expect(status.code).toBe(0);
    expect(status.stdout).toContain('All 2 services reachable.');
  });

  it('--force overwrites an existing FILE', async () => {
    const dir = testdir({ 'mftops.yaml': 'old\n' });
    const { stdout } = await startCli(['--write-config', join(dir, 'mftops.yaml'), '--force']);
    await untilQuiet(stdout, /Wrote /);
    expect(readFileSync(join(dir, 'mftops.yaml'), 'utf8')).toContain('kind: Config');
  });
});

/** The emulator's stdout once it has printed a line matching `last` (it prints its start block at once, then nothing). */
function untilQuiet(sofar: string, last: RegExp): Promise<string> {
  if (last.test(sofar)) return Promise.resolve(sofar);
  return new Promise((resolveAll) => {
    let text = sofar;
    child!.stdout!.on('data', (d: Buffer) => {
      text += d.toString('utf8');
      if (last.test(text)) resolveAll(text);
    });
  });
}
