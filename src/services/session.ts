import { MftopsError } from '../errors.js';
import type { Logger } from '../log.js';
import { silentLogger } from '../log.js';
import { Secret } from '../secret.js';
import { isRecord } from '../is-record.js';
import { ApiError, AuthError } from './errors.js';
import type { ServiceName } from './errors.js';
import type { AccessTokenSource, Transport } from './transport.js';

export interface SessionOptions {
  readonly transport: Transport;
  /**
   * API base paths to try, in order, for the first password grant (`/api/v1`, then
   * `/webadmin/api/v1`): a 404 from a token endpoint moves to the next one. Every later call
   * uses the one that answered.
   */
  readonly apiBaseCandidates: readonly string[];
  readonly username: string;
  readonly password: Secret;
  /** The transfer service's revoke needs `Authorization: Bearer <access token>`; the automation service's takes none. */
  readonly revokeWithBearer: boolean;
  /** Lifetime assumed when a token response has no `expires_in` (automation: 300 s). */
  readonly defaultLifetimeSec: number;
  readonly now?: () => number;
  readonly logger?: Logger;
}

/** The tokens of a session. The refresh token is only ever sent in a form body, never as a bearer. */
interface Tokens {
  readonly access: Secret;
  readonly refresh: Secret | undefined;
  /** Epoch ms after which the access token is no longer used (refreshed first). */
  readonly refreshAt: number;
}

/** Sessions holding tokens, revoked together on Ctrl-C or SIGTERM. */
const openSessions = new Set<Session>();

/**
 * A login to one service. The password grant happens lazily on the first call. The access token
 * is refreshed with the refresh grant when less than min(20 % of its life, 30 s) is left (falling
 * back to a password grant when the refresh is refused); concurrent callers share one token
 * request. The transport asks it for the token of every attempt of a request. `close()` revokes
 * both tokens.
 */
export class Session implements AccessTokenSource {
  readonly service: ServiceName;
  readonly #transport: Transport;
  readonly #candidates: readonly string[];
  readonly #username: string;
  readonly #password: Secret;
  readonly #revokeWithBearer: boolean;
  readonly #defaultLifetimeSec: number;
  readonly #now: () => number;
  readonly #logger: Logger;
  #apiBase: string | undefined;
  #tokens: Tokens | undefined;
  #pending: Promise<Secret> | undefined;
  #closed = false;

  constructor(opts: SessionOptions) {
    if (opts.apiBaseCandidates.length === 0) throw new Error('a session needs at least one API base path');
    this.service = opts.transport.service;
    this.#transport = opts.transport;
    this.#candidates = opts.apiBaseCandidates;
    this.#apiBase = opts.apiBaseCandidates.length === 1 ? opts.apiBaseCandidates[0] : undefined;
    this.#username = opts.username;
    this.#password = opts.password;
    this.#revokeWithBearer = opts.revokeWithBearer;
    this.#defaultLifetimeSec = opts.defaultLifetimeSec;
    this.#now = opts.now ?? Date.now;
    this.#logger = opts.logger ?? silentLogger;
    this.#transport.rememberSecret(opts.password);
  }

  /** The API base path (e.g. `/api/v1`); known after the first token call when it had to be probed. */
  get apiBase(): string {
    if (this.#apiBase === undefined) throw new Error(`${this.service}: API base path not probed yet`);
    return this.#apiBase;
  }

  /** The base path if already known, without a token call. */
  get knownApiBase(): string | undefined {
    return this.#apiBase;
  }

  /** A valid access token, fetching or refreshing it first when needed. */
  async accessToken(): Promise<Secret> {
    if (this.#closed) throw new MftopsError(`${this.service}: the connection is closed`);
    const t = this.#tokens;
    if (t !== undefined && this.#now() < t.refreshAt) return t.access;
    if (this.#pending === undefined) {
      this.#pending = this.#obtain().finally(() => {
        this.#pending = undefined;
      });
    }
    return this.#pending;
  }

  /** The server refused `token` (401): the next `accessToken()` refreshes, unless another caller already did. */
  invalidate(token: Secret): void {
    const t = this.#tokens;
    if (t !== undefined && t.access === token) this.#tokens = { ...t, refreshAt: -Infinity };
  }

  /**
   * Revoke the refresh token and the access token; failures are logged at debug level only. Where
   * the revoke is sent with the access token as bearer (the transfer service), the refresh token
   * goes first and the access token only after its answer: revoked first, the access token would
   * no longer authorise the refresh token's revoke. Where it is not (the automation service), the
   * two are independent and sent together (the refresh token's first), one round trip less.
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    openSessions.delete(this);
    if (this.#pending !== undefined) await this.#pending.catch(() => undefined);
    const t = this.#tokens;
    this.#tokens = undefined;
    if (t === undefined || this.#apiBase === undefined) return;
    if (t.refresh === undefined) await this.#revoke(t.access, t.access, 'access');
    else if (this.#revokeWithBearer) {
      await this.#revoke(t.refresh, t.access, 'refresh');
      await this.#revoke(t.access, t.access, 'access');
    } else await Promise.all([this.#revoke(t.refresh, t.access, 'refresh'), this.#revoke(t.access, t.access, 'access')]);
  }

  async #obtain(): Promise<Secret> {
    const refresh = this.#tokens?.refresh;
    if (refresh !== undefined) {
      try {
        this.#logger.debug(`${this.service}: refreshing the access token`);
        return await this.#grant({ grant_type: 'refresh_token', refresh_token: refresh });
      } catch (err) {
        if (!(err instanceof AuthError)) throw err;
        this.#logger.debug(`${this.service}: refresh refused (${err.status}), signing in again`);
      }
    }
    this.#logger.debug(`${this.service}: signing in as ${this.#username}`);
    return this.#grant({ grant_type: 'password', username: this.#username, password: this.#password });
  }

  async #grant(form: Record<string, string | Secret>): Promise<Secret> {
    const candidates = this.#apiBase !== undefined ? [this.#apiBase] : this.#candidates;
    for (let i = 0; i < candidates.length; i++) {
      const base = candidates[i]!;
      const path = `${base}/token`;
      let body: unknown;
      try {
        body = await this.#transport.sendJson({ method: 'POST', path, body: { kind: 'form', value: form }, retry: 'read', tokenCall: true });
      } catch (err) {
        if (err instanceof ApiError && err.status === 404 && i < candidates.length - 1) {
          this.#logger.debug(`${this.service}: no token endpoint at ${path}, trying the next base path`);
          continue;
        }
        throw err;
      }
      this.#apiBase = base;
      return this.#store(body, path);
    }
    throw new Error('unreachable: the candidate loop returns or throws');
  }

  #store(body: unknown, path: string): Secret {
    const access = isRecord(body) && typeof body.access_token === 'string' && body.access_token !== '' ? body.access_token : undefined;
    if (access === undefined || !isRecord(body)) {
      throw new AuthError({ service: this.service, method: 'POST', path, status: 200, body: { fieldErrors: [], note: 'token response without access_token' } });
    }
    const type = body.token_type;
    if (typeof type === 'string' && type.toLowerCase() !== 'bearer') {
      throw new AuthError({ service: this.service, method: 'POST', path, status: 200, body: { fieldErrors: [], note: `unsupported token type ${type}` } });
    }
    const expires = Number(body.expires_in);
    const lifetimeMs = (Number.isFinite(expires) && expires > 0 ? expires : this.#defaultLifetimeSec) * 1000;
    const margin = Math.min(lifetimeMs * 0.2, 30_000);
    const accessSecret = new Secret(access);
    const refreshSecret = typeof body.refresh_token === 'string' && body.refresh_token !== '' ? new Secret(body.refresh_token) : this.#tokens?.refresh;
    this.#transport.rememberSecret(accessSecret);
    if (refreshSecret !== undefined) this.#transport.rememberSecret(refreshSecret);
    this.#tokens = { access: accessSecret, refresh: refreshSecret, refreshAt: this.#now() + lifetimeMs - margin };
    openSessions.add(this);
    return accessSecret;
  }

  async #revoke(token: Secret, access: Secret, which: 'refresh' | 'access'): Promise<void> {
    try {
      await this.#transport.sendDiscard({
        method: 'POST',
        path: `${this.apiBase}/token/revoke`,
        body: { kind: 'form', value: { token } },
        ...(this.#revokeWithBearer ? { bearer: access } : {}),
        retry: 'write',
        tokenCall: true,
      });
    } catch (err) {
      this.#logger.debug(`${this.service}: revoke of the ${which} token failed: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
}

/** Sessions that hold tokens now. */
export function countOpenSessions(): number {
  return openSessions.size;
}

/** Revoke the tokens of every open session, giving up after `timeoutMs` (default 3 s). */
export async function closeAllSessions(timeoutMs = 3000): Promise<void> {
  const all = Promise.allSettled([...openSessions].map((s) => s.close()));
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, timeoutMs);
    timer.unref();
  });
  await Promise.race([all, limit]);
  clearTimeout(timer);
}

export interface ShutdownOptions {
  /** Revocation time limit. Default 3000 ms. */
  readonly timeoutMs?: number;
  readonly exit?: (code: number) => void;
  /** Where signals are listened for. Default `process`. */
  readonly signals?: Pick<NodeJS.EventEmitter, 'once' | 'off'>;
}

/**
 * On SIGINT/SIGTERM: revoke all open sessions (bounded), then exit with 130/143. A second signal
 * during revocation gets the default behaviour (immediate exit). Returns an uninstaller.
 */
export function installShutdownHandlers(opts: ShutdownOptions = {}): () => void {
  const signals = opts.signals ?? process;
  const exit = opts.exit ?? ((code: number) => process.exit(code));
  const handle = (code: number) => () => {
    void closeAllSessions(opts.timeoutMs).finally(() => exit(code));
  };
  const onInt = handle(130);
  const onTerm = handle(143);
  signals.once('SIGINT', onInt);
  signals.once('SIGTERM', onTerm);
  return () => {
    signals.off('SIGINT', onInt);
    signals.off('SIGTERM', onTerm);
  };
}
