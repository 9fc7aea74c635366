import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { buildExpiryReport, findCredentialUsers } from '../../src/credentials/expiry-report.js';
import { assembleDrift } from '../../src/drift/assemble-drift.js';
import { withCredentials } from '../../src/drift/credentials.js';
import type { DriftReport } from '../../src/drift/model.js';
import { findSchemasDir, SCHEMA_BASE_URL } from '../../src/manifest/schemas.js';
import { assemblePlan } from '../../src/plan/assemble-plan.js';
import { renderDriftJson } from '../../src/render/drift-json.js';
import { renderDriftMarkdown } from '../../src/render/drift-markdown.js';
import { renderDriftText } from '../../src/render/drift-text.js';
import { readCredential } from '../../src/services/automation/normalize-credentials.js';
import { expectGolden } from '../fixtures/plans/load.js';

const NOW = new Date('2026-11-27T12:00:00Z');

/** An estate in sync whose automation server holds an expired PGP key, a certificate expiring in 9 days and one with an unreadable expiry. */
function credentialsReport(): DriftReport {
  const plan = assemblePlan(
    { toolVersion: '0.1.0', createdAt: NOW.toISOString(), environment: 'prod', servers: {}, manifestDigest: `sha256:${'ab'.repeat(32)}` },
    [],
    false,
  );
  const credentials = [
    readCredential('pgp', { ID: '500001', Name: 'partner-a|pgp', KeyID: '0xA1B2C3D4', ExpirationDate: '2026-11-01T00:00:00Z' }),
    readCredential('pgp', { ID: '500002', Name: 'partner-b', Expires: 0 }),
    readCredential('ssl', { Sha1Thumbprint: 'ABCDEF01', Name: 'as2-client', IssuedTo: 'as2.example.com', Issuer: 'CA', ExpDate: '12/7/2026 12:00:00 AM' }),
    readCredential('pgp', { ID: '500010', Name: 'odd-key', Expires: 'soon' }),
  ];
  const users = findCredentialUsers(
    credentials,
    [{ ID: '401001', Name: 'Encrypt and send', steps: [{ Process: { ScriptID: '1', Parameters: { PGPKey: { value: '0xA1B2C3D4' } } } }] }],
    [{ type: 'AS2', ID: '300002', Name: 'bank-as2', ClientCertSHA1: 'ab:cd:ef:01' }],
  );
  const section = { ok: true as const, report: buildExpiryReport(credentials, users, NOW, 30), unavailable: [{ kind: 'ssh' as const, status: 403 }] };
  return withCredentials(assembleDrift({ plan, live: {}, prune: [], ignore: [], now: NOW }), section);
}

describe('the keys-and-certificates section of a drift report', () => {
  const report = credentialsReport();

  it('text: expired first, then expiring, then unreadable; in sync (a report, not drift)', () => {
    const text = renderDriftText(report, { color: false });
    expect(report.status).toBe('in-sync');
    expectGolden(text, 'drift-credentials.txt');
  });

  it('markdown (the drift issue): a table, names escaped for a cell', () => {
    const md = renderDriftMarkdown(report);
    expect(md).toContain('partner-a\\|pgp');
    expectGolden(md, 'drift-credentials.md');
  });

  it('JSON, accepted by schemas/output-drift.schema.json', () => {
    const json = renderDriftJson(report);
    expectGolden(json, 'drift-credentials.json');
    const ajv = new Ajv2020({ strict: true, strictRequired: false, allowUnionTypes: true, allErrors: true });
    addFormats.default(ajv);
    for (const file of readdirSync(findSchemasDir()).filter((f) => f.startsWith('output-') || f === 'plan.schema.json' || f === 'kinds.schema.json'))
      ajv.addSchema(JSON.parse(readFileSync(join(findSchemasDir(), file), 'utf8')) as object);
    const validate = ajv.getSchema(`${SCHEMA_BASE_URL}output-drift.schema.json`)!;
    expect(validate(JSON.parse(json)) ? [] : validate.errors).toEqual([]);
  });
});
