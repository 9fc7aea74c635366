import { describe, expect, it } from 'vitest';
import { diffEnvironments } from '../../src/app/diff-env.js';
import { emulatorEnvironmentsYaml } from '../../src/emulator/config-for.js';
import { testdir } from '../helpers/testdir.js';
import { recordingContext } from './helpers.js';

/** Servers nothing listens on: a request would fail the use case. */
const NOWHERE = 'http://127.0.0.1:9';

const folder = (path: string) => `apiVersion: mftops/v1
kind: FolderPermissions
metadata: { name: ${path} }
spec: { mode: exact, entries: [{ user: carol, permissions: [listFiles] }] }
`;

function project(): string {
  return testdir({
    'mftops.yaml': emulatorEnvironmentsYaml([
      { environment: 'staging', transferUrl: NOWHERE, manifests: ['shared', 'staging'], transferPassword: '${env:STAGING_PASSWORD}' },
      { environment: 'production', transferUrl: NOWHERE, manifests: ['shared'], transferPassword: '${env:PRODUCTION_PASSWORD}' },
    ]),
    'shared/finance.yaml': folder('/Finance'),
    'staging/test.yaml': folder('/Finance/Test'),
  });
}

describe('diffEnvironments (the use case of diff-env)', () => {
  it("offline: compares each environment's own manifests without resolving a credential of the configuration", async () => {
    const ctx = recordingContext(project());
    const result = await diffEnvironments({ a: 'staging', b: 'production', offline: true }, ctx);
    expect(result.status).toBe('compared');
    if (result.status !== 'compared') return;
    expect(result.diff.objects.map((o) => [o.address, o.presence, o.source])).toEqual([
      ['FolderPermissions/Finance/Test', 'only-in-a', { a: { file: 'staging/test.yaml', line: 1, col: 1 } }],
    ]);
    expect(result.diff.summary).toMatchObject({ onlyInA: 1, same: 1 });
  });

  it("reading the servers, resolves both environments' credentials before the first request: a missing one is an error naming it", async () => {
    const ctx = recordingContext(project(), { STAGING_PASSWORD: 'x' });
    await expect(diffEnvironments({ a: 'staging', b: 'production', offline: false }, ctx)).rejects.toThrow(/PRODUCTION_PASSWORD/);
  });

  it('refuses the same environment twice', async () => {
    await expect(diffEnvironments({ a: 'staging', b: 'staging', offline: true }, recordingContext(project()))).rejects.toThrow(
      'diff-env compares two environments; "staging" was given twice',
    );
  });
});
