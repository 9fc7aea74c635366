import { appendFileSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { automationClientFor, startSeededEmulator } from '../integration/helpers.js';
import { hasStackTrace, runCli } from '../helpers/run-cli.js';
import { editHostByHand, readFolder, readFolders, readTransferGroup } from '../helpers/emulator-test-api.js';
import {
  ALL_SECRETS,
  APPLY_ENV,
  APPLY_MANIFESTS,
  EXPECTED_ACTIONS,
  SECRETS,
  applyWorkdir,
  readLedger,
  renameManifests,
  tasksNamed,
  writesOf,
} from '../apply/helpers.js';
import type { LedgerLine } from '../apply/helpers.js';

const ALLOW = ['--allow-delete', '--allow-replace'];

let emulator: RunningEmulator;
beforeEach(async () => {
  emulator = await startSeededEmulator();
});
afterEach(() => emulator.close());

/** The one snapshot folder of a work dir's environment. */
function snapshotDir(dir: string, env = 'lab'): string {
  const base = join(dir, '.mftops/snapshots', env);
  const ids = readdirSync(base).filter((n) => !n.startsWith('.'));
  expect(ids).toHaveLength(1);
  return join(base, ids[0]!);
}

function changeLines(ledger: readonly LedgerLine[], address: string): LedgerLine[] {
  return ledger.filter((l) => l.event === 'change' && l.address === address);
}

describe('mftops apply against the emulator', () => {
  it('applies every action of every kind from the manifests, with a ledger and a snapshot, then plan finds nothing to do', async () => {
    const dir = applyWorkdir(emulator);
    const r = await runCli(['apply', '--auto-approve', ...ALLOW], { cwd: dir, env: APPLY_ENV });
    expect(r.stderr).not.toMatch(/failed|error/i);
    expect(r.code).toBe(0);
    const total = Object.keys(EXPECTED_ACTIONS).length;
    expect(r.stdout).toContain(`Apply complete for environment "lab": ${total} applied, 0 failed, 0 skipped.`);
    expect(r.stdout).toMatch(/Verified: \d+ applied changes re-planned from the manifests, all in sync\./);

    const after = await runCli(['plan', '--detailed-exitcode'], { cwd: dir, env: APPLY_ENV });
    expect(after.stdout).toContain('No changes.');
    expect(after.code).toBe(0);

    // The ledger: pending, then ok, for each change; and the snapshot beside it; all 0600.
    const snap = snapshotDir(dir);
    const ledger = readLedger(join(snap, 'ledger.jsonl'));
    for (const [address, action] of Object.entries(EXPECTED_ACTIONS)) {
      expect(changeLines(ledger, address).map((l) => [l.event === 'change' ? l.status : '', l.event === 'change' ? l.action : ''])).toEqual([
        ['pending', action],
        ['ok', action],
      ]);
    }
    expect(ledger[0]).toMatchObject({ event: 'start', environment: 'lab', changes: total });
    expect(ledger.at(-1)).toMatchObject({ event: 'end', ok: total, failed: 0, interrupted: false });
    for (const file of readdirSync(snap)) expect(statSync(join(snap, file)).mode & 0o777).toBe(0o600);
    expect(readdirSync(snap).sort()).toEqual(['automation-config.xml', 'ledger.jsonl', 'snapshot.json', 'transfer-accounts.json', 'transfer-folders.json']);

    // What the servers hold now.
    expect(tasksNamed(emulator, 'Acme inbound').map((t) => t['Group'])).toEqual([['Finance']]);
    expect(tasksNamed(emulator, 'Nightly cleanup')).toEqual([]);
    expect(readFolder(emulator, '/Finance/Reports')).toBeDefined();

    // Secrets reached the server, and nothing else.
    expect(JSON.stringify(tasksNamed(emulator, 'Payroll to bank'))).toContain(SECRETS.payrollKey);
    const created = JSON.stringify(tasksNamed(emulator, 'Apply test upload'));
    expect(created).toContain(SECRETS.token);
    expect(created).toContain(SECRETS.filePassword);
    const everything = [
      r.stdout,
      r.stderr,
      after.stdout,
      after.stderr,
      readFileSync(join(snap, 'ledger.jsonl'), 'utf8'),
      readFileSync(join(snap, 'snapshot.json'), 'utf8'),
    ].join('\n');
    for (const secret of ALL_SECRETS) expect(everything).not.toContain(secret);
  });

  it('applies a saved plan exactly and reports it as JSON; a second apply of the same file is refused as stale', async () => {
    const dir = applyWorkdir(emulator);
    expect((await runCli(['plan', '--out', 'plan.json'], { cwd: dir, env: APPLY_ENV })).code).toBe(0);
    const r = await runCli(['apply', 'plan.json', ...ALLOW, '--format', 'json'], { cwd: dir, env: APPLY_ENV });
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout) as {
      outcome: string;
      exitCode: number;
      counts: { ok: number };
      verification: { mode: string; unconverged: unknown[] };
      results: { address: string; status: string }[];
    };
    expect(report).toMatchObject({
      outcome: 'applied',
      exitCode: 0,
      counts: { ok: Object.keys(EXPECTED_ACTIONS).length },
      verification: { mode: 'replan', unconverged: [] },
    });
    expect(report.results.map((x) => x.address).sort()).toEqual(Object.keys(EXPECTED_ACTIONS).sort());
    expect((await runCli(['plan', '--detailed-exitcode'], { cwd: dir, env: APPLY_ENV })).code).toBe(0);

    emulator.resetRequestLog();
    const again = await runCli(['apply', 'plan.json', ...ALLOW], { cwd: dir, env: APPLY_ENV });
    expect(again.code).toBe(1);
    expect(again.stdout).toContain('The plan is stale; nothing was written');
    expect(writesOf(emulator)).toEqual([]);
  });

  it('verifies a saved plan by reading back what it wrote when the manifests changed since the plan', async () => {
    const dir = applyWorkdir(emulator);
    expect((await runCli(['plan', '--out', 'plan.json'], { cwd: dir, env: APPLY_ENV })).code).toBe(0);
    appendFileSync(join(dir, 'manifests/acls.yaml'), '# edited after the review\n');
    const r = await runCli(['apply', 'plan.json', ...ALLOW], { cwd: dir, env: APPLY_ENV });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(
      'Note: the manifests on disk are not the ones the plan was made from (changed since, or planned from other paths), so the written payloads were checked instead of a re-plan',
    );
    expect(r.stdout).toContain(`Verified: ${Object.keys(EXPECTED_ACTIONS).length} applied changes read back and compared with what was sent, all in sync.`);
  });

  it('refuses a stale plan before any write and names each object that moved and how', async () => {
    const dir = applyWorkdir(emulator);
    expect((await runCli(['plan', '--out', 'plan.json'], { cwd: dir, env: APPLY_ENV })).code).toBe(0);
    // Someone changes the servers after the review.
    const client = automationClientFor(emulator);
    const payroll = (await client.listTasks({ name: 'Payroll to bank' }))[0]!;
    await client.updateTask(String(payroll.ID), { ...payroll, Info: { Description: 'changed by hand' } });
    await client.createTask({ Name: 'Apply test upload', Group: ['Operations'], steps: [] });
    const nightly = (await client.listTasks({ name: 'Nightly cleanup' }))[0]!;
    await client.deleteTask(String(nightly.ID));
    await client.close();

    emulator.resetRequestLog();
    const r = await runCli(['apply', 'plan.json', ...ALLOW], { cwd: dir, env: APPLY_ENV });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('The plan is stale; nothing was written: 3 objects moved');
    expect(r.stdout).toContain('~ Task/Payroll to bank: changed since the plan');
    expect(r.stdout).toMatch(/\+ Task\/Apply test upload: now exists \(a task named Apply test upload now exists/);
    expect(r.stdout).toMatch(/- Task\/Nightly cleanup: no longer exists/);
    expect(writesOf(emulator)).toEqual([]);
    expect(emulator.requestLog().length).toBeGreaterThan(0);
    expect(() => readdirSync(join(dir, '.mftops'))).toThrow();
    expect(hasStackTrace(r.stderr)).toBe(false);
  });

  it('applies in a transfer-only environment after a snapshot of the ACLs of the folders the plan touches', async () => {
    const dir = applyWorkdir(emulator, {
      automationUrl: '',
      prune: ['FolderPermissions'],
      manifests: { 'manifests/folders.yaml': APPLY_MANIFESTS['manifests/folders.yaml']! },
    });
    const inbound = readFolder(emulator, '/Distribution/Acme/Inbound')!;
    const r = await runCli(['apply', '--auto-approve', '--allow-delete'], { cwd: dir, env: APPLY_ENV });
    expect(r.stderr).not.toMatch(/failed|error/i);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Apply complete for environment "lab": 5 applied, 0 failed, 0 skipped.');

    const snap = snapshotDir(dir);
    expect(readdirSync(snap).sort()).toEqual(['ledger.jsonl', 'snapshot.json', 'transfer-accounts.json', 'transfer-folders.json']);
    const manifest = JSON.parse(readFileSync(join(snap, 'snapshot.json'), 'utf8')) as { automation?: unknown; transfer: { folderCount: number }; note: string };
    expect(manifest).toMatchObject({ note: 'before apply', transfer: { folderCount: 5 } });
    expect(manifest.automation).toBeUndefined();
    // The entries as they were before the apply removed alice's.
    const saved = JSON.parse(readFileSync(join(snap, 'transfer-folders.json'), 'utf8')) as {
      folders: Array<{ path: string; id: string | null; entries: Array<{ name?: string }> }>;
    };
    const savedInbound = saved.folders.find((f) => f.path === '/Distribution/Acme/Inbound')!;
    expect(savedInbound.id).toBe(String(inbound.id));
    expect(savedInbound.entries.map((e) => e.name).sort()).toEqual(['Acme Partners', 'alice', 'automation-svc']);
    expect(saved.folders.find((f) => f.path === '/Finance/Reports')).toEqual({ path: '/Finance/Reports', id: null, entries: [] });
    expect((await runCli(['plan', '--detailed-exitcode'], { cwd: dir, env: APPLY_ENV })).code).toBe(0);
  });

  describe('refuses before any write', () => {
    it('a plan for another environment', async () => {
      const dir = applyWorkdir(emulator);
      expect((await runCli(['plan', '--out', 'plan.json'], { cwd: dir, env: APPLY_ENV })).code).toBe(0);
      // The configuration the plan file records gains a second environment, which --env names.
      const config = readFileSync(join(dir, 'mftops.yaml'), 'utf8');
      const lab = /^ {2}lab:\n(?: {4}.*\n)+/m.exec(config)![0];
      writeFileSync(join(dir, 'mftops.yaml'), config.replace(lab, `${lab}${lab.replace('  lab:', '  prod:')}`));
      emulator.resetRequestLog();
      const r = await runCli(['--env', 'prod', 'apply', 'plan.json', ...ALLOW], { cwd: dir, env: APPLY_ENV });
      expect(r.code).toBe(1);
      expect(r.stdout).toContain('the plan was made for environment "lab", not "prod"');
      expect(emulator.requestLog()).toEqual([]);
    });

    it('a plan for another server', async () => {
      const dir = applyWorkdir(emulator);
      expect((await runCli(['plan', '--out', 'plan.json'], { cwd: dir, env: APPLY_ENV })).code).toBe(0);
      // The configuration the plan file records now points at another automation server.
      const config = readFileSync(join(dir, 'mftops.yaml'), 'utf8');
      writeFileSync(join(dir, 'mftops.yaml'), config.replace(JSON.stringify(emulator.automationUrl), '"http://127.0.0.1:9/automation"'));
      emulator.resetRequestLog();
      const r = await runCli(['apply', 'plan.json', ...ALLOW], { cwd: dir, env: APPLY_ENV });
      expect(r.code).toBe(1);
      expect(r.stdout).toContain(
        `the plan was made against the automation server ${emulator.automationUrl}, but environment "lab" uses http://127.0.0.1:9/automation`,
      );
      expect(emulator.requestLog()).toEqual([]);
    });

    it('deletes and replaces without --allow-delete and --allow-replace', async () => {
      const dir = applyWorkdir(emulator);
      const r = await runCli(['apply', '--auto-approve'], { cwd: dir, env: APPLY_ENV });
      expect(r.code).toBe(1);
      expect(r.stdout).toContain('Apply refused; nothing was written:');
      expect(r.stdout).toMatch(/the plan deletes 4 objects \(Task\/Nightly cleanup, .*\): pass --allow-delete to apply it/);
      expect(r.stdout).toMatch(/the plan replaces 1 object .*Task\/Acme inbound.*: pass --allow-replace to apply it/);
      expect(writesOf(emulator)).toEqual([]);
    });

    it('more deletes than --max-deletes', async () => {
      const dir = applyWorkdir(emulator);
      const r = await runCli(['apply', '--auto-approve', ...ALLOW, '--max-deletes', '3'], { cwd: dir, env: APPLY_ENV });
      expect(r.code).toBe(1);
      expect(r.stdout).toContain('the plan deletes 4 objects, more than --max-deletes 3');
      expect(writesOf(emulator)).toEqual([]);
    });

    it('no terminal and no --auto-approve: not even a read', async () => {
      const dir = applyWorkdir(emulator);
      const r = await runCli(['apply', ...ALLOW], { cwd: dir, env: APPLY_ENV });
      expect(r.code).toBe(1);
      expect(r.stderr).toBe(
        'mftops: error: apply without a plan file asks for approval on a terminal, and there is none: pass --auto-approve (or apply a reviewed plan file)\n',
      );
      expect(emulator.requestLog()).toEqual([]);
    });
  });

  it('records a change the server refuses (422) as failed with its message, applies the rest, and exits 1', async () => {
    const dir = applyWorkdir(emulator);
    expect((await runCli(['plan', '--out', 'plan.json'], { cwd: dir, env: APPLY_ENV })).code).toBe(0);
    // The host the new task sends to changes type (same name and id, so the plan's names still hold;
    // a host that disappeared would be refused before any write, as a name that moved).
    editHostByHand(emulator, 'initech-s3', (host) => {
      host.type = host.type === 'SSHFTP' ? 'FTP' : 'SSHFTP';
    });
    const r = await runCli(['apply', 'plan.json', ...ALLOW], { cwd: dir, env: APPLY_ENV });
    expect(r.code).toBe(1);
    const total = Object.keys(EXPECTED_ACTIONS).length;
    expect(r.stdout).toContain(`${total - 1} applied, 1 failed, 0 skipped.`);
    expect(r.stdout).toMatch(
      /x Task\/Apply test upload \(create\): automation: POST \/automation\/api\/v1\/tasks: 422 .*must be (SSHFTP|FTP), the type of host/,
    );
    const ledger = readLedger(join(snapshotDir(dir), 'ledger.jsonl'));
    const lines = changeLines(ledger, 'Task/Apply test upload');
    expect(lines.map((l) => (l.event === 'change' ? l.status : ''))).toEqual(['pending', 'failed']);
    expect(lines[1]).toMatchObject({ error: expect.stringMatching(/422 .*must be (SSHFTP|FTP), the type of host/) as unknown });
    expect(ledger.filter((l) => l.event === 'change' && l.status === 'ok')).toHaveLength(total - 1);
    expect(tasksNamed(emulator, 'Apply test upload')).toEqual([]);
    for (const secret of ALL_SECRETS) expect(`${r.stdout}${r.stderr}${JSON.stringify(ledger)}`).not.toContain(secret);
  });
});

describe('mftops apply: a folder renamed through previousNames', () => {
  const folderAt = (path: string) => readFolders(emulator, (f) => f.path.toLowerCase() === path.toLowerCase());

  it("plans one update with the rename, renames the folder in place with the manifest's entries, then plans nothing", async () => {
    const dir = applyWorkdir(emulator, { manifests: renameManifests(), prune: [] });
    const [inbound] = folderAt('/Distribution/Acme/Inbound');
    const plan = await runCli(['plan', '--detailed-exitcode'], { cwd: dir, env: APPLY_ENV });
    expect(plan.code).toBe(2);
    expect(plan.stdout).toContain('~ FolderPermissions/Distribution/Acme/Incoming will be updated (renamed from "/Distribution/Acme/Inbound")');
    expect(plan.stdout).toContain('    ~ path: "/Distribution/Acme/Inbound" → "/Distribution/Acme/Incoming"');
    expect(plan.stdout).toContain('    - User "alice": readFiles, deleteFiles, listFiles');
    expect(plan.stdout).toContain('Plan: 0 to create, 1 to update, 0 to replace, 0 to delete, 0 blocked.');

    emulator.resetRequestLog();
    const r = await runCli(['apply', '--auto-approve'], { cwd: dir, env: APPLY_ENV });
    expect(r.stderr).not.toMatch(/failed|error/i);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Apply complete for environment "lab": 1 applied, 0 failed, 0 skipped.');
    // One folder, the same one, at the new path with the manifest's entries; none at the old path.
    // The entries the manifest does not name go: alice's and automation-svc's.
    expect(writesOf(emulator)).toEqual([
      `PATCH /transfer/api/v1/folders/${inbound!.id}`,
      `DELETE /transfer/api/v1/folders/${inbound!.id}/acls`,
      `DELETE /transfer/api/v1/folders/${inbound!.id}/acls`,
    ]);
    expect(folderAt('/Distribution/Acme/Inbound')).toEqual([]);
    const incoming = folderAt('/Distribution/Acme/Incoming');
    expect(incoming.map((f) => f.id)).toEqual([inbound!.id]);
    const acme = readTransferGroup(emulator, 'Acme Partners')!;
    expect(incoming[0]!.acl.map((e) => [e.type, e.id, e.permissions.listFiles, e.permissions.writeFiles, e.permissions.readFiles])).toEqual([
      ['Group', String(acme.id), true, true, false],
    ]);

    // The ledger names the old path; the snapshot holds the folder's entries from before, under it.
    const snap = snapshotDir(dir);
    const lines = changeLines(readLedger(join(snap, 'ledger.jsonl')), 'FolderPermissions/Distribution/Acme/Incoming');
    expect(lines).toMatchObject([
      { status: 'pending', action: 'update', previousName: '/Distribution/Acme/Inbound' },
      { status: 'ok', action: 'update', ids: { folder: String(inbound!.id) } },
    ]);
    const saved = JSON.parse(readFileSync(join(snap, 'transfer-folders.json'), 'utf8')) as unknown;
    expect(JSON.stringify(saved)).toContain('/Distribution/Acme/Inbound');

    const after = await runCli(['plan', '--detailed-exitcode'], { cwd: dir, env: APPLY_ENV });
    expect(after.stdout).toContain('No changes.');
    expect(after.code).toBe(0);
  });

  it('blocks a previous path under another parent (a move): nothing is written, no folder is created', async () => {
    const dir = applyWorkdir(emulator, { manifests: renameManifests('/Distribution/Globex/Inbound'), prune: [] });
    emulator.resetRequestLog();
    const r = await runCli(['apply', '--auto-approve'], { cwd: dir, env: APPLY_ENV });
    expect(r.stdout).toContain('! FolderPermissions/Distribution/Acme/Incoming is blocked');
    expect(r.stdout).toContain(
      '/Distribution/Globex/Inbound → /Distribution/Acme/Incoming moves the folder to another parent folder; the API can only rename it in place',
    );
    expect(r.code).toBe(0);
    expect(writesOf(emulator)).toEqual([]);
    expect(folderAt('/Distribution/Acme/Incoming')).toEqual([]);
    expect(folderAt('/Distribution/Globex/Inbound')).toHaveLength(1);
  });
});
