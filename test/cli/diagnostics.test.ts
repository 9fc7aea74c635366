import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { SEED_LOGINS, startSeededEmulator } from '../integration/helpers.js';
import { hasStackTrace, runCli } from '../helpers/run-cli.js';
import { testdir } from '../helpers/testdir.js';
import { copyExampleManifests, emulatorWorkdir } from '../helpers/example-workdir.js';
import { listWrites } from '../helpers/emulator-test-api.js';

/**
 * Problems that are not in a manifest line, end to end: the configuration file's (coded, at their
 * place in mftops.yaml, in the format asked for) and a `--target` that names nothing (at its
 * address, with no file).
 */

const LITERAL = 'Pl41n-SEEDED';
/** A literal password (line 8, column 17) and an unknown key (line 9, column 7). */
const BAD_CONFIG = `apiVersion: mftops/v1
kind: Config
environments:
  prod:
    transfer:
      url: https://mft.example.com
      username: admin
      password: ${LITERAL}
      colour: red
`;
const PASSWORD_PROBLEM =
  'environments.prod.transfer.password: must be a ${env:NAME} or ${file:PATH} reference; passwords are never written in the configuration file';
const KEY_PROBLEM = 'environments.prod.transfer: unknown key `colour`';

describe('configuration problems', () => {
  it('text: each with its code and place on stderr, all at once, exit 1, no stack', async () => {
    const r = await runCli(['status'], { cwd: testdir({ 'mftops.yaml': BAD_CONFIG }) });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`mftops.yaml:8:17: error MF506: ${PASSWORD_PROBLEM}\nmftops.yaml:9:7: error MF503: ${KEY_PROBLEM}\n2 errors in 1 file\n`);
    expect(r.stderr).not.toContain(LITERAL);
    expect(hasStackTrace(r.stderr)).toBe(false);
  });

  it('--format json: an mftops.error document of the diagnostics on stdout', async () => {
    const r = await runCli(['plan', '--format', 'json'], { cwd: testdir({ 'mftops.yaml': BAD_CONFIG }) });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual({
      formatVersion: 1,
      kind: 'mftops.error',
      errors: [
        { severity: 'error', code: 'MF506', message: PASSWORD_PROBLEM, file: 'mftops.yaml', line: 8, col: 17, endLine: 8, endCol: 29 },
        { severity: 'error', code: 'MF503', message: KEY_PROBLEM, file: 'mftops.yaml', line: 9, col: 7, endLine: 9, endCol: 13 },
      ],
    });
    expect(r.stdout).not.toContain(LITERAL);
  });

  it('--format github: an annotation on the line of each, on stdout', async () => {
    const r = await runCli(['drift', '--format', 'github'], { cwd: testdir({ 'mftops.yaml': BAD_CONFIG }) });
    expect(r.code).toBe(1);
    expect(r.stdout.split('\n')).toEqual([
      `::error file=mftops.yaml,line=8,col=17,endLine=8,endColumn=29,title=MF506::${PASSWORD_PROBLEM}`,
      `::error file=mftops.yaml,line=9,col=7,endLine=9,endColumn=13,title=MF503::${KEY_PROBLEM}`,
      '2 errors in 1 file',
      '',
    ]);
  });

  it('a missing file is at the file, with no line, in every format', async () => {
    const dir = testdir({});
    const text = await runCli(['status'], { cwd: dir });
    expect(text.code).toBe(1);
    expect(text.stderr).toBe(
      'mftops.yaml: error MF501: configuration file not found\n  hint: pass --config FILE, or run from the folder that holds mftops.yaml\n1 error in 1 file\n',
    );
    const json = await runCli(['status', '--format', 'json'], { cwd: dir });
    expect(JSON.parse(json.stdout).errors).toEqual([
      {
        severity: 'error',
        code: 'MF501',
        message: 'configuration file not found',
        file: 'mftops.yaml',
        hint: 'pass --config FILE, or run from the folder that holds mftops.yaml',
      },
    ]);
    const github = await runCli(['plan', '--format', 'github'], { cwd: dir });
    expect(github.stdout).toMatch(/^::error file=mftops\.yaml,title=MF501::configuration file not found%0Ahint: pass --config FILE/m);
  });

  it('a variable a password needs is reported at its reference', async () => {
    const dir = testdir({ 'mftops.yaml': BAD_CONFIG.replace(LITERAL, '${env:MFT_TRANSFER_PASSWORD}').replace('      colour: red\n', '') });
    const r = await runCli(['status', '--format', 'json'], { cwd: dir });
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout).errors).toEqual([
      {
        severity: 'error',
        code: 'MF508',
        message: 'environments.prod.transfer.password: environment variable MFT_TRANSFER_PASSWORD is not set',
        file: 'mftops.yaml',
        line: 8,
        col: 17,
        endLine: 8,
        endCol: 45,
      },
    ]);
  });

  it('an unknown environment is still one line, without a code: it is not a problem of the file', async () => {
    const dir = testdir({ 'mftops.yaml': BAD_CONFIG.replace(LITERAL, '${env:P}').replace('      colour: red\n', '') });
    const text = await runCli(['status', '--env', 'staging'], { cwd: dir });
    expect(text.code).toBe(1);
    expect(text.stdout).toBe('');
    expect(text.stderr).toMatch(/^mftops: error: environment "staging" is not in .*mftops\.yaml \(known: prod\)\n$/);
    const json = await runCli(['status', '--env', 'staging', '--format', 'json'], { cwd: dir });
    expect(json.code).toBe(1);
    expect(json.stderr).toBe('');
    expect(JSON.parse(json.stdout)).toEqual({
      formatVersion: 1,
      kind: 'mftops.error',
      errors: [{ severity: 'error', message: expect.stringMatching(/^environment "staging" is not in .*mftops\.yaml \(known: prod\)$/) }],
    });
  });
  it('a misspelt key says which key was meant', async () => {
    const dir = testdir({ 'mftops.yaml': BAD_CONFIG.replace(LITERAL, '${env:P}').replace('      colour: red\n', '      caFlie: ca.pem\n') });
    const r = await runCli(['status'], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('mftops.yaml:9:7: error MF503: environments.prod.transfer: unknown key `caFlie` — did you mean `caFile`?\n1 error in 1 file\n');
  });
});

describe('a --target that names nothing', () => {
  const ENV = { MFT_AUTOMATION_PASSWORD: SEED_LOGINS.automationAdmin.password, MFT_TRANSFER_PASSWORD: SEED_LOGINS.transferAdmin.password };
  const SUMMARY = '--target names nothing in this plan — did you mean `Task/Month-end report`?';
  let emulator: RunningEmulator;
  beforeAll(async () => {
    emulator = await startSeededEmulator();
  });
  afterAll(() => emulator.close());

  it('is a warning at its address, with no file, in text, JSON and GitHub annotations', async () => {
    const dir = emulatorWorkdir(emulator);
    copyExampleManifests(dir);
    const plan = (...args: string[]) => runCli(['plan', '--target', 'Task/Month-end reprot', ...args], { cwd: dir, env: ENV });

    const text = await plan();
    expect(text.code).toBe(0);
    expect(text.stderr).toMatch(new RegExp(`^Task/Month-end reprot: warning MF409: ${SUMMARY.replace(/[?]/g, '\\?')}\n\\d+ manifests valid, 1 warning\n$`));
    expect(text.stdout).toContain('No changes.');

    const json = await plan('--format', 'json');
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ kind: 'mftops.plan' });
    expect(json.stderr).toContain('MF409');

    const github = await plan('--format', 'github');
    expect(github.code).toBe(0);
    expect(github.stdout).toMatch(new RegExp(`^::warning title=MF409::Task/Month-end reprot: ${SUMMARY.replace(/[?]/g, '\\?')}\n`));
  });

  it('a plan limited to nothing is saved with no change, and applying it writes nothing', async () => {
    const dir = emulatorWorkdir(emulator);
    copyExampleManifests(dir);
    const planned = await runCli(['plan', '--target', 'Task/Month-end reprot', '--out', 'plan.json'], { cwd: dir, env: ENV });
    expect(planned.code).toBe(0);
    expect(planned.stderr).toContain('warning MF409');
    emulator.resetRequestLog();
    const applied = await runCli(['apply', 'plan.json', '--auto-approve'], { cwd: dir, env: ENV });
    expect(applied.code).toBe(0);
    expect(listWrites(emulator)).toEqual([]);
  });

  it('one that is not an address at all is an error', async () => {
    const dir = emulatorWorkdir(emulator);
    copyExampleManifests(dir);
    const r = await runCli(['plan', '--target', 'Tsk/Month-end report'], { cwd: dir, env: ENV });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(
      /^Tsk\/Month-end report: error MF409: --target names nothing in this plan — did you mean `Task\/Month-end report`\?\n  hint: an address is Kind\/name/,
    );
  });
});
