import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { DEFAULT_PRIVILEGED_ACCOUNTS } from '../../src/config/model.js';
import { assembleDrift } from '../../src/drift/assemble-drift.js';
import type { DriftReport } from '../../src/drift/model.js';
import { assessAccounts, withAccounts } from '../../src/drift/privileged-accounts.js';
import { findSchemasDir, SCHEMA_BASE_URL } from '../../src/manifest/schemas.js';
import { assemblePlan } from '../../src/plan/assemble-plan.js';
import { renderDriftGithub } from '../../src/render/drift-github.js';
import { renderDriftJson } from '../../src/render/drift-json.js';
import { renderDriftMarkdown } from '../../src/render/drift-markdown.js';
import { renderDriftText } from '../../src/render/drift-text.js';
import { readUser } from '../../src/services/transfer/normalize.js';
import { expectGolden } from '../fixtures/plans/load.js';

const NOW = new Date('2026-11-27T12:00:00Z');

/** A drift run where nothing but the accounts differ: an Admin and an automation administrator created out of band. */
function accountsReport(): DriftReport {
  const plan = assemblePlan(
    { toolVersion: '0.1.0', createdAt: NOW.toISOString(), environment: 'prod', servers: {}, manifestDigest: `sha256:${'ab'.repeat(32)}` },
    [],
    false,
  );
  const users = [
    { id: 'u1', username: 'admin', permission: 'SysAdmin', status: 'Active', lastLoginStamp: '2026-11-27T09:00:00' },
    { id: 'u2', username: 'eve', permission: 'Admin', status: 'Active', lastLoginStamp: '' },
    { id: 'u3', username: 'svc-backup', permission: 'Admin', status: 'Active', lastLoginStamp: '2026-11-26T23:00:00Z' },
    { id: 'u4', username: 'bob', permission: 'User', status: 'Suspended', lastLoginStamp: '2026-03-02T10:00:00' },
    { id: 'u5', username: 'carol', permission: 'User', status: 'Active', lastLoginStamp: 'n/a' },
  ].map(readUser);
  const { report } = assessAccounts({
    read: { transfer: { state: 'read', value: users }, automation: { state: 'read', value: { group: 'Administrators', members: ['admin', 'mallory'] } } },
    declared: new Set(),
    settings: {
      ...DEFAULT_PRIVILEGED_ACCOUNTS,
      allowUnmanaged: [{ name: 'svc-backup', service: 'transfer', reason: 'backup agent', where: 'mftops.yaml:14:11' }],
    },
    signedInAs: { transfer: 'admin', automation: 'admin' },
    now: NOW,
  });
  return withAccounts(assembleDrift({ plan, live: {}, prune: [], ignore: [], now: NOW }), report);
}

describe('the privileged accounts and the sign-on report of a drift report', () => {
  const report = accountsReport();

  it('text', () => {
    const text = renderDriftText(report, { color: false });
    expect(text).toContain('! unmanaged privileged account: eve (Admin)');
    expect(text).toContain('creator unknown: the transfer API shows no audit record');
    expectGolden(text, 'drift-accounts.txt');
  });

  it('markdown (the drift issue), with GitHub annotations for nothing but drifted objects', () => {
    const md = renderDriftMarkdown(report);
    expect(md).toContain('| Unmanaged privileged accounts | 2 |');
    expectGolden(md, 'drift-accounts.md');
    expect(renderDriftGithub(report)).toBe(md);
  });

  it('JSON, accepted by schemas/output-drift.schema.json', () => {
    const json = renderDriftJson(report);
    expectGolden(json, 'drift-accounts.json');
    const ajv = new Ajv2020({ strict: true, strictRequired: false, allowUnionTypes: true, allErrors: true });
    addFormats.default(ajv);
    for (const file of readdirSync(findSchemasDir()).filter((f) => f.startsWith('output-') || f === 'plan.schema.json' || f === 'kinds.schema.json'))
      ajv.addSchema(JSON.parse(readFileSync(join(findSchemasDir(), file), 'utf8')) as object);
    const validate = ajv.getSchema(`${SCHEMA_BASE_URL}output-drift.schema.json`)!;
    expect(validate(JSON.parse(json)) ? [] : validate.errors).toEqual([]);
  });

  it('says what it could not check, and lists nothing when the server sends no sign-on dates', () => {
    const plan = assemblePlan(
      { toolVersion: '0.1.0', createdAt: NOW.toISOString(), environment: 'prod', servers: {}, manifestDigest: `sha256:${'ab'.repeat(32)}` },
      [],
      false,
    );
    const { report: accounts } = assessAccounts({
      read: {
        transfer: { state: 'read', value: [readUser({ id: 'u1', username: 'admin', permission: 'SysAdmin' })] },
        automation: { state: 'unreadable', httpStatus: 403, message: 'the account may not read the user groups (an administrator may): 403' },
      },
      declared: new Set(),
      settings: DEFAULT_PRIVILEGED_ACCOUNTS,
      signedInAs: { transfer: 'admin' },
      now: NOW,
    });
    const text = renderDriftText(withAccounts(assembleDrift({ plan, live: {}, prune: [], ignore: [], now: NOW }), accounts), { color: false });
    expect(text).toContain('Note: automation administrators not checked: the account may not read the user groups (an administrator may): 403.');
    expect(text).toContain('Note: sign-on report: the transfer server sends no last sign-on (lastLoginStamp).');
    expect(text).not.toContain('Sign-on report (');
    expect(text).toContain('In sync: the servers match the manifests.');
  });
});
