import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { emulatorConfigYaml } from '../../src/emulator/config-for.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { SEED_LOGINS, startSeededEmulator } from '../integration/helpers.js';
import { listWrites, readTransferGroup, readTransferUser } from '../helpers/emulator-test-api.js';
import { runCli } from '../helpers/run-cli.js';
import { testdir } from '../helpers/testdir.js';

const ENV = { MFT_AUTOMATION_PASSWORD: SEED_LOGINS.automationAdmin.password, MFT_TRANSFER_PASSWORD: SEED_LOGINS.transferAdmin.password };

function groupYaml(name: string, spec: string): string {
  return `apiVersion: mftops/v1\nkind: Group\nmetadata: { name: ${name} }\nspec:\n${spec}`;
}

/** The usernames of a seeded group's members, as the emulator holds them. */
function membersOf(emulator: RunningEmulator, group: string): string[] {
  const ids = readTransferGroup(emulator, group)?.members ?? [];
  const users = ['admin', 'alice', 'bob', 'carol', 'acme-svc', 'globex-svc', 'initech-svc'].map((u) => readTransferUser(emulator, u));
  return ids.map((id) => users.find((u) => u !== undefined && String(u.id) === String(id))?.username ?? `#${id}`).sort();
}

describe('groups through the CLI, against the emulator', () => {
  let emulator: RunningEmulator;
  beforeAll(async () => {
    emulator = await startSeededEmulator();
  });
  afterAll(() => emulator.close());
  beforeEach(() => emulator.resetRequestLog());

  function workdir(files: Record<string, string> = {}): string {
    const config = emulatorConfigYaml({ ...emulator, manifests: ['manifests'] }).replace(
      '    manifests:',
      '    scope: { taskGroups: [], folders: [] }\n    manifests:',
    );
    return testdir({ 'mftops.yaml': config, ...files });
  }

  it('imports every group with its members; the plan of the imported manifests changes nothing, and drift finds none', async () => {
    const dir = workdir();
    const imported = await runCli(['import', '--kind', 'Group', '--all'], { cwd: dir, env: ENV });
    expect(imported.stderr).not.toMatch(/error|warning/i);
    expect(imported.code).toBe(0);
    expect(readdirSync(join(dir, 'manifests', 'groups')).sort()).toEqual([
      'acme-partners.yaml',
      'finance-team.yaml',
      'globex-partners.yaml',
      'initech-partners.yaml',
    ]);
    const acme = readFileSync(join(dir, 'manifests', 'groups', 'acme-partners.yaml'), 'utf8');
    expect(acme).toContain('kind: Group');
    expect(acme).toContain('mode: exact');
    expect(acme).toMatch(/members:\n\s+- acme-svc\n\s+- bob\n/);
    expect(acme).not.toMatch(/password/i);

    const plan = await runCli(['plan', '--detailed-exitcode'], { cwd: dir, env: ENV });
    expect(plan.stderr).toBe('');
    expect(plan.stdout).toContain('4 objects compared, 4 unchanged');
    expect(plan.code).toBe(0);
    const drift = await runCli(['drift'], { cwd: dir, env: ENV });
    expect(drift.code).toBe(0);
    expect(listWrites(emulator).filter((w) => !w.endsWith('/reports/audit'))).toEqual([]);
  });

  it('adds a user to a group: plan names the member, apply adds it in one request, and the plan after it is empty', async () => {
    const dir = workdir({ 'manifests/finance-team.yaml': groupYaml('Finance Team', '  mode: additive\n  members: [alice, carol, bob]\n') });
    const plan = await runCli(['plan', '--detailed-exitcode'], { cwd: dir, env: ENV });
    expect(plan.stdout).toContain('~ Group/Finance Team will be updated');
    expect(plan.stdout).toContain('+ members: "bob"');
    expect(plan.code).toBe(2);
    expect(listWrites(emulator)).toEqual([]);

    const apply = await runCli(['apply', '--auto-approve'], { cwd: dir, env: ENV });
    expect(apply.stderr).not.toMatch(/error/i);
    expect(apply.code).toBe(0);
    expect(listWrites(emulator)).toEqual([expect.stringMatching(/^POST \/transfer\/api\/v1\/groups\/\d+\/members$/)]);
    expect(membersOf(emulator, 'Finance Team')).toEqual(['alice', 'bob', 'carol']);

    emulator.resetRequestLog();
    const again = await runCli(['plan', '--detailed-exitcode'], { cwd: dir, env: ENV });
    expect(again.stdout).toContain('No changes.');
    expect(again.code).toBe(0);
  });

  it('creates a group and removes members an exact manifest does not list', async () => {
    const dir = workdir({
      'manifests/night.yaml': groupYaml('Night Operators', '  description: Runs the night batch\n  mode: exact\n  members: [carol]\n'),
      'manifests/globex.yaml': groupYaml('Globex Partners', '  mode: exact\n  members: []\n'),
    });
    const apply = await runCli(['apply', '--auto-approve'], { cwd: dir, env: ENV });
    expect(apply.code).toBe(0);
    const writes = listWrites(emulator);
    expect(writes).toContain('POST /transfer/api/v1/groups');
    expect(writes.filter((w) => /^DELETE \/transfer\/api\/v1\/groups\/\d+\/members\/[^/]+$/.test(w))).toHaveLength(1);
    expect(readTransferGroup(emulator, 'Night Operators')?.description).toBe('Runs the night batch');
    expect(membersOf(emulator, 'Night Operators')).toEqual(['carol']);
    expect(membersOf(emulator, 'Globex Partners')).toEqual([]);
    const again = await runCli(['plan', '--detailed-exitcode'], { cwd: dir, env: ENV });
    expect(again.stdout).toContain('No changes.');
    expect(again.code).toBe(0);
  });

  it('never writes an observed group: plan warns of its differences, apply sends nothing', async () => {
    const dir = workdir({ 'manifests/acme.yaml': groupYaml('Acme Partners', '  mode: exact\n  members: [alice]\n  manage: observe\n') });
    const before = membersOf(emulator, 'Acme Partners');
    const plan = await runCli(['plan', '--detailed-exitcode'], { cwd: dir, env: ENV });
    expect(plan.stdout).toContain('No changes.');
    expect(plan.stderr).toContain('MF417');
    expect(plan.stderr).toContain('group Acme Partners is observed, not managed');
    expect(plan.code).toBe(0);
    const apply = await runCli(['apply', '--auto-approve'], { cwd: dir, env: ENV });
    expect(apply.code).toBe(0);
    expect(listWrites(emulator)).toEqual([]);
    expect(membersOf(emulator, 'Acme Partners')).toEqual(before);
  });

  it('shows a description change as blocked, with the reason, and lists unmanaged groups in drift', async () => {
    const dir = workdir({ 'manifests/initech.yaml': groupYaml('Initech Partners', '  description: Another text\n  mode: additive\n  members: []\n') });
    const plan = await runCli(['plan'], { cwd: dir, env: ENV });
    expect(plan.stdout).toContain('! Group/Initech Partners is blocked');
    expect(plan.stdout).toContain('the file transfer API of this release has no group update/delete');
    const drift = await runCli(['drift'], { cwd: dir, env: ENV });
    expect(drift.code).toBe(2);
    expect(drift.stdout).toMatch(/Group\/Acme Partners.*group, 2 members/);
    expect(listWrites(emulator).filter((w) => !w.endsWith('/reports/audit'))).toEqual([]);
  });

  it('names the folders a new member gains through the group, in the plan and the PR comment, when the plan reads them', async () => {
    // Its own server: the tests above change Finance Team's members.
    const own = await startSeededEmulator();
    try {
      await planMembershipAccess(own);
    } finally {
      await own.close();
    }
  });
});

/** Plans bob into Finance Team with /Finance read: the access review names the folder and the group. */
async function planMembershipAccess(emulator: RunningEmulator): Promise<void> {
  const config = emulatorConfigYaml({ ...emulator, manifests: ['manifests'] }).replace(
    '    manifests:',
    '    scope: { taskGroups: [], folders: [/Finance] }\n    manifests:',
  );
  const dir = testdir({
    'mftops.yaml': config,
    'manifests/finance-team.yaml': groupYaml('Finance Team', '  mode: additive\n  members: [alice, carol, bob]\n'),
    // A folder manifest under /Finance makes the plan read the folders there (prune is off: nothing is deleted).
    'manifests/finance.yaml':
      'apiVersion: mftops/v1\nkind: FolderPermissions\nmetadata: { name: /Finance }\nspec:\n  mode: additive\n  entries:\n    - group: Finance Team\n      permissions: [listFiles, readFiles, writeFiles, addDeleteSubfolders]\n',
  });
  const plan = await runCli(['plan', '--detailed-exitcode'], { cwd: dir, env: ENV });
  expect(plan.stderr).toBe('');
  expect(plan.stdout).toMatch(/bob gains [^\n]*readFiles[^\n]* on \/Finance \(via group Finance Team\)/);
  expect(plan.code).toBe(2);
  const comment = await runCli(['plan', '--format', 'markdown'], { cwd: dir, env: ENV });
  expect(comment.stdout).toMatch(/bob[^\n]*\/Finance[^\n]*Finance Team/);
  expect(listWrites(emulator)).toEqual([]);
}
