import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/services/errors.js';
import { readRetryFromEnv, readTimeoutsFromEnv } from '../../src/services/connection.js';
import { computeRetryDelay, parseRetryAfter, resolveRetryPolicy } from '../../src/services/retry.js';
import { AUTOMATION, JSON_HEADERS, automationClient, createMock, fakeClock, recordingLogger, replyToken } from './helpers.js';

/** Sleeps that move the fake clock, and remember each wait. */
function clockedRetry(clock: ReturnType<typeof fakeClock>, extra: Record<string, unknown> = {}) {
  const delays: number[] = [];
  return { delays, retry: { sleep: async (ms: number) => void (delays.push(ms), clock.advance(ms)), random: () => 0.5, ...extra } };
}

describe('Retry-After', () => {
  it('reads delta-seconds and an HTTP date, relative to now', () => {
    const now = Date.UTC(2026, 10, 27, 6, 0, 0);
    expect(parseRetryAfter('0', now)).toBe(0);
    expect(parseRetryAfter(' 12 ', now)).toBe(12_000);
    expect(parseRetryAfter('Fri, 27 Nov 2026 06:00:30 GMT', now)).toBe(30_000);
    // A date already past: come back now, never a negative wait.
    expect(parseRetryAfter('Fri, 27 Nov 2026 05:59:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('-5', now)).toBeUndefined();
    expect(parseRetryAfter('1.5', now)).toBeUndefined();
    expect(parseRetryAfter('later', now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });

  it('is the wait when given, else the backoff', () => {
    const policy = resolveRetryPolicy({ random: () => 0.5 });
    expect(computeRetryDelay(4, 2000, policy)).toBe(2000);
    expect(computeRetryDelay(1, undefined, policy)).toBe(125);
  });
});

describe('the retry budget', () => {
  it('is not cut short by the attempt count while the server throttles with 429 (both Retry-After forms)', async () => {
    const { agent, pool } = createMock();
    const a = pool(AUTOMATION);
    const clock = fakeClock();
    replyToken(a, { access: 'tok' });
    // Nine 429s over 18 s: more than the 5 attempts, well within the 60 s budget.
    for (let i = 0; i < 9; i++) {
      const retryAfter = i % 2 === 0 ? '2' : new Date(clock.now() + 2000 * (i + 1)).toUTCString();
      a.intercept({ path: '/api/v1/tasks' }).reply(
        429,
        { status: 429, title: 'Too Many Requests' },
        { headers: { ...JSON_HEADERS, 'retry-after': retryAfter } },
      );
    }
    a.intercept({ path: '/api/v1/tasks' }).reply(
      200,
      { items: [{ ID: '1', Name: 'Nightly' }], paging: { page: 1, perPage: 1000, totalItems: 1, totalPages: 1 } },
      { headers: JSON_HEADERS },
    );
    const { retry, delays } = clockedRetry(clock);
    const tasks = await automationClient(agent, { retry, now: clock.now }).listTasks();
    expect(tasks).toHaveLength(1);
    expect(delays).toEqual(Array.from({ length: 9 }, () => 2000));
  });

  it('once spent, fails saying the server throttled, for how long, and the budget', async () => {
    const { agent, pool } = createMock();
    const a = pool(AUTOMATION);
    const clock = fakeClock();
    replyToken(a, { access: 'tok' });
    a.intercept({ path: '/api/v1/tasks' })
      .reply(429, { status: 429, title: 'Too Many Requests' }, { headers: { ...JSON_HEADERS, 'retry-after': '4' } })
      .persist();
    const { retry, delays } = clockedRetry(clock, { budgetMs: 10_000 });
    const err = await automationClient(agent, { retry, now: clock.now })
      .listTasks()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 429, throttled: true, outcome: 'rejected', attempts: 3 });
    expect((err as Error).message).toBe(
      'automation: GET /api/v1/tasks: the server throttled (429) for 8 s (it asks for 4 s more); retry budget 10 s spent (3 attempts)',
    );
    expect(delays).toEqual([4000, 4000]);
  });

  it('retries a write refused with 429 (nothing was processed), honouring Retry-After', async () => {
    const { agent, pool, calls } = createMock();
    const a = pool(AUTOMATION);
    const clock = fakeClock();
    replyToken(a, { access: 'tok' });
    a.intercept({ path: '/api/v1/tasks', method: 'POST' }).reply(429, {}, { headers: { ...JSON_HEADERS, 'retry-after': '3' } });
    a.intercept({ path: '/api/v1/tasks', method: 'POST' }).reply(201, { ID: '77', Name: 'Nightly' }, { headers: JSON_HEADERS });
    const { retry, delays } = clockedRetry(clock);
    await expect(automationClient(agent, { retry, now: clock.now }).createTask({ Name: 'Nightly' })).resolves.toMatchObject({ ID: '77' });
    expect(calls().filter((c) => c.method === 'POST' && c.path === '/api/v1/tasks')).toHaveLength(2);
    expect(delays).toEqual([3000]);
  });

  it('still sends a write that got 503 only once (its outcome is unknown), whatever Retry-After says', async () => {
    const { agent, pool, calls } = createMock();
    const a = pool(AUTOMATION);
    replyToken(a, { access: 'tok' });
    a.intercept({ path: '/api/v1/tasks', method: 'POST' }).reply(503, {}, { headers: { ...JSON_HEADERS, 'retry-after': '1' } });
    const err = await automationClient(agent)
      .createTask({ Name: 'Nightly' })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 503, outcome: 'unknown', attempts: 1 });
    expect(calls().filter((c) => c.method === 'POST' && c.path === '/api/v1/tasks')).toHaveLength(1);
  });

  it('is printed with -v, with the deadlines, and each throttled retry says how much is left', async () => {
    const { agent, pool } = createMock();
    const a = pool(AUTOMATION);
    const clock = fakeClock();
    replyToken(a, { access: 'tok' });
    a.intercept({ path: '/api/v1/info' }).reply(429, {}, { headers: { ...JSON_HEADERS, 'retry-after': '5' } });
    a.intercept({ path: '/api/v1/info' }).reply(200, { appVersion: 'x' }, { headers: JSON_HEADERS });
    const logger = recordingLogger();
    const { retry } = clockedRetry(clock, { budgetMs: 45_000 });
    await automationClient(agent, { retry, now: clock.now, logger }).info();
    expect(logger.lines).toContain('debug: automation: request deadline 120 s, export deadline 600 s, retry budget 45 s, up to 8 requests in flight');
    expect(logger.lines).toContain('debug: automation: GET /api/v1/info: 429, throttled, retry 2 in 5000 ms (Retry-After); 40 s of the 45 s retry budget left');
    expect(logger.lines).toContain('debug: automation: throttled (429): at most 4 requests in flight');
  });
});

describe('limits from the environment', () => {
  it('reads the deadlines and the retry budget, and refuses what is not milliseconds', () => {
    expect(readTimeoutsFromEnv({})).toBeUndefined();
    expect(readTimeoutsFromEnv({ MFTOPS_HTTP_DEADLINE_MS: '1500', MFTOPS_SNAPSHOT_DEADLINE_MS: '900000' })).toEqual({
      deadlineMs: 1500,
      exportDeadlineMs: 900_000,
    });
    expect(readTimeoutsFromEnv({ MFTOPS_HTTP_TIMEOUT_MS: '500' })).toEqual({ headersMs: 500, bodyMs: 500, connectMs: 500 });
    expect(readRetryFromEnv({ MFTOPS_RETRY_BUDGET_MS: '5000' })).toEqual({ budgetMs: 5000 });
    expect(readRetryFromEnv({})).toEqual({});
    expect(() => readTimeoutsFromEnv({ MFTOPS_HTTP_DEADLINE_MS: '2s' })).toThrow(
      'MFTOPS_HTTP_DEADLINE_MS must be a whole number of milliseconds from 100 to 3600000, not "2s"',
    );
    expect(() => readRetryFromEnv({ MFTOPS_RETRY_BUDGET_MS: '-1' })).toThrow(/MFTOPS_RETRY_BUDGET_MS must be a whole number/);
  });
});
