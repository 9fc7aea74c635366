import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emulatorConfigYaml } from '../../src/emulator/config-for.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { SEED_LOGINS, automationClientFor, startSeededEmulator, transferClientFor } from '../integration/helpers.js';
import { runCli } from '../helpers/run-cli.js';
import { testdir } from '../helpers/testdir.js';

const ENV = { MFT_AUTOMATION_PASSWORD: SEED_LOGINS.automationAdmin.password, MFT_TRANSFER_PASSWORD: SEED_LOGINS.transferAdmin.password };

let emulator: RunningEmulator;
beforeAll(async () => {
  emulator = await startSeededEmulator();
});
afterAll(() => emulator.close());

describe('mftops snapshot through the CLI', () => {
  it('saves, lists, verifies, diffs and restores, with 0600 files and no secret in any output', async () => {
    const dir = testdir({
      'mftops.yaml': `${emulatorConfigYaml({ ...emulator, environment: 'lab' })}snapshots: { dir: snaps, keep: 5 }\n`,
    });
    const outputs: string[] = [];
    const cli = async (...args: string[]) => {
      const r = await runCli(args, { cwd: dir, env: ENV });
      outputs.push(r.stdout, r.stderr);
      return r;
    };
    const first = await cli('snapshot', 'save');
    expect(first.code).toBe(0);
    const envDir = join(dir, 'snaps', 'lab');
    const [id1] = readdirSync(envDir);
    expect(statSync(join(envDir, id1!)).mode & 0o777).toBe(0o700);
    for (const f of readdirSync(join(envDir, id1!))) expect(statSync(join(envDir, id1!, f)).mode & 0o777).toBe(0o600);

    // A change behind the snapshot's back: delete a task through the API.
    const client = automationClientFor(emulator);
    const before = await client.listTasks();
    await client.deleteTask(before.find((t) => t.Name === 'Nightly cleanup')!.ID!);
    const second = await cli('snapshot', 'save');
    expect(second.code).toBe(0);

    const list = await cli('snapshot', 'list');
    expect(list.code).toBe(0);
    expect(list.stdout).toContain(id1!);
    expect((await cli('snapshot', 'verify', id1!)).code).toBe(0);
    const diff = await cli('snapshot', 'diff', id1!, 'latest');
    // They differ: exit 2, as plan --detailed-exitcode, drift and diff-env.
    expect(diff.code).toBe(2);
    expect(diff.stdout).toContain('Nightly cleanup');

    const writes = () => emulator.requestLog().filter((r) => !r.isTokenCall && r.method !== 'GET');
    const snapshots = () => readdirSync(envDir).filter((n) => n !== 'apply.lock').length;
    emulator.resetRequestLog();
    const refused = await cli('snapshot', 'restore', id1!);
    // Without a terminal: what it would change first (reads only), then the refusal; nothing written, no snapshot taken.
    expect(refused.code).toBe(1);
    expect(refused.stdout).toMatch(/^Restoring lab\/.+\n[^]*^ {2}\+ Nightly cleanup$/m);
    expect(refused.stderr).toBe(
      'mftops: error: snapshot restore replaces the whole automation configuration: run it on a terminal to confirm, or pass --auto-approve (--dry-run only shows what it would change)\n',
    );
    expect(writes()).toEqual([]);
    expect(snapshots()).toBe(2);
    expect(await client.listTasks()).toHaveLength(before.length - 1);

    // --dry-run: the same preview, exit 0, no write request, no snapshot; as JSON, the diff document.
    emulator.resetRequestLog();
    const dry = await cli('snapshot', 'restore', id1!, '--dry-run');
    expect(dry.code).toBe(0);
    expect(dry.stdout).toMatch(
      /^Dry run: restoring lab\/.+\n[^]*^ {2}\+ Nightly cleanup\n[^]*^Dry run: nothing was written\. To restore: mftops snapshot restore \S+\n$/m,
    );
    const dryJson = await cli('--format', 'json', 'snapshot', 'restore', id1!, '--dry-run', '--auto-approve');
    expect(dryJson.code).toBe(0);
    const preview = JSON.parse(dryJson.stdout) as { kind: string; a: { id: string }; kinds: { kind: string; added: string[] }[] };
    expect(preview).toMatchObject({ kind: 'mftops.snapshot.diff', a: { id: 'live' } });
    expect(preview.kinds.find((k) => k.kind === 'task')?.added).toEqual(['Nightly cleanup']);
    expect(writes()).toEqual([]);
    expect(snapshots()).toBe(2);
    expect(await client.listTasks()).toHaveLength(before.length - 1);
    const restored = await cli('--format', 'json', 'snapshot', 'restore', id1!, '--auto-approve');
    expect(restored.code).toBe(0);
    // The JSON document says what the restore changed (live → snapshot) and that it read back as the snapshot.
    const doc = JSON.parse(restored.stdout) as { diff: { kinds: { kind: string; added: string[] }[] }; verified: boolean; mismatches: string[] };
    expect(doc.diff.kinds.find((k) => k.kind === 'task')?.added).toEqual(['Nightly cleanup']);
    expect(doc).toMatchObject({ verified: true, mismatches: [] });
    expect(await client.listTasks()).toEqual(before);
    await client.close();

    for (const secret of ['SEEDSECRET', SEED_LOGINS.automationAdmin.password, SEED_LOGINS.transferAdmin.password]) {
      for (const text of outputs) expect(text).not.toContain(secret);
    }
  });

  it('runs a transfer-only environment end to end: plan, apply (snapshot taken, listed), save, diff, restore, import', async () => {
    const dir = testdir({
      'mftops.yaml': `${emulatorConfigYaml({ environment: 'files', transferUrl: emulator.transferUrl, manifests: ['manifests'] })}snapshots: { dir: snaps, keep: 5 }\n`,
      'manifests/inbound.yaml': [
        'apiVersion: mftops/v1',
        'kind: FolderPermissions',
        'metadata: { name: /Distribution/Acme/Inbound }',
        'spec:',
        '  mode: exact',
        '  entries:',
        '    - group: Acme Partners',
        '      permissions: [listFiles, writeFiles]',
        '    - user: automation-svc',
        '      permissions: [listFiles, writeFiles]',
        '',
      ].join('\n'),
    });
    const outputs: string[] = [];
    const cli = async (...args: string[]) => {
      const r = await runCli(args, { cwd: dir, env: ENV });
      outputs.push(r.stdout, r.stderr);
      return r;
    };
    const transfer = transferClientFor(emulator);
    const inbound = (await transfer.findFolderByPath('/Distribution/Acme/Inbound'))!;
    const names = async () => (await transfer.listFolderAcls(inbound.id)).map((e) => e.name).sort();
    expect(await names()).toEqual(['Acme Partners', 'alice', 'automation-svc']);

    const plan = await cli('plan', '--detailed-exitcode');
    expect(plan.stdout).toContain('FolderPermissions/Distribution/Acme/Inbound');
    expect(plan.code).toBe(2);
    const apply = await cli('apply', '--auto-approve');
    expect(apply.stderr).not.toMatch(/error/i);
    expect(apply.code).toBe(0);
    expect(await names()).toEqual(['Acme Partners', 'automation-svc']);
    const [applied] = readdirSync(join(dir, 'snaps', 'files'));
    expect(readdirSync(join(dir, 'snaps', 'files', applied!)).sort()).toEqual([
      'ledger.jsonl',
      'snapshot.json',
      'transfer-accounts.json',
      'transfer-folders.json',
    ]);
    const list = await cli('snapshot', 'list');
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(new RegExp(`^files\\s+${applied!.replace(/\./g, '\\.')}\\s+-\\s+-\\s+1\\s+\\d+\\s+\\d+\\s+no\\s+-\\s+before apply$`, 'm'));
    expect((await cli('plan', '--detailed-exitcode')).code).toBe(0);

    // No scope.folders: the save holds the folders the manifests manage.
    const save = await cli('snapshot', 'save');
    expect(save.code).toBe(0);
    expect(save.stdout).toMatch(/^Saved snapshot files\/\S+ \(1 transfer folder\(s\), \d+ users, \d+ groups\)\n/);
    expect(save.stdout).toContain('folder permissions of 1 transfer folder(s) saved');
    expect((await cli('snapshot', 'verify', 'latest')).code).toBe(0);
    const diff = await cli('snapshot', 'diff', applied!, 'latest');
    expect(diff.code).toBe(2);
    expect(diff.stdout).toContain('Automation configuration: not compared (neither snapshot holds an automation export)\n');
    expect(diff.stdout).toContain(
      'Folder ACLs: 1 changed (1 folder(s) saved in both snapshots)\n  ~ /Distribution/Acme/Inbound\n      - User alice: readFiles, deleteFiles, listFiles\n',
    );

    const restore = await cli('snapshot', 'restore', applied!, '--auto-approve');
    expect(restore.stdout).toContain('  /Distribution/Acme/Inbound: 1 entries put back, 0 removed\n');
    expect(restore.code).toBe(0);
    expect(await names()).toEqual(['Acme Partners', 'alice', 'automation-svc']);
    expect((await cli('plan', '--detailed-exitcode')).code).toBe(2);
    expect(readdirSync(join(dir, 'snaps', 'files'))).toHaveLength(3);

    const imported = await cli('import', '--kind', 'FolderPermissions', '--all', '--from-snapshot', applied!, '--out', 'imported');
    expect(imported.code).toBe(0);
    expect(imported.stdout).toContain('FolderPermissions/Distribution/Acme/Inbound');
    const tasks = await cli('import', '--kind', 'Task', '--all', '--from-snapshot', applied!, '--out', 'imported');
    expect(tasks.code).toBe(1);
    expect(tasks.stderr).toContain(
      `snapshot files/${applied} holds no automation export (it was taken without the automation service), so it has no Task to import`,
    );
    await transfer.close();

    for (const secret of [SEED_LOGINS.automationAdmin.password, SEED_LOGINS.transferAdmin.password]) {
      for (const text of outputs) expect(text).not.toContain(secret);
    }
  });

  it('snapshot save warns when no manifest manages a folder and scope.folders is empty', async () => {
    const dir = testdir({
      'mftops.yaml': `${emulatorConfigYaml({ environment: 'files', transferUrl: emulator.transferUrl })}snapshots: { dir: snaps, keep: 5 }\n`,
    });
    const r = await runCli(['snapshot', 'save'], { cwd: dir, env: ENV });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(
      /^warning: no folder permissions saved: environment "files" has no FolderPermissions manifests and no scope\.folders in .*mftops\.yaml/,
    );
    expect(r.stdout).toContain('folder permissions of 0 transfer folder(s) saved');
    expect((await runCli(['snapshot', 'save', '--help'], { cwd: dir })).stdout).toContain('with neither, no folder permissions are saved');
  });
});
