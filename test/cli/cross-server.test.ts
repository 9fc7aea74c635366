import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { readPlanFile } from '../../src/app/plan-file.js';
import { emulatorConfigYaml } from '../../src/emulator/config-for.js';
import { loadSeedFile, startEmulator } from '../../src/emulator/index.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { SEED_LOGINS, SEED_PATH, startSeededEmulator } from '../integration/helpers.js';
import { findSchemasDir, SCHEMA_BASE_URL } from '../../src/manifest/schemas.js';
import { runCli } from '../helpers/run-cli.js';
import { testdir } from '../helpers/testdir.js';

const ENV = { MFT_AUTOMATION_PASSWORD: SEED_LOGINS.automationAdmin.password, MFT_TRANSFER_PASSWORD: SEED_LOGINS.transferAdmin.password };

const ajv = new Ajv2020({ strict: true, strictRequired: false, allowUnionTypes: true, allErrors: true });
addFormats.default(ajv);
for (const file of readdirSync(findSchemasDir()).filter((f) => f.startsWith('output-') || f === 'plan.schema.json' || f === 'kinds.schema.json'))
  ajv.addSchema(JSON.parse(readFileSync(join(findSchemasDir(), file), 'utf8')) as object);

/** The errors of the output schema `file` for `doc` (none: it is accepted). */
function schemaErrors(doc: unknown, file: string): unknown {
  const validate = ajv.getSchema(`${SCHEMA_BASE_URL}${file}`)!;
  return validate(doc) ? [] : validate.errors;
}

let emulator: RunningEmulator;
beforeAll(async () => {
  emulator = await startSeededEmulator();
});
afterAll(() => emulator.close());
beforeEach(() => emulator.resetRequestLog());

/** A task manifest named `name` with these step lines (each `    - …`). */
function task(name: string, ...steps: string[]): string {
  return ['apiVersion: mftops/v1', 'kind: Task', `metadata: { name: ${name} }`, 'spec:', '  Group: [Partners]', '  steps:', ...steps, ''].join('\n');
}

/** A project whose mftops.yaml lists `xfer` (the seed's transfer-server host) under `automation.transferHosts`. */
function project(files: Record<string, string>, transferHosts: readonly string[] = ['xfer']): string {
  return testdir({ 'mftops.yaml': emulatorConfigYaml({ ...emulator, manifests: ['manifests'], transferHosts }), ...files });
}

const MISSING = task(
  'Archive Acme',
  '    - Source: { Host: acme-sftp, Path: /outgoing }',
  '    - Destination: { Host: xfer, Path: /Distribution/Acme/Archive }',
);
const NO_RIGHTS = task(
  'Payroll copy',
  '    - Source: { Host: payroll-sftp, Path: /out }',
  '    - Destination: { Host: xfer, Path: /Finance/Payroll, Username: bob }',
);

describe('cross-server checks of task steps on transfer hosts', () => {
  it("warns at the step's Path about a folder the transfer server does not have, in text, markdown and JSON", async () => {
    const dir = project({ 'manifests/archive.yaml': MISSING });
    const text = await runCli(['plan'], { cwd: dir, env: ENV });
    expect(text.code).toBe(0);
    expect(text.stderr).toContain('manifests/archive.yaml:8:40: warning MF415');
    expect(text.stderr).toContain('folder /Distribution/Acme/Archive does not exist on the transfer server');
    expect(text.stdout).toContain('Cross-server checks: 1 task step on transfer hosts checked, 1 problem.');
    expect(text.stdout).toContain(
      '! Task/Archive Acme step 2 (Destination) on host xfer: folder /Distribution/Acme/Archive does not exist on the transfer server, and this plan does not create it (manifests/archive.yaml:8:40)',
    );
    const md = await runCli(['plan', '--format', 'markdown'], { cwd: dir, env: ENV });
    expect(md.stdout).toContain('> [!WARNING]\n> **Cross-server checks: 1 task step on transfer hosts checked, 1 problem.**');
    expect(md.stdout).toContain('(at <code>manifests/archive.yaml:8:40</code>)');
    const json = JSON.parse((await runCli(['plan', '--format', 'json'], { cwd: dir, env: ENV })).stdout);
    expect(schemaErrors(json, 'output-plan.schema.json')).toEqual([]);
    expect(json.transferChecks).toEqual({
      checked: 1,
      problems: [
        {
          problem: 'missing-folder',
          address: 'Task/Archive Acme',
          step: 1,
          stepKind: 'Destination',
          host: 'xfer',
          path: '/Distribution/Acme/Archive',
          account: 'automation-svc',
          source: { file: 'manifests/archive.yaml', line: 8, col: 40 },
          text: 'Task/Archive Acme step 2 (Destination) on host xfer: folder /Distribution/Acme/Archive does not exist on the transfer server, and this plan does not create it',
        },
      ],
    });
  });

  it('keeps the checks in a saved plan (format 2), which show prints again', async () => {
    const dir = project({ 'manifests/archive.yaml': MISSING });
    expect((await runCli(['plan', '--out', 'plan.json'], { cwd: dir, env: ENV })).code).toBe(0);
    expect(readPlanFile(join(dir, 'plan.json')).transferChecks).toMatchObject({
      checked: 1,
      problems: [{ problem: 'missing-folder', path: '/Distribution/Acme/Archive' }],
    });
    const shown = await runCli(['show', 'plan.json'], { cwd: dir, env: ENV });
    expect(shown.stdout).toContain('! Task/Archive Acme step 2 (Destination) on host xfer: folder /Distribution/Acme/Archive does not exist');
  });

  it("warns when the step's account lacks writeFiles on the folder", async () => {
    const dir = project({ 'manifests/payroll.yaml': NO_RIGHTS });
    const r = await runCli(['plan'], { cwd: dir, env: ENV });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('manifests/payroll.yaml:8:40: warning MF416: account `bob` lacks writeFiles on /Finance/Payroll');
    expect(r.stdout).toContain(
      '! Task/Payroll copy step 2 (Destination) on host xfer: account bob lacks writeFiles on /Finance/Payroll (manifests/payroll.yaml:8:40)',
    );
  });

  it("counts the entries the same plan sets: a folder it creates, with the account's rights, gives no warning", async () => {
    const folder = [
      'apiVersion: mftops/v1',
      'kind: FolderPermissions',
      'metadata: { name: /Distribution/Acme/Archive }',
      'spec:',
      '  createIfMissing: { inheritPermissions: None }',
      '  mode: additive',
      '  entries:',
      '    - { user: bob, permissions: [listFiles, writeFiles] }',
      '',
    ].join('\n');
    const dir = project({
      'manifests/archive.yaml': task(
        'Archive Acme',
        '    - Source: { Host: acme-sftp, Path: /outgoing }',
        '    - Destination: { Host: xfer, Path: /Distribution/Acme/Archive, Username: bob }',
      ),
      'manifests/folder.yaml': folder,
    });
    const r = await runCli(['plan'], { cwd: dir, env: ENV });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain('Cross-server checks: 1 task step on transfer hosts checked, no problems.');
  });

  it("with --target, checks only the targeted tasks' steps", async () => {
    const dir = project({ 'manifests/archive.yaml': MISSING, 'manifests/payroll.yaml': NO_RIGHTS });
    const r = await runCli(['plan', '--target', 'Task/Payroll copy'], { cwd: dir, env: ENV });
    expect(r.stderr).toContain('warning MF416');
    expect(r.stderr).not.toContain('MF415');
    expect(r.stdout).toContain('Cross-server checks: 1 task step on transfer hosts checked, 1 problem.');
  });

  it('does not look at hosts that transferHosts does not name', async () => {
    const dir = project({ 'manifests/archive.yaml': MISSING, 'manifests/payroll.yaml': NO_RIGHTS }, []);
    const r = await runCli(['plan'], { cwd: dir, env: ENV });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).not.toContain('Cross-server checks');
    // Not even a request for the folders the steps name.
    expect(emulator.requestLog().filter((q) => /\/folders/.test(q.path))).toEqual([]);
  });

  it('drift reports the problems too, in text and in the JSON report', async () => {
    const dir = project({ 'manifests/archive.yaml': MISSING, 'manifests/payroll.yaml': NO_RIGHTS });
    const text = await runCli(['drift'], { cwd: dir, env: ENV });
    expect(text.stderr).toContain('warning MF415');
    expect(text.stderr).toContain('warning MF416');
    expect(text.stdout).toContain('Cross-server checks: 2 task steps on transfer hosts checked, 2 problems.');
    expect(text.stdout).toContain('account bob lacks writeFiles on /Finance/Payroll');
    const md = await runCli(['drift', '--format', 'markdown'], { cwd: dir, env: ENV });
    expect(md.stdout).toContain('folder /Distribution/Acme/Archive does not exist on the transfer server');
    const json = JSON.parse((await runCli(['drift', '--format', 'json'], { cwd: dir, env: ENV })).stdout);
    expect(schemaErrors(json, 'output-drift.schema.json')).toEqual([]);
    expect(json.plan.transferChecks.problems.map((p: { problem: string }) => p.problem)).toEqual(['missing-folder', 'missing-rights']);
  });
});

describe('rights through groups (members read from the transfer server)', () => {
  it("counts a group the account is in: bob reads Acme's outbound folder through Acme Partners, but may not delete there", async () => {
    const reads = task(
      'Acme pickup',
      '    - Source: { Host: xfer, Path: /Distribution/Acme/Outbound, Username: bob }',
      '    - Destination: { Host: acme-sftp, Path: /incoming }',
    );
    const deletes = task(
      'Acme pickup',
      '    - Source: { Host: xfer, Path: /Distribution/Acme/Outbound, Username: bob, DeleteOrig: 1 }',
      '    - Destination: { Host: acme-sftp, Path: /incoming }',
    );
    const ok = await runCli(['plan'], { cwd: project({ 'manifests/pickup.yaml': reads }), env: ENV });
    expect(ok.stderr).toBe('');
    expect(ok.stdout).toContain('Cross-server checks: 1 task step on transfer hosts checked, no problems.');
    const lacking = await runCli(['plan'], { cwd: project({ 'manifests/pickup.yaml': deletes }), env: ENV });
    expect(lacking.stderr).toContain('manifests/pickup.yaml:7:35: warning MF416: account `bob` lacks deleteFiles on /Distribution/Acme/Outbound');
  });

  it("checks the rights the plan leaves: taking writeFiles from the account's group warns", async () => {
    const writes = task(
      'Acme drop',
      '    - Source: { Host: acme-sftp, Path: /outgoing }',
      '    - Destination: { Host: xfer, Path: /Distribution/Acme/Inbound, Username: bob }',
    );
    const folder = (permissions: string) =>
      [
        'apiVersion: mftops/v1',
        'kind: FolderPermissions',
        'metadata: { name: /Distribution/Acme/Inbound }',
        'spec:',
        '  mode: additive',
        '  entries:',
        `    - { group: Acme Partners, permissions: [${permissions}] }`,
        '',
      ].join('\n');
    const kept = await runCli(['plan'], {
      cwd: project({ 'manifests/drop.yaml': writes, 'manifests/folder.yaml': folder('listFiles, writeFiles') }),
      env: ENV,
    });
    expect(kept.stderr).toBe('');
    const taken = await runCli(['plan'], { cwd: project({ 'manifests/drop.yaml': writes, 'manifests/folder.yaml': folder('listFiles') }), env: ENV });
    expect(taken.stderr).toContain('manifests/drop.yaml:8:40: warning MF416: account `bob` lacks writeFiles on /Distribution/Acme/Inbound');
    expect(taken.stdout).toContain(
      '! Task/Acme drop step 2 (Destination) on host xfer: account bob lacks writeFiles on /Distribution/Acme/Inbound (manifests/drop.yaml:8:40)',
    );
  });

  it("says when a group's members cannot be read instead of failing (a server with no members form)", async () => {
    const other = await startSeededEmulator({ variants: { 'transfer.groupMembers': 'none' } });
    try {
      const dir = testdir({
        'mftops.yaml': emulatorConfigYaml({ ...other, manifests: ['manifests'], transferHosts: ['xfer'] }),
        'manifests/drop.yaml': task(
          'Acme drop',
          '    - Source: { Host: acme-sftp, Path: /outgoing }',
          '    - Destination: { Host: xfer, Path: /Distribution/Acme/Inbound, Username: bob }',
        ),
      });
      const r = await runCli(['plan'], { cwd: dir, env: ENV });
      expect(r.code).toBe(0);
      expect(r.stderr).toContain('warning MF416: account `bob` lacks writeFiles on /Distribution/Acme/Inbound');
      expect(r.stderr).toContain('the members of `Acme Partners` could not be read from the transfer server');
      expect(r.stdout).toContain('# The members of some groups could not be read from the transfer server');
    } finally {
      await other.close();
    }
  });
});

describe("a host whose Host is the transfer URL's hostname", () => {
  it('is checked without being named in transferHosts', async () => {
    const seed = loadSeedFile(SEED_PATH);
    const hosts = [
      ...(seed.automation?.hosts ?? []),
      { SSHFTP: { Name: 'xfer-sftp', Group: ['Partners'], Host: '127.0.0.1', Port: 22, DefUsername: 'alice', DefPassword: 'xfer-sftp-SEEDSECRET-99' } },
    ];
    const own = await startEmulator({ seed: { ...seed, automation: { ...seed.automation!, hosts } } });
    try {
      const dir = testdir({
        'mftops.yaml': emulatorConfigYaml({ ...own, manifests: ['manifests'] }),
        'manifests/globex.yaml': task(
          'Globex pickup',
          '    - Source: { Host: xfer-sftp, Path: /Distribution/Globex/Outbound }',
          '    - Destination: { Host: globex-ftp, Path: /upload }',
        ),
      });
      const r = await runCli(['plan'], { cwd: dir, env: ENV });
      expect(r.code).toBe(0);
      expect(r.stderr).toContain('manifests/globex.yaml:7:40: warning MF416: account `alice` lacks readFiles, listFiles on /Distribution/Globex/Outbound');
      expect(r.stdout + r.stderr).not.toContain('SEEDSECRET');
    } finally {
      await own.close();
    }
  });
});
