import type { Dispatcher } from 'undici';
import { checkServiceUrl } from '../config/service-url.js';
import { ConfigError } from '../errors.js';
import type { Logger } from '../log.js';
import type { Secret } from '../secret.js';
import { ApiError } from './errors.js';
import type { HttpMethod, ServiceName } from './errors.js';
import { readAllPages } from './paging.js';
import type { PageQuery, PagingPlan } from './paging.js';
import type { RetryClass, RetryOptions } from './retry.js';
import { Session } from './session.js';
import { TOO_LARGE_NOTE, Transport, createDispatcher } from './transport.js';
import type { DeadlineKind, HttpRequest, QueryParams, RequestBody, Timeouts } from './transport.js';

/** What both client factories take. */
export interface ClientOptions {
  /** Base URL as configured; for the automation service `/api/v1` is probed when absent. */
  readonly url: string;
  readonly username: string;
  readonly password: Secret;
  /** Extra CA (PEM file) trusted besides the public roots. */
  readonly caFile?: string;
  /** Injected dispatcher (tests: a `MockAgent`); the client then neither creates nor closes an Agent. */
  readonly dispatcher?: Dispatcher;
  readonly logger?: Logger;
  /** Keep-alive connections to the server. Default 8. */
  readonly connections?: number;
  readonly timeouts?: Timeouts;
  readonly retry?: RetryOptions;
  /** Clock (epoch ms) for token expiry and retry budgets. Default `Date.now`. */
  readonly now?: () => number;
  /** Where proxy variables are read. Default `process.env`. */
  readonly env?: NodeJS.ProcessEnv;
}

/** A configured URL split into the origin requests go to and the path prefix in front of the API. */
export interface BaseUrl {
  readonly origin: string;
  /** Without trailing slash; `''` for the root. */
  readonly basePath: string;
}

/** The configuration's URL rules (`checkServiceUrl`), enforced again here for any caller. */
export function parseBaseUrl(service: ServiceName, url: string): BaseUrl {
  const problem = checkServiceUrl(url);
  if (problem !== undefined) throw new ConfigError(`${service} url: ${problem}`);
  const u = new URL(url);
  return { origin: u.origin, basePath: u.pathname.replace(/\/+$/, '') };
}

/** Overrides the per-request time limits (headers, body, connect) of every request, in milliseconds. */
export const TIMEOUT_VARIABLE = 'MFTOPS_HTTP_TIMEOUT_MS';
/** Overrides the total deadline of each request (`Timeouts.deadlineMs`). */
export const DEADLINE_VARIABLE = 'MFTOPS_HTTP_DEADLINE_MS';
/** Overrides the total deadline of the configuration export (`Timeouts.exportDeadlineMs`). */
export const SNAPSHOT_DEADLINE_VARIABLE = 'MFTOPS_SNAPSHOT_DEADLINE_MS';
/** Overrides the total retry budget of each request (`RetryOptions.budgetMs`). */
export const RETRY_BUDGET_VARIABLE = 'MFTOPS_RETRY_BUDGET_MS';

/**
 * The time limits the environment sets (a server that never answers then fails in that time, not
 * the default): `MFTOPS_HTTP_TIMEOUT_MS` as the three idle limits, `MFTOPS_HTTP_DEADLINE_MS` and
 * `MFTOPS_SNAPSHOT_DEADLINE_MS` as the total deadlines; undefined when none is set. A value that
 * is not a whole number of milliseconds in its range is a `ConfigError`.
 */
export function readTimeoutsFromEnv(env: NodeJS.ProcessEnv): Timeouts | undefined {
  const idle = readMilliseconds(env, TIMEOUT_VARIABLE, 100, 600_000);
  const deadline = readMilliseconds(env, DEADLINE_VARIABLE, 100, 3_600_000);
  const exportDeadline = readMilliseconds(env, SNAPSHOT_DEADLINE_VARIABLE, 100, 86_400_000);
  if (idle === undefined && deadline === undefined && exportDeadline === undefined) return undefined;
  return {
    ...(idle !== undefined ? { headersMs: idle, bodyMs: idle, connectMs: idle } : {}),
    ...(deadline !== undefined ? { deadlineMs: deadline } : {}),
    ...(exportDeadline !== undefined ? { exportDeadlineMs: exportDeadline } : {}),
  };
}

/** `MFTOPS_RETRY_BUDGET_MS` as the retry options it sets; `{}` when unset. */
export function readRetryFromEnv(env: NodeJS.ProcessEnv): RetryOptions {
  const budget = readMilliseconds(env, RETRY_BUDGET_VARIABLE, 0, 3_600_000);
  return budget === undefined ? {} : { budgetMs: budget };
}

function readMilliseconds(env: NodeJS.ProcessEnv, name: string, min: number, max: number): number | undefined {
  const text = env[name];
  if (text === undefined || text.trim() === '') return undefined;
  const ms = Number(text);
  if (!/^\d+$/.test(text.trim()) || ms < min || ms > max) {
    throw new ConfigError(`${name} must be a whole number of milliseconds from ${min} to ${max}, not "${text}"`);
  }
  return ms;
}

export interface ConnectionOptions extends ClientOptions {
  readonly service: ServiceName;
  readonly apiBaseCandidates: (basePath: string) => readonly string[];
  readonly revokeWithBearer: boolean;
  readonly defaultLifetimeSec: number;
}

export interface CallOptions {
  readonly query?: QueryParams;
  readonly body?: RequestBody;
  readonly accept?: string;
  /** Default: `read` for GET, `write` for anything else. */
  readonly retry?: RetryClass;
  /** Default `request`; the configuration export has its own. */
  readonly deadline?: DeadlineKind;
}

/**
 * Transport + session: authorised calls relative to the API base path. The session is the bearer
 * of every attempt, so the transport refreshes an expired token between retries and answers a 401
 * with a new token (see `Transport.send`).
 */
export class Connection {
  readonly service: ServiceName;
  readonly transport: Transport;
  readonly session: Session;
  #closed: Promise<void> | undefined;

  constructor(opts: ConnectionOptions) {
    this.service = opts.service;
    const base = parseBaseUrl(opts.service, opts.url);
    const env = opts.env ?? process.env;
    const timeouts = opts.timeouts ?? readTimeoutsFromEnv(env);
    const dispatcher = opts.dispatcher ?? createDispatcher({ caFile: opts.caFile, connections: opts.connections, timeouts, env: opts.env });
    this.transport = new Transport({
      service: opts.service,
      origin: base.origin,
      dispatcher,
      ownsDispatcher: opts.dispatcher === undefined,
      logger: opts.logger,
      retry: { ...readRetryFromEnv(env), ...opts.retry },
      timeouts,
      now: opts.now,
      maxInFlight: opts.connections ?? 8,
    });
    opts.logger?.debug(`${opts.service}: ${this.transport.describeLimits()}`);
    this.session = new Session({
      transport: this.transport,
      apiBaseCandidates: opts.apiBaseCandidates(base.basePath),
      username: opts.username,
      password: opts.password,
      revokeWithBearer: opts.revokeWithBearer,
      defaultLifetimeSec: opts.defaultLifetimeSec,
      now: opts.now,
      logger: opts.logger,
    });
  }

  async call<T>(method: HttpMethod, path: string, opts: CallOptions, consume: (t: Transport, req: HttpRequest) => Promise<T>): Promise<T> {
    // The first call signs in, which also finds the API base path when it had to be probed.
    await this.session.accessToken();
    const req: HttpRequest = {
      method,
      path: `${this.session.apiBase}${path}`,
      query: opts.query,
      bearer: this.session,
      body: opts.body,
      accept: opts.accept,
      retry: opts.retry ?? (method === 'GET' ? 'read' : 'write'),
      ...(opts.deadline !== undefined ? { deadline: opts.deadline } : {}),
    };
    return consume(this.transport, req);
  }

  json(method: HttpMethod, path: string, opts: CallOptions = {}): Promise<unknown> {
    return this.call(method, path, opts, (t, req) => t.sendJson(req));
  }

  /**
   * Every item of a list at `path` (see `readAllPages`). A whole list asked for at once
   * (`all-first`) that is too big for one answer (JSON_BODY_LIMIT: 77,000 tasks are ~100 MB) is
   * read again page by page.
   */
  async list(path: string, plan: PagingPlan, query: QueryParams = {}): Promise<unknown[]> {
    const label = () => ({ service: this.service, method: 'GET' as const, path: `${this.session.knownApiBase ?? ''}${path}` });
    const fetchPage = (q: PageQuery) => this.json('GET', path, { query: { ...query, ...q } });
    try {
      return await readAllPages(fetchPage, plan, label);
    } catch (err) {
      if (plan.mode !== 'all-first' || !(err instanceof ApiError) || err.status !== 200 || err.detail !== TOO_LARGE_NOTE) throw err;
      return readAllPages(fetchPage, { ...plan, mode: 'paged' }, label);
    }
  }

  close(): Promise<void> {
    this.#closed ??= (async () => {
      try {
        await this.session.close();
      } finally {
        await this.transport.close();
      }
    })();
    return this.#closed;
  }
}
