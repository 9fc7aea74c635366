import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, EnvHttpProxyAgent } from 'undici';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { parseBaseUrl } from '../../src/services/connection.js';
import { Transport, createDispatcher } from '../../src/services/transport.js';
import type { HttpRequest } from '../../src/services/transport.js';
import { describeUnexpectedBody, looksLikeJson, tryParseJson } from '../../src/services/error-body.js';
import { ApiError } from '../../src/services/errors.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mftops-transport-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('dispatcher', () => {
  it('is a plain keep-alive Agent without proxy variables', async () => {
    const d = createDispatcher({ env: {} });
    expect(d).toBeInstanceOf(Agent);
    await d.close();
  });

  it('goes through EnvHttpProxyAgent when HTTPS_PROXY or https_proxy is set', async () => {
    for (const env of [
      { HTTPS_PROXY: 'http://proxy.corp:3128' },
      { https_proxy: 'http://proxy.corp:3128', NO_PROXY: 'localhost' },
      { HTTP_PROXY: 'http://p:1' },
    ]) {
      const d = createDispatcher({ env });
      expect(d).toBeInstanceOf(EnvHttpProxyAgent);
      await d.close();
    }
  });

  it('reads an extra CA file, and names a missing one in a ConfigError', async () => {
    const pem = join(dir, 'corp-ca.pem');
    await writeFile(pem, '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');
    const d = createDispatcher({ caFile: pem, env: {} });
    expect(d).toBeInstanceOf(Agent);
    await d.close();
    const missing = join(dir, 'nope.pem');
    expect(() => createDispatcher({ caFile: missing, env: {} })).toThrow(ConfigError);
    expect(() => createDispatcher({ caFile: missing, env: {} })).toThrow(`cannot read caFile ${missing} (ENOENT)`);
  });
});

describe('base URL', () => {
  it('splits origin and path prefix, dropping a trailing slash', () => {
    expect(parseBaseUrl('transfer', 'https://mft.example.com:8443/files/')).toEqual({ origin: 'https://mft.example.com:8443', basePath: '/files' });
    expect(parseBaseUrl('automation', 'https://a.example.com')).toEqual({ origin: 'https://a.example.com', basePath: '' });
  });

  it('allows plain http on loopback only, and refuses credentials in the URL', () => {
    expect(parseBaseUrl('automation', 'http://localhost:9000').origin).toBe('http://localhost:9000');
    expect(parseBaseUrl('automation', 'http://[::1]:9000').origin).toBe('http://[::1]:9000');
    expect(() => parseBaseUrl('automation', 'http://10.0.0.5')).toThrow('automation url: plain http:// is refused for 10.0.0.5');
    expect(() => parseBaseUrl('transfer', 'https://u:p@mft.example.com')).toThrow('transfer url: must not contain credentials');
    expect(() => parseBaseUrl('transfer', 'mft.example.com')).toThrow(ConfigError);
  });
});

describe('sendJson, the answer gathered whole', () => {
  /** What the server answers next: status, headers, the body in the pieces it is written in. */
  let answer: { status: number; headers: Record<string, string>; pieces: string[] } = { status: 200, headers: {}, pieces: [] };
  let server: Server;
  let origin: string;
  beforeAll(async () => {
    server = createServer((_req, res) => {
      res.writeHead(answer.status, answer.headers);
      for (const p of answer.pieces) res.write(p);
      res.end();
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((done) => server.close(done));
  });

  /** A call's outcome as data: the value, or the error's class, message and fields. */
  const outcomeOf = (call: Promise<unknown>): Promise<unknown> =>
    call.then(
      (value) => ({ value }),
      (err: unknown) => ({ error: err instanceof Error ? { ...err, name: err.constructor.name, message: err.message } : err }),
    );

  /**
   * The plain path: the same request through `send`, its body read from undici's stream and
   * decoded as sendJson decodes it; a body that is not the JSON asked for fails as the transport
   * fails it (an ApiError naming the status and what came, never the body).
   */
  const sendJsonByStream = (t: Transport, req: HttpRequest): Promise<unknown> =>
    t.send(req, async (res) => {
      const chunks: Buffer[] = [];
      for await (const c of res.body) chunks.push(c as Buffer);
      const bytes = Buffer.concat(chunks);
      if (bytes.length === 0) return undefined;
      const unexpected = (why: string | undefined): ApiError =>
        new ApiError({
          service: t.service,
          method: req.method,
          path: req.path,
          attempts: 1,
          status: res.status,
          body: { fieldErrors: [], note: describeUnexpectedBody(bytes, res.contentType, why, (x) => t.redact(x)) },
        });
      const parsed = tryParseJson(bytes);
      if (!parsed.ok) throw unexpected(undefined);
      if (res.contentType !== undefined && !looksLikeJson(res.contentType) && !/^text\/plain\b/i.test(res.contentType)) throw unexpected('non-JSON response');
      return parsed.value;
    });

  const contentTypes = fc.constantFrom<string | undefined>(
    undefined,
    'application/json',
    'application/json; charset=utf-8',
    'application/problem+json',
    'text/plain',
    'text/html',
    'application/xml',
  );
  const bodies = fc.oneof(
    fc.jsonValue().map((v) => JSON.stringify(v)),
    fc
      .record({
        title: fc.string(),
        detail: fc.string(),
        errorCode: fc.integer(),
        errors: fc.array(fc.record({ field: fc.string(), rejected: fc.string(), message: fc.string() })),
      })
      .map((v) => JSON.stringify(v)),
    fc.string(),
    fc.constant(''),
  );
  const answers = fc.record({
    status: fc.constantFrom(200, 201, 204, 302, 400, 403, 404, 409, 422, 500, 503),
    contentType: contentTypes,
    body: bodies,
    cuts: fc.array(fc.nat(), { maxLength: 3 }),
  });

  it('answers as the plain path through a body stream does: values, statuses, error bodies, redirects', async () => {
    const t = new Transport({ service: 'transfer', origin, dispatcher: new Agent(), ownsDispatcher: true });
    try {
      const req: HttpRequest = { method: 'GET', path: '/x', retry: 'write' };
      await fc.assert(
        fc.asyncProperty(answers, async ({ status, contentType, body, cuts }) => {
          const at = [...new Set(cuts.map((c) => c % (body.length + 1)))].sort((a, b) => a - b);
          const pieces = [0, ...at].map((from, i) => body.slice(from, [...at, body.length][i]));
          answer = {
            status,
            headers: {
              ...(contentType !== undefined ? { 'content-type': contentType } : {}),
              ...(status === 302 ? { location: 'https://elsewhere.example/x' } : {}),
            },
            pieces: status === 204 ? [] : pieces,
          };
          const gathered = await outcomeOf(t.sendJson(req));
          const streamed = await outcomeOf(sendJsonByStream(t, req));
          expect(gathered).toEqual(streamed);
        }),
        { numRuns: 150 },
      );
      // An error body is read to 64 KiB and no further (as far as the socket's last chunk).
      answer = { status: 400, headers: { 'content-type': 'text/plain' }, pieces: Array.from({ length: 32 }, () => 'x'.repeat(32_768)) };
      const cut = (await outcomeOf(t.sendJson(req))) as { error: { detail: string } };
      const bytes = Number(/text\/plain, (\d+) bytes/.exec(cut.error.detail)?.[1]);
      expect(bytes).toBeGreaterThanOrEqual(65_536);
      expect(bytes).toBeLessThan(65_536 + 262_144);
    } finally {
      await t.close();
    }
  });
});
