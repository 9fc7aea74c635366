import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import type { Socket } from 'node:net';
import type { TokenLifetimes } from './auth.js';
import { handleAutomation } from './automation.js';
import { addChurnUser, readsLaterPage } from './churn.js';
import type { ApiRequest, ApiResponse } from './http.js';
import { automationError, jsonResponse, transferError } from './http.js';
import type { EmulatorState, Variants } from './state.js';
import { handleTransfer } from './transfer.js';
import type { ListChurn } from './list-churn.js';

/** Which server a request was for; `other` is anything outside both services and the control API. */
export type ServiceName = 'automation' | 'transfer' | 'other';

/**
 * An injected fault. `error-500`, `error-503` and `reset` happen before the request is handled;
 * `write-then-500` and `write-then-reset` (writes only) happen after the write took effect;
 * `slow-answer` (only while `slowResponseMs` > 0) handles the request at once and holds the
 * answer for `slowResponseMs`, past a client's timeout: the work is done, the answer is late. `short-read` (only with
 * `shortReads`) handles the request (a write takes effect), sends the status and the full
 * `content-length`, then half the body, and closes the connection. `list-churn` (only while
 * `churnFaults` > 0) adds a transfer user before answering a later page of `/users`, so the list
 * grows between page reads; the request is answered normally.
 */
export type FaultKind = 'error-500' | 'error-503' | 'reset' | 'write-then-500' | 'write-then-reset' | 'slow-answer' | 'short-read' | 'list-churn';

/** One API request as the request log keeps it (control calls are not logged). */
export interface RequestRecord {
  readonly service: ServiceName;
  readonly method: string;
  /** The URL path without the query. */
  readonly path: string;
  /** The status sent; 0 when the connection was reset instead. */
  readonly status: number;
  /** POST/GET `/token` and `/token/revoke` of either service. */
  readonly isTokenCall: boolean;
  readonly fault?: FaultKind;
}

/** Counts over a request log, as GET /_emulator/requests reports them. */
export interface RequestCounts {
  readonly total: number;
  readonly byMethod: Readonly<Record<string, number>>;
  /** GET/HEAD requests, token calls excluded. */
  readonly reads: number;
  /** POST/PUT/PATCH/DELETE requests, token calls excluded. */
  readonly writes: number;
  readonly tokenCalls: number;
  readonly faults: number;
}

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const MAX_BODY = 64 * 1024 * 1024;

export function countRequests(log: readonly RequestRecord[]): RequestCounts {
  const byMethod: Record<string, number> = {};
  let reads = 0;
  let writes = 0;
  let tokenCalls = 0;
  let faults = 0;
  for (const r of log) {
    byMethod[r.method] = (byMethod[r.method] ?? 0) + 1;
    if (r.fault) faults++;
    if (r.isTokenCall) tokenCalls++;
    else if (WRITE_METHODS.has(r.method)) writes++;
    else reads++;
  }
  return { total: log.length, byMethod, reads, writes, tokenCalls, faults };
}

/** Deterministic PRNG (mulberry32) so a fault seed replays the same fault sequence. */
export function createRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface ServerConfig {
  readonly state: EmulatorState;
  readonly lifetimes: TokenLifetimes;
  /** Mutable: `RunningEmulator.configure` changes them while the server runs. */
  latencyMs: number;
  faultRate: number;
  /** How long a `slow-answer` fault holds the answer; 0 (default) leaves that kind out of the draw. */
  slowResponseMs: number;
  /**
   * Requests per second each service answers (a token bucket per service holding one second of
   * them); over it a request gets 429 with `Retry-After` in seconds. 0 (default): no limit.
   * A gateway's limit, which neither reference shows (register B-11).
   */
  rateLimit: number;
  /** Whether `short-read` joins the draw; false (default) leaves the draw as it was. */
  shortReads: boolean;
  /** Users `list-churn` may still add (a budget, counted down); 0 (default): no churn. */
  churnFaults: number;
  readonly faultSeed: number;
  /** Lists that change while they are read; undefined: they hold still. */
  readonly listChurn?: ListChurn | undefined;
  /** Filled by the caller once the port is known (for /_emulator/health). */
  readonly urls: () => { url: string; automationUrl: string; transferUrl: string };
}

/** The base path of each service's `/api/v1` (automation: `automation.basePath`). */
export function apiBase(service: 'automation' | 'transfer', v: Variants): string {
  if (service === 'transfer') return '/transfer/api/v1';
  const base = v['automation.basePath'];
  switch (base) {
    case 'api':
      return '/automation/api/v1';
    case 'webadmin':
      return '/automation/webadmin/api/v1';
    default: {
      const never: never = base;
      throw new Error(`unknown base path ${String(never)}`);
    }
  }
}

function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= MAX_BODY) chunks.push(c);
    });
    req.on('end', () => resolve(size > MAX_BODY ? undefined : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function send(res: ServerResponse, r: ApiResponse): void {
  const headers: Record<string, string | number> = { ...(r.headers ?? {}) };
  if (r.body !== undefined) {
    headers['content-type'] = r.contentType ?? 'application/json; charset=utf-8';
    headers['content-length'] = Buffer.byteLength(r.body);
  } else headers['content-length'] = 0;
  res.writeHead(r.status, headers);
  res.end(r.body);
}

/** Status, headers and the full `content-length`, then half the body, then the connection closes. */
function sendShort(res: ServerResponse, r: ApiResponse): void {
  const body = Buffer.from(r.body ?? '');
  res.writeHead(r.status, {
    ...(r.headers ?? {}),
    'content-type': r.contentType ?? 'application/json; charset=utf-8',
    'content-length': Math.max(1, body.length),
  });
  res.write(body.subarray(0, Math.floor(body.length / 2)), () => res.destroy());
}

function resetConnection(socket: Socket): void {
  if (typeof socket.resetAndDestroy === 'function') socket.resetAndDestroy();
  else socket.destroy();
}

/** The emulator's HTTP server and its request log. */
export interface EmulatorServer {
  readonly server: Server;
  readonly log: RequestRecord[];
  /** Requests being answered now, and the most at once since the last reset (shows a client's real parallelism). */
  readonly concurrency: { current: number; peak: number };
}

export function createEmulatorServer(cfg: ServerConfig): EmulatorServer {
  const log: RequestRecord[] = [];
  const random = createRandom(cfg.faultSeed);
  const buckets = { automation: createBucket(), transfer: createBucket() };

  /** Takes one request from the service's bucket; undefined when it may go, else the seconds to wait. */
  function throttle(service: 'automation' | 'transfer'): number | undefined {
    if (cfg.rateLimit <= 0) return undefined;
    const b = buckets[service];
    const now = performance.now();
    // Holds a second's worth of requests, and at least one (a rate under 1/s still lets one through).
    const capacity = Math.max(1, cfg.rateLimit);
    b.tokens = Math.min(capacity, (b.at === 0 ? capacity : b.tokens) + ((now - (b.at || now)) / 1000) * cfg.rateLimit);
    b.at = now;
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return undefined;
    }
    return Math.max(1, Math.ceil((1 - b.tokens) / cfg.rateLimit));
  }

  function pickFault(write: boolean): FaultKind | undefined {
    if (cfg.faultRate <= 0 || random() >= cfg.faultRate) return undefined;
    const kinds: FaultKind[] = write ? ['error-500', 'error-503', 'reset', 'write-then-500', 'write-then-reset'] : ['error-500', 'error-503', 'reset'];
    if (cfg.slowResponseMs > 0) kinds.push('slow-answer');
    if (cfg.shortReads) kinds.push('short-read');
    return kinds[Math.min(kinds.length - 1, Math.floor(random() * kinds.length))];
  }

  function control(method: string, path: string, res: ServerResponse): void {
    if (method === 'GET' && path === '/_emulator/health') {
      return send(res, jsonResponse(200, { status: 'ok', profile: cfg.state.profile, variants: cfg.state.variants, ...cfg.urls() }));
    }
    if (method === 'GET' && path === '/_emulator/requests') {
      return send(res, jsonResponse(200, { requests: log, counts: countRequests(log) }));
    }
    if (method === 'POST' && path === '/_emulator/requests/reset') {
      log.length = 0;
      return send(res, { status: 204 });
    }
    send(res, jsonResponse(404, { title: 'Not Found', detail: `no control endpoint ${method} ${path}` }));
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const path = url.pathname;
    const method = (req.method ?? 'GET').toUpperCase();
    if (path.startsWith('/_emulator/')) {
      await readBody(req);
      return control(method, path, res);
    }
    const variants = cfg.state.variants;
    let service: ServiceName = 'other';
    let sub = '';
    for (const s of ['automation', 'transfer'] as const) {
      if (path === `/${s}` || path.startsWith(`/${s}/`)) {
        service = s;
        const base = apiBase(s, variants);
        sub = path.startsWith(`${base}/`) ? path.slice(base.length) : '';
      }
    }
    // A token call is one whatever the base path: a client probing the wrong base path still only asks for a token.
    const isTokenCall = sub === '/token' || sub === '/token/revoke' || /\/api\/v1\/token(\/revoke)?$/.test(path);
    const body = await readBody(req);
    const errorOf = service === 'transfer' ? transferError : automationError;
    const wait = service === 'other' ? undefined : throttle(service);
    if (wait !== undefined) {
      log.push({ service, method, path, status: 429, isTokenCall });
      return send(res, errorOf(429, `rate limit: ${cfg.rateLimit} requests per second per service`, undefined, { 'retry-after': String(wait) }));
    }
    if (cfg.latencyMs > 0) await new Promise((r) => setTimeout(r, cfg.latencyMs));
    // Churn is drawn apart from the other kinds (and only where it can happen), so enabling it
    // leaves every other request's draw as it was.
    const churn = cfg.churnFaults > 0 && readsLaterPage(service, method, sub, url.searchParams) && random() < cfg.faultRate;
    if (churn) {
      cfg.churnFaults--;
      addChurnUser(cfg.state);
    }
    const fault = service === 'other' ? undefined : churn ? 'list-churn' : pickFault(WRITE_METHODS.has(method));
    const record = (status: number): void => {
      log.push({ service, method, path, status, isTokenCall, ...(fault ? { fault } : {}) });
    };
    switch (fault) {
      case 'error-500':
        record(500);
        return send(res, errorOf(500, 'injected fault: the server failed before handling the request'));
      case 'error-503':
        record(503);
        return send(res, errorOf(503, 'injected fault: the server is busy; retry later', undefined, { 'retry-after': '1' }));
      case 'reset':
        record(0);
        return resetConnection(req.socket);
      default:
        break;
    }
    let response: ApiResponse;
    if (body === undefined) response = errorOf(413, `the request body is larger than ${MAX_BODY} bytes`);
    else if (service === 'other' || sub === '')
      response = jsonResponse(404, {
        title: 'Not Found',
        detail: `nothing is served at ${path}; the services are under ${apiBase('automation', variants)} and ${apiBase('transfer', variants)}`,
      });
    else {
      const apiReq: ApiRequest = {
        method,
        path: sub,
        query: url.searchParams,
        headers: req.headers,
        body,
        remoteAddress: req.socket.remoteAddress ?? '127.0.0.1',
      };
      try {
        response =
          service === 'automation'
            ? handleAutomation(apiReq, { state: cfg.state, lifetimes: cfg.lifetimes })
            : handleTransfer(apiReq, { state: cfg.state, lifetimes: cfg.lifetimes, churn: cfg.listChurn });
      } catch (e) {
        response = errorOf(500, `emulator bug: ${(e as Error).message}`);
      }
    }
    switch (fault) {
      case 'write-then-500':
        record(500);
        return send(res, errorOf(500, 'injected fault: the write took effect but the server failed before answering'));
      case 'write-then-reset':
        record(0);
        return resetConnection(req.socket);
      case 'slow-answer':
        record(response.status);
        await new Promise((r) => setTimeout(r, cfg.slowResponseMs));
        if (!res.destroyed && !req.socket.destroyed) send(res, response);
        return;
      case 'short-read':
        record(response.status);
        return sendShort(res, response);
      case 'list-churn':
      case undefined:
        record(response.status);
        return send(res, response);
      default:
        throw new Error(`fault ${fault} was handled above`);
    }
  }

  const concurrency = { current: 0, peak: 0 };
  const server = createServer((req, res) => {
    concurrency.peak = Math.max(concurrency.peak, ++concurrency.current);
    res.once('close', () => concurrency.current--);
    handle(req, res).catch((e: unknown) => {
      if (!res.headersSent) send(res, jsonResponse(500, { title: 'Internal Server Error', detail: `emulator bug: ${(e as Error).message}` }));
      else res.destroy();
    });
  });
  return { server, log, concurrency };
}

/** A token bucket's level and when it was last filled (`performance.now()`; 0: never used, full). */
function createBucket(): { tokens: number; at: number } {
  return { tokens: 0, at: 0 };
}
