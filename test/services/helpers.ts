import { MockAgent } from 'undici';
import type { MockPool } from 'undici';
import { Secret } from '../../src/secret.js';
import type { Logger } from '../../src/log.js';
import { createAutomationClient } from '../../src/services/automation/client.js';
import { createTransferClient } from '../../src/services/transfer/client.js';
import type { ClientOptions } from '../../src/services/connection.js';

export const AUTOMATION = 'https://automation.test';
export const TRANSFER = 'https://transfer.test';
export const PASSWORD = 'Pa55-w0rd-SEED';

export const JSON_HEADERS = { 'content-type': 'application/json' };

/** A MockAgent that refuses real connections and records every call (headers included). */
export function createMock(): { agent: MockAgent; pool: (origin: string) => MockPool; calls: () => CallRecord[] } {
  const agent = new MockAgent({ enableCallHistory: true });
  agent.disableNetConnect();
  return {
    agent,
    pool: (origin) => agent.get(origin) as MockPool,
    calls: () =>
      (agent.getCallHistory()?.calls() ?? []).map((c) => ({
        method: c.method,
        path: c.path,
        query: c.searchParams as Record<string, string>,
        headers: normaliseHeaders(c.headers),
        body: typeof c.body === 'string' ? c.body : c.body === null || c.body === undefined ? '' : String(c.body),
      })),
  };
}

export interface CallRecord {
  readonly method: string;
  readonly path: string;
  readonly query: Record<string, string>;
  readonly headers: Record<string, string>;
  readonly body: string;
}

function normaliseHeaders(h: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (h && typeof h === 'object') for (const [k, v] of Object.entries(h as Record<string, unknown>)) out[k.toLowerCase()] = String(v);
  return out;
}

/** Replies with a token response on the next password or refresh grant. */
export function replyToken(
  pool: MockPool,
  opts: { base?: string; access: string; refresh?: string; expiresIn?: number; grant?: 'password' | 'refresh_token' } = { access: 'access-1' },
): void {
  pool
    .intercept({
      path: `${opts.base ?? '/api/v1'}/token`,
      method: 'POST',
      body: (b: string) => (opts.grant === undefined ? true : new URLSearchParams(b).get('grant_type') === opts.grant),
    })
    .reply(
      200,
      {
        access_token: opts.access,
        token_type: 'bearer',
        ...(opts.expiresIn === undefined ? {} : { expires_in: opts.expiresIn }),
        ...(opts.refresh === undefined ? {} : { refresh_token: opts.refresh }),
      },
      { headers: JSON_HEADERS },
    );
}

/**
 * A token endpoint that numbers what it hands out: access-N / refresh-N, and remembers the grants.
 * Refresh grants are accepted only for the latest refresh token. `expiresAt` says when each access
 * token stops working on the clock `now` (for a server that refuses expired tokens).
 */
export function tokenServer(pool: MockPool, base: string, expiresIn: number, now: () => number = Date.now) {
  const grants: string[] = [];
  const expiresAt = new Map<string, number>();
  let n = 0;
  pool
    .intercept({ path: `${base}/token`, method: 'POST' })
    .reply<object>(({ body }) => {
      const form = new URLSearchParams(String(body));
      const grant = form.get('grant_type') ?? '';
      grants.push(grant);
      if (grant === 'refresh_token' && form.get('refresh_token') !== `refresh-${n}`) {
        return { statusCode: 400, data: { error: 'invalid_grant', error_description: 'unknown refresh token' }, responseOptions: { headers: JSON_HEADERS } };
      }
      n++;
      expiresAt.set(`access-${n}`, now() + expiresIn * 1000);
      return {
        statusCode: 200,
        data: { access_token: `access-${n}`, refresh_token: `refresh-${n}`, token_type: 'bearer', expires_in: expiresIn },
        responseOptions: { headers: JSON_HEADERS },
      };
    })
    .persist();
  return { grants, expiresAt };
}

/** Records the delays asked of `sleep` and never waits. */
export function instantRetry(extra: Partial<NonNullable<ClientOptions['retry']>> = {}): { delays: number[]; retry: NonNullable<ClientOptions['retry']> } {
  const delays: number[] = [];
  return {
    delays,
    retry: {
      sleep: async (ms: number) => {
        delays.push(ms);
      },
      random: () => 0.5,
      ...extra,
    },
  };
}

export function recordingLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  return { lines, debug: (m) => lines.push(`debug: ${m}`), info: (m) => lines.push(m), warn: (m) => lines.push(`warning: ${m}`) };
}

type Overrides = Partial<Omit<ClientOptions, 'dispatcher'>>;

export function automationClient(agent: MockAgent, overrides: Overrides = {}) {
  return createAutomationClient({
    url: AUTOMATION,
    username: 'admin',
    password: new Secret(PASSWORD),
    dispatcher: agent,
    retry: instantRetry().retry,
    ...overrides,
  });
}

export function transferClient(agent: MockAgent, overrides: Overrides = {}) {
  return createTransferClient({
    url: TRANSFER,
    username: 'apiuser',
    password: new Secret(PASSWORD),
    dispatcher: agent,
    retry: instantRetry().retry,
    ...overrides,
  });
}

/** A settable clock. */
export function fakeClock(start = Date.UTC(2026, 0, 1)): { now: () => number; advance: (ms: number) => void } {
  let t = start;
  return { now: () => t, advance: (ms) => void (t += ms) };
}

/** Replies once to the user list and once to the group list (what ACL entries are named through). */
export function replyDirectory(
  pool: MockPool,
  users: readonly Record<string, unknown>[],
  groups: readonly Record<string, unknown>[] = [],
  status: { users?: number; groups?: number } = {},
): void {
  const page = (items: readonly unknown[]) => ({ items, paging: { page: 1, perPage: 1000, totalItems: items.length, totalPages: 1 } });
  pool
    .intercept({ path: '/api/v1/users', query: { permission: 'AllUsers', status: 'AllUsers', page: 1, perPage: 1000 } })
    .reply(status.users ?? 200, status.users && status.users !== 200 ? { title: 'Forbidden', detail: 'no' } : page(users), { headers: JSON_HEADERS });
  pool
    .intercept({ path: '/api/v1/groups', query: { page: 1, perPage: 1000 } })
    .reply(status.groups ?? 200, status.groups && status.groups !== 200 ? { title: 'Forbidden', detail: 'no' } : page(groups), { headers: JSON_HEADERS });
}
