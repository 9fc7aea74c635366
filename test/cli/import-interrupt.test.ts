import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it, onTestFinished } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { startHoldProxy } from '../helpers/hold-proxy.js';
import type { HoldProxy } from '../helpers/hold-proxy.js';
import { startSeededEmulator } from '../integration/helpers.js';
import { testdir } from '../helpers/testdir.js';
import { startCli } from '../helpers/run-cli.js';
import { PASSWORDS, configYaml } from '../drift/helpers.js';

let emulator: RunningEmulator;
beforeEach(async () => {
  emulator = await startSeededEmulator();
});
afterEach(() => emulator.close());

/** Every file below `dir`, hidden ones included, `/`-separated. */
function tree(dir: string): string[] {
  return existsSync(dir) ? readdirSync(dir, { recursive: true, encoding: 'utf8' }).map((p) => p.split('\\').join('/')) : [];
}

/** Waits until `ready()` (polled). */
async function until(ready: () => boolean): Promise<void> {
  while (!ready()) await new Promise((resolve) => setTimeout(resolve, 20));
}

/**
 * `mftops import --all` with a folder ACL read held by the proxy: the tasks are read, drafted and
 * staged while it is held; then `signal`, then the read is let go. The exit code and what it printed.
 */
async function importAndSignal(dir: string, proxy: HoldProxy, signal: 'SIGINT' | 'SIGTERM') {
  const { child, out, closed } = startCli(['import', '--all', '-q'], { cwd: dir, env: PASSWORDS });
  const held = await proxy.nextHeld();
  // The task files are staged in the hidden folder before the folder reads are done.
  await until(() => tree(join(dir, 'manifests')).some((p) => /^\.mftops-import-[^/]+\/tasks\/.+\.yaml$/.test(p)));
  child.kill(signal);
  await until(() => emulator.requestLog().filter((x) => x.path.endsWith('/token/revoke')).length >= 2);
  await held.release().catch(() => undefined);
  return { code: await closed, ...out };
}

it.each([
  ['SIGINT', 130],
  ['SIGTERM', 143],
] as const)('%s while the folders are read, with task files staged: tokens revoked, nothing left behind, exit %i', async (signal, code) => {
  const proxy = await startHoldProxy(emulator, (method, path) => method === 'GET' && /\/folders\/[^/]+\/acls/.test(path));
  onTestFinished(() => proxy.close());
  const dir = testdir({ 'mftops.yaml': configYaml({ url: proxy.url }) });
  const r = await importAndSignal(dir, proxy, signal);
  expect(r.code).toBe(code);
  expect(r.stdout).toBe('');
  expect(r.stderr).not.toMatch(/error|at .*\.js/i);
  expect(tree(join(dir, 'manifests'))).toEqual([]);
  expect(existsSync(join(dir, 'manifests'))).toBe(false);
});
