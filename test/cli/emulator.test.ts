import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';

const BIN = fileURLToPath(new URL('../../bin/mftops.js', import.meta.url));
const SEED = fileURLToPath(new URL('../../examples/seed/emulator-seed.json', import.meta.url));

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
    const proc = spawn(process.execPath, [BIN, 'emulator', '--port', '0', ...args], { env: { PATH: process.env['PATH'] ?? '', NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
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
    const token = await fetch(`${url}/automation/api/v1/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'grant_type=password&username=admin&password=admin-Pa55!seed' });
    const { access_token } = (await token.json()) as { access_token: string };
    const task = (await (await fetch(`${url}/automation/api/v1/tasks/401005`, { headers: { authorization: `Bearer ${access_token}` } })).json()) as { Schedules: { Schedule: { Days: { DayOfWeek: string[] } }[] } };
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
    expect(name.stderr).toMatch(/^mftops: error: unknown variant automation\.dayz; did you mean automation\.days\? \(known: automation\.basePath, automation\.ids, .*, transfer\.groupMembers\)\n$/);
    const value = await runCli(['emulator', '--variant', 'automation.days=shrot']);
    expect(value.code).toBe(1);
    expect(value.stderr).toBe('mftops: error: variant automation.days must be long, short, not "shrot"; did you mean short?\n');
    const profile = await runCli(['emulator', '--profile', 'legasy']);
    expect(profile.code).toBe(1);
    expect(profile.stderr).toContain('current, legacy, divergent');
  });
});
