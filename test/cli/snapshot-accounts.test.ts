import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emulatorConfigYaml } from '../../src/emulator/config-for.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { loadSeedFile } from '../../src/emulator/index.js';
import {
  addTransferUser,
  editTransferGroupByHand,
  readTransferGroup,
  readTransferGroups,
  readTransferUser,
  readTransferUsers,
} from '../helpers/emulator-test-api.js';
import { runCli } from '../helpers/run-cli.js';
import { testdir } from '../helpers/testdir.js';
import { SEED_LOGINS, SEED_PATH, startSeededEmulator } from '../integration/helpers.js';

const ENV = { MFT_AUTOMATION_PASSWORD: SEED_LOGINS.automationAdmin.password, MFT_TRANSFER_PASSWORD: SEED_LOGINS.transferAdmin.password };

/** Every transfer user's password in the seed: none may appear in a snapshot's accounts or any output. */
const SEEDED_PASSWORDS = (loadSeedFile(SEED_PATH).transfer?.users ?? []).map((u) => u.password as string);

let emulator: RunningEmulator;
beforeAll(async () => {
  emulator = await startSeededEmulator();
});
afterAll(() => emulator.close());

describe('mftops snapshot with transfer users and groups, through the CLI', () => {
  it('saves and verifies them with their counts, diffs them, and a restore preview says what it cannot put back', async () => {
    const dir = testdir({ 'mftops.yaml': `${emulatorConfigYaml({ ...emulator, environment: 'lab' })}snapshots: { dir: snaps, keep: 5 }\n` });
    const outputs: string[] = [];
    const cli = async (...args: string[]) => {
      const r = await runCli(args, { cwd: dir, env: ENV });
      outputs.push(r.stdout, r.stderr);
      return r;
    };
    const users = readTransferUsers(emulator).length;
    const groups = readTransferGroups(emulator).length;
    expect(SEEDED_PASSWORDS.length).toBeGreaterThan(0);

    const save = await cli('snapshot', 'save');
    expect(save.code).toBe(0);
    expect(save.stdout).toMatch(
      new RegExp(`^Saved snapshot lab/\\S+ \\(8 tasks, [\\d.]+ KiB, 0 transfer folder\\(s\\), ${users} users, ${groups} groups\\)\\n`),
    );
    expect(save.stdout).toContain(
      `  ${users} transfer users and ${groups} groups with their members saved (no password: passwords cannot be read, nor restored)\n`,
    );
    const [first] = readdirSync(join(dir, 'snaps', 'lab'));

    const verify = await cli('snapshot', 'verify', 'latest');
    expect(verify.code).toBe(0);
    expect(verify.stdout).toContain(`verified: 8 tasks, 0 transfer folder(s), ${users} users, ${groups} groups, 3 file(s) match snapshot.json.`);
    expect(verify.stdout).toMatch(/^ {2}transfer-accounts\.json: [\d.]+ KiB, sha256 [0-9a-f]{64}$/m);
    const list = await cli('--format', 'json', 'snapshot', 'list');
    expect(JSON.parse(list.stdout)).toMatchObject({ snapshots: [{ userCount: users, groupCount: groups }] });
    const folder = join(dir, 'snaps', 'lab', first!);
    for (const f of ['snapshot.json', 'transfer-accounts.json']) {
      for (const password of SEEDED_PASSWORDS) expect(readFileSync(join(folder, f), 'utf8'), f).not.toContain(password);
    }

    // An account created behind mftops' back.
    addTransferUser(emulator, { ...readTransferUser(emulator, 'carol')!, id: 'u-mallory', username: 'mallory', password: 'Mallory-Pa55' });
    expect((await cli('snapshot', 'save')).code).toBe(0);
    const diff = await cli('snapshot', 'diff', first!, 'latest');
    expect(diff.code).toBe(2);
    expect(diff.stdout).toContain('Users: 1 added\n  + mallory\nGroups: no changes\n');
    expect(diff.stdout.trimEnd().split('\n').at(-1)).toBe('1 added, 0 removed, 0 changed.');

    const dry = await cli('snapshot', 'restore', first!, '--service', 'transfer', '--dry-run');
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain(`and puts back the fields of its ${users} users and the members of its ${groups} groups on ${emulator.transferUrl}`);
    expect(dry.stdout).toContain('Users: 1 removed\n  - mallory\n');
    expect(dry.stdout).toContain('  user mallory was created since the snapshot: left alone (a restore deletes no user)\n');

    for (const text of outputs) {
      for (const secret of [...SEEDED_PASSWORDS, 'Mallory-Pa55']) expect(text).not.toContain(secret);
    }
  });

  it("restore leaves the members of a group git only observes (spec.manage: observe) as they are now, and puts back another group's", async () => {
    const fresh = await startSeededEmulator();
    try {
      const dir = testdir({
        'mftops.yaml': `${emulatorConfigYaml({ ...fresh, environment: 'lab', manifests: ['manifests'] })}snapshots: { dir: snaps, keep: 5 }\n`,
        'manifests/groups.yaml':
          'apiVersion: mftops/v1\nkind: Group\nmetadata:\n  name: Finance Team\nspec:\n  mode: exact\n  manage: observe\n  members: [alice, carol]\n',
      });
      expect((await runCli(['snapshot', 'save'], { cwd: dir, env: ENV })).code).toBe(0);
      const [saved] = readdirSync(join(dir, 'snaps', 'lab'));
      // Since the snapshot, carol left Finance Team (the directory sync that owns it removed her) and bob left Acme Partners.
      const idOf = (name: string) => readTransferUser(fresh, name)!.id;
      editTransferGroupByHand(fresh, 'Finance Team', (g) => (g.members = g.members.filter((id) => id !== idOf('carol'))));
      editTransferGroupByHand(fresh, 'Acme Partners', (g) => (g.members = g.members.filter((id) => id !== idOf('bob'))));

      const r = await runCli(['snapshot', 'restore', saved!, '--service', 'transfer', '--auto-approve'], { cwd: dir, env: ENV });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain('group Finance Team: members left alone: git only observes them (spec.manage: observe at manifests/groups.yaml:7)');
      expect(readTransferGroup(fresh, 'Finance Team')!.members).not.toContain(idOf('carol'));
      expect(readTransferGroup(fresh, 'Acme Partners')!.members).toContain(idOf('bob'));
    } finally {
      await fresh.close();
    }
  });
});
