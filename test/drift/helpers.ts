import { request, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { stringify } from 'yaml';
import { captureIo, type GlobalOptions } from '../../src/cli/io.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import type { DriftIgnoreRule } from '../../src/config/model.js';
import { SEED_LOGINS } from '../integration/helpers.js';

/** Global options as commander hands them to a command. */
export function globals(overrides: Partial<GlobalOptions> = {}): GlobalOptions {
  return { format: 'text', color: false, quiet: false, verbose: false, ...overrides };
}

/** Passwords the configurations below refer to. */
export const PASSWORDS = {
  MFT_AUTOMATION_PASSWORD: SEED_LOGINS.automationAdmin.password,
  MFT_TRANSFER_PASSWORD: SEED_LOGINS.transferAdmin.password,
  MFT_OPERATOR_PASSWORD: SEED_LOGINS.automationOperator.password,
};

export interface ConfigOptions {
  /** Base URL of both services (an emulator or a proxy in front of it). */
  readonly url: string;
  readonly manifests?: readonly string[];
  readonly scope?: { taskGroups?: readonly string[]; folders?: readonly string[] };
  readonly prune?: readonly string[];
  readonly ignore?: readonly Omit<DriftIgnoreRule, 'where'>[];
  /** Automation account: `admin` (default) or `operator`. */
  readonly automationUser?: 'admin' | 'operator';
  readonly snapshotsDir?: string;
}

/** An mftops.yaml with one environment `lab` for an emulator. */
export function configYaml(o: ConfigOptions): string {
  const operator = o.automationUser === 'operator';
  const env: Record<string, unknown> = {
    automation: {
      url: `${o.url}/automation`,
      username: operator ? 'operator' : 'admin',
      password: operator ? '${env:MFT_OPERATOR_PASSWORD}' : '${env:MFT_AUTOMATION_PASSWORD}',
    },
    transfer: { url: `${o.url}/transfer`, username: 'admin', password: '${env:MFT_TRANSFER_PASSWORD}' },
    manifests: [...(o.manifests ?? ['manifests'])],
    scope: { taskGroups: [...(o.scope?.taskGroups ?? ['Finance', 'Partners', 'Operations'])], folders: [...(o.scope?.folders ?? ['/Distribution'])] },
    prune: [...(o.prune ?? [])],
    ...(o.ignore ? { drift: { ignore: o.ignore.map((r) => ({ ...r })) } } : {}),
  };
  return stringify({
    apiVersion: 'mftops/v1',
    kind: 'Config',
    environments: { lab: env },
    ...(o.snapshotsDir ? { snapshots: { dir: o.snapshotsDir, keep: 5 } } : {}),
  });
}

export function io(cwd: string) {
  return captureIo({ cwd, env: { ...PASSWORDS } });
}

/**
 * A loopback proxy in front of an emulator that answers every audit report request with `status`
 * (403: an account without the right; 404: a server without the report) and passes everything
 * else through unchanged.
 */
export async function startAuditBlockingProxy(emulator: RunningEmulator, status: number): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    if (req.method === 'POST' && (req.url ?? '').split('?')[0]!.endsWith('/reports/audit')) {
      req.resume();
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ status, title: status === 403 ? 'Forbidden' : 'Not Found', detail: 'audit reports need the administrators group' }));
      return;
    }
    const upstream = request({ host: '127.0.0.1', port: emulator.port, method: req.method, path: req.url, headers: req.headers }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((done) => {
        server.close(() => done());
        server.closeAllConnections();
      }),
  };
}

/** Non-GET requests that are not token calls, as `METHOD path` (the name its importers use). */
export { listWrites as writesAndPosts } from '../helpers/emulator-test-api.js';
