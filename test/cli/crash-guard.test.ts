import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { emulatorConfigYaml } from '../../src/emulator/config-for.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { writesOf } from '../apply/helpers.js';
import { startHoldProxy } from '../helpers/hold-proxy.js';
import { hasStackTrace, startCli, type CliResult } from '../helpers/run-cli.js';
import { testdir } from '../helpers/testdir.js';
import { SEED_LOGINS, startSeededEmulator } from '../integration/helpers.js';

/**
 * The process-level guard of the CLI (issue 23, finding 8): a rejection nobody handles, raised
 * while apply holds its lock and both tokens, ends the run as any error does: reported once,
 * lock released, tokens revoked, exit 1, no stack trace, and no write after it.
 */

const INJECT = fileURLToPath(new URL('../fixtures/crash/inject-unhandled-rejection.mjs', import.meta.url));
const ENV = { MFT_AUTOMATION_PASSWORD: SEED_LOGINS.automationAdmin.password, MFT_TRANSFER_PASSWORD: SEED_LOGINS.transferAdmin.password };

let emulator: RunningEmulator;
beforeAll(async () => {
  emulator = await startSeededEmulator();
});
afterAll(() => emulator.close());

/** Apply with the injector preloaded; once its first write is held at the proxy, the bug happens (SIGUSR2). */
async function applyWithABug(format: 'text' | 'json'): Promise<CliResult & { dir: string }> {
  // The first request that would change something is held: it never reaches the server.
  const proxy = await startHoldProxy(emulator, (method, path) => method !== 'GET' && !/\/token(\/revoke)?$/.test(path.split('?')[0]!));
  onTestFinished(() => proxy.close());
  const dir = testdir({
    'mftops.yaml': [
      emulatorConfigYaml({ automationUrl: `${proxy.url}/automation`, transferUrl: `${proxy.url}/transfer`, manifests: ['manifests'] }).trimEnd(),
      '    prune: []',
      'snapshots: { dir: .mftops/snapshots, keep: 10 }',
      '',
    ].join('\n'),
    'manifests/task.yaml':
      'apiVersion: mftops/v1\nkind: Task\nmetadata: { name: Payroll to bank }\nspec:\n  Group: [Finance]\n  Info: { Description: changed by the crash-guard test }\n',
  });
  const { child, out, closed } = startCli(['apply', '--auto-approve', '--format', format], { cwd: dir, env: ENV, nodeArgs: ['--import', INJECT] });
  await proxy.nextHeld();
  expect(existsSync(join(dir, '.mftops/snapshots/lab/apply.lock'))).toBe(true);
  child.kill('SIGUSR2');
  return { code: await closed, ...out, dir };
}

describe('the CLI crash guard', () => {
  it('an unhandled rejection during apply: one "internal error" line saying it is a bug, exit 1, lock released, tokens revoked, no write', async () => {
    emulator.resetRequestLog();
    const r = await applyWithABug('text');
    expect(r.code).toBe(1);
    expect(hasStackTrace(r.stderr)).toBe(false);
    expect(r.stderr).not.toContain('Node.js v');
    expect(r.stderr.split('\n').filter((l) => l.startsWith('mftops: '))).toEqual(['mftops: internal error: injected: a promise nobody awaited']);
    expect(r.stderr).toContain('(this is a bug in mftops; run again with -v for details and report it)');
    expect(existsSync(join(r.dir, '.mftops/snapshots/lab/apply.lock'))).toBe(false);
    expect(emulator.requestLog().filter((x) => x.path.endsWith('/token/revoke')).length).toBeGreaterThanOrEqual(2);
    expect(writesOf(emulator)).toEqual([]);
  });

  it('with --format json: the error document on stdout, alone', async () => {
    emulator.resetRequestLog();
    const r = await applyWithABug('json');
    expect(r.code).toBe(1);
    expect(hasStackTrace(r.stderr)).toBe(false);
    expect(JSON.parse(r.stdout)).toEqual({
      formatVersion: 1,
      kind: 'mftops.error',
      errors: [{ severity: 'error', message: 'internal error: injected: a promise nobody awaited' }],
    });
    expect(existsSync(join(r.dir, '.mftops/snapshots/lab/apply.lock'))).toBe(false);
    expect(writesOf(emulator)).toEqual([]);
  });
});
