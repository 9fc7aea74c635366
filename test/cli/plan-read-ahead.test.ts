import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emulatorConfigYaml } from '../../src/emulator/config-for.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { addFolderByHand, countTokenCalls, listWrites, readFolder } from '../helpers/emulator-test-api.js';
import { hasStackTrace, runCli, type CliResult } from '../helpers/run-cli.js';
import { testdir } from '../helpers/testdir.js';
import { SEED_LOGINS, startSeededEmulator } from '../integration/helpers.js';

/**
 * Issue 29: plan and drift start their reads while the manifests load, from the 50th file on (the tokens, the lists a
 * task needs, the folder list and each managed folder's ACL). A manifest that turns out invalid
 * still ends the run with its one diagnostic line and exit 1, no write, the tokens revoked; a
 * read that failed meanwhile is not reported (the manifests' error comes first) and never
 * crashes the process. With valid manifests every read is sent once, as before.
 */

const GOOD = { MFT_AUTOMATION_PASSWORD: SEED_LOGINS.automationAdmin.password, MFT_TRANSFER_PASSWORD: SEED_LOGINS.transferAdmin.password };
/** More files than READ_AHEAD_AFTER_FILES and folders than FOLDER_LIST_THRESHOLD: the folder list and their ACLs are read ahead. */
const FOLDERS = 60;

let emulator: RunningEmulator;
beforeAll(async () => {
  emulator = await startSeededEmulator();
  const model = readFolder(emulator, '/Distribution/Acme');
  if (model === undefined) throw new Error('the seed has no /Distribution/Acme');
  for (let i = 0; i < FOLDERS; i++)
    addFolderByHand(emulator, { ...model, id: 880_000 + i, parentId: model.id, name: `Ahead ${i}`, path: `/Distribution/Acme/Ahead ${i}`, acl: [] });
});
afterAll(async () => {
  await emulator.close();
});

/** A project whose manifests name FOLDERS folders and a task, then `extra` (sorted last: loaded after the reads started). */
function project(extra: Record<string, string> = {}): string {
  const folders: Record<string, string> = {};
  for (let i = 0; i < FOLDERS; i++)
    folders[`manifests/a-folders/f${String(i).padStart(2, '0')}.yaml`] =
      `apiVersion: mftops/v1\nkind: FolderPermissions\nmetadata: { name: /Distribution/Acme/Ahead ${i} }\nspec:\n  mode: additive\n  entries: []\n`;
  return testdir({
    'mftops.yaml': emulatorConfigYaml({
      automationUrl: emulator.automationUrl,
      transferUrl: emulator.transferUrl,
      manifests: ['manifests'],
      scope: { taskGroups: ['Finance'], folders: ['/Distribution/Acme'] },
    }),
    ...folders,
    'manifests/b-task.yaml':
      'apiVersion: mftops/v1\nkind: Task\nmetadata: { name: Payroll to bank }\nspec:\n  Group: [Finance]\n  Info: { Description: read ahead }\n',
    ...extra,
  });
}

/**
 * Loaded after the reads started: folders no server has (more parsing, the event loop turning
 * between files), then the last file, with a schema error at line 4.
 */
const BAD: Record<string, string> = { 'manifests/z-bad.yaml': 'apiVersion: mftops/v1\nkind: Task\nmetadata: { name: Broken }\nspec: { NoSuchField: 1 }\n' };
for (let i = 0; i < 300; i++)
  BAD[`manifests/c-more/m${String(i).padStart(3, '0')}.yaml`] =
    `apiVersion: mftops/v1\nkind: FolderPermissions\nmetadata: { name: /Distribution/Acme/Later ${i} }\nspec:\n  mode: additive\n  entries: []\n`;

function expectNoCrash(r: CliResult): void {
  for (const text of [r.stdout, r.stderr]) {
    expect(hasStackTrace(text)).toBe(false);
    expect(text).not.toContain('Node.js v');
    expect(text).not.toContain('Unhandled');
  }
}

/** Both services were signed in to, and every token granted was revoked. */
function expectTokensRevoked(): void {
  const calls = countTokenCalls(emulator);
  expect(Object.keys(calls).sort()).toEqual(['automation', 'transfer']);
  for (const { granted, revoked } of Object.values(calls)) {
    expect(granted).toBeGreaterThan(0);
    expect(revoked).toBeGreaterThanOrEqual(granted);
  }
}

describe('plan and drift read while the manifests load', () => {
  for (const command of ['plan', 'drift'] as const) {
    it(`${command}: an invalid manifest loaded after the reads started: its one line, exit 1, no write, both tokens revoked`, async () => {
      emulator.resetRequestLog();
      const r = await runCli([command], { cwd: project(BAD), env: GOOD });
      expectNoCrash(r);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/z-bad\.yaml:4:\d+/);
      expect(r.stderr.split('\n').filter((l) => /z-bad\.yaml:\d+:\d+/.test(l))).toHaveLength(1);
      expect(listWrites(emulator)).toEqual([]);
      // The reads had started (both services signed in to), and the tokens were given back.
      expectTokensRevoked();
    });

    it(`${command}: reads that fail while an invalid manifest loads: the manifest's line is the error, no crash`, async () => {
      const r = await runCli([command], {
        cwd: project(BAD),
        env: { ...GOOD, MFT_AUTOMATION_PASSWORD: 'not-the-password', MFT_TRANSFER_PASSWORD: 'nor-this' },
      });
      expectNoCrash(r);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/z-bad\.yaml:4:\d+/);
      expect(r.stderr).not.toMatch(/invalid_grant/);
    });

    it(`${command}: valid manifests and a read that fails: that read's one error line, exit 1`, async () => {
      const r = await runCli([command], { cwd: project(), env: { ...GOOD, MFT_TRANSFER_PASSWORD: 'not-the-password' } });
      expectNoCrash(r);
      expect(r.code).toBe(1);
      const errors = r.stderr.split('\n').filter((l) => l.startsWith('mftops: error:'));
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatch(/^mftops: error: transfer: .*invalid_grant/);
    });

    it(`${command}: valid manifests: each read is sent once, each folder's ACL among them`, async () => {
      emulator.resetRequestLog();
      const r = await runCli([command], { cwd: project(), env: GOOD });
      expectNoCrash(r);
      expect([0, 2]).toContain(r.code);
      const reads = emulator
        .requestLog()
        .filter((x) => x.method === 'GET')
        .map((x) => `${x.service} ${x.path}`);
      const repeated = reads.filter((p, i) => reads.indexOf(p) !== i);
      expect(repeated).toEqual([]);
      expect(reads.filter((p) => /\/folders\/88\d{4}\/acls$/.test(p))).toHaveLength(FOLDERS);
      expectTokensRevoked();
    });
  }
});
