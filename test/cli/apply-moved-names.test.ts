import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { emulatorConfigYaml } from '../../src/emulator/config-for.js';
import { findSchemasDir, SCHEMA_BASE_URL } from '../../src/manifest/schemas.js';
import { countRequests } from '../../src/emulator/index.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { startHoldProxy } from '../helpers/hold-proxy.js';
import { hasStackTrace, runCli } from '../helpers/run-cli.js';
import { testdir } from '../helpers/testdir.js';
import {
  readHosts,
  readTransferGroups,
  readTransferUsers,
  swapHostNames,
  swapTransferGroupNames,
  swapTransferUserNames,
} from '../helpers/emulator-test-api.js';
import { startSeededEmulator } from '../integration/helpers.js';
import { APPLY_ENV } from '../apply/helpers.js';

/**
 * Issue 23, finding 1: a plan resolves names to ids; a principal renamed between plan and apply
 * (another one taking its name) must not receive the grant the plan showed for the name.
 */

/** A folder update that grants to user bob and to group Acme Partners, and a task whose step runs on host local-fs. */
const MANIFESTS: Record<string, string> = {
  'manifests/folders.yaml': `apiVersion: mftops/v1
kind: FolderPermissions
metadata: { name: /Distribution/Acme/Outbound }
spec:
  mode: additive
  entries:
    - user: bob
      permissions: [listFiles, readFiles, writeFiles, deleteFiles]
    - group: Acme Partners
      permissions: [listFiles, readFiles, writeFiles, deleteFiles]
`,
  'manifests/tasks.yaml': `apiVersion: mftops/v1
kind: Task
metadata: { name: Moved names upload }
spec:
  Active: true
  Group: [Operations]
  steps:
    - Source: { Host: local-fs, Path: /moved-names, FileMask: "*", DeleteOrig: 0 }
`,
};

function workdir(emulator: RunningEmulator, base = emulator.url): string {
  return testdir({
    'mftops.yaml': emulatorConfigYaml({ environment: 'lab', automationUrl: `${base}/automation`, transferUrl: `${base}/transfer`, manifests: ['manifests'] }),
    ...MANIFESTS,
  });
}

function applySchemaErrors(doc: unknown): unknown {
  const ajv = new Ajv2020({ strict: true, strictRequired: false, allowUnionTypes: true });
  addFormats.default(ajv);
  for (const file of ['kinds.schema.json', 'plan.schema.json', 'output-common.schema.json', 'output-apply.schema.json'])
    ajv.addSchema(JSON.parse(readFileSync(join(findSchemasDir(), file), 'utf8')) as object);
  const validate = ajv.getSchema(`${SCHEMA_BASE_URL}output-apply.schema.json`)!;
  return validate(doc) ? [] : validate.errors;
}

const idOf = <T extends { id: string | number }>(items: readonly T[], pick: (x: T) => boolean): string => String(items.find(pick)!.id);

let emulator: RunningEmulator;
beforeEach(async () => {
  emulator = await startSeededEmulator();
});
afterEach(() => emulator.close());

describe('apply PLANFILE checks every name the plan resolved', () => {
  it('refuses, with 0 writes, a plan whose user bob was renamed and another user took the name', async () => {
    const dir = workdir(emulator);
    expect((await runCli(['plan', '--out', 'plan.json'], { cwd: dir, env: APPLY_ENV })).code).toBe(0);
    const users = readTransferUsers(emulator);
    const bob = idOf(users, (u) => u.username === 'bob');
    const carol = idOf(users, (u) => u.username === 'carol');
    swapTransferUserNames(emulator, 'bob', 'carol');

    emulator.resetRequestLog();
    const r = await runCli(['apply', 'plan.json'], { cwd: dir, env: APPLY_ENV });
    expect(r.code).toBe(1);
    expect(countRequests(emulator.requestLog()).writes).toBe(0);
    expect(r.stdout).toContain('The plan is stale; nothing was written: 1 name moved on the servers since the plan was made.');
    expect(r.stdout).toContain(`plan is stale: user "bob" was id ${bob} at plan time and is now id ${carol} (id ${bob} is now named "carol")`);
    expect(r.stdout).not.toContain('Acme Partners');
    expect(hasStackTrace(r.stderr)).toBe(false);
  });

  it('refuses, with 0 writes, a plan whose groups swapped names; the JSON report names each moved name and the changes that use it', async () => {
    const dir = workdir(emulator);
    expect((await runCli(['plan', '--out', 'plan.json'], { cwd: dir, env: APPLY_ENV })).code).toBe(0);
    const groups = readTransferGroups(emulator);
    const acme = idOf(groups, (g) => g.name === 'Acme Partners');
    const globex = idOf(groups, (g) => g.name === 'Globex Partners');
    swapTransferGroupNames(emulator, 'Acme Partners', 'Globex Partners');
    const hosts = readHosts(emulator).map((h) => h.fields as { ID: string; Name: string });
    const localFs = hosts.find((h) => h.Name === 'local-fs')!.ID;
    const other = { ...hosts.find((h) => h.Name !== 'local-fs')! };
    swapHostNames(emulator, 'local-fs', other.Name);

    emulator.resetRequestLog();
    const r = await runCli(['apply', 'plan.json', '--format', 'json'], { cwd: dir, env: APPLY_ENV });
    expect(r.code).toBe(1);
    expect(countRequests(emulator.requestLog()).writes).toBe(0);
    const report = JSON.parse(r.stdout) as { outcome: string; movedNames: { kind: string; name: string; addresses: string[]; message: string }[] };
    expect(report.outcome).toBe('stale');
    expect(applySchemaErrors(report)).toEqual([]);
    expect(report.movedNames.map((m) => [m.kind, m.name, m.addresses])).toEqual([
      ['group', 'Acme Partners', ['FolderPermissions/Distribution/Acme/Outbound']],
      ['host', 'local-fs', ['Task/Moved names upload']],
    ]);
    expect(report.movedNames.map((m) => m.message)).toEqual([
      `group "Acme Partners" was id ${acme} at plan time and is now id ${globex} (id ${acme} is now named "Globex Partners")`,
      `host "local-fs" was id ${localFs} at plan time and is now id ${other.ID} (id ${localFs} is now named ${JSON.stringify(other.Name)})`,
    ]);
    expect(hasStackTrace(r.stderr)).toBe(false);
  });

  it('applies the same plan file when nothing was renamed', async () => {
    const dir = workdir(emulator);
    expect((await runCli(['plan', '--out', 'plan.json'], { cwd: dir, env: APPLY_ENV })).code).toBe(0);
    const r = await runCli(['apply', 'plan.json'], { cwd: dir, env: APPLY_ENV });
    expect(r.stdout).toContain('Apply complete for environment "lab": 2 applied, 0 failed, 0 skipped.');
    expect(r.code).toBe(0);
  });
});

describe('apply that plans itself checks the names between its plan and its first write', () => {
  it('refuses, with 0 writes, when bob is renamed after the plan read the users and before the stale check reads them again', { timeout: 90_000 }, async () => {
    // A first apply, on a server of its own, tells which read of the user list is the stale
    // check's: the last one before the first write (the plan's come before it).
    const usersPath = '/transfer/api/v1/users';
    const measured = await startSeededEmulator();
    let staleCheckRead: number;
    try {
      expect((await runCli(['apply', '--auto-approve'], { cwd: workdir(measured), env: APPLY_ENV })).code).toBe(0);
      const log = measured.requestLog();
      const firstWrite = log.findIndex((x) => !x.isTokenCall && x.method !== 'GET');
      staleCheckRead = log.slice(0, firstWrite).filter((x) => x.method === 'GET' && x.path === usersPath).length;
    } finally {
      await measured.close();
    }
    expect(staleCheckRead, 'apply reads the user list again between its plan and its first write').toBeGreaterThan(1);

    const proxy = await startHoldProxy(emulator, (method, path, nth) => method === 'GET' && path.split('?')[0] === usersPath && nth === staleCheckRead);
    try {
      const dir = workdir(emulator, proxy.url);
      emulator.resetRequestLog();
      const run = runCli(['apply', '--auto-approve'], { cwd: dir, env: APPLY_ENV });
      const held = await proxy.nextHeld();
      const users = readTransferUsers(emulator);
      const bob = idOf(users, (u) => u.username === 'bob');
      const carol = idOf(users, (u) => u.username === 'carol');
      swapTransferUserNames(emulator, 'bob', 'carol');
      await held.release();
      const r = await run;
      expect(r.code).toBe(1);
      expect(countRequests(emulator.requestLog()).writes).toBe(0);
      expect(r.stdout).toContain(`plan is stale: user "bob" was id ${bob} at plan time and is now id ${carol} (id ${bob} is now named "carol")`);
      expect(hasStackTrace(r.stderr)).toBe(false);
    } finally {
      await proxy.close();
    }
  });
});
