import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterEach, describe, expect, it } from 'vitest';
import { readPlanFile } from '../../src/app/plan-file.js';
import { findSchemasDir, SCHEMA_BASE_URL } from '../../src/manifest/schemas.js';
import { emulatorConfigYaml } from '../../src/emulator/config-for.js';
import type { RunningEmulator, Variants } from '../../src/emulator/index.js';
import { SEED_LOGINS, startSeededEmulator } from '../integration/helpers.js';
import { runCli } from '../helpers/run-cli.js';
import { testdir } from '../helpers/testdir.js';
import { addAutomationUser } from '../helpers/emulator-test-api.js';

/**
 * Issue 16, resource-group ACLs: a plan names each member of the user group whose ACL changes
 * (members from GET /usergroups, A-28), in every view; the request is made only when an ACL's
 * permissions change; a server that will not list the members keeps the per-group line.
 */
const ENV = { MFT_AUTOMATION_PASSWORD: SEED_LOGINS.automationAdmin.password, MFT_TRANSFER_PASSWORD: SEED_LOGINS.transferAdmin.password };

let emulator: RunningEmulator | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

/** The seed's finance-operators ACL (TaskRun, TaskEditExisting on Finance) with `permissions`. */
function aclManifest(permissions: readonly string[]): string {
  return [
    'apiVersion: mftops/v1',
    'kind: ResourceGroupAcl',
    'metadata: { name: finance-operators }',
    'spec:',
    '  resourceGroup: Finance',
    '  userGroup: Finance Operators',
    `  permissions: [${permissions.join(', ')}]`,
    '',
  ].join('\n');
}

async function start(variants: Partial<Variants> = {}, extraMembers: readonly string[] = []): Promise<RunningEmulator> {
  const e = (emulator = await startSeededEmulator({ variants }));
  for (const name of extraMembers) addAutomationUser(e, { Username: name, Password: `${name}-Pa55!test`, IsAdmin: false, MemberOf: ['Finance Operators'] });
  return e;
}

function workdir(e: RunningEmulator, permissions: readonly string[], account = 'admin'): string {
  const config = emulatorConfigYaml({ ...e, manifests: ['manifests'] }).replace(/(automation: \{[^}]*)username: admin/, `$1username: ${account}`);
  return testdir({ 'mftops.yaml': config, 'manifests/acl.yaml': aclManifest(permissions) });
}

/** The JSON plan view checked against schemas/output-plan.schema.json (`additionalProperties: false`). */
function checkedPlanView(stdout: string): Record<string, unknown> {
  const ajv = new Ajv2020({ strict: true, strictRequired: false, allowUnionTypes: true, allErrors: true });
  addFormats.default(ajv);
  for (const file of readdirSync(findSchemasDir()).filter((f) => f.startsWith('output-') || f === 'plan.schema.json' || f === 'kinds.schema.json'))
    ajv.addSchema(JSON.parse(readFileSync(join(findSchemasDir(), file), 'utf8')) as object);
  const doc = JSON.parse(stdout) as Record<string, unknown>;
  const validate = ajv.getSchema(`${SCHEMA_BASE_URL}output-plan.schema.json`)!;
  expect(validate(doc) ? [] : validate.errors).toEqual([]);
  return doc;
}

function userGroupReads(e: RunningEmulator): number {
  return e.requestLog().filter((r) => !r.isTokenCall && /\/usergroups$/.test(r.path)).length;
}

describe('plan: resource-group ACL access per user (A-28)', () => {
  it('names each member of the user group in text, markdown and JSON, flags TaskAddEditDelete, and lists the user groups once', async () => {
    const e = await start({}, ['erin']);
    const dir = workdir(e, ['TaskRun', 'TaskEditExisting', 'TaskAddEditDelete']);
    const text = await runCli(['plan'], { cwd: dir, env: ENV });
    expect(text.stderr).toBe('');
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^Plan: 0 to create, 1 to update, 0 to replace, 0 to delete, 0 blocked\. 2 users gain access\.$/m);
    expect(text.stdout).toContain('Access changes: 2 users gain access.');
    expect(text.stdout).toContain('  ! erin gains TaskAddEditDelete on resource group Finance (via user group Finance Operators) [grants TaskAddEditDelete]');
    expect(text.stdout).toContain(
      '  ! operator gains TaskAddEditDelete on resource group Finance (via user group Finance Operators) [grants TaskAddEditDelete]',
    );
    expect(text.stdout).not.toContain('members not shown');
    expect(userGroupReads(e)).toBe(1);

    const md = await runCli(['plan', '--format', 'markdown'], { cwd: dir, env: ENV });
    expect(md.code).toBe(0);
    expect(md.stdout).toContain(
      '- :warning: erin gains TaskAddEditDelete on resource group Finance (via user group Finance Operators) — **grants `TaskAddEditDelete`**',
    );
    expect(md.stdout).toContain('- :warning: operator gains TaskAddEditDelete on resource group Finance (via user group Finance Operators)');

    const json = await runCli(['plan', '--format', 'json'], { cwd: dir, env: ENV });
    expect(json.code).toBe(0);
    const access = (checkedPlanView(json.stdout) as { access: { summary: string; changes: Record<string, unknown>[]; userGroupsUnknown?: string[] } }).access;
    expect(access.summary).toBe('2 users gain access');
    expect(access.userGroupsUnknown).toBeUndefined();
    expect(access.changes.map((c) => [c.user, c.resourceGroup, c.gained, c.lost, c.via, c.flagged])).toEqual([
      ['erin', 'Finance', ['TaskAddEditDelete'], [], [{ type: 'Group', name: 'Finance Operators' }], ['TaskAddEditDelete']],
      ['operator', 'Finance', ['TaskAddEditDelete'], [], [{ type: 'Group', name: 'Finance Operators' }], ['TaskAddEditDelete']],
    ]);
  });

  it.each(['Members', 'objects'] as const)(
    'reads the members whichever form the server gives them in (%s; one member: a single object on objects)',
    async (form) => {
      const e = await start({ 'automation.userGroupMembers': form });
      const r = await runCli(['plan'], { cwd: workdir(e, ['TaskRun']), env: ENV });
      expect(r.code).toBe(0);
      expect(r.stdout).toContain('  - operator loses TaskEditExisting on resource group Finance (via user group Finance Operators)');
      expect(r.stdout).toContain('Access changes: 1 user loses access.');
    },
  );

  it('keeps the per-group line and says why when the members are not answered (absent)', async () => {
    const e = await start({ 'automation.userGroupMembers': 'absent' });
    const r = await runCli(['plan', '--detailed-exitcode'], { cwd: workdir(e, ['TaskRun']), env: ENV });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(2);
    expect(r.stdout).toContain('  - user group Finance Operators (members not shown) loses TaskEditExisting on resource group Finance');
    expect(r.stdout).toContain('The members of user group Finance Operators could not be read from the automation server');
    expect(r.stdout).not.toContain('operator loses');
  });

  it('keeps the per-group line when the account is no administrator (403 on /usergroups), and the plan does not fail', async () => {
    const e = await start();
    const env = { ...ENV, MFT_AUTOMATION_PASSWORD: SEED_LOGINS.automationOperator.password };
    const dir = workdir(e, ['TaskRun'], SEED_LOGINS.automationOperator.username);
    const r = await runCli(['plan', '--format', 'json', '--out', 'plan.json'], { cwd: dir, env });
    expect(r.code).toBe(0);
    expect(e.requestLog().some((x) => /\/usergroups$/.test(x.path) && x.status === 403)).toBe(true);
    const access = (checkedPlanView(r.stdout) as { access: { changes: Record<string, unknown>[]; userGroupsUnknown?: string[] } }).access;
    expect(access.changes.map((c) => [c.group, c.resourceGroup, c.lost])).toEqual([['Finance Operators', 'Finance', ['TaskEditExisting']]]);
    expect(access.userGroupsUnknown).toEqual(['Finance Operators']);
    // The saved plan keeps it, and reads back.
    expect(readPlanFile(join(dir, 'plan.json')).access?.userGroupsUnknown).toEqual(['Finance Operators']);
  });

  it('sends no /usergroups request when no ACL permission changes', async () => {
    const e = await start();
    const r = await runCli(['plan', '--detailed-exitcode'], { cwd: workdir(e, ['TaskRun', 'TaskEditExisting']), env: ENV });
    expect(r.code).toBe(0);
    expect(e.requestLog().some((x) => /\/resourcegroups\/acls$/.test(x.path))).toBe(true);
    expect(userGroupReads(e)).toBe(0);
  });

  it('drift names the members too: what the server grants beyond git, per user', async () => {
    const e = await start({}, ['erin']);
    const r = await runCli(['drift'], { cwd: workdir(e, ['TaskRun']), env: ENV });
    expect(r.stdout).toContain('Access on the server compared with git');
    expect(r.stdout).toContain('erin gains TaskEditExisting on resource group Finance (via user group Finance Operators)');
    expect(r.stdout).toContain('operator gains TaskEditExisting on resource group Finance (via user group Finance Operators)');
    expect(userGroupReads(e)).toBe(1);
  });
});
