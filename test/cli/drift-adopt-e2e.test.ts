import { chmodSync, cpSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import type { JsonObject } from '../../src/emulator/json.js';
import { SEED_LOGINS, automationClientFor } from '../integration/helpers.js';
import {
  addFolderEntryByHand,
  deleteTaskByHand,
  editAclByHand,
  editTaskByHand,
  readTask,
  readTransferUser,
  startSeededEmulator,
} from '../helpers/emulator-test-api.js';
import type { FolderAclEntry } from '../../src/emulator/state.js';
import { runCli } from '../helpers/run-cli.js';
import { testdir } from '../helpers/testdir.js';

/*
 * `mftops drift --adopt` end to end, on a copy of the repository's examples (hand-written
 * manifests with comments and flow maps): the examples are first adopted as the seed has them
 * (so plan starts with no change), then people change the servers behind mftops' back, and
 * adoption writes their changes into the manifests. The edited manifests are golden files: what is
 * not adopted keeps its text, comments included.
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const GOLDEN = join(ROOT, 'test/fixtures/adopt');
const ENV = {
  MFT_AUTOMATION_PASSWORD: SEED_LOGINS.automationAdmin.password,
  MFT_TRANSFER_PASSWORD: SEED_LOGINS.transferAdmin.password,
  ACME_SFTP_PASSWORD: 'demo',
};
const PROD = ['--config', 'examples/mftops.yaml', '--env', 'production'];

let emulator: RunningEmulator | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

/** A copy of the examples pointed at a fresh emulator, adopted once so that plan starts with no change. */
async function adoptedExamples(profile: 'current' | 'divergent', edit?: (dir: string) => void): Promise<string> {
  emulator = await startSeededEmulator({ profile });
  const dir = testdir({});
  cpSync(join(ROOT, 'examples'), join(dir, 'examples'), { recursive: true });
  const config = join(dir, 'examples/mftops.yaml');
  writeFileSync(
    config,
    readFileSync(config, 'utf8')
      .replaceAll('http://127.0.0.1:8080/automation', emulator.automationUrl)
      .replaceAll('http://127.0.0.1:8080/transfer', emulator.transferUrl),
  );
  mkdirSync(join(dir, 'examples/manifests/tasks/secrets'), { recursive: true });
  writeFileSync(join(dir, 'examples/manifests/tasks/secrets/finance-share-audit.txt'), 'stand-in\n');
  edit?.(dir);
  const first = await runCli(['drift', ...PROD, '--shared', '--adopt'], { cwd: dir, env: ENV });
  expect(first.code, first.stdout + first.stderr).toBe(0);
  const plan = await runCli(['plan', ...PROD, '--detailed-exitcode'], { cwd: dir, env: ENV });
  expect(plan.code, plan.stdout + plan.stderr).toBe(0);
  return dir;
}

/** Every file under `dir/examples`, by relative path. */
function filesOf(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (at: string) => {
    for (const name of readdirSync(at)) {
      const path = join(at, name);
      if (statSync(path).isDirectory()) walk(path);
      else out.set(relative(dir, path).split('\\').join('/'), readFileSync(path, 'utf8'));
    }
  };
  walk(join(dir, 'examples'));
  return out;
}

function expectGolden(actual: string, file: string): void {
  const path = join(GOLDEN, file);
  if (process.env.UPDATE_GOLDEN === '1') {
    mkdirSync(GOLDEN, { recursive: true });
    writeFileSync(path, actual);
  }
  expect(existsSync(path), `golden file ${file} is missing: run UPDATE_GOLDEN=1 npx vitest run test/cli/drift-adopt-e2e.test.ts`).toBe(true);
  expect(actual, `${file} differs; if the change is intended, run UPDATE_GOLDEN=1 npx vitest run test/cli/drift-adopt-e2e.test.ts`).toBe(
    readFileSync(path, 'utf8'),
  );
}

/** Audit times and ports vary from run to run. */
function stable(text: string): string {
  return text.replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z?/g, '<time>');
}

function entry(id: string, granted: readonly string[]): FolderAclEntry {
  const all = ['readFiles', 'writeFiles', 'deleteFiles', 'listFiles', 'admin', 'addDeleteSubfolders', 'notify'];
  return {
    type: 'User',
    id,
    permissions: { ...Object.fromEntries(all.map((p) => [p, granted.includes(p)])), sharePermissions: {} } as FolderAclEntry['permissions'],
    isEditable: true,
    isDeletable: true,
  };
}

for (const profile of ['current', 'divergent'] as const) {
  describe(`mftops drift --adopt against the emulator (${profile} profile)`, () => {
    it('writes a task field, a folder entry, an ACL permission, a task created and one deleted by hand into the manifests; plan then has no change', async () => {
      const dir = await adoptedExamples(profile);
      const emu = emulator!;
      // The operator fixes a task in the admin UI (through the API: the audit report records it).
      const operator = automationClientFor(emu, SEED_LOGINS.automationOperator);
      const payroll = (await operator.listTasks({ name: 'Payroll to bank' }))[0]!;
      await operator.updateTask(payroll.ID!, { ...payroll, Info: { ...payroll.Info, Description: 'Nightly payroll, fixed at 2 a.m.' } });
      await operator.close();
      const admin = automationClientFor(emu);
      await admin.createTask({
        Name: 'Globex archive',
        Group: ['Partners'],
        steps: [{ Source: { HostID: '201004', Path: '/out' } }, { Destination: { HostID: '201007', Path: '/archive' } }],
      });
      await admin.close();
      // By hand on the servers: carol gets into Acme's outbound folder, partner managers lose a permission, a task goes.
      addFolderEntryByHand(emu, '/Distribution/Acme/Outbound', entry(String(readTransferUser(emu, 'carol')!.id), ['listFiles', 'readFiles']));
      editAclByHand(emu, 'Partners', 'Partner Managers', (acl) => {
        acl.Permissions.TaskAddEditDelete = 0;
      });
      deleteTaskByHand(emu, 'Acme inbound');

      // The report's ways out run as printed: they name the --config file the run was given.
      const report = await runCli(['drift', ...PROD], { cwd: dir, env: ENV });
      expect(report.code, report.stderr).toBe(2);
      expect(report.stdout).toContain("keep the server's: mftops drift --config examples/mftops.yaml --env production --adopt 'Task/Payroll to bank'");
      expect(report.stdout).toContain("restore git's:     mftops apply --config examples/mftops.yaml --env production --target 'Task/Payroll to bank'");

      const before = filesOf(dir);
      const dry = await runCli(['drift', ...PROD, '--shared', '--adopt', '--dry-run'], { cwd: dir, env: ENV });
      expect(dry.code, dry.stderr).toBe(0);
      expect(filesOf(dir)).toEqual(before);
      expectGolden(stable(dry.stdout), 'adopt-dry-run.txt');

      const adopted = await runCli(['drift', ...PROD, '--shared', '--adopt'], { cwd: dir, env: ENV });
      expect(adopted.code, adopted.stdout + adopted.stderr).toBe(0);
      expect(adopted.stdout).toMatch(/~ Task\/Payroll to bank: Info\.Description as on the server\n\s+last change: operator, /);
      expect(adopted.stdout).toContain('+ Task/Globex archive: created on the server');
      expect(adopted.stdout).toContain('- Task/Acme inbound: deleted on the server, its document removed');

      const plan = await runCli(['plan', ...PROD, '--detailed-exitcode'], { cwd: dir, env: ENV });
      expect(plan.stdout).toContain('No changes.');
      expect(plan.code).toBe(0);
      const after = filesOf(dir);
      const changed = [...after].filter(([path, text]) => before.get(path) !== text).map(([path]) => path);
      expect(changed).toEqual([
        'examples/manifests/access/resource-group-acls.yaml',
        'examples/manifests/folders/partner-folders.yaml',
        'examples/manifests/tasks/finance.yaml',
        'examples/manifests/tasks/globex-archive.yaml',
        'examples/manifests/tasks/partners.yaml',
      ]);
      for (const path of changed) expectGolden(after.get(path)!, `adopted-${path.split('/').slice(-2).join('-')}`);
    });
  });
}

describe('mftops drift --adopt refuses what it must not write', () => {
  it('a ${var:} field and a Patch field are refused by name, a secret is not adoptable and appears nowhere; the rest is adopted', async () => {
    const dir = await adoptedExamples('current', (d) => {
      const config = join(d, 'examples/mftops.yaml');
      writeFileSync(config, readFileSync(config, 'utf8').replace('    prune: []\n', '    prune: []\n    vars: { ACME_MASK: "*" }\n'));
      const partners = join(d, 'examples/manifests/tasks/partners.yaml');
      const text = readFileSync(partners, 'utf8');
      writeFileSync(
        partners,
        text.replace(
          '- Source: { Host: xfer, Path: /Distribution/Acme/Outbound, FileMask: "*"',
          '- Source: { Host: xfer, Path: /Distribution/Acme/Outbound, FileMask: "${var:ACME_MASK}"',
        ),
      );
      writeFileSync(
        join(d, 'examples/manifests/tasks/production-patches.yaml'),
        [
          'apiVersion: mftops/v1',
          'kind: Patch',
          'metadata: { name: globex words, environments: [production] }',
          'spec:',
          '  target: { kind: Task, name: Globex outbound }',
          '  patch:',
          '    Info: { Description: "Push Globex\'s outbound folder to their FTPS server" }',
          '',
        ].join('\n'),
      );
    });
    const emu = emulator!;
    const hostId = String(((readTask(emu, { name: 'Payroll to bank' })!.steps as JsonObject[])[2]!.Destination as JsonObject).HostID);
    editTaskByHand(emu, { name: 'Acme outbound' }, (t) => {
      ((t.steps as JsonObject[])[0]!.Source as JsonObject).FileMask = '*.zip';
      (t.Info as JsonObject).Description = 'Acme adopted by hand';
    });
    editTaskByHand(emu, { name: 'Globex outbound' }, (t) => {
      (t.Info as JsonObject).Description = 'Changed on the server';
    });
    editTaskByHand(emu, { name: 'Payroll to bank' }, (t) => {
      (t.steps as JsonObject[]).push({ Destination: { HostID: hostId, Path: '/copy', UseDefUser: 0, Username: 'copier', Password: 'hunter2-SECRET-value' } });
    });
    const before = filesOf(dir);

    const r = await runCli(['drift', ...PROD, '--shared', '--adopt'], { cwd: dir, env: ENV });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('~ Task/Acme outbound: Info.Description as on the server');
    expect(r.stdout).toContain(
      '! Task/Acme outbound steps[0].Source.FileMask: written as ${var:ACME_MASK}: change the variable in mftops.yaml or write the value in the manifest by hand',
    );
    expect(r.stdout).toMatch(
      /! Task\/Globex outbound Info\.Description: the kind: Patch at examples\/manifests\/tasks\/production-patches\.yaml:7 gives this value/,
    );
    expect(r.stdout).toContain('! Task/Payroll to bank steps[3]: holds a secret: changed on the server, not adoptable');
    const after = filesOf(dir);
    for (const text of [r.stdout, r.stderr, ...after.values()]) expect(text).not.toContain('hunter2-SECRET-value');
    expect(after.get('examples/mftops.yaml')).toBe(before.get('examples/mftops.yaml'));
    expect(after.get('examples/manifests/tasks/production-patches.yaml')).toBe(before.get('examples/manifests/tasks/production-patches.yaml'));
    expect(after.get('examples/manifests/tasks/finance.yaml')).toBe(before.get('examples/manifests/tasks/finance.yaml'));
    expect(after.get('examples/manifests/tasks/partners.yaml')).toContain('FileMask: "${var:ACME_MASK}"');
    expect(after.get('examples/manifests/tasks/partners.yaml')).toContain('Description: Acme adopted by hand');

    // Only what was refused is left: the plan would put back the mask, the description and remove the step.
    const plan = await runCli(['plan', ...PROD], { cwd: dir, env: ENV });
    expect(plan.stdout).toMatch(/3 to update/);
  });

  it('an address that names nothing is refused with exit 1 and writes nothing', async () => {
    const dir = await adoptedExamples('current');
    const before = filesOf(dir);
    const r = await runCli(['drift', ...PROD, '--shared', '--adopt', 'Task/No such task'], { cwd: dir, env: ENV });
    expect(r.stdout).toContain('! Task/No such task: names no drifted, unmanaged or managed object of this environment');
    expect(r.code).toBe(1);
    expect(filesOf(dir)).toEqual(before);
  });

  it('refuses, without --shared, a manifest another environment loads too, naming it; writes nothing', async () => {
    const dir = await adoptedExamples('current');
    editTaskByHand(emulator!, { name: 'Payroll to bank' }, (t) => {
      (t.Info as JsonObject).Description = 'changed in production';
    });
    const before = filesOf(dir);
    const r = await runCli(['drift', ...PROD, '--adopt'], { cwd: dir, env: ENV });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(
      '! Task/Payroll to bank: examples/manifests/tasks/finance.yaml is also loaded by environment staging: adopting here would change it too',
    );
    expect(filesOf(dir)).toEqual(before);
  });

  it('never writes a server value that reads as a ${…} reference: a secret of mftops would be sent there on the next apply', async () => {
    const dir = await adoptedExamples('current');
    const emu = emulator!;
    editTaskByHand(emu, { name: 'Nightly cleanup' }, (t) => {
      (t.Info as JsonObject).Description = '${env:ACME_SFTP_PASSWORD}';
    });
    const admin = automationClientFor(emu);
    await admin.createTask({ Name: 'Lookalike', Group: ['Partners'], Info: { Description: 'x ${file:/etc/passwd}' }, steps: [] });
    await admin.close();
    const before = filesOf(dir);
    const r = await runCli(['drift', ...PROD, '--shared', '--adopt'], { cwd: dir, env: ENV });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(
      /! Task\/Nightly cleanup Info\.Description: the server's value holds `\$\{…\}`, which a manifest reads as a variable or secret reference: not written into a manifest/,
    );
    expect(r.stdout).toMatch(/! Task\/Lookalike: the server's value holds `\$\{…\}`/);
    const after = filesOf(dir);
    for (const text of after.values()) {
      expect(text).not.toMatch(/Description:\s*"?\$\{env:ACME_SFTP_PASSWORD\}/);
      expect(text).not.toContain('${file:/etc/passwd}');
    }
    expect([...after.keys()].sort()).toEqual([...before.keys()].sort());
  });

  it('edits the file a symlinked manifest points to, keeping the link and the mode the umask would narrow', async () => {
    const dir = await adoptedExamples('current');
    const link = join(dir, 'examples/manifests/tasks/finance.yaml');
    const shared = join(dir, 'finance-shared.yaml');
    renameSync(link, shared);
    symlinkSync(shared, link);
    chmodSync(shared, 0o664);
    editTaskByHand(emulator!, { name: 'Payroll to bank' }, (t) => {
      (t.Info as JsonObject).Description = 'fixed through the link';
    });
    const r = await runCli(['drift', ...PROD, '--shared', '--adopt', 'Task/Payroll to bank'], { cwd: dir, env: ENV });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readFileSync(shared, 'utf8')).toContain('fixed through the link');
    expect(statSync(shared).mode & 0o777).toBe(0o664);
  });

  it('adopts a field change in an environment whose manifests are files only (no folder for new ones)', async () => {
    const dir = await adoptedExamples('current');
    const config = join(dir, 'examples/mftops.yaml');
    writeFileSync(config, readFileSync(config, 'utf8').replace('manifests: [manifests, policies]', 'manifests: [manifests/tasks/finance.yaml]'));
    editTaskByHand(emulator!, { name: 'Payroll to bank' }, (t) => {
      (t.Info as JsonObject).Description = 'one file only';
    });
    const r = await runCli(['drift', ...PROD, '--shared', '--adopt', 'Task/Payroll to bank'], { cwd: dir, env: ENV });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(readFileSync(join(dir, 'examples/manifests/tasks/finance.yaml'), 'utf8')).toContain('one file only');
  });
});

describe('mftops drift --adopt and acknowledged drift (drift.ignore)', () => {
  const RULES = [
    '    prune: []',
    '    drift:',
    '      ignore:',
    '        # The 2 a.m. fix, accepted until someone reviews it.',
    '        - { address: Task/Payroll to bank, reason: night fix }',
    '        - address: Task/Acme*',
    '          path: Info.Description',
    '        - { address: Task/Nightly cleanup, path: Info.Description, until: "2999-12-31" }',
    '',
  ].join('\n');

  it('leaves acknowledged objects alone unless named; named, adopts them and removes the rule that names them from mftops.yaml (other comments kept), a pattern rule stays', async () => {
    // The rules come after the first adoption, which takes the seed's differences from the examples.
    const dir = await adoptedExamples('current');
    const configFile = join(dir, 'examples/mftops.yaml');
    writeFileSync(configFile, readFileSync(configFile, 'utf8').replace('    prune: []\n', RULES));
    const emu = emulator!;
    for (const name of ['Payroll to bank', 'Acme outbound', 'Nightly cleanup'])
      editTaskByHand(emu, { name }, (t) => {
        (t.Info as JsonObject).Description = `${name}, fixed by hand`;
      });
    const before = filesOf(dir);

    // Without addresses: nothing acknowledged is adopted, and the run says which objects it left.
    const all = await runCli(['drift', ...PROD, '--shared', '--adopt'], { cwd: dir, env: ENV });
    expect(all.code, all.stdout + all.stderr).toBe(0);
    expect(all.stdout).toContain('nothing to adopt');
    for (const address of ['Task/Acme outbound', 'Task/Nightly cleanup', 'Task/Payroll to bank'])
      expect(all.stdout).toContain(`  * ${address}: its acknowledged differences were not adopted; name it (drift --adopt ADDRESS)`);
    expect(filesOf(dir)).toEqual(before);

    // Named: the dry run shows the mftops.yaml diff too, and writes nothing.
    const named = ['Task/Payroll to bank', 'Task/Acme outbound'];
    const dry = await runCli(['drift', ...PROD, '--shared', '--adopt', ...named, '--dry-run'], { cwd: dir, env: ENV });
    expect(dry.code, dry.stdout + dry.stderr).toBe(0);
    expect(dry.stdout).toContain('--- a/examples/mftops.yaml\n+++ b/examples/mftops.yaml');
    expect(dry.stdout).toContain('-        - { address: Task/Payroll to bank, reason: night fix }');
    expect(filesOf(dir)).toEqual(before);

    const r = await runCli(['drift', ...PROD, '--shared', '--adopt', ...named], { cwd: dir, env: ENV });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain('~ Task/Payroll to bank: Info.Description as on the server');
    expect(r.stdout).toContain('~ Task/Acme outbound: Info.Description as on the server');
    expect(r.stdout).toMatch(
      /\nexamples\/mftops\.yaml\n {2}- acknowledgement cleared: Task\/Payroll to bank \(examples\/mftops\.yaml:\d+:\d+\), adopted with Task\/Payroll to bank\n/,
    );
    expect(r.stdout).toMatch(
      /\* Task\/Acme\* Info\.Description \(examples\/mftops\.yaml:\d+:\d+\) covers Task\/Acme outbound, adopted: not removed, it is a pattern/,
    );
    const config = readFileSync(join(dir, 'examples/mftops.yaml'), 'utf8');
    // The comment above the rule was about it and goes with it; every other line stays as written.
    expect(config).toBe(
      before
        .get('examples/mftops.yaml')!
        .replace('        # The 2 a.m. fix, accepted until someone reviews it.\n        - { address: Task/Payroll to bank, reason: night fix }\n', ''),
    );
    expect(readFileSync(join(dir, 'examples/manifests/tasks/finance.yaml'), 'utf8')).toContain('Payroll to bank, fixed by hand');

    // What is left is the acknowledged Nightly cleanup description: nothing differs, the rule still holds.
    const drift = await runCli(['drift', ...PROD], { cwd: dir, env: ENV });
    expect(drift.stdout).toContain('Drift: 0 objects differ, 0 unmanaged');
    expect(drift.stdout).toMatch(/Acknowledged \(not drift\):\n {2}Task\/Nightly cleanup Info\.Description: /);
  });

  it('removes the drift block when its last rule is spent, and the config still loads', async () => {
    const dir = await adoptedExamples('current', (d) => {
      const config = join(d, 'examples/mftops.yaml');
      writeFileSync(
        config,
        readFileSync(config, 'utf8').replace(
          '    prune: []\n',
          '    prune: []\n    drift:\n      ignore:\n        - address: Task/Payroll to bank\n          path: Info.*\n',
        ),
      );
    });
    editTaskByHand(emulator!, { name: 'Payroll to bank' }, (t) => {
      (t.Info as JsonObject).Description = 'the last rule goes';
    });
    const before = readFileSync(join(dir, 'examples/mftops.yaml'), 'utf8');
    const r = await runCli(['drift', ...PROD, '--shared', '--adopt', 'Task/Payroll to bank'], { cwd: dir, env: ENV });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain('acknowledgement cleared: Task/Payroll to bank Info.*');
    expect(readFileSync(join(dir, 'examples/mftops.yaml'), 'utf8')).toBe(
      before.replace('    drift:\n      ignore:\n        - address: Task/Payroll to bank\n          path: Info.*\n', ''),
    );
    const plan = await runCli(['plan', ...PROD, '--detailed-exitcode'], { cwd: dir, env: ENV });
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
  });
});
