import { randomBytes } from 'node:crypto';
import type { ApiRequest, ApiResponse } from './http.js';
import { isFormRequest, jsonResponse } from './http.js';
import type { Json } from './json.js';
import type { TokenTable, Variants } from './state.js';

/** Token lifetimes in seconds. */
export interface TokenLifetimes {
  readonly accessSeconds: number;
  readonly refreshSeconds: number;
}

/** OAuth-style token error codes used by both services. */
export type TokenErrorCode = 'invalid_request' | 'invalid_grant' | 'unsupported_grant_type';

/** What differs between the two services' token endpoints. */
export interface TokenDialect {
  readonly tokens: TokenTable;
  readonly lifetimes: TokenLifetimes;
  readonly now: () => number;
  /** The username when the password matches, else undefined. */
  readonly verifyPassword: (username: string, password: string) => string | undefined;
  /** Whether the user still exists (a refresh for a deleted user fails). */
  readonly userExists: (username: string) => boolean;
  readonly tokenError: (code: TokenErrorCode, description: string) => ApiResponse;
  /** How token answers spell `token_type` and `expires_in`, and whether they carry a refresh token. */
  readonly variants: Pick<Variants, 'tokens.type' | 'tokens.expiresIn' | 'tokens.refresh'>;
}

function newToken(): string {
  return randomBytes(24).toString('base64url');
}

function issue(d: TokenDialect, username: string): ApiResponse {
  const now = d.now();
  const access = newToken();
  d.tokens.set(access, { kind: 'access', username, expiresAt: now + d.lifetimes.accessSeconds * 1000, revoked: false });
  const body: Record<string, Json> = { access_token: access };
  const type = d.variants['tokens.type'];
  if (type !== 'absent') body.token_type = type;
  const seconds = Math.round(d.lifetimes.accessSeconds);
  const expiresIn = d.variants['tokens.expiresIn'];
  switch (expiresIn) {
    case 'number':
      body.expires_in = seconds;
      break;
    case 'string':
      body.expires_in = String(seconds);
      break;
    case 'absent':
      break;
    default: {
      const never: never = expiresIn;
      throw new Error(`unknown expiresIn form ${String(never)}`);
    }
  }
  // Without refresh tokens, a client signs in again when its access token runs out.
  if (d.variants['tokens.refresh'] === 'rotate') {
    const refresh = newToken();
    d.tokens.set(refresh, { kind: 'refresh', username, expiresAt: now + d.lifetimes.refreshSeconds * 1000, revoked: false });
    body.refresh_token = refresh;
  }
  return jsonResponse(200, body);
}

/** POST /token: `password` and `refresh_token` grants; a refresh rotates both tokens. */
export function handleTokenGrant(req: ApiRequest, d: TokenDialect): ApiResponse {
  if (!isFormRequest(req)) return d.tokenError('invalid_request', 'the token call takes application/x-www-form-urlencoded');
  const form = new URLSearchParams(req.body.toString('utf8'));
  const grant = form.get('grant_type');
  switch (grant) {
    case null:
    case '':
      return d.tokenError('invalid_request', 'grant_type is required');
    case 'password': {
      const username = form.get('username');
      const password = form.get('password');
      if (!username || password === null) return d.tokenError('invalid_request', 'username and password are required');
      const user = d.verifyPassword(username, password);
      if (user === undefined) return d.tokenError('invalid_grant', 'invalid username or password');
      return issue(d, user);
    }
    case 'refresh_token': {
      const token = form.get('refresh_token');
      if (!token) return d.tokenError('invalid_request', 'refresh_token is required');
      const record = d.tokens.get(token);
      if (!record || record.kind !== 'refresh' || record.revoked || record.expiresAt <= d.now() || !d.userExists(record.username)) {
        return d.tokenError('invalid_grant', 'the refresh token is invalid, expired or revoked');
      }
      record.revoked = true;
      return issue(d, record.username);
    }
    default:
      return d.tokenError('unsupported_grant_type', `grant_type ${grant} is not supported`);
  }
}

/** Mark a token revoked; unknown, expired and already revoked tokens are fine. */
export function revokeToken(tokens: TokenTable, token: string): void {
  const record = tokens.get(token);
  if (record) record.revoked = true;
}

/** Why a bearer was refused, for the 401 detail. */
export type BearerResult = { readonly ok: true; readonly username: string; readonly token: string } | { readonly ok: false; readonly detail: string };

export function checkBearer(req: ApiRequest, tokens: TokenTable, now: number): BearerResult {
  const header = req.headers.authorization;
  if (!header) return { ok: false, detail: 'the Authorization header is missing' };
  const m = /^bearer\s+(\S+)\s*$/i.exec(header);
  if (!m) return { ok: false, detail: 'the Authorization header must be "Bearer <access token>"' };
  const token = m[1]!;
  const record = tokens.get(token);
  if (!record) return { ok: false, detail: 'the access token is not valid' };
  if (record.kind !== 'access') return { ok: false, detail: 'a refresh token cannot be used to call the API' };
  if (record.revoked) return { ok: false, detail: 'the access token has been revoked' };
  if (record.expiresAt <= now) return { ok: false, detail: 'the access token has expired' };
  return { ok: true, username: record.username, token };
}
