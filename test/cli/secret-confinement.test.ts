import { mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { startSeededEmulator } from '../integration/helpers.js';
import { positionOf } from '../helpers/position-of.js';
import { hasStackTrace, runCli } from '../helpers/run-cli.js';
import { testdir } from '../helpers/testdir.js';
import { APPLY_ENV, applyWorkdir, tasksNamed, writesOf } from '../apply/helpers.js';

/**
 * Issue 23, finding 5: a manifest's `${file:}` read any file of the machine and apply sent it to
 * the server as a task password. Now it reads only regular files inside the repository (the
 * folder of mftops.yaml) and `secrets.fileRoots`, symlinks resolved, never /proc, /sys or /dev;
 * and a manifest's `${env:}` may not name a variable mftops.yaml signs in with. Refused at
 * validate, plan and apply (MF325, MF326 at the reference), before any request.
 */

const OUTSIDE_SECRET = 'outside-secret-4471';

let emulator: RunningEmulator;
beforeEach(async () => {
  emulator = await startSeededEmulator();
});
afterEach(() => emulator.close());

/** A task create whose destination password is `reference`, in manifests/tasks.yaml. */
function taskWith(reference: string): string {
  return [
    'apiVersion: mftops/v1',
    'kind: Task',
    'metadata: { name: Exfiltration test }',
    'spec:',
    '  Active: 1',
    '  Group: [Operations]',
    '  steps:',
    '    - Source: { Host: local-fs, Path: /x, FileMask: "*", DeleteOrig: 0 }',
    '    - Destination:',
    '        Host: initech-s3',
    '        Path: /incoming',
    '        UseDefUser: 0',
    '        Username: exfil',
    `        Password: "${reference}"`,
    '',
  ].join('\n');
}

/** A project whose only manifest sends `reference`; prunes nothing, so a valid plan's one write is the create. */
function project(reference: string, extraConfig = ''): { dir: string; at: string } {
  const text = taskWith(reference);
  const dir = applyWorkdir(emulator, { manifests: { 'manifests/tasks.yaml': text }, prune: [] });
  if (extraConfig !== '') writeFileSync(join(dir, 'mftops.yaml'), `${readFileSync(join(dir, 'mftops.yaml'), 'utf8')}${extraConfig}`);
  const p = positionOf(text, `"${reference}"`);
  return { dir, at: `manifests/tasks.yaml:${p.line}:${p.col}` };
}

/** validate, plan and apply all refuse the reference at its place, and nothing reaches the server. */
async function expectRefusedEverywhere(dir: string, at: string, code: 'MF325' | 'MF326', says: string): Promise<void> {
  const validate = await runCli(['validate'], { cwd: dir, env: APPLY_ENV });
  expect(validate.code).toBe(1);
  expect(validate.stdout).toContain(`${at}: error ${code}: ${says}`);

  emulator.resetRequestLog();
  const plan = await runCli(['plan'], { cwd: dir, env: APPLY_ENV });
  expect(plan.code).toBe(1);
  expect(`${plan.stdout}${plan.stderr}`).toContain(`${at}: error ${code}`);
  // Refused before the first request: not even a sign-in.
  expect(emulator.requestLog()).toEqual([]);

  const apply = await runCli(['apply', '--auto-approve'], { cwd: dir, env: APPLY_ENV });
  expect(apply.code).toBe(1);
  expect(`${apply.stdout}${apply.stderr}`).toContain(`${at}: error ${code}`);
  expect(writesOf(emulator)).toEqual([]);
  expect(tasksNamed(emulator, 'Exfiltration test')).toEqual([]);
  for (const r of [validate, plan, apply]) expect(hasStackTrace(r.stderr)).toBe(false);
}

describe('${file:} is confined to the repository', () => {
  it.each([
    ['/etc/shadow', '${file:/etc/shadow}', 'secret file /etc/shadow is outside the folders manifest secrets may be read from'],
    ['/proc/self/environ (both service passwords)', '${file:/proc/self/environ}', 'secret file /proc/self/environ is below /proc, /sys or /dev'],
    ['/dev/zero', '${file:/dev/zero}', 'secret file /dev/zero is below /proc, /sys or /dev'],
  ])('%s: validate, plan and apply refuse it at the reference (MF325); no request', { timeout: 60_000 }, async (_label, reference, says) => {
    const { dir, at } = project(reference);
    await expectRefusedEverywhere(dir, at, 'MF325', says);
  });

  it('a ../ escape out of the repository is refused', { timeout: 60_000 }, async () => {
    const { dir, at } = project('${file:../../../../../../../../etc/hostname}');
    await expectRefusedEverywhere(dir, at, 'MF325', 'secret file /etc/hostname is outside the folders manifest secrets may be read from');
  });

  it('a symlink inside the repository that points outside it is refused, naming where it leads', { timeout: 60_000 }, async () => {
    const outside = testdir({ 'secret.txt': `${OUTSIDE_SECRET}\n` });
    const { dir, at } = project('${file:secrets/link.txt}');
    mkdirSync(join(dir, 'manifests/secrets'));
    symlinkSync(join(outside, 'secret.txt'), join(dir, 'manifests/secrets/link.txt'));
    await expectRefusedEverywhere(
      dir,
      at,
      'MF325',
      `secret file ${join(dir, 'manifests/secrets/link.txt')} (a link to ${join(outside, 'secret.txt')}) is outside`,
    );
  });

  it('a FIFO inside the repository is refused, not read (a read would block)', { timeout: 60_000 }, async () => {
    const { dir, at } = project('${file:secrets/pipe}');
    mkdirSync(join(dir, 'manifests/secrets'));
    const { execFileSync } = await import('node:child_process');
    execFileSync('mkfifo', [join(dir, 'manifests/secrets/pipe')]);
    await expectRefusedEverywhere(dir, at, 'MF325', `secret file ${join(dir, 'manifests/secrets/pipe')} is not a regular file`);
  });

  it("validate PATH without mftops.yaml confines to the manifests' folder", async () => {
    const dir = testdir({ 'manifests/tasks.yaml': taskWith('${file:../outside.txt}'), 'outside.txt': 'x\n' });
    const p = positionOf(taskWith('${file:../outside.txt}'), '"${file:../outside.txt}"');
    const r = await runCli(['validate', 'manifests'], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(
      `manifests/tasks.yaml:${p.line}:${p.col}: error MF325: secret file ${join(dir, 'outside.txt')} is outside the folders manifest secrets may be read from (${join(dir, 'manifests')})`,
    );
  });

  it('secrets.fileRoots in mftops.yaml allows a folder outside, explicitly; /proc stays refused whatever the roots', { timeout: 60_000 }, async () => {
    const outside = testdir({ 'secret.txt': `${OUTSIDE_SECRET}\n` });
    const allowed = project(`\${file:${join(outside, 'secret.txt')}}`, `secrets: { fileRoots: [${outside}] }\n`);
    expect((await runCli(['validate'], { cwd: allowed.dir, env: APPLY_ENV })).code).toBe(0);
    const apply = await runCli(['apply', '--auto-approve'], { cwd: allowed.dir, env: APPLY_ENV });
    expect(apply.code).toBe(0);
    expect(JSON.stringify(tasksNamed(emulator, 'Exfiltration test'))).toContain(OUTSIDE_SECRET);
    expect(`${apply.stdout}${apply.stderr}`).not.toContain(OUTSIDE_SECRET);

    const proc = project('${file:/proc/self/environ}', 'secrets: { fileRoots: [/] }\n');
    const r = await runCli(['validate'], { cwd: proc.dir, env: APPLY_ENV });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(`${proc.at}: error MF325: secret file /proc/self/environ is below /proc, /sys or /dev`);
  });

  it('a secret file inside the repository is read and sent, as before', { timeout: 60_000 }, async () => {
    const { dir } = project('${file:secrets/pw.txt}');
    mkdirSync(join(dir, 'manifests/secrets'));
    writeFileSync(join(dir, 'manifests/secrets/pw.txt'), 'inside-secret-8812\n');
    const apply = await runCli(['apply', '--auto-approve'], { cwd: dir, env: APPLY_ENV });
    expect(apply.code).toBe(0);
    expect(JSON.stringify(tasksNamed(emulator, 'Exfiltration test'))).toContain('inside-secret-8812');
  });
});

describe('a saved plan is checked again when applied', () => {
  it('a secret file replaced by a symlink out of the repository after plan --out: apply refuses, nothing is written', { timeout: 60_000 }, async () => {
    const outside = testdir({ 'secret.txt': `${OUTSIDE_SECRET}\n` });
    const { dir } = project('${file:secrets/pw.txt}');
    mkdirSync(join(dir, 'manifests/secrets'));
    const pw = join(dir, 'manifests/secrets/pw.txt');
    writeFileSync(pw, 'inside-secret-8812\n');
    expect((await runCli(['plan', '--out', 'plan.json'], { cwd: dir, env: APPLY_ENV })).code).toBe(0);
    rmSync(pw);
    symlinkSync(join(outside, 'secret.txt'), pw);
    emulator.resetRequestLog();
    const apply = await runCli(['apply', 'plan.json'], { cwd: dir, env: APPLY_ENV });
    expect(apply.code).toBe(1);
    expect(apply.stdout).toContain(
      `Apply refused; nothing was written:\n  - secret file ${pw} (a link to ${join(outside, 'secret.txt')}) is outside the folders manifest secrets may be read from`,
    );
    expect(writesOf(emulator)).toEqual([]);
    expect(tasksNamed(emulator, 'Exfiltration test')).toEqual([]);
  });
});

describe('${env:} may not name a service credential of mftops.yaml', () => {
  it('a task password ${env:MFT_AUTOMATION_PASSWORD} is refused at validate, plan and apply (MF326); no request', { timeout: 60_000 }, async () => {
    const { dir, at } = project('${env:MFT_AUTOMATION_PASSWORD}');
    await expectRefusedEverywhere(dir, at, 'MF326', '${env:MFT_AUTOMATION_PASSWORD} is a service credential of mftops.yaml');
  });
});
