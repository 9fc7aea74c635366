import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { hasStackTrace, runCli } from '../helpers/run-cli.js';
import { testdir } from '../helpers/testdir.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

describe('mftops command line', () => {
  it('lists the commands that exist in --help and exits 0', async () => {
    const r = await runCli(['--help']);
    expect(r.code).toBe(0);
    for (const cmd of ['validate', 'status', 'emulator']) expect(r.stdout).toMatch(new RegExp(`^  ${cmd}\\b`, 'm'));
    expect(r.stdout).toContain('--config <file>');
  });

  it('in a copy that was never built, says so in one line instead of "Cannot find module", exit 1', () => {
    // The launcher as a git checkout has it before npm run build: bin/ without dist/.
    const dir = testdir({ 'package.json': '{ "type": "module" }\n', 'bin/mftops.js': readFileSync(join(ROOT, 'bin/mftops.js'), 'utf8') });
    const r = spawnSync(process.execPath, [join(dir, 'bin/mftops.js'), 'plan'], { encoding: 'utf8' });
    expect(r.status).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      'mftops: error: this copy of mftops is not built (no dist/cli/main.js): run npm ci && npm run build in its folder, or install the packed package\n',
    );
  });

  it('prints its version', async () => {
    const r = await runCli(['--version']);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it('a usage error is one error line like any other, with the nearest command or option, exit 1', async () => {
    const r = await runCli(['paln']);
    expect(r).toEqual({ code: 1, stdout: '', stderr: "mftops: error: unknown command 'paln' (did you mean plan?)\n" });
    const o = await runCli(['plan', '--detailed-exitcod']);
    expect(o).toEqual({ code: 1, stdout: '', stderr: "mftops: error: unknown option '--detailed-exitcod' (did you mean --detailed-exitcode?)\n" });
    const b = await runCli(['status', '--bogus']);
    expect(b).toEqual({ code: 1, stdout: '', stderr: "mftops: error: unknown option '--bogus' (see mftops status --help)\n" });
    const m = await runCli(['--env', 'lab', 'snapshot', 'verify']);
    expect(m).toEqual({ code: 1, stdout: '', stderr: "mftops: error: missing required argument 'id' (see mftops snapshot verify --help)\n" });
    // --format json: the one error document on stdout, as for any other error.
    const j = await runCli(['--format', 'json', 'paln']);
    expect(j.code).toBe(1);
    expect(j.stderr).toBe('');
    expect(JSON.parse(j.stdout)).toMatchObject({
      kind: 'mftops.error',
      errors: [expect.objectContaining({ message: "unknown command 'paln' (did you mean plan?)" })],
    });
  });

  it("a command's --help lists the global options too", async () => {
    for (const args of [
      ['plan', '--help'],
      ['snapshot', 'restore', '--help'],
    ]) {
      const r = await runCli(args);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/^Global Options:$/m);
      for (const o of ['--config <file>', '--env <name>', '--format <format>', '--no-color', '-q, --quiet', '-v, --verbose'])
        expect(r.stdout, `${args.join(' ')}: ${o}`).toContain(o);
    }
    expect((await runCli(['--help'])).stdout).toContain('(default: $MFTOPS_ENV, else the only one)');
  });

  it('reports a missing configuration file at the file, with how to point at it, exit 1, no stack trace', async () => {
    const dir = testdir({});
    const r = await runCli(['status'], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      'mftops.yaml: error MF501: configuration file not found\n  hint: pass --config FILE, or run from the folder that holds mftops.yaml\n1 error in 1 file\n',
    );
    expect(r.stdout).toBe('');
  });

  it('reports every configuration mistake with its position and never echoes a literal password', async () => {
    const dir = testdir({
      'mftops.yaml':
        'apiVersion: mftops/v1\nkind: Config\nenvironments:\n  prod:\n    transfer:\n      url: http://mft.corp.example:8080\n      username: admin\n      password: Pl41n-SEEDED\n',
    });
    const r = await runCli(['status'], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('mftops.yaml:8:17: error MF506: environments.prod.transfer.password: must be a ${env:NAME} or ${file:PATH} reference');
    expect(r.stderr).not.toContain('Pl41n-SEEDED');
    expect(hasStackTrace(r.stderr)).toBe(false);
  });

  it('rejects bad emulator options before starting anything', async () => {
    const r = await runCli(['emulator', '--fault-rate', '2']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('mftops: error: --fault-rate must be a number from 0 to 1, not "2"\n');
  });

  it('names the environment variable a password needs', async () => {
    const dir = testdir({
      'mftops.yaml':
        'apiVersion: mftops/v1\nkind: Config\nenvironments:\n  prod:\n    transfer:\n      url: https://mft.example.com\n      username: admin\n      password: ${env:MFT_TRANSFER_PASSWORD}\n',
    });
    const r = await runCli(['status'], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/environments\.prod\.transfer\.password: environment variable MFT_TRANSFER_PASSWORD is not set/);
  });

  it('names every variable and secret file the credentials need, of both services, at once', async () => {
    const dir = testdir({
      'mftops.yaml': [
        'apiVersion: mftops/v1',
        'kind: Config',
        'environments:',
        '  prod:',
        '    automation:',
        '      url: https://automation.example.com',
        '      username: ${env:MFT_AUTOMATION_USER}',
        '      password: ${env:MFT_AUTOMATION_PASSWORD}',
        '    transfer:',
        '      url: https://mft.example.com',
        '      username: admin',
        '      password: ${file:secrets/transfer.txt}',
        '',
      ].join('\n'),
    });
    const r = await runCli(['status'], { cwd: dir, env: { MFT_AUTOMATION_PASSWORD: '' } });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      [
        'mftops.yaml:7:17: error MF508: environments.prod.automation.username: environment variable MFT_AUTOMATION_USER is not set',
        'mftops.yaml:8:17: error MF508: environments.prod.automation.password: environment variable MFT_AUTOMATION_PASSWORD is set but empty',
        `mftops.yaml:12:17: error MF508: environments.prod.transfer.password: secret file ${join(dir, 'secrets/transfer.txt')} does not exist`,
        '3 errors in 1 file',
        '',
      ].join('\n'),
    );
  });
});

describe('colour', () => {
  it('never colours with --no-color, also for validate', async () => {
    const dir = testdir({ 'bad.yaml': 'apiVersion: mftops/v1\nkind: Tsak\nmetadata: { name: x }\nspec: {}\n' });
    const { captureIo } = await import('../../src/cli/io.js');
    const { main } = await import('../../src/cli/main.js');
    const io = captureIo({ cwd: dir, isTty: true, env: {} });
    await main(['node', 'mftops', '--no-color', 'validate', 'bad.yaml'], io);
    expect(io.out()).toContain('MF102');
    expect(io.out()).not.toContain('\u001b[');
    const coloured = captureIo({ cwd: dir, isTty: true, env: {} });
    await main(['node', 'mftops', 'validate', 'bad.yaml'], coloured);
    expect(coloured.out()).toContain('\u001b[');
    process.exitCode = 0;
  });
});
