import { createHash } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { readFileSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { rootCertificates } from 'node:tls';
import type { Dispatcher } from 'undici';
import type { IncomingHttpHeaders } from 'node:http';
import { ConfigError, isMftopsError, systemError } from '../errors.js';
import type { Logger } from '../log.js';
import { silentLogger } from '../log.js';
import { Secret } from '../secret.js';
import { describeUnexpectedBody, looksLikeJson, parseErrorBody, tryParseJson } from './error-body.js';
import { ApiError, AuthError, NetworkError, TimeoutError } from './errors.js';
import type { ErrorBody, HttpMethod, RequestOutcome, ServiceName } from './errors.js';
import { AdaptiveLimit } from './adaptive-limit.js';
import { computeRetryDelay, isThrottleStatus, parseRetryAfter, resolveRetryPolicy, retriesStatus, retriesTransientFailures } from './retry.js';
import type { RetryClass, RetryOptions, RetryPolicy } from './retry.js';
import { readUserAgent } from './version.js';
import { Agent, EnvHttpProxyAgent, errors, requestWith } from './undici-parts.js';

/** How much of a streamed download is gathered before one write to the file. */
const WRITE_BATCH_BYTES = 1024 * 1024;

/** Per-request time limits. */
export interface Timeouts {
  /** From sending the request to the end of the response headers. Default 30 000 ms. */
  readonly headersMs?: number;
  /** Longest pause between two chunks of a response body. Default 60 000 ms. */
  readonly bodyMs?: number;
  /** TCP + TLS connect. Default 10 000 ms. */
  readonly connectMs?: number;
  /**
   * Total deadline of one attempt, from sending to the last byte of the body: a server that drips
   * a byte now and then never trips the idle limits above, but trips this. Not retried (a second
   * attempt would be as slow). Default 120 000 ms (`MFTOPS_HTTP_DEADLINE_MS`).
   */
  readonly deadlineMs?: number;
  /** The same for the configuration export (`deadline: 'export'`), which may be 100 MB. Default 600 000 ms (`MFTOPS_SNAPSHOT_DEADLINE_MS`). */
  readonly exportDeadlineMs?: number;
}

/** Defaults of `Timeouts`: the numbers the README's reliability section gives. */
export const DEFAULT_TIMEOUTS: Required<Timeouts> = { headersMs: 30_000, bodyMs: 60_000, connectMs: 10_000, deadlineMs: 120_000, exportDeadlineMs: 600_000 };

/** Which total deadline a request has: every call's, or the configuration export's longer one. */
export type DeadlineKind = 'request' | 'export';

export interface DispatcherOptions {
  /** Extra CA (PEM) trusted besides the public roots; TLS is always verified. */
  readonly caFile?: string;
  /** Keep-alive connections per origin. Default 8. */
  readonly connections?: number;
  readonly timeouts?: Timeouts;
  /** Where proxy variables are read (`HTTPS_PROXY`, `HTTP_PROXY`, `NO_PROXY`, lower case first). Default `process.env`. */
  readonly env?: NodeJS.ProcessEnv;
}

/**
 * The connection pool of one service: a keep-alive `Agent`, or an `EnvHttpProxyAgent` when a proxy
 * variable is set (lower-case names win over upper-case ones, as in undici and curl). The extra CA
 * applies to the server and to an HTTPS proxy; redirects are never followed (undici's default).
 */
export function createDispatcher(opts: DispatcherOptions = {}): Dispatcher {
  const timeouts = resolveTimeouts(opts.timeouts);
  const ca = opts.caFile === undefined ? undefined : [...rootCertificates, readCaFile(opts.caFile)];
  const base = {
    connections: opts.connections ?? 8,
    headersTimeout: timeouts.headersMs,
    bodyTimeout: timeouts.bodyMs,
    connectTimeout: timeouts.connectMs,
    ...(ca ? { connect: { ca } } : {}),
  };
  const env = opts.env ?? process.env;
  const pick = (name: string): string => env[name.toLowerCase()] ?? env[name.toUpperCase()] ?? '';
  const httpProxy = pick('http_proxy');
  const httpsProxy = pick('https_proxy');
  if (httpProxy === '' && httpsProxy === '') return new Agent(base);
  // Empty strings (not undefined) so undici does not read process.env behind an injected env.
  return new EnvHttpProxyAgent({
    ...base,
    httpProxy,
    httpsProxy,
    noProxy: pick('no_proxy'),
    ...(ca ? { requestTls: { ca }, proxyTls: { ca } } : {}),
  });
}

function readCaFile(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new ConfigError(`cannot read caFile ${path} (${(err as NodeJS.ErrnoException).code ?? 'unreadable'})`);
  }
}

function resolveTimeouts(t: Timeouts | undefined): Required<Timeouts> {
  return { ...DEFAULT_TIMEOUTS, ...Object.fromEntries(Object.entries(t ?? {}).filter(([, v]) => v !== undefined)) };
}

export type QueryParams = Readonly<Record<string, string | number | boolean | undefined>>;

export type RequestBody =
  | { readonly kind: 'json'; readonly value: unknown }
  | { readonly kind: 'form'; readonly value: Readonly<Record<string, string | Secret>> }
  | { readonly kind: 'xml'; readonly value: Buffer | string };

/** Where the access token of each attempt comes from: the session (`Session`). */
export interface AccessTokenSource {
  /** A token valid now, obtained or refreshed first when needed; concurrent callers share one token request. */
  accessToken(): Promise<Secret>;
  /** The server refused `token` with 401: the next `accessToken()` returns another one. */
  invalidate(token: Secret): void;
}

/** One logical call; the transport may send it several times (see `RetryClass`). */
export interface HttpRequest {
  readonly method: HttpMethod;
  /** Path from the origin (base path included), without query string. */
  readonly path: string;
  readonly query?: QueryParams;
  /**
   * The `Authorization: Bearer` of every attempt: a fixed token (a revoke), or a source asked
   * before each attempt, so that a token that expired while a retry waited is never sent, and a
   * 401 is answered with a new token and another attempt. None for token grants.
   */
  readonly bearer?: Secret | AccessTokenSource;
  readonly body?: RequestBody;
  readonly accept?: string;
  readonly retry: RetryClass;
  /** A token endpoint call: counted apart, and 400/401/403 become `AuthError`. */
  readonly tokenCall?: boolean;
  /** Default `request`. */
  readonly deadline?: DeadlineKind;
}

/** A 2xx response whose body the caller consumes. */
export interface RawResponse {
  readonly status: number;
  readonly contentType: string | undefined;
  readonly body: Dispatcher.ResponseData['body'];
}

/** An answer gathered whole (`sendJson`): its status, headers and body bytes. */
interface GatheredAnswer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly contentType: string | undefined;
  readonly bytes: Buffer;
}

export interface TransportOptions {
  readonly service: ServiceName;
  /** `https://host:port`; paths carry the rest. */
  readonly origin: string;
  readonly dispatcher: Dispatcher;
  /** Close the dispatcher in `close()` (true when the transport created it). */
  readonly ownsDispatcher: boolean;
  readonly logger?: Logger;
  readonly retry?: RetryOptions;
  readonly timeouts?: Timeouts;
  readonly now?: () => number;
  /** Most requests in flight to this service (the adaptive limit's ceiling). Default 8. */
  readonly maxInFlight?: number;
}

/**
 * Why one attempt failed, as data: the loop decides on a retry from it and builds the error once,
 * knowing the number of attempts.
 */
type Failure =
  | { readonly kind: 'status'; readonly status: number; readonly body: ErrorBody; readonly retryAfterMs: number | undefined }
  | { readonly kind: 'network' | 'timeout'; readonly code: string; readonly reason: string; readonly outcome: RequestOutcome; readonly retryable: boolean };

type Attempt<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly failure: Failure };

/** A 2xx body that is not what the caller expects (thrown by a consumer, turned into a Failure). */
class UnexpectedBody extends Error {
  readonly note: string;
  constructor(note: string) {
    super(note);
    this.note = note;
  }
}

const ERROR_BODY_LIMIT = 64 * 1024;
/** A JSON answer bigger than this is refused (a hostile or broken server must not fill memory). */
export const JSON_BODY_LIMIT = 32 * 1024 * 1024;
/** What an answer over JSON_BODY_LIMIT fails with (`ApiError.detail`). */
export const TOO_LARGE_NOTE = `response body larger than ${JSON_BODY_LIMIT / (1024 * 1024)} MiB where a JSON answer was expected (a list of this size is paged)`;
const MAX_REMEMBERED_SECRETS = 16;

/**
 * The deadline of one attempt, as undici's `signal`: an emitter of `abort`, which undici accepts
 * like an AbortSignal (it aborts the request, or destroys the body being read). Not an
 * AbortController: one of those per attempt was the largest cost of a request on the client's
 * side (undici alone, 4,000 requests 16 at a time: 488 ms of CPU with one, 348 with this; issue 29).
 */
class Deadline extends EventEmitter {
  aborted = false;

  expire(): void {
    this.aborted = true;
    this.emit('abort');
  }
}

/**
 * Sends requests to one service: headers, bodies, retries of reads, error mapping. It never
 * follows a redirect (a token must not reach another host) and never puts a header, a body or a
 * query string into an error or a log line; secret values it has seen are cut out of server text.
 */
export class Transport {
  readonly service: ServiceName;
  readonly origin: string;
  /** HTTP requests sent, retries and token calls included. */
  requestCount = 0;
  /** Of those, calls to the token endpoints (grant, refresh, revoke). */
  tokenRequestCount = 0;
  readonly #dispatcher: Dispatcher;
  readonly #ownsDispatcher: boolean;
  readonly #logger: Logger;
  readonly #policy: RetryPolicy;
  readonly #timeouts: Required<Timeouts>;
  readonly #now: () => number;
  readonly #userAgent: string;
  readonly #secrets: Secret[] = [];
  readonly #inFlight: AdaptiveLimit;

  constructor(opts: TransportOptions) {
    this.service = opts.service;
    this.origin = opts.origin;
    this.#dispatcher = opts.dispatcher;
    this.#ownsDispatcher = opts.ownsDispatcher;
    this.#logger = opts.logger ?? silentLogger;
    this.#policy = resolveRetryPolicy(opts.retry);
    this.#timeouts = resolveTimeouts(opts.timeouts);
    this.#now = opts.now ?? Date.now;
    this.#userAgent = readUserAgent();
    this.#inFlight = new AdaptiveLimit(opts.maxInFlight ?? 8, (limit, why) =>
      this.#logger.debug(`${this.service}: ${why}: at most ${limit} requests in flight`),
    );
  }

  /** Requests this service may have in flight now (it falls when the server throttles). */
  get inFlightLimit(): number {
    return this.#inFlight.limit;
  }

  /** The deadlines and budget in force, for `-v`. */
  describeLimits(): string {
    const t = this.#timeouts;
    return `request deadline ${seconds(t.deadlineMs)}, export deadline ${seconds(t.exportDeadlineMs)}, retry budget ${seconds(this.#policy.budgetMs)}, up to ${this.#inFlight.max} requests in flight`;
  }

  /** A value to cut out of any server text that ends up in an error (passwords, tokens). */
  rememberSecret(secret: Secret): void {
    if (secret.reveal().length < 4 || this.#secrets.includes(secret)) return;
    this.#secrets.push(secret);
    if (this.#secrets.length > MAX_REMEMBERED_SECRETS) this.#secrets.splice(1, 1); // keep the password (first)
  }

  redact(text: string): string {
    let out = text;
    for (const s of this.#secrets) out = out.split(s.reveal()).join('(sensitive)');
    // Belt and braces for text that quotes request headers (undici's mock errors do).
    return out.replace(/\b(Bearer\s+)(?!\(sensitive\))[^\s"',}]+/gi, '$1(sensitive)');
  }

  /**
   * JSON in and out; `undefined` for an empty 2xx body. The answer is gathered whole through
   * undici's dispatch handler, not read from a body stream: a stream, its async iterator and the
   * request API's async context per answer were a fifth of the client's CPU on plan's 2,000 ACL
   * reads (issue 29; bench/run-bench.ts acl-reads).
   */
  async sendJson(req: HttpRequest): Promise<unknown> {
    return this.#sendWith(req, (bearer, signal) => this.#attemptGathered(req, bearer, signal, (answer) => this.#decodeJson(answer)));
  }

  #decodeJson(answer: GatheredAnswer): unknown {
    const { bytes, contentType } = answer;
    if (bytes.length >= JSON_BODY_LIMIT) {
      throw new UnexpectedBody(TOO_LARGE_NOTE);
    }
    if (bytes.length === 0) return undefined;
    const parsed = tryParseJson(bytes);
    if (!parsed.ok) throw new UnexpectedBody(describeUnexpectedBody(bytes, contentType, undefined, (t) => this.redact(t)));
    if (contentType !== undefined && !looksLikeJson(contentType) && !/^text\/plain\b/i.test(contentType)) {
      throw new UnexpectedBody(describeUnexpectedBody(bytes, contentType, 'non-JSON response', (t) => this.redact(t)));
    }
    return parsed.value;
  }

  /** A 2xx with any body, which is discarded (writes with no useful answer, revokes). */
  async sendDiscard(req: HttpRequest): Promise<void> {
    await this.send(req, async (res) => {
      await res.body.dump({ limit: ERROR_BODY_LIMIT }).catch(() => undefined);
    });
  }

  /**
   * Streams a 2xx body to a new file (mode 0600) with the bytes untouched, hashing on the way.
   * A retried read truncates and rewrites the file.
   */
  async sendToFile(req: HttpRequest, destPath: string): Promise<{ bytes: number; sha256: string }> {
    return this.send(req, async (res) => {
      let handle;
      try {
        handle = await open(destPath, 'w', 0o600);
        await handle.chmod(0o600);
      } catch (err) {
        await res.body.dump().catch(() => undefined);
        await handle?.close();
        throw systemError(`cannot write ${destPath}`, err);
      }
      const hash = createHash('sha256');
      let bytes = 0;
      // Chunks (~64 KiB each) are written a mebibyte at a time: one thread-pool round trip per
      // chunk, with the socket paused meanwhile, cost a 100 MB export a third of its receive time.
      let pending: Buffer[] = [];
      let pendingBytes = 0;
      const flush = async (): Promise<void> => {
        if (pending.length === 0) return;
        const batch = pending;
        pending = [];
        pendingBytes = 0;
        try {
          await writeWhole(handle, batch);
        } catch (err) {
          res.body.destroy();
          throw systemError(`cannot write ${destPath}`, err);
        }
      };
      try {
        for await (const chunk of res.body) {
          const buf = chunk as Buffer;
          hash.update(buf);
          bytes += buf.length;
          pending.push(buf);
          pendingBytes += buf.length;
          if (pendingBytes >= WRITE_BATCH_BYTES || pending.length >= 256) await flush();
        }
        await flush();
      } finally {
        await handle.close();
      }
      return { bytes, sha256: hash.digest('hex') };
    });
  }

  async close(): Promise<void> {
    if (this.#ownsDispatcher) await this.#dispatcher.close();
  }

  /**
   * Sends `req` until it succeeds or may not be retried, within the policy's time budget; failures
   * other than throttling also within its attempt bound. A 401 to a session token is retried at
   * once with a new token, whatever the retry class (the server did not process the request); a
   * 401 right after that renewal means the server refuses the account itself, and is an
   * `AuthError`. Each attempt holds a place of the service's adaptive in-flight limit; none is
   * held while waiting for a token or a retry.
   */
  async send<T>(req: HttpRequest, consume: (res: RawResponse) => Promise<T>): Promise<T> {
    return this.#sendWith(req, (bearer, signal) => this.#attemptWithin(req, bearer, consume, signal));
  }

  /** `send`'s loop over attempts, each one made by `attemptWithin` under its deadline. */
  async #sendWith<T>(req: HttpRequest, attemptWithin: (bearer: Secret | undefined, signal: Deadline) => Promise<Attempt<T>>): Promise<T> {
    const started = this.#now();
    const fixed = req.bearer instanceof Secret ? req.bearer : undefined;
    const tokens = req.bearer instanceof Secret ? undefined : req.bearer;
    let renewed = false; // this attempt's token replaces one the server refused on the attempt before
    let counted = 0; // failed attempts the attempt bound counts (throttle answers are not)
    let throttledSince: number | undefined;
    for (let attempt = 1; ; attempt++) {
      const bearer = tokens === undefined ? fixed : await tokens.accessToken();
      const permit = await this.#inFlight.acquire();
      let result: Attempt<T>;
      try {
        result = await this.#attempt(req, (signal) => attemptWithin(bearer, signal));
      } finally {
        this.#inFlight.release();
      }
      if (result.ok) {
        this.#inFlight.observe(permit, 'success');
        return result.value;
      }
      const f = result.failure;
      const throttled = f.kind === 'status' && isThrottleStatus(f.status);
      this.#inFlight.observe(permit, throttled ? 'throttled' : 'other', f.kind === 'status' ? String(f.status) : '');
      // The server said when to come back: such answers do not count against the attempt bound.
      const paced = f.kind === 'status' && (f.status === 429 || (throttled && f.retryAfterMs !== undefined));
      if (paced) throttledSince ??= this.#now();
      else counted++;
      const left = counted < this.#policy.maxAttempts;
      if (tokens !== undefined && bearer !== undefined && !req.tokenCall && f.kind === 'status' && f.status === 401) {
        tokens.invalidate(bearer);
        if (renewed) throw this.#refusedToken(req, f, 'access token refused even after a refresh');
        if (!left || this.#now() - started > this.#policy.budgetMs) throw this.#refusedToken(req, f, 'access token refused', attempt);
        this.#logger.debug(`${this.service}: ${req.method} ${req.path}: 401, new access token, retry ${attempt + 1}/${this.#policy.maxAttempts}`);
        renewed = true;
        continue;
      }
      renewed = false;
      const retryAfterMs = f.kind === 'status' ? f.retryAfterMs : undefined;
      const delay = computeRetryDelay(attempt, retryAfterMs, this.#policy);
      if (left && isRetryableFailure(req.retry, f)) {
        const elapsed = this.#now() - started;
        if (elapsed + delay <= this.#policy.budgetMs) {
          const what = f.kind === 'status' ? String(f.status) : f.code;
          this.#logger.debug(
            paced
              ? `${this.service}: ${req.method} ${req.path}: ${what}, throttled, retry ${attempt + 1} in ${delay} ms${retryAfterMs !== undefined ? ' (Retry-After)' : ''}; ${roundSeconds(this.#policy.budgetMs - elapsed - delay)} of the ${seconds(this.#policy.budgetMs)} retry budget left`
              : `${this.service}: ${req.method} ${req.path}: ${what}, retry ${attempt + 1}/${this.#policy.maxAttempts} in ${delay} ms`,
          );
          await this.#policy.sleep(delay);
          continue;
        }
        if (paced && throttledSince !== undefined) throw this.#throttledError(req, f, attempt, this.#now() - throttledSince, delay);
      }
      throw this.#toError(req, f, attempt);
    }
  }

  /** A throttle answer whose next wait no longer fits in the retry budget. */
  #throttledError(req: HttpRequest, f: Failure, attempts: number, throttledMs: number, nextMs: number): Error {
    if (f.kind !== 'status') return this.#toError(req, f, attempts);
    const more = nextMs > 0 ? ` (it asks for ${roundSeconds(nextMs)} more)` : '';
    const note = `the server throttled (${f.status}) for ${roundSeconds(throttledMs)}${more}; retry budget ${seconds(this.#policy.budgetMs)} spent`;
    return new ApiError({
      service: this.service,
      method: req.method,
      path: req.path,
      status: f.status,
      body: { fieldErrors: [], note },
      attempts,
      throttled: true,
    });
  }

  async #attempt<T>(req: HttpRequest, attemptWithin: (signal: Deadline) => Promise<Attempt<T>>): Promise<Attempt<T>> {
    this.requestCount++;
    if (req.tokenCall) this.tokenRequestCount++;
    const deadlineMs = this.#deadlineOf(req);
    const deadline = new Deadline();
    const timer = setTimeout(() => deadline.expire(), deadlineMs);
    try {
      return await attemptWithin(deadline);
    } catch (err) {
      if (!deadline.aborted) throw err;
      const flag = (req.deadline ?? 'request') === 'export' ? 'MFTOPS_SNAPSHOT_DEADLINE_MS' : 'MFTOPS_HTTP_DEADLINE_MS';
      const reason = `no complete answer within the ${seconds(deadlineMs)} deadline (${flag})`;
      return { ok: false, failure: { kind: 'timeout', code: 'DEADLINE', reason, outcome: 'unknown', retryable: false } };
    } finally {
      clearTimeout(timer);
    }
  }

  #deadlineOf(req: HttpRequest): number {
    const kind = req.deadline ?? 'request';
    switch (kind) {
      case 'request':
        return this.#timeouts.deadlineMs;
      case 'export':
        return this.#timeouts.exportDeadlineMs;
      default: {
        const never: never = kind;
        throw new Error(`unknown deadline ${String(never)}`);
      }
    }
  }

  /** One attempt; any failure once `signal` is aborted is the deadline's (the caller maps it). */
  async #attemptWithin<T>(req: HttpRequest, bearer: Secret | undefined, consume: (res: RawResponse) => Promise<T>, signal: Deadline): Promise<Attempt<T>> {
    const started = this.#now();
    let res: Dispatcher.ResponseData;
    try {
      res = await requestWith(this.#dispatcher, {
        origin: this.origin,
        path: withQuery(req.path, req.query),
        method: req.method,
        headers: this.#headers(req, bearer),
        body: encodeBody(req.body),
        headersTimeout: this.#timeouts.headersMs,
        bodyTimeout: this.#timeouts.bodyMs,
        signal,
      });
    } catch (err) {
      if (signal.aborted) throw err;
      return { ok: false, failure: this.#classify(err) };
    }
    const status = res.statusCode;
    const contentType = firstHeader(res.headers['content-type']);
    this.#logger.debug(`${this.service}: ${req.method} ${req.path} → ${status} (${this.#now() - started} ms)`);
    if (status >= 200 && status < 300) {
      try {
        return { ok: true, value: await consume({ status, contentType, body: res.body }) };
      } catch (err) {
        res.body.destroy();
        if (signal.aborted) throw err;
        if (err instanceof UnexpectedBody) {
          return { ok: false, failure: { kind: 'status', status, body: { fieldErrors: [], note: err.note }, retryAfterMs: undefined } };
        }
        if (isMftopsError(err)) throw err;
        return { ok: false, failure: this.#classify(err) };
      }
    }
    const bytes = await readAll(res.body, ERROR_BODY_LIMIT).catch(() => Buffer.alloc(0));
    if (signal.aborted) throw new Error('deadline');
    return { ok: false, failure: this.#statusFailure(status, res.headers, bytes) };
  }

  /** A non-2xx answer as a failure: its error body read liberally, a redirect named, its Retry-After. */
  #statusFailure(status: number, headers: IncomingHttpHeaders, bytes: Buffer): Failure {
    const redact = (t: string): string => this.redact(t);
    let body = parseErrorBody(bytes, firstHeader(headers['content-type']), redact);
    if (status >= 300 && status < 400) body = { ...body, detail: describeRedirect(firstHeader(headers.location), this.origin) };
    return { kind: 'status', status, body, retryAfterMs: parseRetryAfter(firstHeader(headers['retry-after']), this.#now()) };
  }

  /**
   * One attempt whose answer `decode` reads from its bytes (`#gather`); failures as in
   * `#attemptWithin`: the same classes, the same bodies, the deadline's to the caller.
   */
  async #attemptGathered<T>(req: HttpRequest, bearer: Secret | undefined, signal: Deadline, decode: (answer: GatheredAnswer) => T): Promise<Attempt<T>> {
    let answer: GatheredAnswer;
    try {
      answer = await this.#gather(req, bearer, signal);
    } catch (err) {
      if (signal.aborted) throw err;
      return { ok: false, failure: this.#classify(err) };
    }
    const status = answer.status;
    if (status >= 200 && status < 300) {
      try {
        return { ok: true, value: decode(answer) };
      } catch (err) {
        if (err instanceof UnexpectedBody) {
          return { ok: false, failure: { kind: 'status', status, body: { fieldErrors: [], note: err.note }, retryAfterMs: undefined } };
        }
        throw err;
      }
    }
    if (signal.aborted) throw new Error('deadline');
    return { ok: false, failure: this.#statusFailure(status, answer.headers, answer.bytes) };
  }

  /**
   * Sends `req` and gathers its answer: a 2xx body up to JSON_BODY_LIMIT bytes, an error body up
   * to ERROR_BODY_LIMIT (the connection is dropped past either, as a destroyed stream drops it).
   * Rejects with undici's error when no answer came or a 2xx body broke off; an error body that
   * broke off is an empty one. The deadline aborts the request, queued or under way.
   */
  #gather(req: HttpRequest, bearer: Secret | undefined, signal: Deadline): Promise<GatheredAnswer> {
    const started = this.#now();
    return new Promise<GatheredAnswer>((resolve, reject) => {
      let controller: Dispatcher.DispatchController | undefined;
      let head: { status: number; headers: IncomingHttpHeaders } | undefined;
      let limit = JSON_BODY_LIMIT;
      let chunks: Buffer[] = [];
      let size = 0;
      let settled = false;
      const finish = (bytes: Buffer): void => {
        if (settled || head === undefined) return;
        settled = true;
        resolve({ status: head.status, headers: head.headers, contentType: firstHeader(head.headers['content-type']), bytes });
      };
      const fail = (err: Error): void => {
        if (head !== undefined && (head.status < 200 || head.status >= 300)) return finish(Buffer.alloc(0));
        if (settled) return;
        settled = true;
        reject(err);
      };
      signal.once('abort', () => controller?.abort(new errors.RequestAbortedError()));
      this.#dispatcher.dispatch(
        {
          origin: this.origin,
          path: withQuery(req.path, req.query),
          method: req.method,
          headers: this.#headers(req, bearer),
          body: encodeBody(req.body) ?? null,
          headersTimeout: this.#timeouts.headersMs,
          bodyTimeout: this.#timeouts.bodyMs,
        },
        {
          onRequestStart: (c) => {
            controller = c;
            if (signal.aborted) c.abort(new errors.RequestAbortedError());
          },
          onResponseStart: (_c, status, headers) => {
            if (status < 200) return; // informational: the answer follows
            head = { status, headers };
            limit = status < 300 ? JSON_BODY_LIMIT : ERROR_BODY_LIMIT;
            this.#logger.debug(`${this.service}: ${req.method} ${req.path} → ${status} (${this.#now() - started} ms)`);
          },
          onResponseData: (c, chunk) => {
            if (settled || head === undefined) return;
            chunks.push(chunk);
            size += chunk.length;
            if (size < limit) return;
            const bytes = Buffer.concat(chunks);
            chunks = [];
            finish(bytes);
            c.abort(new errors.RequestAbortedError());
          },
          onResponseEnd: () => finish(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)),
          onResponseError: (_c, err) => fail(err),
        },
      );
    });
  }

  #headers(req: HttpRequest, bearer: Secret | undefined): Record<string, string> {
    const h: Record<string, string> = { 'user-agent': this.#userAgent, accept: req.accept ?? 'application/json' };
    if (bearer) h.authorization = `Bearer ${bearer.reveal()}`;
    switch (req.body?.kind) {
      case undefined:
        break;
      case 'json':
        h['content-type'] = 'application/json';
        break;
      case 'form':
        h['content-type'] = 'application/x-www-form-urlencoded';
        break;
      case 'xml':
        h['content-type'] = 'application/xml';
        break;
      default: {
        const never: never = req.body;
        throw new Error(`unknown body ${String(never)}`);
      }
    }
    return h;
  }

  /** Undici and system errors by code; anything without a known shape is a bug and is rethrown. */
  #classify(err: unknown): Failure {
    const code = findErrorCode(err);
    if (code === undefined) throw err;
    const t = this.#timeouts;
    const net = (reason: string, outcome: RequestOutcome, retryable: boolean): Failure => ({ kind: 'network', code, reason, outcome, retryable });
    const timeout = (reason: string, outcome: RequestOutcome): Failure => ({ kind: 'timeout', code, reason, outcome, retryable: true });
    switch (code) {
      case 'ECONNREFUSED':
        return net('connection refused', 'not-sent', true);
      case 'ENOTFOUND':
        return net('host not found', 'not-sent', false);
      case 'EAI_AGAIN':
        return net('DNS lookup failed', 'not-sent', true);
      case 'EHOSTUNREACH':
      case 'ENETUNREACH':
        return net('host unreachable', 'not-sent', true);
      case 'ECONNRESET':
      case 'EPIPE':
        return net('connection reset', 'unknown', true);
      case 'UND_ERR_SOCKET':
      case 'UND_ERR_CLOSED':
        return net('connection closed by the server', 'unknown', true);
      case 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH':
        return net('response truncated', 'unknown', true);
      case 'UND_ERR_CONNECT_TIMEOUT':
        return timeout(`no connection within ${seconds(t.connectMs)}`, 'not-sent');
      case 'UND_ERR_HEADERS_TIMEOUT':
        return timeout(`no response within ${seconds(t.headersMs)}`, 'unknown');
      case 'UND_ERR_BODY_TIMEOUT':
        return timeout(`response stalled for ${seconds(t.bodyMs)}`, 'unknown');
      case 'ETIMEDOUT':
        return timeout('connection timed out', 'unknown');
      default:
        if (/^(ERR_TLS_|ERR_SSL_|ERR_OSSL|CERT_|UNABLE_TO_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|HOSTNAME_MISMATCH)/.test(code)) {
          return net('TLS certificate not trusted or invalid (set caFile for a private CA)', 'not-sent', false);
        }
        if (code.startsWith('HPE_')) return net('malformed HTTP response', 'unknown', false);
        if (code.startsWith('UND_MOCK_')) return net(this.redact(errorMessage(err)), 'not-sent', false);
        return net(`request failed: ${this.redact(errorMessage(err))}`, 'unknown', false);
    }
  }

  /**
   * A 401 the loop gives up on. `attempts` is left out when a renewed token was refused: the
   * request stopped because of that refusal, not because the retries ran out.
   */
  #refusedToken(req: HttpRequest, f: Extract<Failure, { kind: 'status' }>, why: string, attempts?: number): AuthError {
    const note = f.body.note === undefined ? why : `${f.body.note}; ${why}`;
    return new AuthError({ service: this.service, method: req.method, path: req.path, status: f.status, body: { ...f.body, note }, attempts });
  }

  #toError(req: HttpRequest, f: Failure, attempts: number): Error {
    const label = { service: this.service, method: req.method, path: req.path, attempts };
    switch (f.kind) {
      case 'status':
        if (req.tokenCall && (f.status === 400 || f.status === 401 || f.status === 403)) {
          return new AuthError({ ...label, status: f.status, body: f.body });
        }
        return new ApiError({ ...label, status: f.status, body: f.body });
      case 'network':
        return new NetworkError({ ...label, code: f.code, reason: f.reason, outcome: f.outcome });
      case 'timeout':
        return new TimeoutError({ ...label, code: f.code, reason: f.reason, outcome: f.outcome });
      default: {
        const never: never = f;
        return new Error(`unknown failure ${String(never)}`);
      }
    }
  }
}

function isRetryableFailure(retry: RetryClass, f: Failure): boolean {
  return f.kind === 'status' ? retriesStatus(retry, f.status) : retriesTransientFailures(retry) && f.retryable;
}

function describeRedirect(location: string | undefined, origin: string): string {
  let target = 'another location';
  if (location !== undefined) {
    try {
      target = new URL(location, origin).host;
    } catch {
      target = 'an unreadable location';
    }
  }
  return `redirect to ${target} refused: mftops never follows redirects (check the configured URL)`;
}

function withQuery(path: string, query: QueryParams | undefined): string {
  if (!query) return path;
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined) params.append(k, String(v));
  const qs = params.toString();
  return qs === '' ? path : `${path}?${qs}`;
}

function encodeBody(body: RequestBody | undefined): string | Buffer | undefined {
  switch (body?.kind) {
    case undefined:
      return undefined;
    case 'json':
      return JSON.stringify(body.value);
    case 'form': {
      const params = new URLSearchParams();
      for (const [k, v] of Object.entries(body.value)) params.append(k, v instanceof Secret ? v.reveal() : v);
      return params.toString();
    }
    case 'xml':
      return body.value;
    default: {
      const never: never = body;
      throw new Error(`unknown body ${String(never)}`);
    }
  }
}

function firstHeader(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

async function readAll(body: AsyncIterable<unknown> & { destroy(): unknown }, limit = Infinity): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const buf = chunk as Buffer;
    chunks.push(buf);
    size += buf.length;
    if (size >= limit) {
      body.destroy();
      break;
    }
  }
  return Buffer.concat(chunks);
}

function findErrorCode(err: unknown): string | undefined {
  let e: unknown = err;
  for (let depth = 0; depth < 5 && typeof e === 'object' && e !== null; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && code !== 'UND_ERR') return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message.replace(/\s+/g, ' ').slice(0, 200) : 'unknown error';
}

function seconds(ms: number): string {
  return ms % 1000 === 0 || ms > 1000 ? `${Math.round(ms / 100) / 10} s` : `${ms} ms`;
}

/** A measured duration, to the tenth of a second. */
function roundSeconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}

/**
 * `batch` written whole. `writev` may write only a part and say so (a disk that fills up: the
 * rest then fails with ENOSPC on the next write); ignoring the count cut the export silently.
 */
async function writeWhole(handle: FileHandle, batch: readonly Buffer[]): Promise<void> {
  const total = batch.reduce((n, b) => n + b.length, 0);
  const { bytesWritten } = await handle.writev(batch as Buffer[]);
  if (bytesWritten >= total) return;
  const rest = Buffer.concat(batch).subarray(bytesWritten);
  for (let done = 0; done < rest.length; ) {
    const { bytesWritten: n } = await handle.write(rest, done, rest.length - done);
    if (n === 0) throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC', syscall: 'write' });
    done += n;
  }
}
