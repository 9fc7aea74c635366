import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { EmulatorOptions, EmulatorSeed, RunningEmulator } from '../../src/emulator/index.js';
import { CATALOG } from './arbitraries.js';
import { explain, mftops, workspace } from './harness.js';
import type { CliRun } from './harness.js';

/**
 * The shrunk counter-examples of the fidelity round trips (round-trips.test.ts), each a named
 * test on a small fixed state: what the client of mftops 0.1.0 did wrong against a server that
 * answers in another reading, and what a user saw.
 */

let running: RunningEmulator | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

function ok(run: CliRun, code = 0): CliRun {
  if (run.code !== code) expect.fail(explain(run));
  return run;
}

/** The fixed catalog, one task of group Finance, users with full names, folders under /Data. */
function seed(task: Record<string, unknown> = {}, acl: readonly Record<string, unknown>[] = []): EmulatorSeed {
  return JSON.parse(
    JSON.stringify({
      automation: {
        resourceGroups: [{ Name: 'Finance' }, { Name: 'Partners' }],
        userGroups: [{ Name: 'Operators' }],
        acls: [{ ResourceGroupName: 'Finance', UserGroupName: 'Operators', Permissions: { TaskRun: 1 } }],
        hosts: CATALOG.hosts.map((h) => ({ [h.type]: { ID: h.ID, Name: h.Name, ...h.extra } })),
        customScripts: CATALOG.scripts.map((s) => ({ ...s, Lang: 'PS1', Source: '# script' })),
        dateLists: CATALOG.dateLists.map((d) => ({ ...d, Entries: [{ Date: '2026-12-25' }] })),
        tasks: [
          {
            Name: 'Payroll to bank',
            Group: ['Finance'],
            Active: 1,
            Schedules: {
              Schedule: [
                {
                  Days: { DayOfWeek: ['Monday', 'Friday'] },
                  Frequency: { Interval: [{ StartTime: '07:05', EndTime: '07:05' }] },
                  DateListRef: [{ DateListID: '303001' }],
                },
              ],
            },
            steps: [
              { Source: { HostID: '201001', Path: '/out', FileMask: '*.csv', Username: 'payroll', Password: 'step-SEEDSECRET-1' } },
              { Destination: { HostID: '201002', Path: '/Data/Acme' } },
            ],
            ...task,
          },
        ],
      },
      transfer: {
        users: [
          { username: 'admin', password: 'xfer-admin-Pa55!seed', permission: 'SysAdmin' },
          { username: 'acme-upload', fullName: 'Acme Upload Service', password: 'u-SEEDSECRET-2' },
          { username: 'bob', fullName: 'Bob Tanaka', password: 'u-SEEDSECRET-3' },
        ],
        groups: [{ name: 'Acme Partners', members: ['acme-upload'] }],
        folders: [
          { path: '/Data' },
          { path: '/Data/Acme', acl: [{ type: 'User', name: 'acme-upload', permissions: { listFiles: true, writeFiles: true } }, ...acl] },
        ],
      },
    }),
  ) as EmulatorSeed;
}

async function start(
  options: Omit<EmulatorOptions, 'seed'>,
  state: EmulatorSeed = seed(),
  files: Record<string, string> = {},
  scope?: { folders?: string[]; taskGroups?: string[] },
): Promise<string> {
  const { emulator, dir } = await workspace(state, options, files, scope);
  running = emulator;
  return dir;
}

function imported(dir: string, kind: 'tasks' | 'folders'): string {
  const folder = join(dir, 'manifests', kind);
  return readdirSync(folder)
    .map((f) => readFileSync(join(folder, f), 'utf8'))
    .join('\n');
}

async function adopt(dir: string): Promise<void> {
  ok(await mftops(['import', '--all', '--out', 'manifests'], dir, {}));
  ok(await mftops(['validate'], dir, {}));
  ok(await mftops(['plan', '--detailed-exitcode'], dir, {}));
}

describe('regressions of the fidelity round trips', () => {
  it('day names Mon…Fri: import writes full names that validate, plan shows no change, and a write sends the server its own form (A-8)', async () => {
    const dir = await start({ variants: { 'automation.days': 'short' } });
    await adopt(dir);
    expect(imported(dir, 'tasks')).toMatch(/DayOfWeek:\n +- Monday\n +- Friday\n/);
    // A hand edit elsewhere in the task: the update is accepted by a server that takes only Mon…Sun.
    const file = join(dir, 'manifests', 'tasks', 'payroll-to-bank.yaml');
    writeFileSync(file, readFileSync(file, 'utf8').replace('FileMask: "*.csv"', 'FileMask: "*.txt"'));
    const applied = ok(await mftops(['apply', '--auto-approve'], dir, { PAYROLL_TO_BANK_STEP1_PASSWORD: 'x' }));
    expect(applied.stdout).not.toMatch(/DayOfWeek/);
    ok(await mftops(['plan', '--detailed-exitcode'], dir, {}));
  });

  it('times 7:05: import writes 07:05, which validates (A-9)', async () => {
    const dir = await start({ variants: { 'automation.times': 'unpadded' } });
    await adopt(dir);
    expect(imported(dir, 'tasks')).toContain('StartTime: "07:05"');
  });

  it('ACL entries named by full name: import writes usernames and plan resolves them; drift names unmanaged entries by username (T-2)', async () => {
    const dir = await start(
      { variants: { 'transfer.aclName': 'fullName' } },
      seed({}, [{ type: 'User', name: 'bob', permissions: { listFiles: true } }]),
      {},
      { folders: ['/Data'] },
    );
    await adopt(dir);
    const folders = imported(dir, 'folders');
    expect(folders).toContain('user: acme-upload');
    expect(folders).not.toMatch(/Acme Upload Service|Bob Tanaka/);
    // Bob's entry no longer wanted: plan and drift name him by username, never by full name.
    const file = join(dir, 'manifests', 'folders', 'data-acme.yaml');
    writeFileSync(file, readFileSync(file, 'utf8').replace(/ {4}- user: bob\n(?: {6}.*\n)*/, ''));
    const planned = ok(await mftops(['plan', '--detailed-exitcode'], dir, {}), 2);
    expect(planned.stdout).toContain('- User "bob"');
    const drift = await mftops(['drift', '--format', 'json'], dir, {});
    expect(drift.code).toBe(2);
    expect(drift.stdout).toContain('"bob"');
    const markdown = await mftops(['drift', '--format', 'markdown'], dir, {});
    expect(markdown.stdout).toContain('user <code>bob</code>');
    expect(drift.stdout + markdown.stdout + planned.stdout).not.toMatch(/Bob Tanaka|Acme Upload Service/);
  });

  it('DateListRef read as [{ID}] is written back as [{ID}] (A-11)', async () => {
    const dir = await start({ variants: { 'automation.dateListRef': 'id' } });
    await adopt(dir);
    const file = join(dir, 'manifests', 'tasks', 'payroll-to-bank.yaml');
    writeFileSync(file, readFileSync(file, 'utf8').replace('"07:05"', '"08:15"'));
    ok(await mftops(['apply', '--auto-approve'], dir, { PAYROLL_TO_BANK_STEP1_PASSWORD: 'x' }));
    ok(await mftops(['plan', '--detailed-exitcode'], dir, {}));
  });

  it('steps answered as MicSourceType…: import writes Source/Destination steps, and a change applies (A-14)', async () => {
    const dir = await start({ variants: { 'automation.stepKeys': 'mic' } });
    await adopt(dir);
    const tasks = imported(dir, 'tasks');
    expect(tasks).toContain('- Source:');
    expect(tasks).not.toContain('Mic');
    const file = join(dir, 'manifests', 'tasks', 'payroll-to-bank.yaml');
    writeFileSync(file, readFileSync(file, 'utf8').replace('Path: /out', 'Path: /outbox'));
    ok(await mftops(['apply', '--auto-approve'], dir, { PAYROLL_TO_BANK_STEP1_PASSWORD: 'x' }));
    ok(await mftops(['plan', '--detailed-exitcode'], dir, {}));
  });

  it('folder paths answered with a trailing slash: import writes /Data/Acme, which validates (T-6)', async () => {
    const dir = await start({ variants: { 'transfer.pathStyle': 'trailing' } });
    await adopt(dir);
    expect(imported(dir, 'folders')).toContain('name: /Data/Acme\n');
  });

  it.each([
    ['automation.ids', 'number'],
    ['automation.group', 'string'],
    ['transfer.entryType', 'lower'],
  ] as const)('%s=%s: manifests apply, then plan shows no change', async (name, value) => {
    const manifests = [
      'apiVersion: mftops/v1',
      'kind: Task',
      'metadata: { name: Payroll to bank }',
      'spec:',
      '  Group: [Finance]',
      '  Active: 0',
      '---',
      'apiVersion: mftops/v1',
      'kind: ResourceGroupAcl',
      'metadata: { name: finance-operators }',
      'spec: { resourceGroup: Finance, userGroup: Operators, permissions: [TaskRun, TaskEditExisting] }',
      '---',
      'apiVersion: mftops/v1',
      'kind: FolderPermissions',
      'metadata: { name: /Data/Acme }',
      'spec:',
      '  mode: exact',
      '  entries:',
      '    - { user: acme-upload, permissions: [listFiles, readFiles] }',
      '    - { group: Acme Partners, permissions: [listFiles] }',
      '',
    ].join('\n');
    const dir = await start({ variants: { [name]: value } }, seed(), { 'manifests/all.yaml': manifests });
    ok(await mftops(['apply', '--auto-approve'], dir, {}));
    ok(await mftops(['plan', '--detailed-exitcode'], dir, {}));
  });

  it('step passwords the server leaves out: import lists one to set, and a replace names it as lost (A-15)', async () => {
    const dir = await start({ variants: { 'automation.stepPasswords': 'omitted' } });
    const run = ok(await mftops(['import', '--all', '--out', 'manifests'], dir, {}));
    expect(run.stderr).toMatch(/PAYROLL_TO_BANK_STEP1_PASSWORD +Task\/Payroll to bank: steps\[0\]\.Source\.Password/);
    const file = join(dir, 'manifests', 'tasks', 'payroll-to-bank.yaml');
    writeFileSync(
      file,
      readFileSync(file, 'utf8')
        .replace(/\n +Password: .*\n/, '\n')
        .replace('- Finance', '- Partners'),
    );
    const planned = ok(await mftops(['plan', '--detailed-exitcode'], dir, {}), 2);
    expect(planned.stdout).toMatch(/Task\/Payroll to bank must be replaced/);
    expect(planned.stdout).toMatch(/steps\[0\]\.Source\.Password\) cannot be copied/);
  });
});
