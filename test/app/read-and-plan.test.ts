import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { countRequests } from '../../src/emulator/index.js';
import { folderKey, indexByName } from '../../src/live/model.js';
import type { LiveFolder, LiveState } from '../../src/live/model.js';
import { loadManifests } from '../../src/manifest/load.js';
import { readAndPlan } from '../../src/app/read-and-plan.js';
import type { Change, Plan } from '../../src/plan/model.js';
import { toReadonlyAutomationClient } from '../../src/services/automation/client.js';
import { toReadonlyTransferClient } from '../../src/services/transfer/client.js';
import { sendPlan } from '../plan/apply-helper.js';
import { EXAMPLE_MANIFESTS, ROOT, environment, planPaths, startHarness } from '../plan/helpers.js';
import type { Harness } from '../plan/helpers.js';
import { aclManifest, folderManifest, taskManifest, toYaml } from '../plan/live-to-manifest.js';

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** What two plans must agree on: everything a reader sees (not server ids or fingerprints). */
const visible = (c: Change) => ({ address: c.address, action: c.action, reason: c.reason, fields: c.fields, entries: c.entries });
const counts = (plan: Plan) => plan.summary;

let h: Harness;
let dir: string;
beforeEach(async () => {
  h = await startHarness();
  dir = mkdtempSync(join(tmpdir(), 'mftops-plan-'));
});
afterEach(async () => {
  await h.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('readAndPlan against the emulator (examples/manifests and the example seed)', () => {
  it('sends no write: only token calls and GETs leave during a plan', async () => {
    const { plan, diagnostics } = await planPaths(h, [EXAMPLE_MANIFESTS]);
    expect(diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(plan!.changes.length).toBeGreaterThan(0);
    const log = h.emulator.requestLog();
    expect(log.filter((r) => !r.isTokenCall && WRITES.has(r.method))).toEqual([]);
    expect(log.filter((r) => !r.isTokenCall).every((r) => r.method === 'GET')).toBe(true);
  });

  it('reads each list once and each managed folder once (request count)', async () => {
    const manifests = await loadManifests([EXAMPLE_MANIFESTS], { cwd: ROOT });
    const folders = manifests.manifests.filter((m) => m.kind === 'FolderPermissions');
    const { live, plan } = await planPaths(h, [EXAMPLE_MANIFESTS]);
    const log = h.emulator.requestLog();
    const paths = log.filter((r) => !r.isTokenCall).map((r) => r.path.replace(/^\/(automation|transfer)\/api\/v1/, ''));
    for (const list of [
      '/info',
      '/tasks',
      '/hosts',
      '/customscripts',
      '/standardscripts',
      '/datelists',
      '/resourcegroups',
      '/resourcegroups/acls',
      '/users',
      '/groups',
    ]) {
      expect(
        paths.filter((p) => p === list),
        list,
      ).toHaveLength(1);
    }
    // Folders to create need their parent looked up too: one more lookup and ACL read each.
    const parents = folders.filter((m) => m.spec.createIfMissing && live!.transfer!.folders.get(folderKey(m.name)) === null).length;
    expect(paths.filter((p) => p === '/folders')).toHaveLength(folders.length + parents);
    const found = [...live!.transfer!.folders.values()].filter((f) => f !== null).length;
    expect(paths.filter((p) => /^\/folders\/[^/]+\/acls$/.test(p))).toHaveLength(found);
    // Group members (T-16): one request per group a live entry or a manifest names, each group once.
    const members = paths.filter((p) => /^\/groups\/[^/]+\/members$/.test(p));
    expect(new Set(members).size).toBe(members.length);
    expect(members.length).toBe(live!.transfer!.groupMembers!.members.size);
    // User-group members: one list, and only because the plan changes an ACL's permissions.
    expect(plan!.access!.changes.some((x) => x.service === 'automation')).toBe(true);
    expect(paths.filter((p) => p === '/usergroups')).toHaveLength(1);
    const c = countRequests(log);
    expect(c.tokenCalls).toBe(2);
    expect(c.total).toBe(10 + folders.length + parents + found + members.length + 1 + 2);
    console.info(`plan of examples/manifests: ${c.total} HTTP requests (${c.tokenCalls} token calls, ${c.reads} reads)`);
  });

  it('shows creates, updates and the advanced task as blocked', async () => {
    const { plan } = await planPaths(h, [EXAMPLE_MANIFESTS]);
    const s = counts(plan!);
    expect(s.create).toBeGreaterThan(0);
    expect(s.update).toBeGreaterThan(0);
    expect(plan!.changes.filter((c) => c.action === 'blocked').map((c) => c.address)).toEqual(['Task/Legacy EDI router']);
  });

  it('produces a plan that matches schemas/plan.schema.json', async () => {
    const { plan } = await planPaths(h, [EXAMPLE_MANIFESTS]);
    const ajv = new Ajv2020({ allErrors: true, strict: false });
    addFormats.default(ajv);
    ajv.addSchema((await import('../../schemas/kinds.schema.json', { with: { type: 'json' } })).default);
    const schema = (await import('../../schemas/plan.schema.json', { with: { type: 'json' } })).default;
    const validate = ajv.compile(schema);
    const ok = validate({ formatVersion: 3, plan, checksum: `sha256:${'0'.repeat(64)}` });
    expect(validate.errors ?? []).toEqual([]);
    expect(ok).toBe(true);
  });

  it('never puts a secret value in the plan', async () => {
    const { plan } = await planPaths(h, [EXAMPLE_MANIFESTS]);
    expect(JSON.stringify(plan)).not.toMatch(/SEEDSECRET|Pa55/);
  });

  it('converges: after sending the payloads, the same manifests plan no change but the blocked one', async () => {
    const first = await planPaths(h, [EXAMPLE_MANIFESTS]);
    await sendPlan(h, first.plan!.changes);
    h.emulator.resetRequestLog();
    const second = await planPaths(h, [EXAMPLE_MANIFESTS]);
    expect(second.plan!.changes.filter((c) => c.action !== 'no-op' && c.action !== 'blocked').map((c) => `${c.action} ${c.address}`)).toEqual([]);
    expect(second.plan!.changes.length).toBe(first.plan!.changes.length);
  });

  it('plans the same against the legacy profile (older wire variants)', async () => {
    const current = await planPaths(h, [EXAMPLE_MANIFESTS]);
    const legacy = await startHarness({ profile: 'legacy' });
    try {
      const old = await planPaths(legacy, [EXAMPLE_MANIFESTS]);
      expect(old.diagnostics).toEqual(current.diagnostics);
      expect(old.plan!.changes.map(visible)).toEqual(current.plan!.changes.map(visible));
    } finally {
      await legacy.close();
    }
  });

  it('reads nothing when the manifests have errors', async () => {
    writeFileSync(join(dir, 'bad.yaml'), 'apiVersion: mftops/v1\nkind: Task\nmetadata: { name: X }\nspec: { Active: 2 }\n');
    const { plan, diagnostics } = await planPaths(h, [dir]);
    expect(plan).toBeUndefined();
    expect(diagnostics.some((d) => d.severity === 'error')).toBe(true);
    expect(h.emulator.requestLog()).toEqual([]);
  });

  it('reports unknown names with the manifest file and line, all at once', async () => {
    writeFileSync(
      join(dir, 'typos.yaml'),
      'apiVersion: mftops/v1\nkind: Task\nmetadata: { name: Typos }\nspec:\n  steps:\n    - Source: { Host: acme-sfpt, Path: /x }\n    - Process: { Script: PGP Encrpyt }\n',
    );
    const { diagnostics, plan } = await planPaths(h, [dir], { cwd: dir });
    expect(diagnostics.map((d) => `${d.file}:${d.line} ${d.code}`)).toEqual([`${join(dir, 'typos.yaml')}:6 MF401`, `${join(dir, 'typos.yaml')}:7 MF402`]);
    expect(diagnostics[0]!.summary).toContain('did you mean `acme-sftp`?');
    expect(plan!.changes).toEqual([]);
  });

  it('prunes the entries of unmanaged folders in scope when FolderPermissions are pruned', async () => {
    writeFileSync(
      join(dir, 'one.yaml'),
      'apiVersion: mftops/v1\nkind: FolderPermissions\nmetadata: { name: /Distribution/Acme/Outbound }\nspec:\n  mode: additive\n  entries: []\n',
    );
    const { plan } = await planPaths(h, [dir], { env: { prune: ['FolderPermissions'], scope: { taskGroups: [], folders: ['/Distribution'] } } });
    expect(plan!.changes.map((c) => `${c.action} ${c.address}`)).toEqual([
      'no-op FolderPermissions/Distribution/Acme/Outbound',
      'delete FolderPermissions/Distribution/Acme/Inbound',
      'delete FolderPermissions/Distribution/Globex/Inbound',
      'delete FolderPermissions/Distribution/Globex/Outbound',
      'delete FolderPermissions/Distribution/Initech/Inbound',
      'delete FolderPermissions/Distribution/Initech/Outbound',
    ]);
    expect(h.emulator.requestLog().filter((r) => !r.isTokenCall && r.method !== 'GET')).toEqual([]);
    // The scope's folders come from the folder list, not from a subfolder listing per folder.
    expect(h.emulator.requestLog().filter((r) => r.method === 'GET' && r.path.endsWith('/folders'))).toHaveLength(1);
    expect(h.emulator.requestLog().some((r) => r.path.endsWith('/subfolders'))).toBe(false);
    // Nothing of the automation service was needed: it was not contacted.
    expect(h.emulator.requestLog().some((r) => r.service === 'automation')).toBe(false);
  });
});

describe('a manifest written from the live object plans no change', () => {
  async function liveObjects(): Promise<LiveState & { folders: LiveFolder[] }> {
    const a = h.automation;
    const [tasks, hosts, custom, standard, dateLists, acls] = await Promise.all([
      a.listTasks(),
      a.listHosts(),
      a.listCustomScripts(),
      a.listStandardScripts(),
      a.listDateLists(),
      a.listResourceGroupAcls(),
    ]);
    const folders: LiveFolder[] = [];
    const walk = async (id: string): Promise<void> => {
      for (const f of await h.transfer.listSubfolders(id)) {
        folders.push({ folder: f, acl: await h.transfer.listFolderAcls(f.id) });
        await walk(f.id);
      }
    };
    await walk((await h.transfer.findFolderByPath('/'))!.id);
    return {
      automation: {
        tasks: indexByName(
          tasks,
          (t) => t.Name,
          (t) => t.ID,
        ),
        hosts: indexByName(
          hosts,
          (x) => x.Name,
          (x) => x.ID,
        ),
        scripts: indexByName(
          [...custom, ...standard].map((s) => ({ ...s, origin: 'custom' as const })),
          (s) => s.Name,
          (s) => s.ID,
        ),
        dateLists: indexByName(
          dateLists,
          (d) => d.Name,
          (d) => d.ID,
        ),
        acls: new Map(acls.map((x) => [x.ACLID, x])),
      },
      folders,
    };
  }

  async function planWritten(documents: Record<string, unknown>[]): Promise<Plan> {
    writeFileSync(join(dir, 'imported.yaml'), toYaml(documents));
    h.emulator.resetRequestLog();
    const { plan, diagnostics } = await planPaths(h, [dir], { cwd: dir });
    expect(diagnostics).toEqual([]);
    return plan!;
  }

  it('for every task (schedules, parameters with a secret, every step kind, the advanced task)', async () => {
    const live = await liveObjects();
    const tasks = live.automation!.tasks!.items;
    const docs = tasks.map((t) => taskManifest(t, live));
    // The seed has what this test claims to cover.
    expect(docs.some((d) => JSON.stringify(d).includes('${env:'))).toBe(true);
    expect(tasks.some((t) => (t.Schedules?.Schedule ?? []).length > 0 && t.Schedules!.Schedule!.some((s) => s.DateListRef))).toBe(true);
    expect(new Set(tasks.flatMap((t) => (t.steps ?? []).map((s) => Object.keys(s)[0])))).toEqual(new Set(['Source', 'Process', 'Destination', 'For']));
    const plan = await planWritten(docs);
    expect(plan.changes).toHaveLength(tasks.length);
    expect(plan.changes.filter((c) => c.action !== 'no-op')).toEqual([]);
  });

  it('for every resource-group ACL', async () => {
    const live = await liveObjects();
    const acls = [...live.automation!.acls!.values()];
    const plan = await planWritten(acls.map(aclManifest));
    expect(plan.changes).toHaveLength(acls.length);
    expect(plan.changes.filter((c) => c.action !== 'no-op')).toEqual([]);
  });

  it('for every folder with permissions (a home folder with its non-editable owner included)', async () => {
    const live = await liveObjects();
    const folders = live.folders.filter((f) => f.acl.length > 0);
    expect(folders.some((f) => f.acl.some((e) => e.isEditable === false))).toBe(true);
    const plan = await planWritten(folders.map(folderManifest));
    expect(plan.changes).toHaveLength(folders.length);
    expect(plan.changes.filter((c) => c.action !== 'no-op')).toEqual([]);
  });
});

describe('readAndPlan inputs', () => {
  it('reports progress up to the number of requests made', async () => {
    const seen: [number, number, string][] = [];
    const manifests = await loadManifests([EXAMPLE_MANIFESTS], { cwd: ROOT });
    await readAndPlan({
      manifests,
      clients: { automation: toReadonlyAutomationClient(h.automation), transfer: toReadonlyTransferClient(h.transfer) },
      environment: environment(),
      servers: {},
      progress: (done, total, what) => seen.push([done, total, what]),
      cwd: ROOT,
    });
    const reads = countRequests(h.emulator.requestLog()).reads;
    expect(seen.map((s) => s[0])).toEqual(Array.from({ length: reads }, (_, i) => i + 1));
    expect(seen.every(([done, total]) => done <= total)).toBe(true);
    expect(seen.at(-1)![1]).toBe(reads);
    expect(seen.map((s) => s[2])).toContain('tasks');
  });

  it('records the servers, the version the automation server reports and a manifest digest', async () => {
    const { plan } = await planPaths(h, [EXAMPLE_MANIFESTS]);
    expect(plan!.servers.automation).toEqual({ url: h.emulator.automationUrl, username: 'admin', version: '2025.1.0' });
    expect(plan!.servers.transfer).toEqual({ url: h.emulator.transferUrl, username: 'admin' });
    expect(plan!.manifestDigest).toMatch(/^sha256:[0-9a-f]{64}$/);
    const again = await planPaths(h, [EXAMPLE_MANIFESTS]);
    expect(again.plan!.manifestDigest).toBe(plan!.manifestDigest);
  });
});
