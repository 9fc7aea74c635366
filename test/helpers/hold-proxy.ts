import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RunningEmulator } from '../../src/emulator/index.js';

/** A request the proxy holds: the test decides when (and whether) it reaches the emulator. */
export interface HeldRequest {
  readonly method: string;
  /** Path and query, as the client sent them (`/automation/api/v1/tasks`). */
  readonly path: string;
  /** Send it on; resolves once the emulator has answered it (its effect is in the state). */
  release(): Promise<void>;
}

export interface HoldProxy {
  /** Stands for the emulator's base URL: `${url}/automation`, `${url}/transfer`. */
  readonly url: string;
  /** The next request held (one already waiting first), in arrival order. */
  nextHeld(): Promise<HeldRequest>;
  close(): Promise<void>;
}

/**
 * An HTTP proxy in front of the emulator that holds the requests `hold` picks until the test
 * releases them, and passes every other one through. A test that must act while a write is in
 * flight (a Ctrl-C, a SIGKILL, a second apply) waits for that write to be held instead of counting
 * on a latency to make it probably so. `hold` sees each request with its 1-based number among the
 * requests of the same method and path.
 */
export async function startHoldProxy(emulator: RunningEmulator, hold: (method: string, path: string, nth: number) => boolean): Promise<HoldProxy> {
  const seen = new Map<string, number>();
  const held: HeldRequest[] = [];
  const waiting: ((r: HeldRequest) => void)[] = [];
  const server = createServer((req, res) => {
    const method = req.method ?? 'GET';
    const path = req.url ?? '/';
    const key = `${method} ${path.split('?')[0]}`;
    const nth = (seen.get(key) ?? 0) + 1;
    seen.set(key, nth);
    if (!hold(method, path, nth)) {
      void forward(emulator, req, res);
      return;
    }
    const body = readBody(req);
    const entry: HeldRequest = { method, path, release: () => body.then((b) => forward(emulator, req, res, b)) };
    const waiter = waiting.shift();
    if (waiter) waiter(entry);
    else held.push(entry);
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    nextHeld: () => {
      const first = held.shift();
      return first ? Promise.resolve(first) : new Promise((resolve) => waiting.push(resolve));
    },
    close: () =>
      new Promise<void>((done) => {
        server.close(() => done());
        server.closeAllConnections();
      }),
  };
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** Pass a request on to the emulator (also for proxies of other tests); resolves when the emulator's answer is complete (whether or not the client is still there to read it). */
export function forward(emulator: RunningEmulator, req: IncomingMessage, res: ServerResponse, body?: Buffer): Promise<void> {
  res.on('error', () => undefined); // a client that is gone (killed) cannot read the answer
  return new Promise((done) => {
    const upstream = request({ host: '127.0.0.1', port: emulator.port, method: req.method, path: req.url, headers: req.headers }, (up) => {
      if (!res.destroyed) res.writeHead(up.statusCode ?? 502, up.headers);
      up.on('data', (c: Buffer) => {
        if (!res.destroyed) res.write(c);
      });
      up.on('end', () => {
        if (!res.destroyed) res.end();
        done();
      });
    });
    upstream.on('error', () => {
      res.destroy();
      done();
    });
    if (body === undefined) req.pipe(upstream);
    else upstream.end(body);
  });
}
