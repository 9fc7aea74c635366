import { describe, expect, it } from 'vitest';
import { readPolicyKeys } from '../../src/app/policy-keys.js';
import type { AutomationReader } from '../../src/live/read-live-state.js';
import type { PolicyManifest, PolicySeverity } from '../../src/manifest/types.js';
import { ApiError } from '../../src/services/errors.js';
import { isMftopsError } from '../../src/errors.js';

// A deny rule on `keys`/`usedKeys` that the server does not let mftops read keys for used to see an
// empty list and pass: the plan went ahead as if no key were expired.

function policy(severity: PolicySeverity, expression: string): PolicyManifest {
  return {
    kind: 'Policy',
    name: 'no-expired-keys',
    spec: { severity, validations: [{ expression, message: 'no expired key' }] },
    source: { file: '/work/project/policies/keys.yaml', line: 3, col: 1 },
    sourceMap: { locate: () => ({ file: '/work/project/policies/keys.yaml', line: 3, col: 1 }) },
  };
}

/** A reader whose PGP key list is forbidden, and whose other lists are empty. */
function forbiddenPgp(): AutomationReader {
  return {
    listHosts: async () => [],
    listTasks: async () => [],
    listCredentials: async (kind: string) => {
      if (kind === 'pgp')
        throw new ApiError({ service: 'automation', method: 'GET', path: '/api/v1/pgpkeys', status: 403, body: { title: 'Forbidden', fieldErrors: [] } });
      return [];
    },
  } as unknown as AutomationReader;
}

const NOW = new Date('2026-11-27T12:00:00Z');
const EXPRESSION = '!usedKeys.exists(k, k.expired)';

describe('readPolicyKeys when a key list cannot be read', () => {
  it('refuses a deny rule it cannot judge, naming the rule at its place and the list', async () => {
    let caught: unknown;
    try {
      await readPolicyKeys([policy('deny', EXPRESSION)], forbiddenPgp(), {}, NOW, '/work/project');
    } catch (err) {
      caught = err;
    }
    expect(isMftopsError(caught)).toBe(true);
    expect((caught as Error).message).toBe(
      'policies/keys.yaml:3:1: policy "no-expired-keys" reads keys or usedKeys, but the automation server did not list its PGP keys (HTTP 403), so the rule cannot be judged; give the account read access to keys and certificates, or make the rule a warn',
    );
  });

  it('judges a warn rule on what it could read', async () => {
    const input = await readPolicyKeys([policy('warn', EXPRESSION)], forbiddenPgp(), {}, NOW, '/work/project');
    expect(input?.credentials).toEqual([]);
  });
});
