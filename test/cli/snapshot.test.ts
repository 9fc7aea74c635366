import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureIo, type GlobalOptions } from '../../src/cli/io.js';
import { runSnapshotDiff, runSnapshotList, runSnapshotRestore, runSnapshotSave, runSnapshotVerify } from '../../src/cli/commands/snapshot.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { ConfigError } from '../../src/errors.js';
import { Secret } from '../../src/secret.js';
import { createTransferClient } from '../../src/services/index.js';
import type { SnapshotDiff, SnapshotInfo, SnapshotList, SnapshotManifest } from '../../src/snapshot/index.js';
import { testdir } from '../helpers/testdir.js';
import { writesOf } from '../apply/helpers.js';
import { automationClientFor, SEED_LOGINS, startSeededEmulator, transferClientFor } from '../integration/helpers.js';

let emulator: RunningEmulator;
beforeAll(async () => {
  emulator = await startSeededEmulator();
});
afterAll(() => emulator.close());

const ENV = { AUTO_PW: SEED_LOGINS.automationAdmin.password, XFER_PW: SEED_LOGINS.transferAdmin.password };
/** Everything that must never reach the output of a snapshot command. */
const SECRETS = [/SEEDSECRET/, /Pa55!seed/, /Bearer /, /access_token/];

function project(): string {
  return testdir({
    'mftops.yaml': [
      'apiVersion: mftops/v1',
      'kind: Config',
      'environments:',
      '  lab:',
      `    automation: { url: "${emulator.automationUrl}", username: admin, password: "\${env:AUTO_PW}" }`,
      `    transfer: { url: "${emulator.transferUrl}", username: admin, password: "\${env:XFER_PW}" }`,
      '    scope: { folders: [/Distribution/Acme] }',
      '  files-only:',
      `    transfer: { url: "${emulator.transferUrl}", username: admin, password: "\${env:XFER_PW}" }`,
      'snapshots: { dir: backups, keep: 5 }',
      '',
    ].join('\n'),
  });
}

function g(format: GlobalOptions['format'] = 'text', env = 'lab'): GlobalOptions {
  return { env, format, color: false, quiet: false, verbose: false };
}

function ioIn(dir: string, isTty = false) {
  return captureIo({ cwd: dir, env: ENV, isTty });
}

function expectNoSecrets(text: string): void {
  for (const s of SECRETS) expect(text).not.toMatch(s);
}

async function save(dir: string): Promise<SnapshotInfo> {
  const io = ioIn(dir);
  expect(await runSnapshotSave(g('json'), {}, io)).toBe(0);
  expectNoSecrets(io.out() + io.err());
  return (JSON.parse(io.out()) as { snapshot: SnapshotInfo }).snapshot;
}

describe('mftops snapshot save / list / verify', () => {
  it('saves the export and every folder under the scope, lists it, and verifies it', async () => {
    const dir = project();
    const io = ioIn(dir);
    expect(await runSnapshotSave(g(), {}, io)).toBe(0);
    expect(io.out()).toMatch(
      /^Saved snapshot lab\/\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}Z \(8 tasks, [\d.]+ KiB, 3 transfer folder\(s\), \d+ users, \d+ groups\)\n/,
    );
    expectNoSecrets(io.out() + io.err());

    const id = /lab\/(\S+)/.exec(io.out())![1]!;
    const saved = JSON.parse(readFileSync(join(dir, 'backups', 'lab', id, 'transfer-folders.json'), 'utf8')) as { folders: Array<{ path: string }> };
    expect(saved.folders.map((f) => f.path).sort()).toEqual(['/Distribution/Acme', '/Distribution/Acme/Inbound', '/Distribution/Acme/Outbound']);

    const list = ioIn(dir);
    expect(await runSnapshotList(g(), list)).toBe(0);
    const [header, row] = list.out().split('\n');
    expect(header).toMatch(/^ENV\s+ID\s+TASKS\s+SIZE\s+FOLDERS\s+USERS\s+GROUPS\s+ENCRYPTED\s+SHA256\s+NOTE$/);
    expect(row).toMatch(new RegExp(`^lab\\s+${id.replace(/\./g, '\\.')}\\s+8\\s+[\\d.]+ KiB\\s+3\\s+\\d+\\s+\\d+\\s+no\\s+[0-9a-f]{12}$`));
    const json = ioIn(dir);
    expect(await runSnapshotList(g('json'), json)).toBe(0);
    expect((JSON.parse(json.out()) as SnapshotList).snapshots.map((s) => [s.env, s.id, s.taskCount])).toEqual([['lab', id, 8]]);

    const verify = ioIn(dir);
    expect(await runSnapshotVerify(g(), { id: id.slice(0, 16) }, verify)).toBe(0);
    expect(verify.out()).toMatch(
      new RegExp(`Snapshot lab/${id} verified: 8 tasks, 3 transfer folder\\(s\\), \\d+ users, \\d+ groups, 3 file\\(s\\) match snapshot\\.json\\.`),
    );
    for (const out of [list.out(), json.out(), verify.out()]) expectNoSecrets(out);
  });

  it('verify exits 1 and names the file that changed', async () => {
    const dir = project();
    const info = await save(dir);
    const folders = join(info.path, 'transfer-folders.json');
    writeFileSync(folders, readFileSync(folders, 'utf8').replace('"readFiles": true', '"readFiles": false'));
    const io = ioIn(dir);
    expect(await runSnapshotVerify(g(), { id: 'latest' }, io)).toBe(1);
    expect(io.out()).toMatch(new RegExp(`^Snapshot lab/${info.id.replace(/\./g, '\\.')} FAILED verification: .*transfer-folders\\.json has \\d+ bytes`));
    const json = ioIn(dir);
    expect(await runSnapshotVerify(g('json'), { id: info.id }, json)).toBe(1);
    expect(JSON.parse(json.out())).toMatchObject({ kind: 'mftops.snapshot.verify', ok: false, ref: `lab/${info.id}`, file: 'transfer-folders.json' });
  });

  it('lists nothing yet', async () => {
    const dir = project();
    const io = ioIn(dir);
    expect(await runSnapshotList(g(), io)).toBe(0);
    expect(io.out()).toBe('No snapshots.\n');
  });
});

describe('mftops snapshot save in a transfer-only environment', () => {
  /** An environment with only `transfer:`, a FolderPermissions manifest, and the given scope line. */
  function transferOnly(scope?: string, files: Record<string, string> = {}): string {
    return testdir({
      'mftops.yaml': [
        'apiVersion: mftops/v1',
        'kind: Config',
        'environments:',
        '  files:',
        `    transfer: { url: "${emulator.transferUrl}", username: admin, password: "\${env:XFER_PW}" }`,
        '    manifests: [manifests]',
        ...(scope !== undefined ? [`    scope: ${scope}`] : []),
        'snapshots: { dir: backups, keep: 5 }',
        '',
      ].join('\n'),
      'manifests/payroll.yaml': [
        'apiVersion: mftops/v1',
        'kind: FolderPermissions',
        'metadata: { name: /Finance/Payroll }',
        'spec:',
        '  mode: additive',
        '  entries:',
        '    - user: carol',
        '      permissions: [listFiles, readFiles]',
        '',
      ].join('\n'),
      ...files,
    });
  }

  it('saves the managed folders and every folder under scope.folders, says how many, lists and verifies it', async () => {
    const dir = transferOnly('{ folders: [/Distribution/Acme] }');
    const io = ioIn(dir);
    expect(await runSnapshotSave(g('text', 'files'), {}, io)).toBe(0);
    const id = /^Saved snapshot files\/(\S+) \(4 transfer folder\(s\), \d+ users, \d+ groups\)\n/.exec(io.out())?.[1];
    expect(id, io.out()).toBeDefined();
    expect(io.out()).toContain('\n  folder permissions of 4 transfer folder(s) saved\n');
    expect(io.out()).not.toContain('sha256');
    expect(io.err()).toBe('');
    const folder = join(dir, 'backups', 'files', id!);
    expect(readdirSync(folder).sort()).toEqual(['snapshot.json', 'transfer-accounts.json', 'transfer-folders.json']);
    const manifest = JSON.parse(readFileSync(join(folder, 'snapshot.json'), 'utf8')) as SnapshotManifest;
    expect(manifest).toMatchObject({ formatVersion: 2, environment: 'files', transfer: { folderCount: 4, url: emulator.transferUrl } });
    expect(manifest.automation).toBeUndefined();
    const saved = JSON.parse(readFileSync(join(folder, 'transfer-folders.json'), 'utf8')) as {
      folders: Array<{ path: string; entries: Array<{ name?: string }> }>;
    };
    expect(saved.folders.map((f) => f.path)).toEqual(['/Distribution/Acme', '/Distribution/Acme/Inbound', '/Distribution/Acme/Outbound', '/Finance/Payroll']);
    expect(saved.folders[3]!.entries.map((e) => e.name)).toEqual(['automation-svc', 'carol']);

    const list = ioIn(dir);
    expect(await runSnapshotList(g('text', 'files'), list)).toBe(0);
    expect(list.out().split('\n')[1]).toMatch(new RegExp(`^files\\s+${id!.replace(/\./g, '\\.')}\\s+-\\s+-\\s+4\\s+\\d+\\s+\\d+\\s+no\\s+-$`));
    const verify = ioIn(dir);
    expect(await runSnapshotVerify(g('text', 'files'), { id: 'latest' }, verify)).toBe(0);
    expect(verify.out()).toMatch(
      new RegExp(`Snapshot files/${id} verified: 4 transfer folder\\(s\\), \\d+ users, \\d+ groups, 2 file\\(s\\) match snapshot\\.json\\.`),
    );
  });

  it('saves the managed folders when scope.folders is absent, and the previous path a folder to rename is still at', async () => {
    const dir = transferOnly(undefined, {
      'manifests/renamed.yaml': [
        'apiVersion: mftops/v1',
        'kind: FolderPermissions',
        'metadata: { name: /Distribution/Globex/Out, previousNames: [/Distribution/Globex/Outbound, /Distribution/Globex/Older] }',
        'spec:',
        '  mode: additive',
        '  entries: []',
        '',
      ].join('\n'),
    });
    const io = ioIn(dir);
    expect(await runSnapshotSave(g('json', 'files'), {}, io)).toBe(0);
    expect(io.err()).toBe('');
    const info = (JSON.parse(io.out()) as { snapshot: SnapshotInfo }).snapshot;
    expect(info).toMatchObject({ services: ['transfer'], folderCount: 3 });
    const saved = JSON.parse(readFileSync(join(info.path, 'transfer-folders.json'), 'utf8')) as { folders: Array<{ path: string; id: string | null }> };
    expect(saved.folders.map((f) => [f.path, f.id !== null])).toEqual([
      ['/Distribution/Globex/Out', false],
      ['/Distribution/Globex/Outbound', true],
      ['/Finance/Payroll', true],
    ]);
  });

  it('warns on stderr when no manifest manages a folder and scope.folders is empty: no folder permissions saved', async () => {
    const dir = project();
    const io = ioIn(dir);
    expect(await runSnapshotSave(g('text', 'files-only'), {}, io)).toBe(0);
    expect(io.err()).toBe(
      `warning: no folder permissions saved: environment "files-only" has no FolderPermissions manifests and no scope.folders in ${join(dir, 'mftops.yaml')} (name folders with --folder, or set scope.folders)\n`,
    );
    expect(io.out()).toMatch(/^Saved snapshot files-only\/\S+ \(0 transfer folder\(s\), \d+ users, \d+ groups\)\n/);
    expect(io.out()).toContain('folder permissions of 0 transfer folder(s) saved');
  });
});

describe('mftops snapshot diff', () => {
  it('shows what changed between two snapshots, without secrets, and exits 2; 0 when they hold the same', async () => {
    const dir = project();
    const a = await save(dir);
    const client = automationClientFor(emulator);
    const payroll = (await client.listTasks({ name: 'Payroll to bank' }))[0]!;
    await client.updateTask(payroll.ID!, { ...payroll, Info: { ...payroll.Info, Description: 'Diffed by the CLI test' } });
    await client.close();
    const b = await save(dir);

    const same = ioIn(dir);
    expect(await runSnapshotDiff(g(), { a: b.id, b: b.id }, same)).toBe(0);
    expect(same.out()).toContain('No differences in tasks, hosts, resource-group ACLs, folder ACLs, users or groups.');
    const io = ioIn(dir);
    expect(await runSnapshotDiff(g(), { a: a.id, b: b.id }, io)).toBe(2);
    expect(io.out()).toContain(
      'Tasks: 1 changed\n  ~ Payroll to bank\n      Info.Description: "Nightly payroll file to the bank" → "Diffed by the CLI test"\n',
    );
    expect(io.out()).toContain('Hosts: no changes\n');
    expectNoSecrets(io.out() + io.err());
    const json = ioIn(dir);
    expect(await runSnapshotDiff(g('json'), { a: a.id, b: 'latest' }, json)).toBe(2);
    expect((JSON.parse(json.out()) as { kinds: Array<{ changed: Array<{ name: string }> }> }).kinds[0]!.changed.map((c) => c.name)).toEqual([
      'Payroll to bank',
    ]);
    expectNoSecrets(json.out());
  });

  it('shows the folder ACL entries added, removed and changed, by name, with the permissions as sets, in text and JSON', async () => {
    const dir = project();
    const a = await save(dir);
    const transfer = transferClientFor(emulator);
    const outbound = (await transfer.findFolderByPath('/Distribution/Acme/Outbound'))!;
    const before = await transfer.listFolderAcls(outbound.id);
    const bob = (await transfer.findUser('bob'))!;
    const alice = (await transfer.findUser('alice'))!;
    const partners = (await transfer.findGroup('Acme Partners'))!;
    await transfer.setFolderAcl(outbound.id, { type: 'User', id: bob.id, permissions: { listFiles: true, readFiles: true } });
    await transfer.setFolderAcl(outbound.id, {
      type: 'User',
      id: alice.id,
      permissions: { listFiles: true, readFiles: true, sharePermissions: { readFiles: true } },
    });
    await transfer.deleteFolderAcl(outbound.id, { type: 'Group', id: partners.id });
    const b = await save(dir);

    const io = ioIn(dir);
    expect(await runSnapshotDiff(g(), { a: a.id, b: b.id }, io)).toBe(2);
    expect(io.out()).toContain(
      [
        'Folder ACLs: 1 changed (3 folder(s) saved in both snapshots)',
        '  ~ /Distribution/Acme/Outbound',
        '      + User bob: readFiles, listFiles',
        '      - Group Acme Partners: readFiles, listFiles',
        '      ~ User alice: readFiles, writeFiles, deleteFiles, listFiles; share: readFiles → readFiles, listFiles; share: readFiles',
        '',
      ].join('\n'),
    );
    expect(io.out().trimEnd().split('\n').at(-1)).toBe('0 added, 0 removed, 1 changed.');
    const json = ioIn(dir);
    expect(await runSnapshotDiff(g('json'), { a: a.id, b: b.id }, json)).toBe(2);
    expect((JSON.parse(json.out()) as SnapshotDiff).folders).toEqual({
      compared: 3,
      onlyInA: [],
      onlyInB: [],
      changed: [
        {
          path: '/Distribution/Acme/Outbound',
          added: [{ type: 'User', id: bob.id, name: 'bob', permissions: ['readFiles', 'listFiles'], sharePermissions: [] }],
          removed: [{ type: 'Group', id: partners.id, name: 'Acme Partners', permissions: ['readFiles', 'listFiles'], sharePermissions: [] }],
          changed: [
            {
              type: 'User',
              id: alice.id,
              name: 'alice',
              before: { permissions: ['readFiles', 'writeFiles', 'deleteFiles', 'listFiles'], sharePermissions: ['readFiles'] },
              after: { permissions: ['readFiles', 'listFiles'], sharePermissions: ['readFiles'] },
            },
          ],
        },
      ],
    });

    // Put the folder back for the other tests, through the feature itself.
    expect(await runSnapshotRestore(g(), { id: a.id, autoApprove: true, service: 'transfer' }, ioIn(dir))).toBe(0);
    expect(await transfer.listFolderAcls(outbound.id)).toEqual(before);
    await transfer.close();
  });

  it('says flags and codes as plan says them: true/false, a code with its meaning, numbers bare', async () => {
    const dir = project();
    const a = await save(dir);
    const client = automationClientFor(emulator);
    const payroll = (await client.listTasks({ name: 'Payroll to bank' }))[0]!;
    // Active 1 → 0; the Source step's DeleteOrig 0 → 1 and RetryCount 3 → 4.
    const steps = (payroll.steps ?? []).map((step) => ('Source' in step ? { Source: { ...step.Source, DeleteOrig: 1, RetryCount: 4 } } : step));
    const flipped = { ...payroll, Active: 0, steps } as typeof payroll;
    await client.updateTask(payroll.ID!, flipped);
    const b = await save(dir);
    await client.updateTask(payroll.ID!, payroll);
    await client.close();
    const io = ioIn(dir);
    expect(await runSnapshotDiff(g(), { a: a.id, b: b.id }, io)).toBe(2);
    expect(payroll.Active).toBe(1);
    expect(io.out()).toContain('      Active: true → false\n');
    expect(io.out()).toMatch(/^ {6}Source\.DeleteOrig: 0 \(\w[^)]*\) → 1 \(delete\)$/m);
    expect(io.out()).toContain('      Source.RetryCount: 3 → 4\n');
    expect(io.out()).not.toMatch(/"\d+" → "\d+"/);
  });
});

describe('mftops snapshot restore', () => {
  it('without a terminal, shows what it would change, then refuses unless --auto-approve, and writes nothing', async () => {
    const dir = project();
    const info = await save(dir);
    emulator.resetRequestLog();
    const io = ioIn(dir);
    const err = await runSnapshotRestore(g(), { id: info.id }, io).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toBe(
      'snapshot restore replaces the whole automation configuration: run it on a terminal to confirm, or pass --auto-approve (--dry-run only shows what it would change)',
    );
    expect(io.out()).toContain(`Restoring lab/${info.id}`);
    expect(io.out()).toContain('What the restore changes (live → ');
    expect(writesOf(emulator)).toEqual([]);
    // Signed in to read, and signed out again.
    expect(emulator.requestLog().filter((r) => r.path.endsWith('/token/revoke')).length).toBeGreaterThan(0);
  });

  it('--dry-run shows what it would change and writes nothing, not even a snapshot: exit 0', async () => {
    const dir = project();
    const info = await save(dir);
    const before = readdirSync(join(dir, 'backups', 'lab'));
    emulator.resetRequestLog();
    const io = ioIn(dir);
    expect(await runSnapshotRestore(g(), { id: info.id, dryRun: true }, io)).toBe(0);
    expect(io.out()).toContain(`Dry run: restoring lab/${info.id}`);
    expect(io.out()).toMatch(/Dry run: nothing was written\. To restore: mftops snapshot restore \S+\n$/);
    expect(writesOf(emulator)).toEqual([]);
    expect(readdirSync(join(dir, 'backups', 'lab'))).toEqual(before);
  });

  it('asks on a terminal: anything but "yes" cancels, "yes" restores after a fresh snapshot', async () => {
    const dir = project();
    const info = await save(dir);
    const transfer = createTransferClient({ url: emulator.transferUrl, username: 'admin', password: new Secret(ENV.XFER_PW), retry: { maxAttempts: 1 } });
    const outbound = (await transfer.findFolderByPath('/Distribution/Acme/Outbound'))!;
    const before = await transfer.listFolderAcls(outbound.id);
    const bob = (await transfer.findUser('bob'))!;
    await transfer.setFolderAcl(outbound.id, { type: 'User', id: bob.id, permissions: { listFiles: true } });

    const questions: string[] = [];
    const no = ioIn(dir, true);
    emulator.resetRequestLog();
    // What was on the screen, and what had been written, when the question came.
    let shownAtQuestion = '';
    let writesAtQuestion: string[] = ['(not asked)'];
    const ask = (answer: string, io: ReturnType<typeof ioIn>) => async (q: string) => {
      questions.push(q);
      shownAtQuestion = io.out();
      writesAtQuestion = writesOf(emulator);
      return answer;
    };
    expect(await runSnapshotRestore(g(), { id: info.id, ask: ask('no', no) }, no)).toBe(1);
    expect(no.out()).toContain(`Restoring lab/${info.id} (8 tasks,`);
    expect(no.out()).toContain(`replaces the whole automation configuration of ${emulator.automationUrl}`);
    expect(no.err()).toBe('Restore cancelled.\n');
    expect(questions).toEqual(['Type "yes" to restore: ']);
    // The diff (live → snapshot) is on the screen before the question, and nothing was written, before or after "no".
    expect(shownAtQuestion).toContain(`What the restore changes (live → lab/${info.id}; + put back, - removed, ~ changed):\n`);
    expect(shownAtQuestion).toContain('Folder ACLs: 1 changed (3 folder(s) compared)\n  ~ /Distribution/Acme/Outbound\n      - User bob: listFiles\n');
    expect(shownAtQuestion).toContain('0 added, 0 removed, 1 changed.\n');
    expect(writesAtQuestion).toEqual([]);
    expect(writesOf(emulator)).toEqual([]);
    expectNoSecrets(no.out() + no.err());
    expect(await transfer.listFolderAcls(outbound.id)).not.toEqual(before);

    const yes = ioIn(dir, true);
    expect(await runSnapshotRestore(g(), { id: info.id, ask: ask('yes', yes) }, yes)).toBe(0);
    expect(writesAtQuestion).toEqual([]);
    expect(writesOf(emulator).length).toBeGreaterThan(0);
    expect(yes.out()).toContain(`Verified: read back, the restored parts match lab/${info.id}.\n`);
    const pre = /Saved the state before the restore as lab\/(\S+) /.exec(yes.out())?.[1];
    expect(pre).toBeDefined();
    expect(yes.out()).toContain(`Restored the automation configuration from lab/${info.id}.`);
    expect(yes.out()).toContain('  /Distribution/Acme/Outbound: 0 entries put back, 1 removed\n');
    expectNoSecrets(yes.out() + yes.err());
    expect(await transfer.listFolderAcls(outbound.id)).toEqual(before);

    const list = ioIn(dir);
    await runSnapshotList(g('json'), list);
    expect((JSON.parse(list.out()) as SnapshotList).snapshots.map((s) => s.id)).toEqual([info.id, pre]);

    const auto = ioIn(dir);
    expect(await runSnapshotRestore(g('json'), { id: info.id, autoApprove: true }, auto)).toBe(0);
    expect(JSON.parse(auto.out())).toMatchObject({
      complete: true,
      verified: true,
      mismatches: [],
      restored: { id: info.id },
      diff: { folders: { changed: [] } },
    });
    await transfer.close();
  });

  it('--service restores one part only: transfer puts the folder ACLs back and leaves the automation configuration as it is', async () => {
    const dir = project();
    const info = await save(dir);
    const client = automationClientFor(emulator);
    const payroll = (await client.listTasks({ name: 'Payroll to bank' }))[0]!;
    await client.updateTask(payroll.ID!, { ...payroll, Info: { ...payroll.Info, Description: 'kept by a transfer restore' } });
    const transfer = transferClientFor(emulator);
    const inbound = (await transfer.findFolderByPath('/Distribution/Acme/Inbound'))!;
    const before = await transfer.listFolderAcls(inbound.id);
    const bob = (await transfer.findUser('bob'))!;
    await transfer.setFolderAcl(inbound.id, { type: 'User', id: bob.id, permissions: { readFiles: true } });

    const io = ioIn(dir);
    expect(await runSnapshotRestore(g(), { id: info.id, autoApprove: true, service: 'transfer' }, io)).toBe(0);
    expect(io.out()).not.toContain('Restored the automation configuration');
    // --auto-approve does not ask, but the text still shows the diff first; the automation part is not compared.
    const diffAt = io.out().indexOf('What the restore changes');
    expect(diffAt).toBeGreaterThanOrEqual(0);
    expect(diffAt).toBeLessThan(io.out().indexOf('Saved the state before the restore'));
    expect(io.out()).toContain('Automation configuration: not compared (the automation configuration is not restored)\n');
    expect(io.out()).toContain('  ~ /Distribution/Acme/Inbound\n      - User bob: readFiles\n');
    expect(io.out()).toContain(`Folder ACLs of 3 transfer folder(s) from lab/${info.id}:\n`);
    expect(io.out()).toContain('  /Distribution/Acme/Inbound: 0 entries put back, 1 removed\n');
    const pre = /Saved the state before the restore as (lab\/\S+) \(3 transfer folder\(s\), \d+ users, \d+ groups\)\./.exec(io.out());
    expect(pre, io.out()).not.toBeNull();
    expect(await transfer.listFolderAcls(inbound.id)).toEqual(before);
    expect((await client.listTasks({ name: 'Payroll to bank' }))[0]!.Info?.Description).toBe('kept by a transfer restore');

    // The pre-restore snapshot holds the same service only, and cannot give back an automation part.
    const err = await runSnapshotRestore(g(), { id: pre![1]!, autoApprove: true, service: 'automation' }, ioIn(dir)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toBe(`snapshot ${pre![1]} holds no automation export (it holds the transfer folder ACLs)`);
    await client.updateTask(payroll.ID!, payroll);
    await client.close();
    await transfer.close();
  });

  it('refuses to restore an automation part in an environment without the automation service, and says how to restore the rest', async () => {
    const dir = project();
    const info = await save(dir);
    // The same environment, configured later without its automation service.
    writeFileSync(
      join(dir, 'transfer-only.yaml'),
      readFileSync(join(dir, 'mftops.yaml'), 'utf8')
        .split('\n')
        .filter((l) => !l.includes('automation:'))
        .join('\n'),
    );
    emulator.resetRequestLog();
    const err = await runSnapshotRestore({ ...g(), config: 'transfer-only.yaml' }, { id: info.id, autoApprove: true }, ioIn(dir)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toBe(
      `snapshot lab/${info.id} holds the automation export, but environment "lab" has no automation service (restore its folder ACLs alone with --service transfer)`,
    );
    expect(emulator.requestLog()).toEqual([]);
  });
});
