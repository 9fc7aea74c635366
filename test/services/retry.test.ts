import { describe, expect, it } from 'vitest';
import { ApiError, NetworkError, TimeoutError } from '../../src/services/errors.js';
import { backoffDelay, computeRetryDelay, parseRetryAfter, resolveRetryPolicy } from '../../src/services/retry.js';
import { AUTOMATION, JSON_HEADERS, automationClient, createMock, fakeClock, instantRetry, recordingLogger, replyToken } from './helpers.js';

function reset(): Error {
  return Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
}

describe('retries of reads', () => {
  it('retries a GET that gets 503 and returns the 200 that follows', async () => {
    const { agent, pool } = createMock();
    const a = pool(AUTOMATION);
    replyToken(a, { access: 'tok' });
    a.intercept({ path: '/api/v1/info' }).reply(503, { status: 503, title: 'Service Unavailable', detail: 'busy' }, { headers: JSON_HEADERS });
    a.intercept({ path: '/api/v1/info' }).reply(200, { appVersion: '2026.1' }, { headers: JSON_HEADERS });
    const { retry, delays } = instantRetry();
    const client = automationClient(agent, { retry });
    await expect(client.info()).resolves.toMatchObject({ appVersion: '2026.1' });
    expect(delays).toHaveLength(1);
    expect(client.requestCount).toBe(3); // token + 503 + 200
  });

  it('waits what Retry-After says, in seconds or as an HTTP date', async () => {
    const { agent, pool } = createMock();
    const a = pool(AUTOMATION);
    const clock = fakeClock();
    replyToken(a, { access: 'tok' });
    a.intercept({ path: '/api/v1/info' }).reply(429, {}, { headers: { ...JSON_HEADERS, 'retry-after': '7' } });
    a.intercept({ path: '/api/v1/info' }).reply(503, {}, { headers: { ...JSON_HEADERS, 'retry-after': new Date(clock.now() + 4000).toUTCString() } });
    a.intercept({ path: '/api/v1/info' }).reply(200, { appVersion: 'x' }, { headers: JSON_HEADERS });
    const { retry, delays } = instantRetry();
    await automationClient(agent, { retry, now: clock.now }).info();
    expect(delays).toEqual([7000, 4000]);
  });

  it('caps a long Retry-After', () => {
    const policy = resolveRetryPolicy({ retryAfterCapMs: 30_000 });
    expect(computeRetryDelay(1, parseRetryAfter('3600', 0), policy)).toBe(30_000);
    expect(parseRetryAfter('soon', 0)).toBeUndefined();
  });

  it('backs off exponentially with full jitter', () => {
    const policy = resolveRetryPolicy({ baseDelayMs: 100, maxDelayMs: 1000, random: () => 0.5 });
    expect([1, 2, 3, 4, 5].map((n) => computeRetryDelay(n, undefined, policy))).toEqual([50, 100, 200, 400, 500]);
    const zero = resolveRetryPolicy({ random: () => 0 });
    expect(computeRetryDelay(3, undefined, zero)).toBe(0);
    // The one backoff the transport and apply's resends share.
    expect([1, 2, 3, 4, 5].map((n) => backoffDelay(n, { baseDelayMs: 100, maxDelayMs: 1000, random: () => 0.5 }))).toEqual([50, 100, 200, 400, 500]);
    expect(backoffDelay(4, { baseDelayMs: 100, maxDelayMs: 1000, random: () => 0.999 })).toBe(799);
  });

  it('gives up after the attempt bound with an error that says so', async () => {
    const { agent, pool } = createMock();
    const a = pool(AUTOMATION);
    replyToken(a, { access: 'tok' });
    a.intercept({ path: '/api/v1/tasks' })
      .reply(502, 'Bad Gateway', { headers: { 'content-type': 'text/plain' } })
      .times(3);
    const { retry, delays } = instantRetry({ maxAttempts: 3 });
    const err = await automationClient(agent, { retry })
      .listTasks()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 502, attempts: 3 });
    expect((err as Error).message).toBe(
      'automation: GET /api/v1/tasks: 502 Bad Gateway: non-JSON response (text/plain, 11 bytes): Bad Gateway (gave up after 3 attempts)',
    );
    expect(delays).toHaveLength(2);
  });

  it('stops retrying when the time budget would be exceeded', async () => {
    const { agent, pool } = createMock();
    const a = pool(AUTOMATION);
    replyToken(a, { access: 'tok' });
    a.intercept({ path: '/api/v1/info' })
      .reply(503, {}, { headers: { ...JSON_HEADERS, 'retry-after': '20' } })
      .times(2);
    const { retry, delays } = instantRetry({ budgetMs: 30_000 });
    const clock = fakeClock();
    const client = automationClient(agent, { retry: { ...retry, sleep: async (ms) => (delays.push(ms), clock.advance(ms)) }, now: clock.now });
    await expect(client.info()).rejects.toMatchObject({ status: 503, attempts: 2 });
    expect(delays).toEqual([20_000]);
  });

  it('retries a GET after a connection reset', async () => {
    const { agent, pool } = createMock();
    const a = pool(AUTOMATION);
    replyToken(a, { access: 'tok' });
    a.intercept({ path: '/api/v1/info' }).replyWithError(reset());
    a.intercept({ path: '/api/v1/info' }).reply(200, { appVersion: 'after reset' }, { headers: JSON_HEADERS });
    const logger = recordingLogger();
    await expect(automationClient(agent, { logger }).info()).resolves.toMatchObject({ appVersion: 'after reset' });
    expect(logger.lines.some((l) => /GET \/api\/v1\/info: ECONNRESET, retry 2\/5 in \d+ ms/.test(l))).toBe(true);
  });

  it('logs each retry at debug level with method, path, status and delay', async () => {
    const { agent, pool } = createMock();
    const a = pool(AUTOMATION);
    replyToken(a, { access: 'tok' });
    a.intercept({ path: '/api/v1/info' }).reply(504, {}, { headers: JSON_HEADERS });
    a.intercept({ path: '/api/v1/info' }).reply(200, {}, { headers: JSON_HEADERS });
    const logger = recordingLogger();
    await automationClient(agent, { logger, retry: instantRetry({ random: () => 0 }).retry }).info();
    expect(logger.lines).toContain('debug: automation: GET /api/v1/info: 504, retry 2/5 in 0 ms');
  });

  it('retries a token grant like a read', async () => {
    const { agent, pool } = createMock();
    const a = pool(AUTOMATION);
    a.intercept({ path: '/api/v1/token', method: 'POST' }).reply(503, {}, { headers: JSON_HEADERS });
    replyToken(a, { access: 'tok' });
    a.intercept({ path: '/api/v1/info' }).reply(200, { appVersion: 'x' }, { headers: JSON_HEADERS });
    const client = automationClient(agent);
    await client.info();
    expect(client.tokenRequestCount).toBe(2);
  });

  it('does not retry a 4xx', async () => {
    const { agent, pool } = createMock();
    const a = pool(AUTOMATION);
    replyToken(a, { access: 'tok' });
    a.intercept({ path: '/api/v1/tasks/9' }).reply(404, { status: 404, title: 'Not Found', detail: 'Task 9 not found' }, { headers: JSON_HEADERS });
    const { retry, delays } = instantRetry();
    await expect(automationClient(agent, { retry }).getTask('9')).rejects.toMatchObject({ status: 404, outcome: 'rejected' });
    expect(delays).toEqual([]);
  });
});

describe('writes are never retried', () => {
  it('a POST that gets 503 is sent once and its outcome is unknown', async () => {
    const { agent, pool, calls } = createMock();
    const a = pool(AUTOMATION);
    replyToken(a, { access: 'tok' });
    a.intercept({ path: '/api/v1/tasks', method: 'POST' }).reply(
      503,
      { status: 503, title: 'Service Unavailable', detail: 'try later' },
      { headers: JSON_HEADERS },
    );
    const { retry, delays } = instantRetry();
    const err = await automationClient(agent, { retry })
      .createTask({ Name: 'Nightly' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 503, outcome: 'unknown', attempts: 1 });
    expect(calls().filter((c) => c.method === 'POST' && c.path === '/api/v1/tasks')).toHaveLength(1);
    expect(delays).toEqual([]);
  });

  it('a reset during a PUT is not retried and may have happened', async () => {
    const { agent, pool } = createMock();
    const a = pool(AUTOMATION);
    replyToken(a, { access: 'tok' });
    a.intercept({ path: '/api/v1/tasks/1', method: 'PUT' }).replyWithError(reset());
    const err = await automationClient(agent)
      .updateTask('1', { Name: 'x' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NetworkError);
    expect(err).toMatchObject({ outcome: 'unknown', code: 'ECONNRESET' });
    expect((err as Error).message).toBe('automation: PUT /api/v1/tasks/1: connection reset (ECONNRESET)');
  });

  it('a refused connection is a write that was not sent', async () => {
    const { agent, pool } = createMock();
    const a = pool(AUTOMATION);
    replyToken(a, { access: 'tok' });
    a.intercept({ path: '/api/v1/tasks/1', method: 'DELETE' }).replyWithError(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }));
    await expect(automationClient(agent).deleteTask('1')).rejects.toMatchObject({ outcome: 'not-sent', code: 'ECONNREFUSED' });
  });

  it('a headers timeout is a TimeoutError with an unknown outcome', async () => {
    const { agent, pool } = createMock();
    const a = pool(AUTOMATION);
    replyToken(a, { access: 'tok' });
    const timeout = Object.assign(new Error('Headers Timeout Error'), { code: 'UND_ERR_HEADERS_TIMEOUT' });
    a.intercept({ path: '/api/v1/tasks', method: 'POST' }).replyWithError(timeout);
    const err = await automationClient(agent, { timeouts: { headersMs: 5000 } })
      .createTask({ Name: 'x' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TimeoutError);
    expect(err).toMatchObject({ outcome: 'unknown' });
    expect((err as Error).message).toBe('automation: POST /api/v1/tasks: no response within 5 s (UND_ERR_HEADERS_TIMEOUT)');
  });
});
