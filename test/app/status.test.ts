import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { environmentStatus } from '../../src/app/status.js';
import { emulatorConfigYaml } from '../../src/emulator/config-for.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { ConfigError } from '../../src/errors.js';
import { SEED_LOGINS, startSeededEmulator } from '../integration/helpers.js';
import { testdir } from '../helpers/testdir.js';
import { recordingContext } from './helpers.js';

let emulator: RunningEmulator;
beforeAll(async () => {
  emulator = await startSeededEmulator();
});
afterAll(() => emulator.close());
beforeEach(() => emulator.resetRequestLog());

const ENV = { MFT_AUTOMATION_PASSWORD: SEED_LOGINS.automationAdmin.password, MFT_TRANSFER_PASSWORD: SEED_LOGINS.transferAdmin.password };

describe('environmentStatus', () => {
  it('signs in to each service and reports its identity and counts, reading only and revoking its tokens', async () => {
    const dir = testdir({ 'mftops.yaml': emulatorConfigYaml({ automationUrl: emulator.automationUrl, transferUrl: emulator.transferUrl }) });
    const ctx = recordingContext(dir, ENV);
    const report = await environmentStatus({}, ctx);
    expect(report.environment).toBe('lab');
    expect(report.configFile).toBe(join(dir, 'mftops.yaml'));
    expect(report.services.map(({ requests, ...s }) => ({ ...s, requests: requests! > 0 }))).toEqual([
      {
        service: 'automation',
        url: emulator.automationUrl,
        ok: true,
        version: '2025.1.0',
        username: 'admin',
        role: 'administrator',
        counts: [
          { key: 'tasks', count: 8 },
          { key: 'hosts', count: 8 },
          { key: 'resourceGroups', count: 3 },
          { key: 'resourceGroupAcls', count: 3 },
        ],
        requests: true,
      },
      {
        service: 'transfer',
        url: emulator.transferUrl,
        ok: true,
        username: 'admin',
        role: 'SysAdmin',
        counts: [
          { key: 'users', count: 8 },
          { key: 'groups', count: 4 },
        ],
        requests: true,
      },
    ]);
    const log = emulator.requestLog();
    expect(log.filter((r) => !r.isTokenCall && r.method !== 'GET')).toEqual([]);
    expect(log.filter((r) => r.path.endsWith('/token/revoke'))).toHaveLength(4);
  });

  it('reports a service that refuses the credentials as a failed entry, without the password, and still checks the other', async () => {
    const dir = testdir({
      'mftops.yaml': emulatorConfigYaml({
        environment: 'prod',
        automationUrl: emulator.automationUrl,
        transferUrl: emulator.transferUrl,
        transferPassword: '${env:WRONG}',
      }),
    });
    const report = await environmentStatus({ environment: 'prod' }, recordingContext(dir, { ...ENV, WRONG: 'Wr0ng-transfer-pw' }));
    expect(report.services.map((s) => [s.service, s.ok])).toEqual([
      ['automation', true],
      ['transfer', false],
    ]);
    const transfer = report.services[1]!;
    expect(transfer.error).toMatch(/^transfer: POST \/transfer\/api\/v1\/token: 400/);
    expect(transfer.counts).toEqual([]);
    expect(JSON.stringify(report)).not.toContain('Wr0ng-transfer-pw');
  });

  it('reports only the services the environment has', async () => {
    const dir = testdir({ 'mftops.yaml': emulatorConfigYaml({ transferUrl: emulator.transferUrl }) });
    const report = await environmentStatus({}, recordingContext(dir, ENV));
    expect(report.services.map((s) => [s.service, s.ok])).toEqual([['transfer', true]]);
    expect(emulator.requestLog().every((r) => r.path.startsWith('/transfer/'))).toBe(true);
  });

  it('stops before any request when a credential is missing', async () => {
    const dir = testdir({ 'mftops.yaml': emulatorConfigYaml({ automationUrl: emulator.automationUrl, transferUrl: emulator.transferUrl }) });
    const err = await environmentStatus({}, recordingContext(dir, { MFT_AUTOMATION_PASSWORD: 'x' })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toContain('MFT_TRANSFER_PASSWORD');
    expect(emulator.requestLog()).toEqual([]);
  });
});
