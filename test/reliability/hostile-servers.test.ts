import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer as createHttpServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { hasStackTrace, runCli } from '../helpers/run-cli.js';
import { testdir } from '../helpers/testdir.js';

/**
 * mftops against servers that misbehave: every case ends in exit 1 with a one-line
 * `mftops: error:` that names what happened, in bounded time, never a hang or a stack trace.
 * The servers answer the token endpoint correctly (so the bearer is in play) and misbehave on
 * everything else.
 */
const PASSWORD = 'hostile-test-Pa55!word';
const ACCESS_TOKEN = 'hostile-access-token-4471';
const TIMEOUT_MS = 500;

const MANIFEST = 'apiVersion: mftops/v1\nkind: Task\nmetadata: { name: Payroll to bank }\nspec:\n  Info: { Description: hostile test }\n';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

interface Seen {
  readonly method: string;
  readonly path: string;
  readonly authorization: string | undefined;
}

const servers: Server[] = [];
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
});

function tokenAware(hostile: Handler, seen: Seen[]): Handler {
  return (req, res) => {
    seen.push({ method: req.method ?? '', path: req.url ?? '', authorization: req.headers.authorization });
    req.resume();
    if (/\/token(\/revoke)?$/.test(req.url ?? '') && req.method === 'POST') {
      const body = /revoke$/.test(req.url ?? '')
        ? ''
        : JSON.stringify({ access_token: ACCESS_TOKEN, token_type: 'bearer', expires_in: 300, refresh_token: 'hostile-refresh-9021' });
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      res.end(body);
      return;
    }
    hostile(req, res);
  };
}

async function listen(server: Server): Promise<string> {
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return String((server.address() as AddressInfo).port);
}

async function startHostile(hostile: Handler): Promise<{ url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const port = await listen(createHttpServer(tokenAware(hostile, seen)));
  return { url: `http://127.0.0.1:${port}/automation`, seen };
}

function workdir(url: string, extra = ''): string {
  return testdir({
    'mftops.yaml': `apiVersion: mftops/v1\nkind: Config\nenvironments:\n  lab:\n    automation: { url: ${JSON.stringify(url)}, username: admin, password: "\${env:HOSTILE_PASSWORD}"${extra} }\n    manifests: [manifests]\n`,
    'manifests/task.yaml': MANIFEST,
  });
}

/** `mftops plan` against `url`; a run still going after CLI_HANG_GUARD_MS is a hang: killed, its code null, not 1. */
function planAgainst(url: string, extra = ''): Promise<{ code: number | null; stderr: string; stdout: string }> {
  return runCli(['plan'], { cwd: workdir(url, extra), env: { HOSTILE_PASSWORD: PASSWORD, MFTOPS_HTTP_TIMEOUT_MS: String(TIMEOUT_MS) } });
}

/** The promises of every case: exit 1 of its own accord (never a hang), one clear line, no trace, no secret. */
function expectClearFailure(r: { code: number | null; stderr: string; stdout: string }, message: RegExp): void {
  expect(r.code).toBe(1);
  expect(r.stderr).toMatch(/^mftops: error: \S/m);
  expect(r.stderr).toMatch(message);
  expect(hasStackTrace(r.stderr)).toBe(false);
  expect(r.stderr).not.toMatch(/internal error/);
  for (const secret of [PASSWORD, ACCESS_TOKEN]) expect(r.stdout + r.stderr).not.toContain(secret);
}

describe('hostile and broken servers', () => {
  it('a 200 answer that is not JSON', async () => {
    const s = await startHostile((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('this is { not json');
    });
    expectClearFailure(await planAgainst(s.url), /not JSON|JSON/i);
  });

  it('an HTML error page (a proxy in front of the server)', async () => {
    const s = await startHostile((_req, res) => {
      res.writeHead(502, { 'content-type': 'text/html' });
      res.end('<html><head><title>502 Bad Gateway</title></head><body><h1>Bad Gateway</h1></body></html>');
    });
    expectClearFailure(await planAgainst(s.url), /502/);
  });

  it('a truncated body (Content-Length promises more than comes)', async () => {
    const s = await startHostile((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': 5000 });
      // Closed once the first bytes are on their way: the client gets a start and then the end.
      res.write('{"items": [', () => res.socket?.destroy());
    });
    expectClearFailure(await planAgainst(s.url), /truncated|closed|reset/i);
  });

  it('a huge body (endless JSON) is cut off at the size limit instead of filling memory', async () => {
    const chunk = Buffer.alloc(1024 * 1024, 0x20);
    const s = await startHostile((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('[');
      const pump = (): void => {
        while (!res.destroyed && res.write(chunk));
        if (!res.destroyed) res.once('drain', pump);
      };
      res.on('error', () => undefined);
      pump();
    });
    expectClearFailure(await planAgainst(s.url), /larger than 32 MiB/);
  });

  it('a wrong content type (XML where JSON is expected)', async () => {
    const s = await startHostile((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/xml' });
      res.end('<Info appVersion="2025.1.0"/>');
    });
    expectClearFailure(await planAgainst(s.url), /application\/xml|non-JSON/i);
  });

  it('a server that never answers becomes a timeout error (MFTOPS_HTTP_TIMEOUT_MS)', async () => {
    const s = await startHostile(() => {
      // Never answer.
    });
    expectClearFailure(await planAgainst(s.url), new RegExp(`no response within ${TIMEOUT_MS} ms`));
  });

  it('a redirect to another host is refused, and that host never sees a request (nor the bearer token)', async () => {
    const elsewhere: Seen[] = [];
    const otherPort = await listen(createHttpServer(tokenAware((_q, res) => res.end('{}'), elsewhere)));
    const s = await startHostile((_req, res) => {
      res.writeHead(302, { location: `http://localhost:${otherPort}/steal` });
      res.end();
    });
    const r = await planAgainst(s.url);
    expectClearFailure(r, new RegExp(`redirect to localhost:${otherPort} refused`));
    expect(elsewhere).toEqual([]);
    // The bearer went only to the configured server.
    expect(s.seen.some((x) => x.authorization === `Bearer ${ACCESS_TOKEN}`)).toBe(true);
  });

  it('plain http:// to a host that is not loopback is refused before any connection', async () => {
    const r = await planAgainst('http://automation.example.com/automation');
    // A problem of mftops.yaml: coded, at the url, like the file's other problems.
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /^mftops\.yaml:\d+:\d+: error MF507: environments\.\S+\.automation\.url: plain http:\/\/ is refused for automation\.example\.com: /m,
    );
    expect(hasStackTrace(r.stderr)).toBe(false);
    for (const secret of [PASSWORD, ACCESS_TOKEN]) expect(r.stdout + r.stderr).not.toContain(secret);
  });

  describe('TLS', () => {
    function makeCert(): { dir: string; key: string; cert: string } {
      const dir = testdir({});
      const key = join(dir, 'key.pem');
      const cert = join(dir, 'cert.pem');
      execFileSync(
        'openssl',
        [
          'req',
          '-x509',
          '-newkey',
          'rsa:2048',
          '-nodes',
          '-keyout',
          key,
          '-out',
          cert,
          '-days',
          '2',
          '-subj',
          '/CN=127.0.0.1',
          '-addext',
          'subjectAltName=IP:127.0.0.1',
        ],
        { stdio: 'ignore' },
      );
      return { dir, key, cert };
    }

    it('an untrusted certificate is refused; with its CA in caFile the same server is reached', async () => {
      const { key, cert } = makeCert();
      const seen: Seen[] = [];
      const server = createHttpsServer(
        { key: readFileSync(key), cert: readFileSync(cert) },
        tokenAware((_req, res) => {
          res.writeHead(503, { 'content-type': 'text/html' });
          res.end('<html><body>maintenance</body></html>');
        }, seen),
      );
      const port = await listen(server);
      const url = `https://127.0.0.1:${port}/automation`;

      const refused = await planAgainst(url);
      expectClearFailure(refused, /TLS certificate not trusted or invalid \(set caFile/);
      expect(seen).toEqual([]);

      const trusted = await planAgainst(url, `, caFile: ${JSON.stringify(cert)}`);
      // Past TLS: the token call went through and the server's own 503 is what fails the run.
      expectClearFailure(trusted, /503/);
      expect(trusted.stderr).not.toMatch(/TLS/);
      expect(seen.some((x) => /\/token$/.test(x.path))).toBe(true);
    });
  });
});
