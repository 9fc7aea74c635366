import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runDrift } from '../../src/cli/commands/drift.js';
import { runImport } from '../../src/cli/commands/import.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { SEED_LOGINS, startSeededEmulator } from '../integration/helpers.js';
import { login, taskBody } from '../emulator/helpers.js';
import type { Api } from '../emulator/helpers.js';
import { testdir } from '../helpers/testdir.js';
import { addAutomationUser, deleteFolderByHand, readFolder, readTransferUser } from '../helpers/emulator-test-api.js';
import { configYaml, globals, io, startAuditBlockingProxy, writesAndPosts } from '../drift/helpers.js';
import type { ConfigOptions } from '../drift/helpers.js';

let emulator: RunningEmulator;
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/**
 * An emulator with the example seed and a working folder whose manifests were imported from it
 * (tasks and ACLs of the scope's task groups, folders under /Distribution): drift starts in sync.
 */
async function inSyncWorkdir(config: Omit<ConfigOptions, 'url'> = {}): Promise<string> {
  emulator = await startSeededEmulator();
  closers.push(() => emulator.close());
  const dir = testdir({ 'mftops.yaml': configYaml({ url: emulator.url, ...config }) });
  for (const kind of ['Task,ResourceGroupAcl', 'FolderPermissions']) {
    const out = io(dir);
    expect(await runImport(globals(), { kind: [kind], out: 'manifests', all: false, force: false }, out), out.err()).toBe(0);
  }
  return dir;
}

function setConfig(dir: string, config: Omit<ConfigOptions, 'url'>, url = emulator.url): void {
  writeFileSync(join(dir, 'mftops.yaml'), configYaml({ url, ...config }));
}

async function automationAs(user: 'admin' | 'operator'): Promise<Api> {
  return login(`${emulator.automationUrl}/api/v1`, user === 'admin' ? SEED_LOGINS.automationAdmin : SEED_LOGINS.automationOperator);
}

/** Change a task through the API, as someone clicking in the admin UI would. */
async function editTask(user: 'admin' | 'operator', id: string, edit: (task: Record<string, any>) => void): Promise<void> {
  const api = await automationAs(user);
  const task = (await api.get(`/tasks/${id}`)).body;
  edit(task);
  const r = await api.call('PUT', `/tasks/${id}`, task);
  expect(r.status, r.text).toBe(200);
}

async function drift(dir: string, format: 'text' | 'markdown' | 'json' = 'text', opts: { report?: string; now?: Date } = {}) {
  const out = io(dir);
  const code = await runDrift(
    globals({ format }),
    { paths: [], ...(opts.report ? { report: opts.report } : {}) },
    out,
    opts.now ? { now: () => opts.now! } : {},
  );
  return { code, stdout: out.out(), stderr: out.err() };
}

describe('mftops drift', () => {
  it('exits 0 in sync right after an import', async () => {
    const dir = await inSyncWorkdir();
    const r = await drift(dir);
    expect(r.stdout).toContain('In sync: the servers match the manifests.');
    expect(r.code).toBe(0);
  });

  it('names the object, the field, the old and new values and who changed it (audit report) after a change behind its back', async () => {
    const dir = await inSyncWorkdir();
    await editTask('operator', '401001', (t) => {
      t.Info.Description = "Changed behind mftops' back";
    });
    const text = await drift(dir);
    expect(text.code).toBe(2);
    expect(text.stdout).toContain('~ Task/Payroll to bank differs from its manifest');
    expect(text.stdout).toContain(`Info.Description: "Nightly payroll file to the bank" → "Changed behind mftops' back"`);
    expect(text.stdout).toMatch(/last change: operator, \d{4}-\d\d-\d\dT[\d:.]+Z \(Edit\)/);

    const md = await drift(dir, 'markdown');
    expect(md.code).toBe(2);
    const summaryAt = md.stdout.indexOf('| Differ from their manifest | 1 |');
    const detailAt = md.stdout.indexOf('#### <code>Task/Payroll to bank</code> differs from its manifest');
    expect(summaryAt).toBeGreaterThan(0);
    expect(detailAt).toBeGreaterThan(summaryAt);
    expect(md.stdout).toContain(
      '| <code>Info.Description</code> | <code>&#34;Nightly payroll file to the bank&#34;</code> | <code>&#34;Changed behind mftops&#39; back&#34;</code> |',
    );
    expect(md.stdout).toMatch(/Last change: operator, /);
  });

  it('reports changes of every kind made by admin: an ACL permission and a folder entry', async () => {
    const dir = await inSyncWorkdir();
    const admin = await automationAs('admin');
    expect((await admin.call('PUT', '/resourcegroups/acls/501001', { Permissions: { TaskRun: 0 } })).status).toBe(200);
    const transfer = await login(`${emulator.transferUrl}/api/v1`, SEED_LOGINS.transferAdmin);
    const acme = readFolder(emulator, '/Distribution/Acme/Inbound')!;
    const alice = readTransferUser(emulator, 'alice')!;
    expect((await transfer.call('DELETE', `/folders/${acme.id}/acls`, { type: 'User', id: String(alice.id) })).status).toBe(204);
    const r = await drift(dir);
    expect(r.code).toBe(2);
    expect(r.stdout).toContain('~ ResourceGroupAcl/finance-finance-operators differs from its manifest');
    expect(r.stdout).toContain('permissions: ["TaskRun", "TaskEditExisting"] → ["TaskEditExisting"]');
    expect(r.stdout).toContain('~ FolderPermissions/Distribution/Acme/Inbound differs from its manifest');
    expect(r.stdout).toContain('User "alice": missing on the server: readFiles, deleteFiles, listFiles → (no entry)');
  });

  it('names who changed an ACL through the API (audit report), in text, markdown and JSON, with one audit query', async () => {
    const dir = await inSyncWorkdir();
    const secops = { username: 'secops', password: 'secops-Pa55!test' };
    addAutomationUser(emulator, { Username: secops.username, Password: secops.password, IsAdmin: true, MemberOf: ['Administrators'] });
    const api = await login(`${emulator.automationUrl}/api/v1`, secops);
    expect((await api.call('PUT', '/resourcegroups/acls/501002', { Permissions: { TaskRun: 0 } })).status).toBe(200);
    emulator.resetRequestLog();

    const text = await drift(dir);
    expect(text.code).toBe(2);
    expect(text.stdout).toMatch(
      /~ ResourceGroupAcl\/partners-partner-managers differs from its manifest\n {4}last change: secops, \d{4}-\d\d-\d\dT[\d:.]+Z \(Edit\)\n/,
    );
    expect(text.stdout).not.toContain('who changed');
    expect(writesAndPosts(emulator)).toEqual(['POST /automation/api/v1/reports/audit']);

    const md = await drift(dir, 'markdown');
    expect(md.stdout).toMatch(/#### <code>ResourceGroupAcl\/partners-partner-managers<\/code> differs from its manifest\n\nLast change: secops, /);
    const json = JSON.parse((await drift(dir, 'json')).stdout);
    expect(json.drifted).toEqual([
      expect.objectContaining({
        address: 'ResourceGroupAcl/partners-partner-managers',
        lastChange: expect.objectContaining({ user: 'secops', action: 'Edit' }),
      }),
    ]);
    expect(json.audit).toMatchObject({ state: 'read', queries: [{ for: 'ResourceGroupAcl', predicate: 'TargetType=="ACL";TargetID=="501002"' }] });
  });

  it('says once that folder changes are not attributed (no audit report on the transfer service), only when folders drifted', async () => {
    const dir = await inSyncWorkdir();
    const transfer = await login(`${emulator.transferUrl}/api/v1`, SEED_LOGINS.transferAdmin);
    const alice = readTransferUser(emulator, 'alice')!;
    for (const path of ['/Distribution/Acme/Inbound', '/Distribution/Acme/Outbound']) {
      const folder = readFolder(emulator, path)!;
      expect((await transfer.call('PUT', `/folders/${folder.id}/acls`, { type: 'User', id: String(alice.id), permissions: { listFiles: true } })).status).toBe(
        200,
      );
    }
    const r = await drift(dir);
    expect(r.code).toBe(2);
    expect(r.stdout.match(/Note: the transfer service has no audit report; who changed folder permissions is not shown\./g)).toHaveLength(1);
    expect((await drift(dir, 'markdown')).stdout.match(/who changed folder permissions is not shown/g)).toHaveLength(1);
  });

  it('reports a managed folder that is gone from the server as missing (exit 2), not as an error', async () => {
    const dir = await inSyncWorkdir();
    // The transfer API has no folder delete: remove it the way an administrator's UI would.
    deleteFolderByHand(emulator, '/Distribution/Globex/Inbound');
    const r = await drift(dir);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(2);
    expect(r.stdout).toContain('- FolderPermissions/Distribution/Globex/Inbound is missing on the server');
    expect(r.stdout).toContain('# folder /Distribution/Globex/Inbound does not exist on the transfer server; add createIfMissing to create it');
    expect(r.stdout).toContain('# declared at manifests/folders/distribution-globex-inbound.yaml:2');
  });

  it('says once that the audit report is not readable with this account (403), and still exits 2', async () => {
    const dir = await inSyncWorkdir();
    await editTask('operator', '401001', (t) => {
      t.Info.Notes = 'edited';
    });
    const proxy = await startAuditBlockingProxy(emulator, 403);
    closers.push(() => proxy.close());
    setConfig(dir, {}, proxy.url);
    const r = await drift(dir);
    expect(r.code).toBe(2);
    expect(r.stdout).toContain('Info.Notes: "Owner: finance-it@example.com" → "edited"');
    expect(r.stdout.match(/audit report not readable with this account: 403/g)).toHaveLength(1);
    expect(r.stdout).not.toContain('last change:');
    const json = JSON.parse((await drift(dir, 'json')).stdout);
    expect(json.audit).toEqual({ state: 'unreadable', httpStatus: 403, message: 'audit report not readable with this account: 403' });
  });

  it('says so when the server has no audit report (404), and still exits 2', async () => {
    const dir = await inSyncWorkdir();
    await editTask('admin', '401002', (t) => {
      t.Active = 0;
    });
    const proxy = await startAuditBlockingProxy(emulator, 404);
    closers.push(() => proxy.close());
    setConfig(dir, {}, proxy.url);
    const r = await drift(dir);
    expect(r.code).toBe(2);
    expect(r.stdout).toContain('Note: audit report not available on this server: 404; who changed what is not shown.');
  });

  it('reports an unmanaged task in scope (exit 2) and never mentions one outside scope', async () => {
    const scope = { taskGroups: ['Finance', 'Partners'], folders: ['/Distribution'] };
    const dir = await inSyncWorkdir({ scope });
    expect((await drift(dir)).code).toBe(0);
    const admin = await automationAs('admin');
    expect((await admin.call('POST', '/tasks', taskBody('Stray housekeeping', { Group: ['Operations'] }))).status).toBe(201);
    expect((await drift(dir)).code).toBe(0);
    expect((await admin.call('POST', '/tasks', taskBody('Hand-made partner push', { Group: ['Partners'] }))).status).toBe(201);
    const r = await drift(dir);
    expect(r.code).toBe(2);
    expect(r.stdout).toContain('? Task/Hand-made partner push: task in Partners');
    expect(r.stdout).toMatch(/last change: admin, .+ \(Add\)/);
    expect(r.stdout).not.toContain('Stray housekeeping');
    expect(r.stdout).toContain('Drift: 0 objects differ, 1 unmanaged.');
  });

  it('does not count acknowledged drift (exit 0), and counts it again once the acknowledgement expired (exit 2)', async () => {
    const dir = await inSyncWorkdir();
    await editTask('admin', '401007', (t) => {
      t.Schedules.Schedule[0].Frequency.Interval[0].StartTime = '22:00';
    });
    setConfig(dir, { ignore: [{ address: 'Task/Nightly cleanup', path: 'Schedules.*', until: '2026-12-31', reason: 'storage migration window' }] });
    const before = await drift(dir, 'text', { now: new Date('2026-12-31T18:00:00Z') });
    expect(before.code).toBe(0);
    expect(before.stdout).toContain('Acknowledged (not drift):');
    expect(before.stdout).toContain('Task/Nightly cleanup Schedules.Schedule[0].Frequency.Interval[0].StartTime: "23:30" → "22:00" (mftops.yaml:');
    expect(before.stdout).toContain('until 2026-12-31) — storage migration window');
    expect(before.stdout).not.toContain('Drifted');

    const after = await drift(dir, 'text', { now: new Date('2027-01-01T06:00:00Z') });
    expect(after.code).toBe(2);
    expect(after.stdout).toContain('~ Task/Nightly cleanup differs from its manifest');
    expect(after.stdout).toMatch(/# acknowledgement expired 2026-12-31 \(mftops\.yaml:\d+:\d+\): storage migration window/);
  });

  it('warns at its line in mftops.yaml about an ignore entry whose address matches nothing, and still reports', async () => {
    const dir = await inSyncWorkdir();
    setConfig(dir, {
      ignore: [{ address: 'Task/Nightly cleanup', path: 'Schedules.*' }, { address: 'Task/Nightly cleanp' }, { address: 'FolderPermissions/Archive/*' }],
    });
    const r = await drift(dir);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('In sync: the servers match the manifests.');
    const config = readFileSync(join(dir, 'mftops.yaml'), 'utf8').split('\n');
    const lineOf = (text: string) => config.findIndex((l) => l.includes(text)) + 1;
    const warnings = r.stderr.split('\n').filter((l) => l.includes('warning MF413'));
    expect(warnings).toEqual([
      expect.stringMatching(
        new RegExp(
          `^mftops\\.yaml:${lineOf('Task/Nightly cleanp')}:\\d+: warning MF413: drift\\.ignore address \`Task/Nightly cleanp\` matches no object of this environment — did you mean \`Task/Nightly cleanup\`\\?$`,
        ),
      ),
      expect.stringMatching(
        new RegExp(
          `^mftops\\.yaml:${lineOf('FolderPermissions/Archive/*')}:\\d+: warning MF413: drift\\.ignore address \`FolderPermissions/Archive/\\*\` matches no object of this environment$`,
        ),
      ),
    ]);
    expect(r.stderr).toContain('hint: it acknowledges nothing: correct the address');
  });

  it('sends no write: besides token calls, the one audit report POST (a read) is the only request that is not a GET', async () => {
    const dir = await inSyncWorkdir();
    await editTask('operator', '401001', (t) => {
      t.Active = 0;
    });
    emulator.resetRequestLog();
    expect((await drift(dir)).code).toBe(2);
    expect(writesAndPosts(emulator)).toEqual(['POST /automation/api/v1/reports/audit']);
    expect(emulator.requestLog().filter((r) => r.method === 'GET').length).toBeGreaterThan(5);
  });

  it('writes the JSON report with --report FILE', async () => {
    const dir = await inSyncWorkdir();
    await editTask('operator', '401001', (t) => {
      t.Active = 0;
    });
    const r = await drift(dir, 'markdown', { report: 'drift.json' });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('Wrote the drift report to drift.json');
    const report = JSON.parse(readFileSync(join(dir, 'drift.json'), 'utf8'));
    expect(report.status).toBe('drift');
    expect(report.drifted[0]).toMatchObject({
      address: 'Task/Payroll to bank',
      fields: [{ path: 'Active', expected: 1, actual: 0 }],
      lastChange: { user: 'operator', action: 'Edit' },
    });
    expect(JSON.stringify(report)).not.toMatch(/SEEDSECRET|Pa55/);
  });

  it('a --report that cannot be written is an error naming the file, and leaves no temporary file behind', async () => {
    const dir = await inSyncWorkdir();
    mkdirSync(join(dir, 'reports'));
    const before = readdirSync(dir).sort();
    await expect(drift(dir, 'text', { report: 'reports' })).rejects.toThrow(
      /^cannot write the drift report to .*reports: it is a folder \(EISDIR\): give the path of a file$/,
    );
    expect(readdirSync(dir).sort()).toEqual(before);
  });

  it('stops on invalid manifests with exit 1 before any request', async () => {
    const dir = await inSyncWorkdir();
    writeFileSync(join(dir, 'manifests', 'broken.yaml'), 'apiVersion: mftops/v1\nkind: Task\nmetadata: { name: Broken }\nspec:\n  Active: maybe\n');
    emulator.resetRequestLog();
    const r = await drift(dir);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/broken\.yaml:5:11: error MF2\d\d/);
    expect(r.stdout).toBe('');
    expect(emulator.requestLog()).toEqual([]);
  });
});
