import { EventEmitter } from 'node:events';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError, AuthError } from '../../src/services/errors.js';
import { closeAllSessions, countOpenSessions, installShutdownHandlers } from '../../src/services/session.js';
import {
  AUTOMATION,
  JSON_HEADERS,
  PASSWORD,
  TRANSFER,
  automationClient,
  createMock,
  fakeClock,
  instantRetry,
  replyToken,
  tokenServer,
  transferClient,
} from './helpers.js';

afterEach(async () => {
  await closeAllSessions(100);
});

describe('tokens', () => {
  it('refreshes a 2-second access token with the refresh grant during a longer run', async () => {
    const { agent, pool, calls } = createMock();
    const a = pool(AUTOMATION);
    const { grants } = tokenServer(a, '/api/v1', 2);
    a.intercept({ path: '/api/v1/info' }).reply(200, { appVersion: 'x' }, { headers: JSON_HEADERS }).persist();
    const clock = fakeClock();
    const client = automationClient(agent, { now: clock.now });
    for (let second = 0; second < 10; second++) {
      await client.info();
      clock.advance(1000);
    }
    expect(grants[0]).toBe('password');
    expect(grants.filter((g) => g === 'password')).toHaveLength(1);
    expect(grants.filter((g) => g === 'refresh_token').length).toBeGreaterThanOrEqual(4);
    // Every call went out with an access token that had not expired: the one issued last.
    const infoCalls = calls().filter((c) => c.path === '/api/v1/info');
    expect(infoCalls).toHaveLength(10);
    expect(infoCalls.every((c) => /^Bearer access-\d+$/.test(c.headers.authorization ?? ''))).toBe(true);
    await client.close();
  });

  it('refreshes when the server did not give expires_in, after the default 300 s lifetime', async () => {
    const { agent, pool } = createMock();
    const a = pool(AUTOMATION);
    replyToken(a, { access: 'first', refresh: 'r1', grant: 'password' });
    replyToken(a, { access: 'second', refresh: 'r2', grant: 'refresh_token' });
    a.intercept({ path: '/api/v1/info', headers: { authorization: 'Bearer first' } }).reply(200, {}, { headers: JSON_HEADERS });
    a.intercept({ path: '/api/v1/info', headers: { authorization: 'Bearer second' } }).reply(200, {}, { headers: JSON_HEADERS });
    const clock = fakeClock();
    const client = automationClient(agent, { now: clock.now });
    await client.info();
    clock.advance(280_000); // 20 s left: inside the 30 s margin
    await client.info();
    expect(client.tokenRequestCount).toBe(2);
  });

  it('answers a 401 with one refresh and a retry of the same call', async () => {
    const { agent, pool, calls } = createMock();
    const a = pool(AUTOMATION);
    const { grants } = tokenServer(a, '/api/v1', 300);
    a.intercept({ path: '/api/v1/tasks/5', method: 'PUT' }).reply(
      401,
      { status: 401, title: 'Unauthorized', detail: 'token revoked' },
      { headers: JSON_HEADERS },
    );
    a.intercept({ path: '/api/v1/tasks/5', method: 'PUT' }).reply(200, { ID: '5', Name: 'ok' }, { headers: JSON_HEADERS });
    const client = automationClient(agent);
    await expect(client.updateTask('5', { Name: 'ok' })).resolves.toMatchObject({ ID: '5' });
    expect(grants).toEqual(['password', 'refresh_token']);
    const puts = calls().filter((c) => c.method === 'PUT');
    expect(puts.map((c) => c.headers.authorization)).toEqual(['Bearer access-1', 'Bearer access-2']);
    await client.close();
  });

  it('turns a second 401 into an AuthError', async () => {
    const { agent, pool } = createMock();
    const a = pool(AUTOMATION);
    tokenServer(a, '/api/v1', 300);
    a.intercept({ path: '/api/v1/info' }).reply(401, { status: 401, title: 'Unauthorized', detail: 'not allowed' }, { headers: JSON_HEADERS }).times(2);
    const client = automationClient(agent);
    const err = await client.info().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AuthError);
    expect((err as Error).message).toBe('automation: GET /api/v1/info: 401 Unauthorized: not allowed; access token refused even after a refresh');
    expect(client.tokenRequestCount).toBe(2);
    await client.close();
  });

  it('falls back to a password grant when the refresh is refused', async () => {
    const { agent, pool } = createMock();
    const a = pool(AUTOMATION);
    replyToken(a, { access: 'a1', refresh: 'r1', expiresIn: 2, grant: 'password' });
    a.intercept({ path: '/api/v1/token', method: 'POST', body: (b: string) => b.includes('grant_type=refresh_token') }).reply(
      400,
      { error: 'invalid_grant', error_description: 'refresh token expired' },
      { headers: JSON_HEADERS },
    );
    replyToken(a, { access: 'a2', refresh: 'r2', expiresIn: 2, grant: 'password' });
    a.intercept({ path: '/api/v1/info', headers: { authorization: 'Bearer a1' } }).reply(200, {}, { headers: JSON_HEADERS });
    a.intercept({ path: '/api/v1/info', headers: { authorization: 'Bearer a2' } }).reply(200, {}, { headers: JSON_HEADERS });
    const clock = fakeClock();
    const client = automationClient(agent, { now: clock.now });
    await client.info();
    clock.advance(5000);
    await client.info();
    expect(client.tokenRequestCount).toBe(3);
  });

  it('shares one token request among 10 concurrent calls', async () => {
    const { agent, pool } = createMock();
    const a = pool(AUTOMATION);
    const { grants } = tokenServer(a, '/api/v1', 300);
    a.intercept({ path: '/api/v1/info' }).reply(200, { appVersion: 'x' }, { headers: JSON_HEADERS }).times(10);
    const client = automationClient(agent);
    await Promise.all(Array.from({ length: 10 }, () => client.info()));
    expect(grants).toEqual(['password']);
    expect(client.tokenRequestCount).toBe(1);
    expect(client.requestCount).toBe(11);
    await client.close();
  });

  it('never sends the refresh token as a bearer', async () => {
    const { agent, pool, calls } = createMock();
    const a = pool(AUTOMATION);
    tokenServer(a, '/api/v1', 2);
    a.intercept({ path: '/api/v1/info' }).reply(401, {}, { headers: JSON_HEADERS });
    a.intercept({ path: '/api/v1/info' }).reply(200, {}, { headers: JSON_HEADERS }).persist();
    a.intercept({ path: '/api/v1/token/revoke', method: 'POST' }).reply(200, '').persist();
    const clock = fakeClock();
    const client = automationClient(agent, { now: clock.now });
    for (let i = 0; i < 5; i++) {
      await client.info();
      clock.advance(1900);
    }
    await client.close();
    const bearers = calls()
      .map((c) => c.headers.authorization)
      .filter((h): h is string => h !== undefined);
    expect(bearers.length).toBeGreaterThan(0);
    expect(bearers.some((h) => h.includes('refresh'))).toBe(false);
    const refreshForms = calls().filter((c) => c.body.includes('grant_type=refresh_token'));
    expect(refreshForms.length).toBeGreaterThan(0);
    expect(refreshForms.every((c) => c.headers.authorization === undefined)).toBe(true);
  });

  it('reports bad credentials as an AuthError with the server description and without the password', async () => {
    const { agent, pool } = createMock();
    const a = pool(AUTOMATION);
    a.intercept({ path: '/api/v1/token', method: 'POST' }).reply(
      400,
      { error: 'invalid_grant', error_description: 'Invalid user name or password' },
      { headers: JSON_HEADERS },
    );
    const err = await automationClient(agent)
      .info()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AuthError);
    expect(err).toMatchObject({ error: 'invalid_grant', status: 400 });
    expect((err as Error).message).toBe('automation: POST /api/v1/token: 400 invalid_grant: Invalid user name or password');
    expect((err as Error).message).not.toContain(PASSWORD);
  });
});

/** The bearer of a recorded or intercepted request, if any. */
function bearerOf(headers: Headers | Record<string, string> | undefined): string | undefined {
  const value = headers instanceof Headers ? headers.get('authorization') : headers?.authorization;
  return value?.replace(/^Bearer /, '');
}

describe('tokens during retries', () => {
  it('answers a 401 at any attempt of a GET with a new token: 503, 401, 503, 401, 200 ends 200', async () => {
    const { agent, pool, calls } = createMock();
    const a = pool(AUTOMATION);
    const { grants } = tokenServer(a, '/api/v1', 300);
    const unauthorized = { status: 401, title: 'Unauthorized', detail: 'the access token has expired' };
    a.intercept({ path: '/api/v1/info' }).reply(503, { status: 503, title: 'Service Unavailable' }, { headers: JSON_HEADERS });
    a.intercept({ path: '/api/v1/info' }).reply(401, unauthorized, { headers: JSON_HEADERS });
    a.intercept({ path: '/api/v1/info' }).reply(503, { status: 503, title: 'Service Unavailable' }, { headers: JSON_HEADERS });
    a.intercept({ path: '/api/v1/info' }).reply(401, unauthorized, { headers: JSON_HEADERS });
    a.intercept({ path: '/api/v1/info' }).reply(200, { appVersion: '2026.1' }, { headers: JSON_HEADERS });
    const client = automationClient(agent);
    await expect(client.info()).resolves.toMatchObject({ appVersion: '2026.1' });
    expect(grants).toEqual(['password', 'refresh_token', 'refresh_token']);
    const sent = calls()
      .filter((c) => c.path === '/api/v1/info')
      .map((c) => bearerOf(c.headers));
    expect(sent).toEqual(['access-1', 'access-1', 'access-2', 'access-2', 'access-3']);
    await client.close();
  });

  it('sends a fresh token on a later attempt when the retries of a GET outlast the token', async () => {
    // A server that refuses an expired token (2 s lifetime) and is busy twice, asking for 3 s each time.
    const { agent, pool, calls } = createMock();
    const a = pool(AUTOMATION);
    const clock = fakeClock();
    const { expiresAt } = tokenServer(a, '/api/v1', 2, clock.now);
    const answered: number[] = [];
    let busy = 2;
    a.intercept({ path: '/api/v1/tasks' })
      .reply<object>(({ headers }) => {
        const token = bearerOf(headers) ?? '';
        const status = (expiresAt.get(token) ?? -Infinity) <= clock.now() ? 401 : busy-- > 0 ? 503 : 200;
        answered.push(status);
        const headersOut = status === 503 ? { ...JSON_HEADERS, 'retry-after': '3' } : JSON_HEADERS;
        return {
          statusCode: status,
          data: status === 200 ? { items: [{ ID: '1', Name: 'Nightly' }] } : { status, title: 'refused' },
          responseOptions: { headers: headersOut },
        };
      })
      .persist();
    const client = automationClient(agent, { now: clock.now, retry: { sleep: async (ms) => clock.advance(ms), random: () => 0.5 } });
    await expect(client.listTasks()).resolves.toHaveLength(1);
    expect(answered).toEqual([503, 503, 200]);
    const sent = calls()
      .filter((c) => c.path === '/api/v1/tasks')
      .map((c) => bearerOf(c.headers));
    expect(sent).toEqual(['access-1', 'access-2', 'access-3']);
    await client.close();
  });

  it('counts a 401 as an attempt: refused on the last attempt, the GET gives up with an AuthError', async () => {
    const { agent, pool, calls } = createMock();
    const a = pool(AUTOMATION);
    tokenServer(a, '/api/v1', 300);
    a.intercept({ path: '/api/v1/info' }).reply(503, { status: 503, title: 'Service Unavailable' }, { headers: JSON_HEADERS });
    a.intercept({ path: '/api/v1/info' }).reply(401, { status: 401, title: 'Unauthorized', detail: 'token revoked' }, { headers: JSON_HEADERS });
    const client = automationClient(agent, { retry: instantRetry({ maxAttempts: 2 }).retry });
    const err = await client.info().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AuthError);
    expect((err as Error).message).toBe('automation: GET /api/v1/info: 401 Unauthorized: token revoked; access token refused (gave up after 2 attempts)');
    expect(calls().filter((c) => c.path === '/api/v1/info')).toHaveLength(2);
    await client.close();
  });

  it('sends a write refused with 401 once more with a new token, but not again after a 503', async () => {
    const { agent, pool, calls } = createMock();
    const a = pool(AUTOMATION);
    const { grants } = tokenServer(a, '/api/v1', 300);
    a.intercept({ path: '/api/v1/tasks', method: 'POST' }).reply(
      401,
      { status: 401, title: 'Unauthorized', detail: 'token revoked' },
      { headers: JSON_HEADERS },
    );
    a.intercept({ path: '/api/v1/tasks', method: 'POST' }).reply(503, { status: 503, title: 'Service Unavailable', detail: 'busy' }, { headers: JSON_HEADERS });
    const { retry, delays } = instantRetry();
    const client = automationClient(agent, { retry });
    const err = await client.createTask({ Name: 'Nightly' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).not.toBeInstanceOf(AuthError);
    expect(err).toMatchObject({ status: 503, outcome: 'unknown' });
    expect(grants).toEqual(['password', 'refresh_token']);
    const posts = calls().filter((c) => c.method === 'POST' && c.path === '/api/v1/tasks');
    expect(posts.map((c) => bearerOf(c.headers))).toEqual(['access-1', 'access-2']);
    expect(delays).toEqual([]);
    await client.close();
  });

  it('gives up with an AuthError when the token obtained after a 401 is refused too, attempts left or not', async () => {
    const { agent, pool, calls } = createMock();
    const a = pool(AUTOMATION);
    const { grants } = tokenServer(a, '/api/v1', 300);
    a.intercept({ path: '/api/v1/tasks/5', method: 'PUT' })
      .reply(401, { status: 401, title: 'Unauthorized', detail: 'account locked' }, { headers: JSON_HEADERS })
      .persist();
    const client = automationClient(agent);
    const err = await client.updateTask('5', { Name: 'x' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AuthError);
    expect((err as Error).message).toBe('automation: PUT /api/v1/tasks/5: 401 Unauthorized: account locked; access token refused even after a refresh');
    expect(calls().filter((c) => c.method === 'PUT')).toHaveLength(2);
    expect(grants).toEqual(['password', 'refresh_token']);
    await client.close();
  });
});

describe('close', () => {
  it('revokes the refresh token, then the access token, without an Authorization header (automation)', async () => {
    const { agent, pool, calls } = createMock();
    const a = pool(AUTOMATION);
    tokenServer(a, '/api/v1', 300);
    a.intercept({ path: '/api/v1/info' }).reply(200, {}, { headers: JSON_HEADERS });
    a.intercept({ path: '/api/v1/token/revoke', method: 'POST' }).reply(200, '').times(2);
    const client = automationClient(agent);
    await client.info();
    expect(countOpenSessions()).toBe(1);
    await client.close();
    const revokes = calls().filter((c) => c.path === '/api/v1/token/revoke');
    expect(revokes.map((c) => new URLSearchParams(c.body).get('token'))).toEqual(['refresh-1', 'access-1']);
    expect(revokes.every((c) => c.headers.authorization === undefined)).toBe(true);
    expect(revokes.every((c) => c.headers['content-type'] === 'application/x-www-form-urlencoded')).toBe(true);
    expect(countOpenSessions()).toBe(0);
  });

  it('revokes with the bearer on the transfer service, refresh token first', async () => {
    const { agent, pool, calls } = createMock();
    const t = pool(TRANSFER);
    tokenServer(t, '/api/v1', 300);
    t.intercept({ path: '/api/v1/users/self' }).reply(200, { id: 7, username: 'apiuser' }, { headers: JSON_HEADERS });
    t.intercept({ path: '/api/v1/token/revoke', method: 'POST' }).reply(200, { message: 'revoked' }, { headers: JSON_HEADERS }).times(2);
    const client = transferClient(agent);
    await client.currentUser();
    await client.close();
    const revokes = calls().filter((c) => c.path === '/api/v1/token/revoke');
    expect(revokes.map((c) => new URLSearchParams(c.body).get('token'))).toEqual(['refresh-1', 'access-1']);
    expect(revokes.map((c) => c.headers.authorization)).toEqual(['Bearer access-1', 'Bearer access-1']);
  });

  /** Revokes whose refresh-token answer is held back: was the access token's revoke sent before that answer came? */
  function heldRefreshRevoke(p: ReturnType<ReturnType<typeof createMock>['pool']>): { accessSentBeforeRefreshAnswer: () => boolean | undefined } {
    let refreshAnswered = false;
    let seen: boolean | undefined;
    const revoke = (token: string) => ({ path: '/api/v1/token/revoke', method: 'POST', body: (b: string) => new URLSearchParams(b).get('token') === token });
    // A data function runs when the answer is delivered (after the delay); an options function when the request is dispatched.
    p.intercept(revoke('refresh-1'))
      .reply(200, () => {
        refreshAnswered = true;
        return '';
      })
      .delay(50);
    p.intercept(revoke('access-1')).reply(() => {
      seen = !refreshAnswered;
      return { statusCode: 200, data: '' };
    });
    return { accessSentBeforeRefreshAnswer: () => seen };
  }

  it("sends the automation revokes together: the access token is revoked without waiting for the refresh token's answer", async () => {
    const { agent, pool } = createMock();
    const a = pool(AUTOMATION);
    tokenServer(a, '/api/v1', 300);
    a.intercept({ path: '/api/v1/info' }).reply(200, {}, { headers: JSON_HEADERS });
    const held = heldRefreshRevoke(a);
    const client = automationClient(agent);
    await client.info();
    await client.close();
    expect(held.accessSentBeforeRefreshAnswer()).toBe(true);
    expect(countOpenSessions()).toBe(0);
  });

  it("revokes the transfer access token (the bearer of both revokes) only after the refresh token's revoke was answered", async () => {
    const { agent, pool } = createMock();
    const t = pool(TRANSFER);
    tokenServer(t, '/api/v1', 300);
    t.intercept({ path: '/api/v1/users/self' }).reply(200, { id: 7, username: 'apiuser' }, { headers: JSON_HEADERS });
    const held = heldRefreshRevoke(t);
    const client = transferClient(agent);
    await client.currentUser();
    await client.close();
    expect(held.accessSentBeforeRefreshAnswer()).toBe(false);
  });

  it('ignores a failed revoke and sends nothing when no token was ever obtained', async () => {
    const { agent, pool, calls } = createMock();
    const a = pool(AUTOMATION);
    tokenServer(a, '/api/v1', 300);
    a.intercept({ path: '/api/v1/info' }).reply(200, {}, { headers: JSON_HEADERS });
    a.intercept({ path: '/api/v1/token/revoke', method: 'POST' })
      .reply(500, { status: 500, title: 'Internal Server Error', detail: 'x' }, { headers: JSON_HEADERS })
      .times(2);
    const client = automationClient(agent);
    await client.info();
    await expect(client.close()).resolves.toBeUndefined();
    const idle = automationClient(agent);
    const before = calls().length;
    await idle.close();
    expect(calls().length).toBe(before);
  });

  it('on SIGTERM revokes every open session and exits with 143', async () => {
    const { agent, pool, calls } = createMock();
    const a = pool(AUTOMATION);
    const t = pool(TRANSFER);
    tokenServer(a, '/api/v1', 300);
    tokenServer(t, '/api/v1', 300);
    a.intercept({ path: '/api/v1/info' }).reply(200, {}, { headers: JSON_HEADERS });
    t.intercept({ path: '/api/v1/users/self' }).reply(200, { id: 1, username: 'u' }, { headers: JSON_HEADERS });
    a.intercept({ path: '/api/v1/token/revoke', method: 'POST' }).reply(200, '').times(2);
    t.intercept({ path: '/api/v1/token/revoke', method: 'POST' }).reply(200, '').times(2);
    await automationClient(agent).info();
    await transferClient(agent).currentUser();
    const signals = new EventEmitter();
    const exited = new Promise<number>((resolve) => {
      const uninstall = installShutdownHandlers({ signals, exit: (code) => (uninstall(), resolve(code)), timeoutMs: 1000 });
    });
    signals.emit('SIGTERM');
    expect(await exited).toBe(143);
    expect(calls().filter((c) => c.path === '/api/v1/token/revoke')).toHaveLength(4);
    expect(countOpenSessions()).toBe(0);
  });

  it('on SIGINT exits with 130 even when a revoke hangs: the time limit ends the wait, not the answer', async () => {
    const { agent, pool, calls } = createMock();
    const a = pool(AUTOMATION);
    tokenServer(a, '/api/v1', 300);
    a.intercept({ path: '/api/v1/info' }).reply(200, {}, { headers: JSON_HEADERS });
    a.intercept({ path: '/api/v1/token/revoke', method: 'POST' }).reply(200, '').delay(60_000);
    await automationClient(agent).info();
    // The clock is the test's: the revoke's answer and the 50 ms limit come when it says.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const signals = new EventEmitter();
      let code: number | undefined;
      const exited = new Promise<number>((resolve) => {
        installShutdownHandlers({ signals, exit: (c) => resolve((code = c)), timeoutMs: 50 });
      });
      signals.emit('SIGINT');
      await vi.advanceTimersByTimeAsync(49);
      // Both automation revokes were sent (together); neither was answered.
      expect(calls().filter((c) => c.path === '/api/v1/token/revoke')).toHaveLength(2);
      expect(code).toBeUndefined();
      await vi.advanceTimersByTimeAsync(1);
      expect(code).toBe(130);
      expect(await exited).toBe(130);
    } finally {
      vi.useRealTimers();
    }
  });
});
