import { EventEmitter } from 'node:events';
import type { MockPool } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { AuthError } from '../../src/services/errors.js';
import { closeAllSessions, countOpenSessions, installShutdownHandlers } from '../../src/services/session.js';
import { AUTOMATION, JSON_HEADERS, PASSWORD, TRANSFER, automationClient, createMock, fakeClock, replyToken, transferClient } from './helpers.js';

/**
 * A token endpoint that numbers what it hands out: access-N / refresh-N, and remembers the grants.
 * Refresh grants are accepted only for the latest refresh token.
 */
function tokenServer(pool: MockPool, base: string, expiresIn: number) {
  const grants: string[] = [];
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
      return { statusCode: 200, data: { access_token: `access-${n}`, refresh_token: `refresh-${n}`, token_type: 'bearer', expires_in: expiresIn }, responseOptions: { headers: JSON_HEADERS } };
    })
    .persist();
  return { grants };
}

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
    a.intercept({ path: '/api/v1/tasks/5', method: 'PUT' }).reply(401, { status: 401, title: 'Unauthorized', detail: 'token revoked' }, { headers: JSON_HEADERS });
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
    a.intercept({ path: '/api/v1/token', method: 'POST', body: (b: string) => b.includes('grant_type=refresh_token') })
      .reply(400, { error: 'invalid_grant', error_description: 'refresh token expired' }, { headers: JSON_HEADERS });
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
    const bearers = calls().map((c) => c.headers.authorization).filter((h): h is string => h !== undefined);
    expect(bearers.length).toBeGreaterThan(0);
    expect(bearers.some((h) => h.includes('refresh'))).toBe(false);
    const refreshForms = calls().filter((c) => c.body.includes('grant_type=refresh_token'));
    expect(refreshForms.length).toBeGreaterThan(0);
    expect(refreshForms.every((c) => c.headers.authorization === undefined)).toBe(true);
  });

  it('reports bad credentials as an AuthError with the server description and without the password', async () => {
    const { agent, pool } = createMock();
    const a = pool(AUTOMATION);
    a.intercept({ path: '/api/v1/token', method: 'POST' }).reply(400, { error: 'invalid_grant', error_description: 'Invalid user name or password' }, { headers: JSON_HEADERS });
    const err = await automationClient(agent).info().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AuthError);
    expect(err).toMatchObject({ error: 'invalid_grant', status: 400 });
    expect((err as Error).message).toBe('automation: POST /api/v1/token: 400 invalid_grant: Invalid user name or password');
    expect((err as Error).message).not.toContain(PASSWORD);
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

  it('ignores a failed revoke and sends nothing when no token was ever obtained', async () => {
    const { agent, pool, calls } = createMock();
    const a = pool(AUTOMATION);
    tokenServer(a, '/api/v1', 300);
    a.intercept({ path: '/api/v1/info' }).reply(200, {}, { headers: JSON_HEADERS });
    a.intercept({ path: '/api/v1/token/revoke', method: 'POST' }).reply(500, { status: 500, title: 'Internal Server Error', detail: 'x' }, { headers: JSON_HEADERS }).times(2);
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

  it('on SIGINT exits with 130 even when a revoke hangs', async () => {
    const { agent, pool } = createMock();
    const a = pool(AUTOMATION);
    tokenServer(a, '/api/v1', 300);
    a.intercept({ path: '/api/v1/info' }).reply(200, {}, { headers: JSON_HEADERS });
    a.intercept({ path: '/api/v1/token/revoke', method: 'POST' }).reply(200, '').delay(5000);
    await automationClient(agent).info();
    const signals = new EventEmitter();
    const started = Date.now();
    const exited = new Promise<number>((resolve) => {
      installShutdownHandlers({ signals, exit: resolve, timeoutMs: 50 });
    });
    signals.emit('SIGINT');
    expect(await exited).toBe(130);
    expect(Date.now() - started).toBeLessThan(2000);
  });
});
