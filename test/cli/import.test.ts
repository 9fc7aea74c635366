import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { runImport } from '../../src/cli/commands/import.js';
import type { ImportCommandOptions } from '../../src/cli/commands/import.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { ConfigError } from '../../src/errors.js';
import { loadManifests } from '../../src/manifest/load.js';
import { SEED_LOGINS, startSeededEmulator } from '../integration/helpers.js';
import { login, taskBody } from '../emulator/helpers.js';
import { runCli } from '../helpers/run-cli.js';
import { testdir } from '../helpers/testdir.js';
import { listWrites, readTask, readTasks } from '../helpers/emulator-test-api.js';
import { installedMftops } from '../helpers/installed-mftops.js';
import { PASSWORDS, configYaml, globals, io } from '../drift/helpers.js';
import type { ConfigOptions } from '../drift/helpers.js';

let emulator: RunningEmulator;
beforeAll(async () => {
  emulator = await startSeededEmulator();
});
afterAll(() => emulator.close());
beforeEach(() => emulator.resetRequestLog());

function workdir(config: Omit<ConfigOptions, 'url'> = {}): string {
  return testdir({ 'mftops.yaml': configYaml({ url: emulator.url, ...config }) });
}

/** A working folder whose environment has only the automation service. */
function automationOnlyWorkdir(): string {
  const config = parse(configYaml({ url: emulator.url })) as { environments: { lab: Record<string, unknown> } };
  delete config.environments.lab.transfer;
  return testdir({ 'mftops.yaml': stringify(config) });
}

async function runIn(dir: string, opts: Partial<ImportCommandOptions> = {}, format: 'text' | 'json' = 'text') {
  const out = io(dir);
  const code = await runImport(globals({ format }), { all: false, force: false, out: 'manifests', ...opts }, out);
  return { code, stdout: out.out(), stderr: out.err() };
}

function files(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)).split('\\').join('/'))
    .sort();
}

describe('mftops import', () => {
  it('writes one file per object, lists them on stdout and the secret placeholders at the end of stderr, reading only', async () => {
    const dir = workdir();
    const r = await runIn(dir, { kind: ['Task'] });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Imported 8 objects from http:\/\/127\.0\.0\.1:\d+\/automation into manifests:\n/);
    expect(r.stdout).toMatch(/^ {2}tasks\/payroll-to-bank\.yaml +Task\/Payroll to bank$/m);
    expect(files(join(dir, 'manifests'))).toHaveLength(8);
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines.at(-2)).toBe('Secrets are never read from the servers: set this environment variable before plan or apply needs it:');
    expect(lines.at(-1)).toBe('  PAYROLL_TO_BANK_APIKEY  Task/Payroll to bank: Parameters.ApiKey');
    expect(r.stderr).toContain('mftops: note: tasks/legacy-edi-router.yaml: steps: For steps cannot be written');
    expect(readFileSync(join(dir, 'manifests', 'tasks', 'payroll-to-bank.yaml'), 'utf8')).toContain('value: ${env:PAYROLL_TO_BANK_APIKEY}');
    expect(listWrites(emulator)).toEqual([]);
  });

  it('never overwrites without --force: it names the files and writes nothing', async () => {
    const dir = workdir();
    expect((await runIn(dir, { kind: ['Task'] })).code).toBe(0);
    const kept = join(dir, 'manifests', 'tasks', 'payroll-to-bank.yaml');
    const removed = join(dir, 'manifests', 'tasks', 'nightly-cleanup.yaml');
    writeFileSync(kept, '# my edits\n');
    rmSync(removed);
    const again = await runIn(dir, { kind: ['Task'] });
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('mftops: error: 7 of the files to write already exist; nothing was written (use --force to overwrite them):');
    expect(again.stderr).toContain(`  ${join('manifests', 'tasks', 'payroll-to-bank.yaml')}\n`);
    expect(again.stdout).toBe('');
    expect(readFileSync(kept, 'utf8')).toBe('# my edits\n');
    expect(existsSync(removed)).toBe(false);

    const forced = await runIn(dir, { kind: ['Task'], force: true });
    expect(forced.code).toBe(0);
    expect(readFileSync(kept, 'utf8')).toMatch(/^# yaml-language-server: \$schema=/);
    expect(existsSync(removed)).toBe(true);
  });

  it('gives hostile task names safe file names inside --out', async () => {
    const admin = await login(`${emulator.automationUrl}/api/v1`, SEED_LOGINS.automationAdmin);
    for (const name of ['../../escape', '..\\windows\\evil', 'CON']) expect((await admin.call('POST', '/tasks', taskBody(name))).status).toBe(201);
    try {
      const dir = workdir();
      const r = await runIn(dir, { kind: ['Task'], name: '*e*' }, 'json');
      expect(r.code).toBe(0);
      const written = files(dir).filter((f) => f !== 'mftops.yaml');
      expect(written.every((f) => /^manifests\/tasks\/[a-z0-9-]+\.yaml$/.test(f))).toBe(true);
      expect(written).toEqual(expect.arrayContaining(['manifests/tasks/escape.yaml', 'manifests/tasks/windows-evil.yaml']));
      const con = await runIn(workdir(), { kind: ['Task'], name: 'con' }, 'json');
      expect(JSON.parse(con.stdout).files).toEqual([{ file: 'tasks/con-1.yaml', address: 'Task/CON', notes: [] }]);
      const loaded = await loadManifests([join(dir, 'manifests')], { cwd: dir });
      expect(loaded.diagnostics).toEqual([]);
    } finally {
      for (const t of readTasks(emulator, (x) => ['../../escape', '..\\windows\\evil', 'CON'].includes(String(x['Name'])))) {
        expect((await admin.call('DELETE', `/tasks/${String(t['ID'])}`)).status).toBe(204);
      }
    }
  });

  it('takes --name masks for tasks and ACLs and paths or globs for folders', async () => {
    const dir = workdir();
    const tasks = await runIn(dir, { kind: ['Task'], name: '*bank*', out: 'a' }, 'json');
    expect(JSON.parse(tasks.stdout).files.map((f: { address: string }) => f.address)).toEqual(['Task/Bank statements in', 'Task/Payroll to bank']);
    const acls = await runIn(dir, { kind: ['ResourceGroupAcl'], name: 'Auditors', out: 'b' }, 'json');
    expect(JSON.parse(acls.stdout).files.map((f: { address: string }) => f.address)).toEqual(['ResourceGroupAcl/operations-auditors']);
    const glob = await runIn(dir, { kind: ['FolderPermissions'], name: '/Distribution/*/Outbound', out: 'c' }, 'json');
    expect(JSON.parse(glob.stdout).files.map((f: { address: string }) => f.address)).toEqual([
      'FolderPermissions/Distribution/Acme/Outbound',
      'FolderPermissions/Distribution/Globex/Outbound',
      'FolderPermissions/Distribution/Initech/Outbound',
    ]);
    // A folder named exactly is imported even without entries: the manifest then says "nobody".
    const exact = await runIn(dir, { kind: ['FolderPermissions'], name: '/Distribution', out: 'd' });
    expect(exact.code).toBe(0);
    expect(readFileSync(join(dir, 'd', 'folders', 'distribution.yaml'), 'utf8')).toContain('entries: []');
  });

  it('says so and exits 1 when nothing matches', async () => {
    const r = await runIn(workdir(), { kind: ['Task'], name: 'no such task' });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^mftops: nothing to import: no Task in http:\/\/127\.0\.0\.1:\d+\/automation matches --name "no such task"\n$/);
  });

  it('refuses unknown kinds, a missing scope and a folder --name that is not a path, before any request', async () => {
    await expect(runIn(workdir(), { kind: ['Host'] })).rejects.toThrow(
      '--kind Host is not a kind mftops imports (one of Task, ResourceGroupAcl, FolderPermissions, User, Group)',
    );
    await expect(runIn(workdir({ scope: { taskGroups: [], folders: [] } }), { kind: ['Task'] })).rejects.toThrow(ConfigError);
    await expect(runIn(workdir(), { kind: ['FolderPermissions'], name: 'Distribution' })).rejects.toThrow(/folder path starting with \//);
    expect(emulator.requestLog()).toEqual([]);
  });

  it('imports every kind when --kind is not given: tasks, ACLs and folders of the scope', async () => {
    const dir = workdir();
    const r = await runIn(dir, {}, 'json');
    expect(r.code, r.stderr).toBe(0);
    const addresses: string[] = JSON.parse(r.stdout).files.map((f: { address: string }) => f.address);
    expect(addresses.filter((a) => a.startsWith('Task/'))).toHaveLength(8);
    expect(addresses.filter((a) => a.startsWith('ResourceGroupAcl/'))).toEqual([
      'ResourceGroupAcl/finance-finance-operators',
      'ResourceGroupAcl/operations-auditors',
      'ResourceGroupAcl/partners-partner-managers',
    ]);
    expect(addresses.filter((a) => a.startsWith('FolderPermissions/'))).toContain('FolderPermissions/Distribution/Acme/Inbound');
    expect(addresses).toHaveLength(8 + 3 + 6);
    expect(r.stderr).not.toContain('not imported');
  });

  it('takes --all alone on the command line (no --kind): everything the accounts see', async () => {
    const dir = workdir();
    const r = await runCli(['import', '--all', '--out', 'everything'], { cwd: dir, env: { ...PASSWORDS } });
    expect(r.stderr).not.toContain('error');
    expect(r.code).toBe(0);
    expect(files(join(dir, 'everything')).map((f) => f.split('/')[0])).toEqual(expect.arrayContaining(['access', 'folders', 'tasks']));
    // --all reaches beyond the scope (/Distribution): /Finance has entries too.
    expect(existsSync(join(dir, 'everything', 'folders', 'finance.yaml'))).toBe(true);
  });

  it('without --kind, reads --name starting with / as a folder path and any other as a task or ACL mask', async () => {
    const dir = workdir();
    const folders = await runIn(dir, { name: '/Distribution/*/Outbound', out: 'a' }, 'json');
    expect(JSON.parse(folders.stdout).files.map((f: { address: string }) => f.address)).toEqual([
      'FolderPermissions/Distribution/Acme/Outbound',
      'FolderPermissions/Distribution/Globex/Outbound',
      'FolderPermissions/Distribution/Initech/Outbound',
    ]);
    const masked = await runIn(dir, { name: '*finance*', out: 'b' }, 'json');
    expect(masked.code, masked.stderr).toBe(0);
    expect(JSON.parse(masked.stdout).files.map((f: { address: string }) => f.address)).toEqual(['ResourceGroupAcl/finance-finance-operators']);
    const tasks = await runIn(dir, { name: 'Acme*', out: 'c' }, 'json');
    expect(JSON.parse(tasks.stdout).files.map((f: { address: string }) => f.address)).toEqual(['Task/Acme inbound', 'Task/Acme outbound']);
  });

  it('without --kind, skips with one note a kind whose service the environment lacks; an explicit --kind for it stays an error', async () => {
    const dir = automationOnlyWorkdir();
    const r = await runIn(dir);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr.match(/note: .*not imported/g)).toEqual(['note: environment "lab" has no transfer service: FolderPermissions not imported']);
    expect(readdirSync(join(dir, 'manifests')).sort()).toEqual(['access', 'tasks']);
    await expect(runIn(automationOnlyWorkdir(), { kind: ['FolderPermissions'] })).rejects.toThrow('environment "lab" has no transfer service');
    await expect(runIn(automationOnlyWorkdir(), { name: '/Distribution' })).rejects.toThrow('environment "lab" has no transfer service');
  });

  it('without --kind, skips with a note a kind the scope says nothing about', async () => {
    const dir = workdir({ scope: { taskGroups: ['Finance'], folders: [] } });
    const r = await runIn(dir, {}, 'json');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('mftops: note: environment "lab" has no scope.folders: FolderPermissions not imported\n');
    expect(JSON.parse(r.stdout).files.map((f: { address: string }) => f.address)).toEqual([
      'Task/Bank statements in',
      'Task/Payroll to bank',
      'ResourceGroupAcl/finance-finance-operators',
    ]);
    await expect(runIn(workdir({ scope: { taskGroups: ['Finance'], folders: [] } }), { kind: ['FolderPermissions'] })).rejects.toThrow('has no scope.folders');
  });
});

describe('mftops import onboarding an existing estate (issue 24)', () => {
  it("writes into the environment's first manifests folder by default, so that the next plan reads them and shows no change", async () => {
    const dir = testdir({ 'mftops.yaml': configYaml({ url: emulator.url, manifests: ['mft/common', 'mft/prod'] }) });
    const imported = await runCli(['import'], { cwd: dir, env: { ...PASSWORDS } });
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stdout).toMatch(/^Imported 17 objects from .* into mft\/common:\n/);
    expect(imported.stderr).not.toContain('warning');
    expect(
      files(dir)
        .filter((f) => f !== 'mftops.yaml')
        .every((f) => f.startsWith('mft/common/')),
    ).toBe(true);
    expect(readdirSync(join(dir, 'mft', 'common')).sort()).toEqual(['access', 'folders', 'tasks']);
    const env = { ...PASSWORDS, PAYROLL_TO_BANK_APIKEY: 'stand-in' };
    const plan = await runCli(['plan', 'mft/common', '--detailed-exitcode'], { cwd: dir, env });
    expect(plan.stdout).toContain('17 objects compared, 17 unchanged');
    expect(plan.stdout).toContain('No changes.');
    expect(plan.code).toBe(0);
  });

  it('warns once when an explicit --out is outside every manifests folder, and not when it is inside one', async () => {
    const dir = workdir();
    const outside = await runCli(['import', '--kind', 'Task', '--out', '.'], { cwd: dir, env: { ...PASSWORDS } });
    expect(outside.code, outside.stderr).toBe(0);
    expect(outside.stderr.split('\n').filter((l) => l.includes('warning'))).toEqual([
      'mftops: warning: --out . is outside the manifests of environment "lab" (manifests): the next plan will not read these files',
    ]);
    expect(existsSync(join(dir, 'tasks', 'payroll-to-bank.yaml'))).toBe(true);
    const inside = await runCli(['import', '--kind', 'Task', '--out', 'manifests/imported'], { cwd: dir, env: { ...PASSWORDS } });
    expect(inside.code, inside.stderr).toBe(0);
    expect(inside.stderr).not.toContain('warning');
  });

  it('refuses, before any request, an environment whose manifests hold no folder to write into unless --out is given', async () => {
    const dir = workdir({ manifests: ['all.yaml'] });
    writeFileSync(join(dir, 'all.yaml'), '');
    const r = await runCli(['import'], { cwd: dir, env: { ...PASSWORDS } });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /^mftops: error: environment "lab" lists only manifest files in .*mftops\.yaml: pass --out DIR, or add a folder to its manifests: \[\.\.\.\]\n$/,
    );
    expect(emulator.requestLog()).toEqual([]);
  });

  it('warns for every scope entry that matches nothing, each at its line in mftops.yaml, and still imports the rest (exit 0)', async () => {
    const dir = workdir({ scope: { taskGroups: ['Finance', 'Nope'], folders: ['/Distribution', '/Reports'] } });
    const text = readFileSync(join(dir, 'mftops.yaml'), 'utf8').split('\n');
    const line = (entry: string) =>
      `mftops.yaml:${text.findIndex((l) => l.trimEnd().endsWith(`- ${entry}`)) + 1}:${text.find((l) => l.trimEnd().endsWith(`- ${entry}`))!.indexOf(entry) + 1}`;
    const r = await runCli(['import'], { cwd: dir, env: { ...PASSWORDS } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr.split('\n').filter((l) => l.includes('warning'))).toEqual([
      `mftops: warning: ${line('Nope')}: scope.taskGroups "Nope" matches no task and no resource-group ACL`,
      `mftops: warning: ${line('/Reports')}: scope.folders "/Reports" matches no folder: there is no such folder, or this account cannot see it`,
    ]);
    expect(r.stdout).toMatch(/^Imported 9 objects/);
  });

  it('writes minimal manifests: the server defaults of the register are left out, other zeros kept, and the next plan shows no change', async () => {
    const admin = await login(`${emulator.automationUrl}/api/v1`, SEED_LOGINS.automationAdmin);
    // As a server that fills blank fields answers a task: every option written, most of them 0.
    const body = taskBody('Defaults written out', {
      AR: 0,
      CacheNames: 'random',
      UseDefStateCaching: 0,
      Schedules: {
        Schedule: [
          {
            Multi: 0,
            FailIfNoSuccessInSched: 0,
            OnlyUntilFirstSuccess: 0,
            RunEvenIfNotif: 0,
            Frequency: { Interval: [{ StartTime: '01:00', EndTime: '01:00' }] },
          },
        ],
      },
      steps: [
        {
          Source: {
            HostID: '201004',
            Path: '/outgoing',
            FileMask: '*.txt',
            NewFilesOnly: 0,
            Unzip: 0,
            SearchSubdirs: 0,
            DelRename: 0,
            RetryIfNoFiles: 0,
            UseDefRetryCount: 0,
            Passive: 0,
            RetryCount: 0,
            DeleteOrig: 0,
          },
        },
        { Destination: { HostID: '201007', Path: 'D:\\in', UseLCaseComp: 0, OverwriteOrig: 0 } },
      ],
    });
    expect((await admin.call('POST', '/tasks', body)).status).toBe(201);
    try {
      const dir = workdir();
      const r = await runCli(['import', '--kind', 'Task', '--name', 'Defaults written out', '--out', 'manifests'], { cwd: dir, env: { ...PASSWORDS } });
      expect(r.code, r.stderr).toBe(0);
      const written = parse(readFileSync(join(dir, 'manifests', 'tasks', 'defaults-written-out.yaml'), 'utf8'));
      expect(written.spec).toEqual({
        Active: 1,
        Group: ['Partners'],
        Schedules: { Schedule: [{ Frequency: { Interval: [{ StartTime: '01:00', EndTime: '01:00' }] } }] },
        steps: [
          // Fields whose blank value nothing documents stay as the server answered them.
          { Source: { Host: 'acme-sftp', Path: '/outgoing', FileMask: '*.txt', DeleteOrig: 0, RetryCount: 0, UseDefRetryCount: 0, Passive: 0 } },
          { Destination: { Host: 'local-fs', Path: 'D:\\in', OverwriteOrig: 0 } },
        ],
      });
      const plan = await runCli(['plan', '--detailed-exitcode'], { cwd: dir, env: { ...PASSWORDS } });
      expect(plan.stdout).toContain('No changes.');
      expect(plan.code).toBe(0);
    } finally {
      const t = readTask(emulator, { name: 'Defaults written out' });
      if (t) expect((await admin.call('DELETE', `/tasks/${String(t['ID'])}`)).status).toBe(204);
    }
  });
});

describe("the README's ten-minute path for an existing estate", () => {
  it('init, remove the examples, set URLs and scope, import, plan: no changes', async () => {
    // After `npm i -D mftops`, as the path starts: init points the workflows at that install.
    const dir = testdir(installedMftops());
    const init = await runCli(['init'], { cwd: dir });
    expect(init.code, init.stderr).toBe(0);
    for (const f of files(join(dir, 'manifests'))) {
      expect(f).toMatch(/^[a-z]+\/example-[a-z]+\.yaml$/);
      rmSync(join(dir, 'manifests', f));
    }
    const config = readFileSync(join(dir, 'mftops.yaml'), 'utf8');
    const edited = config
      .replace('https://automation.example.com', `${emulator.url}/automation`)
      .replace('https://transfer.example.com', `${emulator.url}/transfer`)
      .replace(/scope: \{[^}]*\}/, 'scope: { taskGroups: [Finance, Partners], folders: [/Distribution] }');
    expect(edited).not.toBe(config);
    writeFileSync(join(dir, 'mftops.yaml'), edited);
    const env = {
      MFT_AUTOMATION_USER: 'admin',
      MFT_TRANSFER_USER: 'admin',
      MFT_AUTOMATION_PASSWORD: PASSWORDS.MFT_AUTOMATION_PASSWORD,
      MFT_TRANSFER_PASSWORD: PASSWORDS.MFT_TRANSFER_PASSWORD,
    };
    expect((await runCli(['status'], { cwd: dir, env })).code).toBe(0);
    const imported = await runCli(['import'], { cwd: dir, env });
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stderr).not.toContain('warning');
    expect(imported.stdout).toMatch(/ into manifests:\n/);
    const plan = await runCli(['plan', '--detailed-exitcode'], { cwd: dir, env: { ...env, PAYROLL_TO_BANK_APIKEY: 'stand-in' } });
    expect(plan.stdout).toContain('No changes. The servers match the manifests.');
    expect(plan.code).toBe(0);
  });
});
