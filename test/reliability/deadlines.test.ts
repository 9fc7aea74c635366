import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { startSeededEmulator } from '../integration/helpers.js';
import { hasStackTrace, runCli } from '../helpers/run-cli.js';
import { testdir } from '../helpers/testdir.js';
import { forward } from '../helpers/hold-proxy.js';
import { APPLY_ENV, applyWorkdir, writesOf } from '../apply/helpers.js';

/**
 * A server that answers at once and then drips one byte every 2 s never trips an idle timeout;
 * the total deadline of a request ends the command, naming the call. Each run is killed after
 * 20 s (its code is then null): that is the hang detector, not a measure of speed. Before the
 * deadline, plan and drift ran for ever and apply hung in "Saving a snapshot…".
 */
const DRIP_EVERY_MS = 2000;
const DEADLINE_MS = '1500';
const HANG_MS = 20_000;
const PASSWORD = 'drip-test-Pa55!word';

const servers: Server[] = [];
const emulators: RunningEmulator[] = [];
afterEach(async () => {
  await Promise.all(
    servers.splice(0).map(
      (s) =>
        new Promise<void>((r) => {
          s.closeAllConnections();
          s.close(() => r());
        }),
    ),
  );
  await Promise.all(emulators.splice(0).map((e) => e.close()));
});

/** Headers now, then a byte every 2 s for as long as the client listens. */
function drip(res: ServerResponse, contentType: string): void {
  res.writeHead(200, { 'content-type': contentType });
  res.write(contentType.includes('xml') ? '<' : '[');
  const timer = setInterval(() => res.write(' '), DRIP_EVERY_MS);
  res.on('close', () => clearInterval(timer));
}

async function listen(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Answers the token endpoint, drips everything else. */
function dripServer(): Promise<string> {
  return listen((req, res) => {
    req.resume();
    if (/\/token(\/revoke)?$/.test(req.url ?? '') && req.method === 'POST') {
      const body = /revoke$/.test(req.url ?? '') ? '' : JSON.stringify({ access_token: 'drip-access-1', token_type: 'bearer', expires_in: 300 });
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      res.end(body);
      return;
    }
    drip(res, 'application/json');
  });
}

/** Passes every request on to the emulator but the configuration export, which it drips. */
function dripExportProxy(emulator: RunningEmulator): Promise<string> {
  return listen((req, res) => {
    if (req.method === 'GET' && /\/api\/v1\/config$/.test((req.url ?? '').split('?')[0]!)) {
      req.resume();
      drip(res, 'application/xml');
      return;
    }
    void forward(emulator, req, res);
  });
}

function workdir(url: string): string {
  return testdir({
    'mftops.yaml': `apiVersion: mftops/v1\nkind: Config\nenvironments:\n  lab:\n    automation: { url: ${JSON.stringify(`${url}/automation`)}, username: admin, password: "\${env:DRIP_PASSWORD}" }\n    manifests: [manifests]\n`,
    'manifests/task.yaml': 'apiVersion: mftops/v1\nkind: Task\nmetadata: { name: Payroll to bank }\nspec:\n  Info: { Description: drip test }\n',
  });
}

function expectDeadline(r: { code: number | null; stderr: string }, call: RegExp, variable: string): void {
  expect(r.code).toBe(1); // null: killed by the hang detector
  const error = r.stderr.split('\n').filter((l) => l.startsWith('mftops: error: '));
  expect(error).toHaveLength(1);
  expect(error[0]).toMatch(call);
  expect(error[0]).toContain(`no complete answer within the 1.5 s deadline (${variable})`);
  expect(hasStackTrace(r.stderr)).toBe(false);
}

describe('a server that drips one byte every 2 s', () => {
  for (const command of ['plan', 'drift']) {
    it(
      `ends ${command} within the request deadline with a message naming the call`,
      async () => {
        const dir = workdir(await dripServer());
        const r = await runCli([command], { cwd: dir, env: { DRIP_PASSWORD: PASSWORD, MFTOPS_HTTP_DEADLINE_MS: DEADLINE_MS }, timeoutMs: HANG_MS });
        expectDeadline(r, /^mftops: error: automation: GET \/automation\/api\/v1\/\S+: /, 'MFTOPS_HTTP_DEADLINE_MS');
      },
      HANG_MS + 5000,
    );
  }

  it(
    'ends apply in its snapshot within the export deadline, before any write',
    async () => {
      const emulator = await startSeededEmulator();
      emulators.push(emulator);
      const proxy = await dripExportProxy(emulator);
      const dir = applyWorkdir(emulator, { automationUrl: `${proxy}/automation` });
      const r = await runCli(['apply', '--auto-approve', '--allow-delete', '--allow-replace'], {
        cwd: dir,
        env: { ...APPLY_ENV, MFTOPS_SNAPSHOT_DEADLINE_MS: DEADLINE_MS },
        timeoutMs: HANG_MS,
      });
      expect(r.code).toBe(1); // null: killed by the hang detector
      expect(r.stdout).toContain('Apply stopped before the first write: no verified snapshot.');
      expect(r.stdout).toMatch(
        /snapshot not saved: automation: GET \/automation\/api\/v1\/config: no complete answer within the 1\.5 s deadline \(MFTOPS_SNAPSHOT_DEADLINE_MS\)/,
      );
      expect(hasStackTrace(r.stderr)).toBe(false);
      expect(writesOf(emulator)).toEqual([]);
    },
    HANG_MS + 5000,
  );
});
